package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func requireExecGate(t *testing.T) {
	t.Helper()
	if c := Detect(); !c.ExecGate {
		t.Skipf("no exec gate here: %s", strings.Join(c.Problems, "; "))
	}
}

// gateLog is an ExecCheck that refuses every program whose argv[0] or
// executable is named in deny, and records what it saw.
type gateLog struct {
	mu     sync.Mutex
	deny   map[string]bool
	seen   []ExecEvent
	denied []ExecEvent
	// parents[i] is seen[i].Parent(), read at the exec, while it runs.
	parents []parentOfExec
}

type parentOfExec struct {
	pid  int
	argv []string
}

func (g *gateLog) check(ev ExecEvent) ExecVerdict {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seen = append(g.seen, ev)
	pid, argv := ev.Parent()
	g.parents = append(g.parents, parentOfExec{pid, argv})
	if g.deny[filepath.Base(ev.Argv[0])] || g.deny[filepath.Base(ev.Exe)] {
		g.denied = append(g.denied, ev)
		return ExecVerdict{}
	}
	return ExecVerdict{Allow: true}
}

// eachGated runs f under each launcher and without a sandbox (profile
// None), all with the exec gate.
func eachGated(t *testing.T, f func(t *testing.T, spec Spec)) {
	t.Helper()
	requireExecGate(t)
	t.Run("none", func(t *testing.T) {
		ws, _ := workspace(t)
		f(t, Spec{Profile: None, Cwd: ws})
	})
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		f(t, Spec{Profile: WorkspaceWrite, Cwd: ws})
	})
}

// TestExecGateRefuses checks that a program started anywhere in the run's
// tree is stopped before it runs, whatever started it, and that the others
// run.
func TestExecGateRefuses(t *testing.T) {
	eachGated(t, func(t *testing.T, spec Spec) {
		tests := []struct {
			name, script string
			refused      bool
		}{
			{"child", `rm -f keep; touch late`, true},
			{"grandchild", `sh -c 'sh -c "rm -f keep"'`, true},
			{"exec in place", `exec rm -f keep`, true},
			{"setsid, double fork", `(setsid sh -c 'rm -f keep' &) ; sleep 1`, true},
			{"symlink", `ln -s /bin/rm zap && ./zap -f keep`, true},
			// A renamed copy is not rm by name: exec's gate finds it by
			// its bytes (sameProgram).
			{"thread's child", `python3 -c 'import threading, subprocess; t = threading.Thread(target=lambda: subprocess.run(["rm", "-f", "keep"])); t.start(); t.join()'`, true},
			{"exec from a thread", `python3 -c 'import threading, os; t = threading.Thread(target=lambda: os.execv("/bin/rm", ["rm", "-f", "keep"])); t.start(); t.join()'`, true},
			{"after failed execs", `PATH=/nonexistent/a:/nonexistent/b:$PATH env rm -f keep`, true},
			{"among parallel execs", `for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true & done; rm -f keep; wait`, true},
			{"near miss: cp", `cp keep copy`, false},
			{"near miss: parallel execs", `for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true & done; wait; cp keep copy`, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if strings.Contains(tt.script, "python3") {
					if _, err := exec.LookPath("python3"); err != nil {
						t.Skip("python3 is not installed")
					}
				}
				keep := filepath.Join(spec.Cwd, "keep")
				if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
				g := &gateLog{deny: map[string]bool{"rm": true}}
				spec := spec
				spec.ExecCheck = g.check
				r := sh(t, spec, tt.script)
				_, err := os.Stat(keep)
				if tt.refused && (err != nil || len(g.denied) == 0) {
					t.Errorf("keep: %v, refused %d: %v %s", err, len(g.denied), r.err, r.out)
				}
				if _, err := os.Stat(filepath.Join(spec.Cwd, "late")); err == nil {
					t.Error("the script went on after the refusal")
				}
				if !tt.refused && (err != nil || r.err != nil || len(g.denied) != 0) {
					t.Errorf("keep: %v, refused %v: %v %s", err, g.denied, r.err, r.out)
				}
				if !hasLayer(r.report, "exec-gate") {
					t.Errorf("report %+v lacks exec-gate", r.report)
				}
				for _, ev := range g.seen {
					if ev.Argv[0] == "/bin/sh" && ev.PID != 0 && strings.Contains(strings.Join(ev.Argv, " "), tt.script) {
						t.Errorf("the command itself was judged again: %+v", ev)
					}
				}
			})
		}
	})
}

