package exec

import (
	"context"
	osexec "os/exec"
	"testing"
	"time"

	"github.com/agentexec/agentexec/gate"
)

// BenchmarkOSExecTrue is the baseline: plain os/exec of /bin/true.
func BenchmarkOSExecTrue(b *testing.B) {
	for b.Loop() {
		if err := osexec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunnerTrue is a gated RunCommand of /bin/true, unsandboxed:
// validation, the gate, env policy, capture pipes and tree cleanup.
func BenchmarkRunnerTrue(b *testing.B) {
	r := &Runner{Mode: gate.ModeYolo, Sandbox: "none"}
	req := Request{Argv: []string{"/bin/true"}}
	for b.Loop() {
		if obs := r.RunCommand(context.Background(), req); obs.Status != StatusExited {
			b.Fatal(obs.Error)
		}
	}
}

// BenchmarkDropInTrue is the os/exec drop-in running /bin/true.
func BenchmarkDropInTrue(b *testing.B) {
	r := &Runner{Mode: gate.ModeYolo, Sandbox: "none"}
	for b.Loop() {
		c := Command("/bin/true")
		c.Runner = r
		if err := c.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGateOnly is the decision alone, the part the gate adds.
func BenchmarkGateOnly(b *testing.B) {
	r := &Runner{Mode: gate.ModeYolo, Sandbox: "none"}
	req := Request{Argv: []string{"/bin/true"}}
	for b.Loop() {
		if _, err := r.Check(req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunnerVsOSExec alternates plain os/exec and a gated
// RunCommand of /bin/true in each iteration, so a loaded machine slows
// both alike, and reports their ratio.
func BenchmarkRunnerVsOSExec(b *testing.B) {
	benchVsOSExec(b, &Runner{Mode: gate.ModeYolo, Sandbox: "none"})
}

// BenchmarkSandboxedRunnerVsOSExec is BenchmarkRunnerVsOSExec with the
// default workspace-write sandbox: what an agent's command costs end to
// end over plain os/exec.
func BenchmarkSandboxedRunnerVsOSExec(b *testing.B) {
	r := &Runner{Mode: gate.ModeYolo, Cwd: b.TempDir()}
	if obs := r.RunCommand(context.Background(), Request{Argv: []string{"/bin/true"}}); obs.Status != StatusExited {
		b.Skipf("no workspace-write sandbox here: %s", obs.Error)
	}
	benchVsOSExec(b, r)
}

func benchVsOSExec(b *testing.B, r *Runner) {
	req := Request{Argv: []string{"/bin/true"}}
	var plain, gated time.Duration
	for b.Loop() {
		t0 := time.Now()
		if err := osexec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if obs := r.RunCommand(context.Background(), req); obs.Status != StatusExited {
			b.Fatal(obs.Error)
		}
		plain, gated = plain+t1.Sub(t0), gated+time.Since(t1)
	}
	b.ReportMetric(float64(plain.Nanoseconds())/float64(b.N), "osexec-ns/op")
	b.ReportMetric(float64(gated.Nanoseconds())/float64(b.N), "runner-ns/op")
	b.ReportMetric(float64(gated)/float64(plain), "ratio")
}
