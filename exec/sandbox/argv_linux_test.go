package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestStackArgv checks that the argv read from a program's stack at its
// exec stop is what /proc/PID/cmdline says, for argument lists of every
// shape, and that the stack is read for the usual ones (not the /proc
// fallback).
func TestStackArgv(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the stack is read on amd64 alone; elsewhere argv comes from /proc")
	}
	script := filepath.Join(t.TempDir(), "s.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	many := []string{"/bin/true"}
	for i := range 3000 {
		many = append(many, strings.Repeat("x", i%7))
	}
	tests := []struct {
		name  string
		argv  []string
		env   []string
		stack bool // read from the stack
	}{
		{"plain", []string{"/bin/true"}, nil, true},
		{"empty words", []string{"/bin/true", "", "a", ""}, nil, true},
		{"blanks, newlines, bytes", []string{"/bin/true", "a b", "c\nd", "é\x01"}, nil, true},
		{"argv[0] not the path", []string{"rm", "-rf", "/"}, nil, true},
		{"one long word", []string{"/bin/true", strings.Repeat("y", 100<<10)}, nil, true},
		{"a big environment", []string{"/bin/true", "z"}, bigEnv(), true},
		{"many words", many, nil, false},
		{"no environment", []string{"/bin/true", "a"}, []string{}, false},
		{"a script", []string{script, "arg"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			pid, stop := startStopped(t, tt.argv, tt.env)
			defer stop()
			tr := &tracer{}
			got, ok := tr.stackArgv(pid)
			want, err := tr.cmdline(pid)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tt.stack {
				t.Errorf("read from the stack: %v, want %v", ok, tt.stack)
			}
			if ok && !slices.Equal(got, want) {
				t.Errorf("stack argv %q, /proc says %q", short(got), short(want))
			}
			if ev, err := tr.read(pid, -1); err != nil || !slices.Equal(ev.Argv, want) {
				t.Errorf("read: %q, %v; want %q", short(ev.Argv), err, short(want))
			}
			dir := tr.procDir(pid)
			if dir < 0 {
				t.Fatal("no /proc entry")
			}
			defer unix.Close(dir)
			byPath, err := tr.read(pid, -1)
			if err != nil {
				t.Fatal(err)
			}
			if ev, err := tr.read(pid, dir); err != nil || ev.Exe != byPath.Exe || ev.Cwd != byPath.Cwd || ev.Exe == "" || ev.Cwd == "" {
				t.Errorf("read from /proc/PID opened before: %q %q, %v; by path %q %q", ev.Exe, ev.Cwd, err, byPath.Exe, byPath.Cwd)
			}
		})
	}
}

func bigEnv() []string {
	env := os.Environ()
	for i := range 200 {
		env = append(env, "V"+strings.Repeat("v", i)+"=1")
	}
	return env
}

func short(a []string) []string {
	if len(a) > 6 {
		return append(a[:6:6], "…")
	}
	for i, s := range a {
		if len(s) > 40 {
			a = slices.Clone(a)
			a[i] = s[:40] + "…"
		}
	}
	return a
}

// startStopped starts argv (Path argv[0], or /bin/true when argv[0] is
// not a path) traced by the calling thread, which must be locked to its
// thread, and returns once the program is stopped after its exec; stop
// kills it and waits for its end.
func startStopped(t testing.TB, argv, env []string) (pid int, stop func()) {
	t.Helper()
	path := argv[0]
	if !filepath.IsAbs(path) {
		path = "/bin/true"
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Env: env, SysProcAttr: &syscall.SysProcAttr{Ptrace: true}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid = cmd.Process.Pid
	stop = func() {
		unix.Kill(pid, unix.SIGKILL)
		cmd.Wait()
	}
	var ws unix.WaitStatus
	if _, err := unix.Wait4(pid, &ws, 0, nil); err != nil || !ws.Stopped() {
		stop()
		t.Fatalf("not stopped at its exec: %v %v", ws, err)
	}
	return pid, stop
}

// BenchmarkExecArgv is what reading a new program at its exec stop costs
// (argv, from its stack or from /proc/PID/cmdline, then its executable and
// directory), each on a process never looked at before, as every exec of
// a run is: read-ns/op. stack-dir reads the executable and directory
// relative to the process's /proc entry opened before (untimed: the
// tracer opens it while the exec goes on), as the tracer does. The
// iteration's own time is mostly the process's start.
func BenchmarkExecArgv(b *testing.B) {
	argv := []string{"/bin/true", "-a", "some words", "/tmp/x"}
	for _, how := range []string{"stack", "stack-dir", "proc"} {
		b.Run(how, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			tr := &tracer{}
			var read time.Duration
			for b.Loop() {
				pid, stop := startStopped(b, argv, nil)
				dir := -1
				if how == "stack-dir" {
					dir = tr.procDir(pid)
				}
				t0 := time.Now()
				var ok bool
				if how == "proc" {
					_, err := tr.cmdline(pid)
					ok = err == nil
				} else {
					_, ok = tr.stackArgv(pid)
				}
				// What the exec's reading reads besides.
				if _, err := tr.readlink(pid, dir, "exe"); err != nil {
					ok = false
				}
				if _, err := tr.readlink(pid, dir, "cwd"); err != nil {
					ok = false
				}
				read += time.Since(t0)
				if dir >= 0 {
					unix.Close(dir)
				}
				stop()
				if !ok {
					b.Fatal("argv not read")
				}
			}
			b.ReportMetric(float64(read.Nanoseconds())/float64(b.N), "read-ns/op")
		})
	}
}