func hasLayer(r Report, name string) bool {
	for _, l := range r.Layers {
		if l == name {
			return true
		}
	}
	return false
}

// TestExecGateEvent checks what the gate is told of a program: its argv,
// executable, directory and caller.
func TestExecGateEvent(t *testing.T) {
	eachGated(t, func(t *testing.T, spec Spec) {
		g := &gateLog{}
		spec.ExecCheck = g.check
		os.Mkdir(filepath.Join(spec.Cwd, "sub"), 0o755)
		r := sh(t, spec, `cd sub && ln -s /bin/echo hello && ./hello 'a b' c; /bin/true`)
		if r.err != nil || !strings.Contains(r.out, "a b c") {
			t.Fatalf("%v: %s", r.err, r.out)
		}
		var hello *ExecEvent
		var parent parentOfExec
		for i, ev := range g.seen {
			if ev.Argv[0] == "./hello" {
				hello, parent = &g.seen[i], g.parents[i]
			}
		}
		if hello == nil {
			t.Fatalf("./hello not seen: %+v", g.seen)
		}
		wantDir, _ := filepath.EvalSymlinks(filepath.Join(spec.Cwd, "sub"))
		if strings.Join(hello.Argv, "|") != "./hello|a b|c" || filepath.Base(hello.Exe) != "echo" || hello.Cwd != wantDir ||
			len(parent.argv) < 2 || parent.argv[0] != "/bin/sh" || parent.pid == 0 || parent.pid == hello.PID {
			t.Errorf("event %+v, parent %+v, want argv ./hello 'a b' c, exe echo, cwd %s, parent /bin/sh -c", *hello, parent, wantDir)
		}
	})
}

// TestExecGateFailedExecs checks that an exec that fails (execvp trying
// each directory of PATH, a program that does not exist) is not judged,
// and that the caller goes on: only the exec that succeeds is.
func TestExecGateFailedExecs(t *testing.T) {
	eachGated(t, func(t *testing.T, spec Spec) {
		g := &gateLog{}
		spec.ExecCheck = g.check
		r := sh(t, spec, `PATH=/nonexistent/a:/nonexistent/b:$PATH env echo found; /nonexistent/prog; echo after`)
		if r.err != nil || !strings.Contains(r.out, "found") || !strings.Contains(r.out, "after") {
			t.Fatalf("%v: %s", r.err, r.out)
		}
		echo := 0
		for _, ev := range g.seen {
			if filepath.Base(ev.Exe) == "echo" {
				echo++
			}
			if strings.Contains(ev.Exe, "nonexistent") {
				t.Errorf("a failed exec was judged: %+v", ev)
			}
		}
		if echo != 1 {
			t.Errorf("echo judged %d times: %+v", echo, g.seen)
		}
	})
}

// TestExecGateListenerNotInherited checks that no process of the run holds
// the gate's own listener, with which it could let its own execs through.
func TestExecGateListenerNotInherited(t *testing.T) {
	eachGated(t, func(t *testing.T, spec Spec) {
		g := &gateLog{}
		spec.ExecCheck = g.check
		// (The glob's own directory descriptor is gone when readlink
		// runs: its failure is expected.)
		r := sh(t, spec, `for f in /proc/$$/fd/*; do readlink "$f"; done; sh -c 'for f in /proc/$$/fd/*; do readlink "$f"; done'`)
		if !strings.Contains(r.out, "pipe:") {
			t.Fatalf("%v: %s", r.err, r.out)
		}
		if strings.Contains(r.out, "seccomp") {
			t.Errorf("the run holds a seccomp listener:\n%s", r.out)
		}
	})
}

