package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runIn is sh with the command started in dir rather than spec.Cwd.
func runIn(t *testing.T, spec Spec, dir, script string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	h, err := Prepare(cmd, spec)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	defer h.Close()
	if err := h.Start(); err != nil {
		return result{err: err, report: h.Report()}
	}
	err = cmd.Wait()
	return result{out: out.String(), err: err, report: h.Report()}
}

// The command's directory is not a writable root as such: started outside
// the workspace, it writes only in the workspace.
func TestCommandDirNotWritable(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, sibling := workspace(t)
		spec := Spec{Profile: WorkspaceWrite, Cwd: ws, ProtectGit: true}
		if r := runIn(t, spec, sibling, "echo x > here"); r.err == nil || !denied(r.out) {
			t.Fatalf("wrote in the command's directory outside the workspace: %v %s", r.err, r.out)
		}
		if r := runIn(t, spec, sibling, "echo x > "+filepath.Join(ws, "there")); r.err != nil {
			t.Fatalf("workspace not writable from outside it: %v %s", r.err, r.out)
		}
		if _, err := os.Stat(filepath.Join(sibling, "here")); err == nil {
			t.Fatal("sibling written")
		}
	})
}

// A descriptor without close-on-exec does not reach the command under
// either launcher; the command's own ExtraFiles do.
func TestInheritedFDs(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, sibling := workspace(t)
		leak, err := os.Create(filepath.Join(sibling, "leak"))
		if err != nil {
			t.Fatal(err)
		}
		defer leak.Close()
		fd, err := syscall.Dup(int(leak.Fd())) // no close-on-exec
		if err != nil {
			t.Fatal(err)
		}
		defer syscall.Close(fd)
		r := sh(t, Spec{Profile: WorkspaceWrite, Cwd: ws}, fmt.Sprintf("bash -c 'echo leaked >&%d'; ls /proc/self/fd", fd))
		if fi, _ := leak.Stat(); fi.Size() != 0 {
			t.Fatalf("descriptor %d reached the command: %s", fd, r.out)
		}
		if !strings.Contains(r.out, "Bad file descriptor") {
			t.Fatalf("%s", r.out)
		}
		_, list, _ := strings.Cut(r.out, "\n")
		if got := strings.Join(strings.Fields(list), " "); got != "0 1 2 3" { // 3: ls reading the directory
			t.Fatalf("the command's descriptors: %s", got)
		}
	})
}

