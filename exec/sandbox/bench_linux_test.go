package sandbox

import (
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// benchRuns times each iteration of run and reports the median wall time,
// which the load of a shared machine skews less than the mean, and the
// median CPU time (user+system) of the started process and what it
// waited for, which the load skews least.
func benchRuns(b *testing.B, run func() (*os.ProcessState, error)) {
	d := make([]time.Duration, 0, b.N)
	cpu := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		ps, err := run()
		if err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(start))
		cpu = append(cpu, ps.UserTime()+ps.SystemTime())
	}
	slices.Sort(d)
	slices.Sort(cpu)
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "median-µs/run")
	b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds()), "median-cpu-µs/run")
}

// BenchmarkTrue compares /bin/true started by os/exec with the same run
// through the sandbox, with each way of cutting the network.
func BenchmarkTrue(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		benchRuns(b, func() (*os.ProcessState, error) {
			cmd := exec.Command("/bin/true")
			err := cmd.Run()
			return cmd.ProcessState, err
		})
	})
	// The floor of any re-exec trampoline: this binary started and exiting
	// in Main, with no namespace and no layer.
	b.Run("reexec-only", func(b *testing.B) {
		benchRuns(b, func() (*os.ProcessState, error) {
			cmd := exec.Command("/proc/self/exe")
			cmd.Args = []string{probeName}
			err := cmd.Run()
			return cmd.ProcessState, err
		})
	})
	ws := b.TempDir()
	noThread := func(c *Capabilities) { c.ThreadLaunch = false }
	for _, bc := range []struct {
		name    string
		network bool
		caps    func(*Capabilities)
	}{
		{"network-off", false, nil},
		{"network-on", true, nil},
		{"trampoline-network-off", false, noThread},
		{"trampoline-netns-only", false, func(c *Capabilities) { noThread(c); c.Seccomp = false }},
		{"trampoline-network-on", true, noThread},
		{"trampoline-no-pidns-no-cgroup", true, func(c *Capabilities) { noThread(c); c.PIDNS, c.CgroupPids = false, "" }},
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
			benchRuns(b, func() (*os.ProcessState, error) { return runSandboxed(spec, "/bin/true") })
		})
	}
}

func runSandboxed(spec Spec, argv ...string) (*os.ProcessState, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	h, err := Prepare(cmd, spec)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	if err := h.Start(); err != nil {
		return nil, err
	}
	err = cmd.Wait()
	return cmd.ProcessState, err
}

// BenchmarkNamespaces measures what each namespace adds to starting
// /bin/true, to choose between a network namespace and the seccomp socket
// filter (which costs nothing measurable: a few BPF instructions).
func BenchmarkNamespaces(b *testing.B) {
	if !isRoot() {
		b.Skip("needs root")
	}
	for _, bc := range []struct {
		name  string
		flags uintptr
	}{
		{"none", 0},
		{"mnt", syscall.CLONE_NEWNS},
		{"pid", syscall.CLONE_NEWPID},
		{"ipc", syscall.CLONE_NEWIPC},
		{"net", syscall.CLONE_NEWNET},
	} {
		b.Run(bc.name, func(b *testing.B) {
			benchRuns(b, func() (*os.ProcessState, error) {
				cmd := exec.Command("/bin/true")
				cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: bc.flags}
				err := cmd.Run()
				return cmd.ProcessState, err
			})
		})
	}
}
