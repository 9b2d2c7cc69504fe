package sandbox

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func requireInit(t *testing.T) {
	t.Helper()
	requireSandbox(t)
	if c := Detect(); !c.Init {
		t.Skipf("no agentexec-init here (%s): the command is PID 1", strings.Join(c.Problems, "; "))
	}
}

// started is a sandboxed command running, for tests that act on it
// before it ends.
type started struct {
	cmd *exec.Cmd
	h   *Handle
	out *bytes.Buffer
}

func startIn(t *testing.T, spec Spec, argv ...string) started {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = spec.Cwd
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	h, err := Prepare(cmd, spec)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	if err := h.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return started{cmd, h, &out}
}

// wait waits for the run and returns the init's exit error and what it
// reported of the command.
func (s started) wait() (error, Outcome) {
	err := s.cmd.Wait()
	return err, s.h.Outcome()
}

// TestNotPID1 checks that the command is not PID 1 of its namespace, so
// that a signal it sends itself ends it as it would outside: the init
// reports the real status (and exits 128+N, as a PID 1 cannot die by it).
func TestNotPID1(t *testing.T) {
	requireInit(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		spec := Spec{Profile: WorkspaceWrite, Cwd: ws}
		tests := []struct {
			name, script string
			sig          syscall.Signal // 0: exits with code
			code         int
		}{
			{"kill -TERM $$", `kill -TERM $$; echo survived`, syscall.SIGTERM, 143},
			{"kill -SEGV $$", `kill -SEGV $$; echo survived`, syscall.SIGSEGV, 139},
			{"abort", `exec python3 -c 'import os; os.abort()'`, syscall.SIGABRT, 134},
			{"PTRACE_TRACEME, then SIGSEGV", `exec python3 -c 'import ctypes, os, signal; print("traceme", ctypes.CDLL(None).ptrace(0, 0, 0, 0)); os.kill(os.getpid(), signal.SIGSEGV)'`, syscall.SIGSEGV, 139},
			// The near misses: a handled signal and a plain exit.
			{"trapped TERM", `trap 'exit 5' TERM; kill -TERM $$; sleep 1`, 0, 5},
			{"exit 3", `exit 3`, 0, 3},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if strings.Contains(tt.script, "python3") {
					if _, err := exec.LookPath("python3"); err != nil {
						t.Skip("python3 is not installed")
					}
				}
				s := startIn(t, spec, "/bin/sh", "-c", tt.script)
				err, o := s.wait()
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != tt.code {
					t.Errorf("init's exit: %v, want code %d: %s", err, tt.code, s.out)
				}
				if !o.Known || o.Signaled != (tt.sig != 0) || o.Signal != tt.sig || (tt.sig == 0 && o.Code != tt.code) {
					t.Errorf("outcome %+v, want signal %v code %d: %s", o, tt.sig, tt.code, s.out)
				}
				if strings.Contains(s.out.String(), "survived") {
					t.Errorf("the signal did not end the command: %s", s.out)
				}
			})
		}
	})
}

// TestGroupSignal checks what a caller's signal to the run's process
// group (a timeout, an interrupt) does: it reaches the command once,
// whether it handles it or not, and when the command dies of it nothing
// of the run is left running.
func TestGroupSignal(t *testing.T) {
	requireInit(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		spec := Spec{Profile: WorkspaceWrite, Cwd: ws}
		t.Run("default action", func(t *testing.T) {
			s := startIn(t, spec, "/bin/sh", "-c", `readlink /proc/self/ns/pid > ns; sleep 100; echo after > late`)
			waitFile(t, filepath.Join(ws, "ns"))
			syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
			err, o := s.wait()
			if !o.Known || o.Signal != syscall.SIGTERM {
				t.Errorf("outcome %+v (init: %v), want death by SIGTERM: %s", o, err, s.out)
			}
			if _, err := os.Stat(filepath.Join(ws, "late")); err == nil {
				t.Error("the script went on after SIGTERM")
			}
			ns, _ := os.ReadFile(filepath.Join(ws, "ns"))
			if left := inPIDNS(strings.TrimSpace(string(ns))); len(left) > 0 {
				t.Errorf("processes of the run's namespace are left: %v", left)
			}
		})
		t.Run("handled once", func(t *testing.T) {
			// ready is written once sleep runs: a signal before that
			// would be trapped with no sleep to end, and the sleep
			// started after it would hold the script for 100 s.
			s := startIn(t, spec, "/bin/sh", "-c", `trap 'echo term >> caught' TERM; sleep 100 & echo > ready; wait; echo done >> caught`)
			waitFile(t, filepath.Join(ws, "ready"))
			syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
			err, o := s.wait()
			if err != nil || !o.Known || o.Signaled || o.Code != 0 {
				t.Errorf("init: %v, outcome %+v, want exit 0: %s", err, o, s.out)
			}
			if got, _ := os.ReadFile(filepath.Join(ws, "caught")); string(got) != "term\ndone\n" {
				t.Errorf("the trap ran %q, want once, then the script's end", got)
			}
		})
	})
}