// Every repository under a writable root has its .git read-only, not only
// the workspace's; its work tree stays writable. A .git made during a run
// is writable in that run (it did not exist when the run started) and
// read-only from the next run on.
func TestNestedGit(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		for _, d := range []string{"sub/.git/hooks", "a/b/c/deep/.git/hooks", "wtgit/hooks", "wt"} {
			if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		// A worktree-style .git file naming a gitdir elsewhere in the workspace.
		if err := os.WriteFile(filepath.Join(ws, "wt", ".git"), []byte("gitdir: ../wtgit\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		spec := Spec{Profile: WorkspaceWrite, Cwd: ws, ProtectGit: true}
		for _, script := range []string{
			"echo x > sub/.git/hooks/post-checkout",
			"echo x > sub/.git/config",
			"echo x > a/b/c/deep/.git/hooks/pre-commit",
			"echo x > wtgit/hooks/pre-commit",
			"echo x > wt/.git",
			"mv sub/.git sub/git-moved",
			"mv sub other",
		} {
			if r := sh(t, spec, script); r.err == nil || !(denied(r.out) || strings.Contains(r.out, "busy")) {
				t.Errorf("%s: want a denial, got %v: %s", script, r.err, r.out)
			}
		}
		for _, script := range []string{"echo y > sub/file", "echo y > a/b/c/deep/file", "mkdir -p a/b/new && echo y > wt/file"} {
			if r := sh(t, spec, script); r.err != nil {
				t.Errorf("%s: %v: %s", script, r.err, r.out)
			}
		}
		if r := sh(t, spec, "mkdir -p made/.git/hooks && echo x > made/.git/hooks/h"); r.err != nil {
			t.Fatalf("a .git made during the run: %v %s", r.err, r.out)
		}
		if r := sh(t, spec, "echo x >> made/.git/hooks/h"); r.err == nil || !denied(r.out) {
			t.Fatalf("a .git made by an earlier run is writable: %v %s", r.err, r.out)
		}
	})
}

// The search for repositories stops at its bound and says so.
func TestNestedGitBound(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/.git", "b/c/d/.git"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	paths, complete := nestedGit(root, false)
	if !complete || len(paths) != 2 {
		t.Fatalf("%v %v", paths, complete)
	}
	old := gitWalkMaxDirs
	gitWalkMaxDirs = 3 // root, a, b: c and d are not reached
	defer func() { gitWalkMaxDirs = old }()
	paths, complete = nestedGit(root, false)
	if complete || len(paths) != 1 || paths[0] != filepath.Join(root, "a", ".git") {
		t.Fatalf("%v %v", paths, complete)
	}
}

// A remembered walk sees a repository made since, and forgets one removed.
func TestNestedGitCache(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "x/y"), 0o755); err != nil {
		t.Fatal(err)
	}
	racy := gitWalkRacy
	gitWalkRacy = 0 // every remembered directory is trusted
	defer func() { gitWalkRacy = racy }()
	if paths, _ := nestedGit(root, true); len(paths) != 0 {
		t.Fatal(paths)
	}
	if err := os.Mkdir(filepath.Join(root, "x/y/.git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if paths, _ := nestedGit(root, true); len(paths) != 1 {
		t.Fatalf("a repository made since the last walk was missed: %v", paths)
	}
	os.Remove(filepath.Join(root, "x/y/.git"))
	if paths, _ := nestedGit(root, true); len(paths) != 0 {
		t.Fatal(paths)
	}
}

// Hidden paths read as empty under both launchers and both profiles,
// inside the workspace or outside it, and cannot be written or moved; a
// path next to them still reads.
func TestHiddenPaths(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		for _, profile := range []Profile{WorkspaceWrite, ReadOnly} {
			t.Run(string(profile), func(t *testing.T) {
				ws, sibling := workspace(t)
				write := func(p, s string) {
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				write(filepath.Join(ws, ".env"), "SECRET=hunter2\n")
				write(filepath.Join(ws, "secrets", "deep", "k"), "hunter2\n")
				write(filepath.Join(sibling, "outside.key"), "hunter2\n")
				write(filepath.Join(ws, "real.txt"), "hunter2\n")
				write(filepath.Join(ws, "public.txt"), "PUBLIC\n")
				if err := os.Symlink("real.txt", filepath.Join(ws, "link")); err != nil {
					t.Fatal(err)
				}
				spec := Spec{Profile: profile, Cwd: ws, HiddenPaths: []string{
					filepath.Join(ws, ".env"), filepath.Join(ws, "secrets"), filepath.Join(sibling, "outside.key"),
					filepath.Join(ws, "link"), filepath.Join(ws, "missing"),
				}}
				r := sh(t, spec, "cat .env secrets/deep/k ../sibling/outside.key real.txt link 2>&1; ls -A secrets; cat public.txt")
				if strings.Contains(r.out, "hunter2") || !strings.Contains(r.out, "PUBLIC") {
					t.Fatalf("%v: %s", r.err, r.out)
				}
				for _, script := range []string{"echo x > .env", "echo x > secrets/new", "rm .env", "mv .env moved", "mv secrets moved"} {
					if r := sh(t, spec, script); r.err == nil {
						t.Errorf("%s: not refused: %s", script, r.out)
					}
				}
				want := []string{filepath.Join(ws, ".env"), filepath.Join(ws, "secrets"), filepath.Join(sibling, "outside.key"), filepath.Join(ws, "real.txt")}
				if got := r.report.Masks; strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("Report.Masks = %v, want %v", got, want)
				}
			})
		}
	})
}

