package sandbox

import (
	"os/exec"
	"slices"
	"testing"
	"time"
)

// benchRuns times each iteration of run and reports the median, which the
// load of a shared machine skews less than the mean.
func benchRuns(b *testing.B, run func() error) {
	d := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		if err := run(); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "median-µs/run")
}

// BenchmarkTrue compares /bin/true started by os/exec with the same run
// through the sandbox, with each way of cutting the network.
func BenchmarkTrue(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		benchRuns(b, func() error { return exec.Command("/bin/true").Run() })
	})
	ws := b.TempDir()
	for _, bc := range []struct {
		name    string
		network bool
		caps    func(*Capabilities)
	}{
		{"netns+seccomp", false, nil},
		{"seccomp-only", false, func(c *Capabilities) { c.NetNS = false }},
		{"network-on", true, nil},
		{"no-pidns-no-cgroup", true, func(c *Capabilities) { c.PIDNS, c.CgroupPids = false, "" }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			caps := Detect()
			if _, err := makePlan(Spec{Profile: WorkspaceWrite}, caps); err != nil {
				b.Skip(err)
			}
			if bc.caps != nil {
				bc.caps(&caps)
			}
			defer func(f func() Capabilities) { detectCaps = f }(detectCaps)
			detectCaps = func() Capabilities { return caps }
			spec := Spec{Profile: WorkspaceWrite, Cwd: ws, Network: bc.network, TempDir: ws}
			benchRuns(b, func() error { return runSandboxed(spec, "/bin/true") })
		})
	}
}

func runSandboxed(spec Spec, argv ...string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	h, err := Prepare(cmd, spec)
	if err != nil {
		return err
	}
	defer h.Close()
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := h.Started(); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return err
	}
	return cmd.Wait()
}
