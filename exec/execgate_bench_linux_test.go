package exec

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/agentexec/agentexec/exec/sandbox"
	"github.com/agentexec/agentexec/gate"
)

// BenchmarkExecGate is what the run-time exec gate costs: each iteration
// runs the same request with the gate off and on (in alternating order,
// so that a loaded machine slows both alike), under the same sandbox
// profile and policy (allow Bash(*), two deny rules: every exec is
// judged). Workloads: a single /bin/true, a shell loop of 1,000 /bin/true,
// and `make -B -j2` of testdata/cproject (about 40 programs). Reported:
// off-ns/op, on-ns/op, their ratio and the time added per run
// (scripts/bench-exec.sh prints the medians).
func BenchmarkExecGate(b *testing.B) {
	if !hostExecGate() {
		b.Skipf("no exec gate here: %s", execGateProblem())
	}
	loads := []struct {
		name string
		req  Request
		make bool
	}{
		{"true", Request{Argv: []string{"/bin/true"}}, false},
		{"loop1000", Request{Command: "for i in $(seq 1000); do /bin/true; done", Shell: "bash"}, false},
		{"make-j2", Request{Command: "make -B -j2 -s", Shell: "bash"}, true},
	}
	for _, l := range loads {
		for _, profile := range []string{"workspace-write", "none"} {
			b.Run(l.name+"/"+profile, func(b *testing.B) {
				if l.make {
					if _, err := exec.LookPath("make"); err != nil {
						b.Skip("make is not installed")
					}
					if _, err := exec.LookPath("cc"); err != nil {
						b.Skip("no C compiler")
					}
				}
				benchGateOnOff(b, profile, l.req, l.make)
			})
		}
	}
}

func benchGateOnOff(b *testing.B, profile string, req Request, cproject bool) {
	pol, err := gate.ParsePolicy([]byte(gatePolicy), "bench.json")
	if err != nil {
		b.Fatal(err)
	}
	ws := b.TempDir()
	if cproject {
		if err := os.CopyFS(ws, os.DirFS("../testdata/cproject")); err != nil {
			b.Fatal(err)
		}
	}
	// Without the gate the static gate asks about project code run by
	// name (make) while deny rules are in force: the off run approves it.
	yes := func(context.Context, Request, gate.Decision) (bool, error) { return true, nil }
	off := &Runner{Policy: pol, Sandbox: profile, Cwd: ws, ExecGate: ExecGateOff, Approver: yes}
	on := &Runner{Policy: pol, Sandbox: profile, Cwd: ws}
	var cpuOff, cpuOn time.Duration
	run := func(r *Runner) time.Duration {
		c0 := cpuTime()
		t0 := time.Now()
		obs := r.RunCommand(context.Background(), req)
		d := time.Since(t0)
		if r == on {
			cpuOn += cpuTime() - c0
		} else {
			cpuOff += cpuTime() - c0
		}
		if obs.Status != StatusExited || (obs.ExitCode != nil && *obs.ExitCode != 0) {
			b.Fatalf("%s %s: %+v", obs.Status, obs.Error, obs)
		}
		return d
	}
	run(off) // the first runs pay for Detect, the helper and the pools
	run(on)
	cpuOff, cpuOn = 0, 0
	var toff, ton time.Duration
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			toff += run(off)
			ton += run(on)
		} else {
			ton += run(on)
			toff += run(off)
		}
		i++
	}
	n := float64(b.N)
	b.ReportMetric(float64(toff.Nanoseconds())/n, "off-ns/op")
	b.ReportMetric(float64(ton.Nanoseconds())/n, "on-ns/op")
	b.ReportMetric(float64(ton)/float64(toff), "ratio")
	b.ReportMetric(float64((ton-toff).Microseconds())/n, "added-us/op")
	// Processor time, this process's and the run's (every process of
	// the tree is waited for): what a loaded machine's wall time blurs.
	b.ReportMetric(float64(cpuOn)/float64(cpuOff), "cpu-ratio")
	b.ReportMetric(float64((cpuOn-cpuOff).Microseconds())/n, "cpu-added-us/op")
}

// cpuTime is the processor time this process and its waited-for
// descendants have used.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

// BenchmarkExecCheckSeen is the exec gate's check of a program the run
// allowed already, as a loop or a build starts it again and again: the
// tracer's share of such an exec besides reading it, while the program
// waits at its exec stop.
func BenchmarkExecCheckSeen(b *testing.B) {
	pol, err := gate.ParsePolicy([]byte(gatePolicy), "bench.json")
	if err != nil {
		b.Fatal(err)
	}
	g := &execGate{runner: &Runner{}, pol: pol}
	ev := sandbox.ExecEvent{PID: os.Getpid(), Argv: []string{"/bin/true", "-x"}, Exe: "/usr/bin/true", Cwd: b.TempDir()}
	if !g.check(ev).Allow {
		b.Fatal("/bin/true refused")
	}
	b.ReportAllocs()
	for b.Loop() {
		if !g.check(ev).Allow {
			b.Fatal("/bin/true refused")
		}
	}
}