// With the network off, a pathname Unix socket outside the writable roots
// is unreachable (Landlock ABI 9, else masked), also through a path with a
// space and through a symbolic link in the workspace; a socket made in the
// workspace works, and agent variables are dropped. With the network on
// the outside socket answers and the variables stay.
func TestOutsideUnixSockets(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, sibling := workspace(t)
		var socks []string
		for _, name := range []string{"agent.sock", "with space.sock"} {
			p := filepath.Join(sibling, name)
			l, err := net.Listen("unix", p)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			go acceptAll(l)
			socks = append(socks, p)
		}
		if err := os.Symlink(socks[0], filepath.Join(ws, "link.sock")); err != nil {
			t.Fatal(err)
		}
		socks = append(socks, filepath.Join(ws, "link.sock"))
		off := Spec{Profile: WorkspaceWrite, Cwd: ws}
		on := Spec{Profile: WorkspaceWrite, Cwd: ws, Network: true}
		dial := func(spec Spec, addr string) result {
			return run(t, spec, []string{"SANDBOX_TEST_HELPER=dial"}, os.Args[0], "unix", addr)
		}
		for _, s := range socks {
			if r := dial(off, s); r.err == nil {
				t.Errorf("network off: reached %s: %s", s, r.out)
			}
			if r := dial(on, s); r.err != nil {
				t.Errorf("network on: %s unreachable: %v %s", s, r.err, r.out)
			}
		}
		if r := run(t, off, []string{"SANDBOX_TEST_HELPER=unixsock"}, os.Args[0]); r.err != nil || !strings.Contains(r.out, "pong") {
			t.Errorf("a socket in the workspace: %v %s", r.err, r.out)
		}
		env := []string{"SSH_AUTH_SOCK=" + socks[0], "DBUS_SESSION_BUS_ADDRESS=unix:path=/x", "KEEP_ME=1"}
		if r := run(t, off, env, "/bin/sh", "-c", "env"); strings.Contains(r.out, "SSH_AUTH_SOCK") || strings.Contains(r.out, "DBUS_SESSION") || !strings.Contains(r.out, "KEEP_ME=1") {
			t.Errorf("network off, environment: %s", r.out)
		}
		if r := run(t, on, env, "/bin/sh", "-c", "env"); !strings.Contains(r.out, "SSH_AUTH_SOCK") {
			t.Errorf("network on, environment: %s", r.out)
		}
	})
}

func TestUnixSocketPath(t *testing.T) {
	for line, want := range map[string]string{
		"000000003b65fbf3: 00000003 00000000 00000000 0001 03  1074":                      "",
		"0000000000000000: 00000002 00000000 00010000 0001 01 23456 /run/x.sock":          "/run/x.sock",
		"0000000000000000: 00000002 00000000 00010000 0001 01 23456 /tmp/with space.sock": "/tmp/with space.sock",
		"0000000000000000: 00000002 00000000 00010000 0001 01 23456 @abstract":            "",
		"0000000000000000: 00000002 00000000 00010000 0001 01 23456 relative.sock":        "",
		"Num       RefCount Protocol Flags    Type St Inode Path":                         "",
	} {
		got, ok := unixSocketPath(line)
		if ok != (want != "") || (ok && got != want) {
			t.Errorf("%q: %q %v, want %q", line, got, ok, want)
		}
	}
}

// bombScript is a fork bomb that ignores SIGTERM: three children per
// process, five levels deep, each sleeping forever.
const bombScript = `
import os, signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
depth, made = 0, 0
while True:
    if depth < 5 and made < 3:
        try:
            pid = os.fork()
        except OSError:
            time.sleep(0.01)
            continue
        if pid == 0:
            depth, made = depth + 1, 0
        else:
            made += 1
        continue
    time.sleep(0.5)
`

