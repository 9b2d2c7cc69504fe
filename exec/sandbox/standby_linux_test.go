package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// requireStandbys skips unless runs start from a thread here, and turns
// standby launchers on for the test.
func requireStandbys(t *testing.T) {
	t.Helper()
	requireSandbox(t)
	if !Detect().ThreadLaunch {
		t.Skip("runs cannot start from a thread here, so there are no standby launchers")
	}
	withCaps(t, Detect())
	setStandbys(t, true)
}

// readyFor runs a command under spec twice (a standby is readied from the
// second run on) and waits for the standby.
func readyFor(t *testing.T, spec Spec) {
	t.Helper()
	for range 2 {
		if r := sh(t, spec, "true"); r.err != nil {
			t.Fatalf("%v: %s", r.err, r.out)
		}
	}
	// A standby is readied in the background: on a loaded machine (CI's,
	// or this one's with parallel test binaries) that took over 2 s.
	for range 1500 {
		standbys.Lock()
		ready := len(standbys.ready) > 0
		standbys.Unlock()
		if ready {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no standby readied after two runs")
}

// adopts prepares script under spec and reports whether Prepare adopted
// the standby, then runs it.
func adopts(t *testing.T, spec Spec, script string) (bool, result) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = spec.Cwd
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	h, err := Prepare(cmd, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	adopted := h.standby != nil
	if err := h.Start(); err != nil {
		return adopted, result{err: err}
	}
	err = cmd.Wait()
	return adopted, result{out: out.String(), err: err}
}

// TestStandbyAdopted checks that a run that adopts a standby gets the
// whole sandbox: its workspace and temp dir writable, the rest not, .git
// protected, the network cut, and its own /proc.
func TestStandbyAdopted(t *testing.T) {
	requireStandbys(t)
	ws, _ := workspace(t)
	spec := Spec{Profile: WorkspaceWrite, Cwd: ws, ProtectGit: true}
	readyFor(t, spec)
	adopted, r := adopts(t, spec, `echo x > inside && echo x > "$TMPDIR/t" && echo "tmp=$TMPDIR" && echo pid=$$ &&
		! echo x > ../sibling/new 2>/dev/null && ! echo x > .git/hooks/pre-commit 2>/dev/null &&
		! chmod 777 ../sibling/file 2>/dev/null && grep -q '^NoNewPrivs:.*1' /proc/self/status`)
	if !adopted {
		t.Fatal("the standby was not adopted")
	}
	if r.err != nil || !strings.Contains(r.out, "pid=2") { // agentexec-init is 1
		t.Fatalf("%v: %s", r.err, r.out)
	}
	tmp := strings.TrimSpace(strings.SplitN(strings.SplitN(r.out, "tmp=", 2)[1], "\n", 2)[0])
	if !strings.Contains(tmp, tempDirPrefix()) {
		t.Errorf("TMPDIR %q is not this process's per-run temp dir", tmp)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the adopted temp dir %s outlived Close: %v", tmp, err)
	}
}

// TestStandbyRefused checks that a standby readied for other layers, or
// before the host's mounts changed, is thrown away, and that the run then
// gets its own layers, not the standby's.
func TestStandbyRefused(t *testing.T) {
	requireStandbys(t)
	tests := []struct {
		name   string
		change func(t *testing.T, ws, other string) Spec
		script string // must succeed under the run's own layers
	}{
		{"other workspace", func(t *testing.T, ws, other string) Spec {
			return Spec{Profile: WorkspaceWrite, Cwd: other}
		}, `echo x > inside && ! echo x > ../ws/inside 2>/dev/null`},
		{"network on", func(t *testing.T, ws, other string) Spec {
			return Spec{Profile: WorkspaceWrite, Cwd: ws, Network: true}
		}, `true`},
		{"read-only", func(t *testing.T, ws, other string) Spec {
			return Spec{Profile: ReadOnly, Cwd: ws}
		}, `! echo x > inside 2>/dev/null`},
		{".git made since", func(t *testing.T, ws, other string) Spec {
			if err := os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755); err != nil {
				t.Fatal(err)
			}
			return Spec{Profile: WorkspaceWrite, Cwd: ws, ProtectGit: true}
		}, `! echo x > .git/hooks/pre-commit 2>/dev/null`},
		{"workspace made again", func(t *testing.T, ws, other string) Spec {
			if err := os.Rename(ws, ws+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			return Spec{Profile: WorkspaceWrite, Cwd: ws, ProtectGit: true}
		}, `echo x > inside && [ ! -e ../ws.old/inside ]`},
		{"host mounts changed", func(t *testing.T, ws, other string) Spec {
			mnt := t.TempDir()
			if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m"); err != nil {
				t.Skipf("cannot mount a tmpfs: %v", err)
			}
			t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
			return Spec{Profile: WorkspaceWrite, Cwd: ws, ProtectGit: true}
		}, `true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			ws, other := filepath.Join(base, "ws"), filepath.Join(base, "other")
			os.Mkdir(ws, 0o755)
			os.Mkdir(other, 0o755)
			readyFor(t, Spec{Profile: WorkspaceWrite, Cwd: ws, ProtectGit: true})
			spec := tt.change(t, ws, other)
			adopted, r := adopts(t, spec, tt.script)
			if adopted {
				t.Error("a standby readied for other layers was adopted")
			}
			if r.err != nil {
				t.Errorf("the run did not get its own layers: %v: %s", r.err, r.out)
			}
		})
	}
}

// TestSweepTempDirs checks that the per-run temp dirs of processes that
// have exited are removed, and no others.
func TestSweepTempDirs(t *testing.T) {
	cmd := exec.Command("/bin/true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.Process.Pid // exited and reaped: no such process now
	mk := func(name string) string {
		p := filepath.Join(os.TempDir(), name)
		if err := os.MkdirAll(filepath.Join(p, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(p) })
		return p
	}
	gone := mk(fmt.Sprintf("agentexec-run-%d-123", dead))
	kept := []string{
		mk(tempDirPrefix() + "456"),
		mk("agentexec-run-1-789"), // init: alive
		mk("agentexec-run-notapid-1"),
	}
	sweepTempDirs()
	_, err := os.Stat(gone)
	switch {
	case !seesEveryPID():
		// From a nested PID namespace (a container) every outside process
		// looks exited, so the sweep removes nothing there.
		if err != nil {
			t.Errorf("%s removed from a nested PID namespace: %v", gone, err)
		}
	case !os.IsNotExist(err):
		t.Errorf("%s of an exited process kept: %v", gone, err)
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}

func TestLayerKey(t *testing.T) {
	base := &wireSpec{Path: "/bin/sh", Args: []string{"sh"}, Env: []string{"A=1"}, Dir: "/ws",
		Writable: []string{"/ws", "/tmp/t"}, Limits: Limits{CPUSeconds: 1}, Plan: plan{Thread: true, MountNS: true}}
	same := *base
	same.Path, same.Args, same.Env, same.Dir, same.Limits = "/bin/true", []string{"true"}, nil, "/ws/sub", Limits{}
	if layerKey(base) != layerKey(&same) {
		t.Error("the command, environment, directory or rlimits changed the key")
	}
	for name, change := range map[string]func(w *wireSpec){
		"network":     func(w *wireSpec) { w.Network = true },
		"writable":    func(w *wireSpec) { w.Writable = []string{"/ws"} },
		"readable":    func(w *wireSpec) { w.Readable = []string{"/ws"} },
		"protected":   func(w *wireSpec) { w.Protected = []string{"/ws/.git"} },
		"masked":      func(w *wireSpec) { w.Masked = []string{"/run/docker.sock"} },
		"private shm": func(w *wireSpec) { w.PrivateShm = true },
		"terminals":   func(w *wireSpec) { w.Terminals = []string{"/dev/pts/3"} },
		"plan":        func(w *wireSpec) { w.Plan.SeccompNet = true },
	} {
		w := *base
		change(&w)
		if layerKey(&w) == layerKey(base) {
			t.Errorf("%s: a change of the layers kept the key", name)
		}
	}
}

// The main thread's mount namespace and effective capabilities when the
// tests started.
var mainNS, mainCapEff string

// mainThreadState reads the main thread's mount namespace and CapEff:
// what /proc/self shows.
func mainThreadState() (ns, capEff string) {
	ns, _ = os.Readlink("/proc/self/ns/mnt")
	b, _ := os.ReadFile("/proc/self/status")
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			capEff = strings.TrimSpace(v)
		}
	}
	return ns, capEff
}

// TestMainThreadUntouched checks that no launcher or helper thread is the
// main thread, whose state /proc/self shows to the whole program: after
// all the runs so far and thirty more, it still has its mount namespace
// and capabilities.
func TestMainThreadUntouched(t *testing.T) {
	requireStandbys(t)
	ws, _ := workspace(t)
	for range 30 {
		if r := sh(t, Spec{Profile: WorkspaceWrite, Cwd: ws}, "true"); r.err != nil {
			t.Fatalf("%v: %s", r.err, r.out)
		}
	}
	if ns, capEff := mainThreadState(); ns != mainNS || capEff != mainCapEff {
		t.Errorf("the main thread changed: mount namespace %s -> %s, CapEff %s -> %s", mainNS, ns, mainCapEff, capEff)
	}
}

// TestReleaseLeavesNothing checks that Release removes the standby's temp
// dir and every pooled cgroup of this process.
func TestReleaseLeavesNothing(t *testing.T) {
	requireStandbys(t)
	ws, _ := workspace(t)
	readyFor(t, Spec{Profile: WorkspaceWrite, Cwd: ws})
	standbys.Lock()
	tmp := standbys.ready[0].tempDir
	standbys.Unlock()
	Release()
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the standby's temp dir %s is still there: %v", tmp, err)
	}
	parent, err := cgroupParent("v1")
	if err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(parent, fmt.Sprintf("agentexec-%d-*", os.Getpid())))
	if len(left) > 0 {
		t.Errorf("cgroups left after Release: %v", left)
	}
}

// TestLayerFailureFallsBack checks that a run whose launcher thread cannot
// take a layer on starts through the trampoline instead, with the whole
// sandbox, and that later runs go there directly.
func TestLayerFailureFallsBack(t *testing.T) {
	requireStandbys(t)
	setStandbys(t, false)
	defer func() { failStepForTest = ""; threadBroken.Store(false) }()
	failStepForTest = "landlock"
	ws, _ := workspace(t)
	spec := Spec{Profile: WorkspaceWrite, Cwd: ws, ProtectGit: true}
	for i := range 2 {
		r := sh(t, spec, `echo x > inside && ! echo x > ../sibling/new 2>/dev/null && ! echo x > .git/hooks/h 2>/dev/null && grep -q '^NoNewPrivs:.*1' /proc/self/status`)
		if r.err != nil || r.report.Launcher != "trampoline" {
			t.Errorf("run %d: %v (launcher %q): %s", i, r.err, r.report.Launcher, r.out)
		}
	}
	if !threadBroken.Load() {
		t.Error("the failure was not remembered")
	}
	// The exec gate, whose tracer waits on the first launcher's control
	// socket from before the start, follows the run to the trampoline: a
	// denied program is still refused there, and an allowed one runs.
	if !Detect().ExecGate {
		return
	}
	for _, tt := range []struct {
		script  string
		refused bool
	}{
		{"rm -f keep", true},
		{"cat keep", false},
	} {
		threadBroken.Store(false) // each run falls back anew
		ws, _ := workspace(t)
		if err := os.WriteFile(filepath.Join(ws, "keep"), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		g := &gateLog{deny: map[string]bool{"rm": true}}
		r := sh(t, Spec{Profile: WorkspaceWrite, Cwd: ws, ExecCheck: g.check}, tt.script)
		_, kept := os.Stat(filepath.Join(ws, "keep"))
		if r.report.Launcher != "trampoline" || kept != nil || (len(g.denied) > 0) != tt.refused || (!tt.refused && r.err != nil) {
			t.Errorf("gated %s: launcher %q, keep %v, denied %d, err %v: %s", tt.script, r.report.Launcher, kept, len(g.denied), r.err, r.out)
		}
	}
}

// A process in a PID namespace of its own cannot see the processes
// outside it, so it must not take them for exited: swept from there, the
// live temp dir of a run outside (named after this test process, alive)
// stays. The sweep runs in this test binary restarted as PID 1 of a new
// PID namespace.
func TestSweepFromANestedPIDNamespace(t *testing.T) {
	if dir := os.Getenv("AGENTEXEC_TEST_SWEEP_DIR"); dir != "" {
		if seesEveryPID() {
			t.Fatal("in a nested PID namespace, seesEveryPID is true")
		}
		sweepTempDirs()
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("a new PID namespace needs root here")
	}
	if !seesEveryPID() {
		t.Skip("this test runs in a nested PID namespace already")
	}
	live := filepath.Join(os.TempDir(), tempDirPrefix()+"nested")
	if err := os.MkdirAll(live, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(live) })
	cmd := exec.Command(os.Args[0], "-test.run=^TestSweepFromANestedPIDNamespace$", "-test.count=1")
	cmd.Env = append(os.Environ(), "AGENTEXEC_TEST_SWEEP_DIR="+live)
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the sweep in a nested PID namespace: %v\n%s", err, out)
	}
	if _, err := os.Stat(live); err != nil {
		t.Fatalf("a live run's temp dir was swept from a nested PID namespace: %v", err)
	}
}

// TestStandbysForConcurrentRuns checks that while two runs go on at once,
// two standbys are readied (a server with --parallel 2 had one, so every
// other run took its layers on itself), and that two runs adopting them
// each get a sandbox of their own: their own temp dir and PID namespace,
// the workspace writable and the rest not.
func TestStandbysForConcurrentRuns(t *testing.T) {
	requireStandbys(t)
	ws, _ := workspace(t)
	spec := Spec{Profile: WorkspaceWrite, Cwd: ws}
	readyFor(t, spec)
	long := exec.Command("/bin/sh", "-c", "read x")
	stdin, err := long.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	h, err := Prepare(long, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	if r := sh(t, spec, "true"); r.err != nil { // a second run while the first goes on
		t.Fatalf("%v: %s", r.err, r.out)
	}
	ready := 0
	for range 300 {
		standbys.Lock()
		ready = len(standbys.ready)
		standbys.Unlock()
		if ready >= 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	stdin.Close()
	long.Wait()
	if ready < 2 {
		t.Fatalf("%d standbys readied while two runs went on, want 2", ready)
	}
	type out struct {
		adopted bool
		r       result
	}
	outs := make(chan out, 2)
	for range 2 {
		go func() {
			a, r := adopts(t, spec, `echo x > inside.$$ && ! echo x > ../sibling/new 2>/dev/null &&
				echo "tmp=$TMPDIR" && echo "pidns=$(stat -L -c %i /proc/self/ns/pid)" && echo pid=$$ && sleep 0.2`)
			outs <- out{a, r}
		}()
	}
	seen := map[string]bool{}
	for range 2 {
		o := <-outs
		if !o.adopted {
			t.Error("a run did not adopt a standby")
		}
		if o.r.err != nil || !strings.Contains(o.r.out, "pid=2") {
			t.Fatalf("%v: %s", o.r.err, o.r.out)
		}
		for _, f := range strings.Fields(o.r.out) {
			if strings.HasPrefix(f, "tmp=") || strings.HasPrefix(f, "pidns=") {
				if seen[f] {
					t.Errorf("two runs shared %s", f)
				}
				seen[f] = true
			}
		}
	}
}

// TestStandbyTempDirRemoved checks that a run whose standby's temp dir was
// removed meanwhile (a temp cleaner) gets a temp dir of its own and runs,
// from a thread still: it failed with the standby's dir missing, and its
// failure sent every later run to the trampoline.
func TestStandbyTempDirRemoved(t *testing.T) {
	requireStandbys(t)
	defer threadBroken.Store(false)
	ws, _ := workspace(t)
	spec := Spec{Profile: WorkspaceWrite, Cwd: ws}
	readyFor(t, spec)
	standbys.Lock()
	gone := standbys.ready[0].tempDir
	standbys.Unlock()
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	r := sh(t, spec, `echo x > "$TMPDIR/f" && echo "tmp=$TMPDIR"`)
	if r.err != nil || strings.Contains(r.out, gone) || r.report.Launcher != "thread" {
		t.Errorf("%v (launcher %q): %s", r.err, r.report.Launcher, r.out)
	}
}