// waitFile waits until the command made path.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for range 1000 {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
}

// inPIDNS lists the processes whose PID namespace is ns ("pid:[N]").
func inPIDNS(ns string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		if l, err := os.Readlink(d + "/ns/pid"); err == nil && l == ns {
			out = append(out, filepath.Base(d))
		}
	}
	return out
}

// TestForegroundPTY checks that the command, in its own process group,
// holds its terminal's foreground, as it did as the session's leader.
func TestForegroundPTY(t *testing.T) {
	requireInit(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		got, err := ptyRun(t, Spec{Profile: WorkspaceWrite, Cwd: ws}, `awk '{ print ($5 == $8) ? "fore" "ground" : "background" }' /proc/$$/stat; echo end`)
		if err != nil || !strings.Contains(got, "foreground") || !strings.Contains(got, "end") {
			t.Errorf("%v: %q, want the command in the foreground", err, got)
		}
	})
}

// TestExecFailure checks that a command the init cannot execute is
// reported as never run, and a runnable one in the same place is not.
func TestExecFailure(t *testing.T) {
	requireInit(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		spec := Spec{Profile: WorkspaceWrite, Cwd: ws}
		for _, mode := range []os.FileMode{0o644, 0o755} {
			script := filepath.Join(ws, "s.sh")
			os.Remove(script)
			if err := os.WriteFile(script, []byte("#!/bin/sh\necho ran\n"), mode); err != nil {
				t.Fatal(err)
			}
			s := startIn(t, spec, script)
			err, o := s.wait()
			if mode == 0o644 && (!errors.Is(o.StartErr, syscall.EACCES) || strings.Contains(s.out.String(), "ran")) {
				t.Errorf("not executable: init %v, outcome %+v: %s", err, o, s.out)
			}
			if mode == 0o755 && (o.StartErr != nil || err != nil || !strings.Contains(s.out.String(), "ran")) {
				t.Errorf("executable: init %v, outcome %+v: %s", err, o, s.out)
			}
		}
	})
}

// TestInitGenerated checks that init_amd64.go is what initsrc/gen.sh
// makes of initsrc/init.c, where the compiler is at hand.
func TestInitGenerated(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil || runtime.GOARCH != "amd64" {
		t.Skip("needs gcc on amd64 to rebuild agentexec-init")
	}
	out := filepath.Join(t.TempDir(), "init.go")
	if b, err := exec.Command("initsrc/gen.sh", out).CombinedOutput(); err != nil {
		t.Fatalf("gen.sh: %v: %s", err, b)
	}
	got, _ := os.ReadFile(out)
	want, _ := os.ReadFile("init_amd64.go")
	if !bytes.Equal(got, want) {
		t.Error("init_amd64.go is stale: run go generate ./exec/sandbox")
	}
}

// TestInitManyFiles: agentexec-init starts however many descriptors the
// run passes and whatever their numbers in this process (os/exec's child
// moves descriptors above the highest number it is given before its exec:
// an image kept at a fixed number in this process was clobbered once this
// process had more files open than that number — a flaky "permission
// denied" of concurrent runs); the command gets exactly its extra files,
// neither the init's control socket nor its image.
func TestInitManyFiles(t *testing.T) {
	requireInit(t)
	var ballast []*os.File
	for range 80 { // push this process's descriptor numbers up
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		ballast = append(ballast, f)
	}
	defer func() {
		for _, f := range ballast {
			f.Close()
		}
	}()
	for _, n := range []int{0, 2, 20, 60} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			ws := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			script := `last=$((2+$0)); test -e /proc/self/fd/$last && ! test -e /proc/self/fd/$((last+1)) && ! test -e /proc/self/fd/$((last+2))`
			cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script, strconv.Itoa(n))
			cmd.Dir = ws
			for range n {
				f, err := os.Open(os.DevNull)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				cmd.ExtraFiles = append(cmd.ExtraFiles, f)
			}
			h, err := Prepare(cmd, Spec{Profile: WorkspaceWrite, Cwd: ws, TempDir: ws})
			if err != nil {
				t.Fatalf("Prepare: %v", err)
			}
			defer h.Close()
			if err := h.Start(); err != nil {
				t.Fatalf("Start: %v", err)
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("%d extra files: %v (%+v)", n, err, h.Outcome())
			}
		})
	}
}