// Kill ends a SIGTERM-ignoring fork bomb as a unit under each launcher
// and each way of limiting processes: Wait returns and no process of it
// is left.
func TestKillEndsTheRun(t *testing.T) {
	requireSandbox(t)
	c := Detect()
	for _, tc := range []struct {
		name string
		caps func(*Capabilities) bool
	}{
		{"thread cgroup", func(c *Capabilities) bool { return c.ThreadLaunch }},
		{"trampoline pid_max", func(c *Capabilities) bool { c.ThreadLaunch = false; return c.PIDMaxNS }},
		{"trampoline cgroup", func(c *Capabilities) bool { c.ThreadLaunch, c.PIDMaxNS = false, false; return c.CgroupPids != "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			caps := c
			if !tc.caps(&caps) {
				t.Skip("this host has no such launcher")
			}
			withCaps(t, caps)
			ws, _ := workspace(t)
			cmd := exec.Command("python3", "-c", bombScript)
			cmd.Dir = ws
			marker := fmt.Sprintf("AGENTEXEC_TEST_BOMB=%d", time.Now().UnixNano())
			cmd.Env = append(os.Environ(), marker)
			defer waitGone(t, marker)
			h, err := Prepare(cmd, Spec{Profile: WorkspaceWrite, Cwd: ws, Limits: Limits{Processes: 200}})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			if err := h.Start(); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 200 && len(marked(marker)) < 50; i++ {
				time.Sleep(20 * time.Millisecond)
			}
			if n := len(marked(marker)); n < 50 {
				t.Fatalf("the bomb made only %d processes", n)
			}
			cmd.Process.Signal(syscall.SIGTERM) // ignored
			h.Kill()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("Wait did not return after Kill")
			}
			for i := 0; i < 100 && len(marked(marker)) > 0; i++ {
				time.Sleep(20 * time.Millisecond)
			}
			if left := marked(marker); len(left) > 0 {
				t.Fatalf("%d processes outlived Kill", len(left))
			}
		})
	}
}

// A run that passes its memory cap is killed by the kernel and the
// Handle says so (memory cgroup), or its allocation fails (RLIMIT_AS
// without one); a run within it is untouched.
func TestMemoryCap(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		spec := Spec{Profile: WorkspaceWrite, Cwd: ws, Limits: Limits{Memory: 200 << 20}}
		hog := "a = []\nwhile True: a.append(bytearray(16 << 20))"
		cmd := exec.Command("python3", "-c", hog)
		cmd.Dir = ws
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		h, err := Prepare(cmd, spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Start(); err != nil {
			t.Fatal(err)
		}
		werr := cmd.Wait()
		killed := false
		if o := h.Outcome(); o.Known { // an init ran the command: its own status
			killed = o.Signaled && o.Signal == syscall.SIGKILL
		} else if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
			killed = ws.Signal() == syscall.SIGKILL
		}
		h.Close()
		rep := h.Report()
		if rep.Memory != 200<<20 {
			t.Errorf("Report.Memory %d", rep.Memory)
		}
		switch rep.MemoryBy {
		case "cgroup":
			if !killed || !h.OOMKilled() {
				t.Errorf("want an OOM kill: %v, OOMKilled %v: %s", werr, h.OOMKilled(), out.String())
			}
		case "rlimit-as":
			if werr == nil || !strings.Contains(out.String(), "MemoryError") || h.OOMKilled() {
				t.Errorf("want a MemoryError: %v, OOMKilled %v: %s", werr, h.OOMKilled(), out.String())
			}
		default:
			t.Fatalf("MemoryBy %q", rep.MemoryBy)
		}
		r := run(t, spec, nil, "python3", "-c", "a = bytearray(64 << 20); print(len(a))")
		if r.err != nil || !strings.Contains(r.out, "67108864") {
			t.Errorf("within the cap: %v %s", r.err, r.out)
		}
	})
}

// A run's cgroup carries the cpu controller where the host has it, so a
// busy run weighs as one task.
func TestCPUWeight(t *testing.T) {
	requireSandbox(t)
	c := Detect()
	if !c.ThreadLaunch || !c.CgroupCPU {
		t.Skip("needs the launcher thread and a writable cpu cgroup")
	}
	ws, _ := workspace(t)
	r := sh(t, Spec{Profile: WorkspaceWrite, Cwd: ws}, "cat /proc/self/cgroup")
	if r.err != nil || !regexp.MustCompile(`(?m)^\d+:[^:]*\bcpu\b[^:]*:.*agentexec-`).MatchString(r.out) {
		t.Fatalf("not in a cpu cgroup of its own: %v %s", r.err, r.out)
	}
	if !slices.Contains(r.report.Layers, "cgroup-cpu") {
		t.Errorf("layers %v", r.report.Layers)
	}
}
