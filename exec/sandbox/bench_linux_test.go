package sandbox

import (
	"os"
	"os/exec"
	"slices"
	"strings"
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

// BenchmarkTrue compares /bin/true started by plain os/exec with the same
// run through the sandbox (Prepare, Start, Wait, Close), for each launcher
// and way of cutting the network. Every iteration runs both, one after the
// other, so that the drift of a shared machine's load falls on both alike:
// added-µs/run is the median of the per-iteration differences.
func BenchmarkTrue(b *testing.B) {
	plain := func() (*os.ProcessState, error) {
		cmd := exec.Command("/bin/true")
		err := cmd.Run()
		return cmd.ProcessState, err
	}
	// The floor of any re-exec trampoline: this binary started and exiting
	// in Main, with no namespace and no layer.
	b.Run("reexec-only", func(b *testing.B) {
		benchPaired(b, plain, func() (*os.ProcessState, error) {
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
		{"network-off-no-standby", false, nil},
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
			if strings.HasSuffix(bc.name, "-no-standby") {
				setStandbys(b, false)
			}
			spec := Spec{Profile: WorkspaceWrite, Cwd: ws, Network: bc.network, TempDir: ws}
			benchPaired(b, plain, func() (*os.ProcessState, error) { return runSandboxed(spec, "/bin/true") })
		})
	}
}

// benchPaired runs base and run in alternating blocks of ten, b.N runs in
// all, so that the drift of a shared machine's load falls on both alike
// while the work a run leaves to the kernel after it ends (its namespaces
// torn down) mostly stays with the runs that caused it. It reports the
// median wall time of each, their ratio and their difference.
func benchPaired(b *testing.B, base, run func() (*os.ProcessState, error)) {
	const block = 10
	var times [2][]time.Duration
	fs := [2]func() (*os.ProcessState, error){base, run}
	i := 0
	for b.Loop() {
		k := i / block % 2
		start := time.Now()
		if _, err := fs[k](); err != nil {
			b.Fatal(err)
		}
		times[k] = append(times[k], time.Since(start))
		i++
	}
	if len(times[1]) == 0 {
		b.Fatalf("b.N %d: want at least %d runs", b.N, block+1)
	}
	med := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	mb, mr := med(times[0]), med(times[1])
	b.ReportMetric(float64(mb.Microseconds()), "plain-median-µs/run")
	b.ReportMetric(float64(mr.Microseconds()), "median-µs/run")
	b.ReportMetric(float64(mr)/float64(mb), "ratio")
	b.ReportMetric(float64((mr - mb).Microseconds()), "added-µs/run")
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