// TestExecGateI386ABI checks an exec made through the i386 system call
// ABI (int 0x80, other numbers) from a 64-bit process: without a sandbox
// the gate's filter stops it like any exec, and the gate refuses rm;
// in a sandbox the sandbox's filter refuses foreign-ABI calls first.
func TestExecGateI386ABI(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the i386 ABI exists on amd64 only")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	helper, err := filepath.Abs("testdata/int80exec.py")
	if err != nil {
		t.Fatal(err)
	}
	// Outside the gate, the helper really runs rm: the check below
	// could not fail otherwise.
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep")
	os.WriteFile(keep, []byte("x"), 0o644)
	if out, err := exec.Command("python3", helper, "/bin/rm", "rm", "-f", keep).CombinedOutput(); err != nil {
		t.Fatalf("helper: %v: %s", err, out)
	}
	if _, err := os.Stat(keep); err == nil {
		t.Skip("int 0x80 execve does not work on this host (no IA32 emulation)")
	}
	eachGated(t, func(t *testing.T, spec Spec) {
		keep := filepath.Join(spec.Cwd, "keep")
		if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		g := &gateLog{deny: map[string]bool{"rm": true}}
		spec.ExecCheck = g.check
		for _, name := range []string{"near-miss", "rm"} {
			prog, args := "/bin/cp", "cp keep copy"
			if name == "rm" {
				prog, args = "/bin/rm", "rm -f keep"
			}
			r := sh(t, spec, "python3 "+helper+" "+prog+" "+args)
			_, kept := os.Stat(keep)
			_, copied := os.Stat(filepath.Join(spec.Cwd, "copy"))
			switch {
			case kept != nil:
				t.Fatalf("rm ran through int 0x80: %v %s", r.err, r.out)
			case name == "rm" && spec.Profile == None && len(g.denied) == 0:
				t.Errorf("the gate did not refuse rm: %v %s", r.err, r.out)
			case name == "near-miss" && spec.Profile == None && copied != nil:
				t.Errorf("cp through int 0x80 did not run under the gate: %v %s", r.err, r.out)
			}
		}
	})
}

// TestExecGateEndedClean checks what Handle.EndedClean tells the caller
// that reaps a run's leftovers: a gated run without a sandbox whose
// processes all ended by themselves (one left in the background
// included) is clean once waited for, and one with a refused program is
// not (its killed processes may pass to this process as zombies).
func TestExecGateEndedClean(t *testing.T) {
	requireExecGate(t)
	for _, tt := range []struct {
		script string
		clean  bool
	}{
		{"/bin/true; /bin/true", true},
		{"(/bin/sleep 0.1 &) ; /bin/true", true},
		{"/bin/rm -f nothing; /bin/true", false},
	} {
		ws, _ := workspace(t)
		g := &gateLog{deny: map[string]bool{"rm": true}}
		cmd := exec.Command("/bin/sh", "-c", tt.script)
		cmd.Dir = ws
		h, err := Prepare(cmd, Spec{Profile: None, Cwd: ws, ExecCheck: g.check})
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Start(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		if strings.Contains(tt.script, "sleep") {
			// The background sleep outlives the shell: the gate sees it
			// end and reaped before the run's Close.
			for i := 0; i < 100 && !h.tracer.isDrained(); i++ {
				time.Sleep(10 * time.Millisecond)
			}
		}
		h.Close()
		if got := h.EndedClean(); got != tt.clean {
			t.Errorf("%q: EndedClean %v, want %v (denied %d)", tt.script, got, tt.clean, len(g.denied))
		}
	}
}
