package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
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

// denied is true when the output shows a write was refused by a sandbox
// layer (Landlock: EACCES; read-only mounts: EROFS; capabilities: EPERM).
func denied(out string) bool {
	for _, s := range []string{"permission denied", "read-only file system", "operation not permitted"} {
		if strings.Contains(strings.ToLower(out), s) {
			return true
		}
	}
	return false
}

func TestWorkspaceWrite(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		home, _ := os.UserHomeDir()
		tests := []struct {
			name, script string
			ok           bool
		}{
			{"cwd", `echo x > inside && cat inside`, true},
			{"tmpdir", `echo x > "$TMPDIR/t" && cat "$TMPDIR/t"`, true},
			{"subdir", `mkdir -p a/b && echo x > a/b/c && mv a/b/c a/d`, true},
			{"dev null", `echo x > /dev/null`, true},
			{"private dev shm", `echo x > /dev/shm/agentexec-probe && cat /dev/shm/agentexec-probe`, true},
			{"env", `[ "$AGENTEXEC_SANDBOX" = workspace-write ] && [ "$AGENTEXEC_SANDBOX_NETWORK_DISABLED" = 1 ]`, true},
			{"etc", `echo x > /etc/agentexec-sandbox-probe`, false},
			{"home", fmt.Sprintf(`echo x > %q`, filepath.Join(home, "agentexec-sandbox-probe")), false},
			{"sibling", `echo x > ../sibling/new`, false},
			{"sibling append", `echo x >> ../sibling/file`, false},
			{"chmod outside", `chmod 777 ../sibling/file`, false},
			{"chown outside", `chown 65534 ../sibling/file`, false},
			{"touch -d outside", `touch -d 2000-01-01 ../sibling/file`, false},
			{"git hook", `echo x > .git/hooks/pre-commit`, false},
			{"git config", `echo x >> .git/config`, false},
			{"git rename", `mv .git/config .git/config2`, false},
			{"mount", `mount -t tmpfs none ../sibling`, false},
			{"symlink escape", `ln -s ../sibling/file link && echo x > link`, false},
			{"rename out", `echo x > f && mv f ../sibling/f`, false},
			{"rename in", `mv ../sibling/file stolen`, false},
			{"hard link out", `echo x > f && ln f ../sibling/f`, false},
			{"mkfifo outside", `mkfifo ../sibling/fifo`, false},
			{"truncate outside", `truncate -s0 ../sibling/file`, false},
			{"proc sys", `echo 1 > /proc/sys/vm/drop_caches`, false},
			{"unshare", `unshare -U true`, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ws, sibling := workspace(t)
				r := sh(t, Spec{Profile: WorkspaceWrite, Cwd: ws, ProtectGit: true}, tt.script)
				if tt.ok && r.err != nil {
					t.Fatalf("want success, got %v: %s", r.err, r.out)
				}
				if !tt.ok && (r.err == nil || !denied(r.out)) {
					t.Fatalf("want a denial, got %v: %s", r.err, r.out)
				}
				fi, err := os.Stat(filepath.Join(sibling, "file"))
				if err != nil || fi.Mode().Perm() != 0o644 || fi.ModTime().Year() == 2000 {
					t.Errorf("sibling file changed: %v %v", fi.Mode(), err)
				}
			})
		}
		os.Remove(filepath.Join(home, "agentexec-sandbox-probe"))
	})
}

func TestReadOnly(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		tests := []struct {
			name, script string
			ok           bool
		}{
			{"dev null", `echo x > /dev/null && echo x > /dev/zero`, true},
			{"read", `cat /etc/passwd >/dev/null && ls / >/dev/null`, true},
			{"cwd", `echo x > inside`, false},
			{"tmp", `echo x > /tmp/agentexec-sandbox-probe`, false},
			{"dev shm", `echo x > /dev/shm/agentexec-sandbox-probe`, false},
			{"tmpdir", `echo x > "${TMPDIR:-/tmp}/t"`, false},
			{"chmod cwd", `chmod 700 .`, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ws, _ := workspace(t)
				r := sh(t, Spec{Profile: ReadOnly, Cwd: ws}, tt.script)
				if tt.ok && r.err != nil {
					t.Fatalf("want success, got %v: %s", r.err, r.out)
				}
				if !tt.ok && (r.err == nil || !denied(r.out)) {
					t.Fatalf("want a denial, got %v: %s", r.err, r.out)
				}
			})
		}
	})
}

func TestReadableRoots(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, sibling := workspace(t)
		spec := Spec{Profile: WorkspaceWrite, Cwd: ws, ReadableRoots: []string{filepath.Join(sibling, "file")}}
		tests := []struct {
			script string
			ok     bool
		}{
			{`cat ../sibling/file && ls /usr/bin >/dev/null && echo x > w && cat w`, true},
			{`ls ../sibling`, false},
			{`cat /root/.profile || ls /var`, false},
		}
		for _, tt := range tests {
			r := sh(t, spec, tt.script)
			if tt.ok != (r.err == nil) || (!tt.ok && !denied(r.out)) {
				t.Errorf("%s: ok=%v, got %v: %s", tt.script, tt.ok, r.err, r.out)
			}
		}
	})
}

// TestWorktreeGitdir checks that a worktree's gitdir target and the main
// repository's .git it names stay read-only.
func TestWorktreeGitdir(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		base := t.TempDir()
		main := filepath.Join(base, "main", ".git")
		wt := filepath.Join(base, "wt")
		gitdir := filepath.Join(main, "worktrees", "wt")
		for _, d := range []string{filepath.Join(main, "hooks"), gitdir, wt} {
			os.MkdirAll(d, 0o755)
		}
		os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644)
		os.WriteFile(filepath.Join(gitdir, "commondir"), []byte("../..\n"), 0o644)
		spec := Spec{Profile: WorkspaceWrite, Cwd: wt, ProtectGit: true, WritableRoots: []string{filepath.Join(base, "main")}}
		for _, script := range []string{
			`echo x > .git`,
			fmt.Sprintf(`echo x > %s/HEAD`, gitdir),
			fmt.Sprintf(`echo x > %s/hooks/pre-commit`, main),
		} {
			if r := sh(t, spec, script); r.err == nil || !denied(r.out) {
				t.Errorf("%s: want a denial, got %v: %s", script, r.err, r.out)
			}
		}
		if r := sh(t, spec, `echo x > ../main/file`); r.err != nil {
			t.Errorf("writable root outside .git: %v: %s", r.err, r.out)
		}
	})
}

func TestProtectedPaths(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		policy := filepath.Join(ws, ".agentexec.json")
		os.WriteFile(policy, []byte("{}"), 0o644)
		spec := Spec{Profile: WorkspaceWrite, Cwd: ws, ProtectedPaths: []string{policy}}
		if r := sh(t, spec, `echo x >> .agentexec.json`); r.err == nil || !denied(r.out) {
			t.Fatalf("policy file writable: %v: %s", r.err, r.out)
		}
		// A protected file deeper in the workspace cannot be moved aside and
		// replaced: the directories above it are pinned.
		deep := filepath.Join(ws, "conf", "sub", "policy.json")
		os.MkdirAll(filepath.Dir(deep), 0o755)
		os.WriteFile(deep, []byte("{}"), 0o644)
		spec.ProtectedPaths = append(spec.ProtectedPaths, deep)
		for _, script := range []string{
			`mv conf/sub conf/moved && mkdir conf/sub && echo x > conf/sub/policy.json`,
			`mv conf elsewhere && mkdir -p conf/sub && echo x > conf/sub/policy.json`,
			`rm -rf conf`,
		} {
			r := sh(t, spec, script)
			if b, _ := os.ReadFile(deep); r.err == nil || string(b) != "{}" {
				t.Errorf("%s: replaced the protected file: %v: %s", script, r.err, r.out)
			}
		}
		if r := sh(t, spec, `echo x > conf/sub/other && echo x > conf/other`); r.err != nil {
			t.Errorf("pinned directories not writable: %v: %s", r.err, r.out)
		}
		// Without ProtectGit, .git is part of the workspace.
		if r := sh(t, spec, `echo x > .git/hooks/pre-commit`); r.err != nil {
			t.Fatalf("ProtectGit off: %v: %s", r.err, r.out)
		}
	})
}

func TestStatus(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		// /proc is the PID namespace's own: pid 1 is agentexec-init, the
		// command is its child (pid 2), and only the sandbox's processes
		// are listed.
		r := sh(t, Spec{Profile: WorkspaceWrite, Cwd: ws}, `cat /proc/self/status; echo pid=$$; echo init=$(tr '\0' ' ' </proc/1/cmdline); echo procs=$(ls /proc | grep -c '^[0-9]')`)
		if r.err != nil {
			t.Fatalf("%v: %s", r.err, r.out)
		}
		want := []string{"NoNewPrivs:\t1", "CapEff:\t0000000000000000", "CapBnd:\t0000000000000000",
			"CapPrm:\t0000000000000000", "CapInh:\t0000000000000000", "CapAmb:\t0000000000000000",
			"TracerPid:\t0", "init=agentexec-init ", " /bin/sh /bin/sh -c"}
		var procs int
		if i := strings.LastIndex(r.out, "procs="); i < 0 {
			t.Errorf("no process count:\n%s", r.out)
		} else if fmt.Sscan(r.out[i+len("procs="):], &procs); procs < 2 || procs > 6 {
			t.Errorf("/proc lists %d processes, want only the sandbox's few", procs)
		}
		if Detect().Seccomp {
			want = append(want, "Seccomp:\t2")
		}
		for _, w := range want {
			if !strings.Contains(r.out, w) {
				t.Errorf("status lacks %q:\n%s", w, r.out)
			}
		}
		if strings.Contains(r.out, "pid=1\n") {
			t.Errorf("the command is PID 1:\n%s", r.out)
		}
	})
}

// listen opens a TCP listener on loopback that records connections.
func listen(t *testing.T) (port int, connected func() bool) {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	got := make(chan struct{}, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
			got <- struct{}{}
		}
	}()
	return l.Addr().(*net.TCPAddr).Port, func() bool {
		select {
		case <-got:
			return true
		case <-time.After(200 * time.Millisecond):
			return false
		}
	}
}

// TestNetwork cuts the network with the seccomp filter (the default) and
// with a network namespace alone (the fallback).
func TestNetwork(t *testing.T) {
	requireSandbox(t)
	c := Detect()
	for _, tt := range []struct {
		name, want string
		usable     bool
		caps       func(*Capabilities)
	}{
		{"seccomp", "seccomp", c.Seccomp, nil},
		{"seccomp trampoline", "seccomp", c.Seccomp, func(c *Capabilities) { c.ThreadLaunch = false }},
		{"netns", "netns", c.NetNS, func(c *Capabilities) { c.Seccomp = false }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.usable {
				t.Skipf("no %s on this host", tt.want)
			}
			c := c
			if tt.caps != nil {
				tt.caps(&c)
			}
			networkCut(t, c, tt.want)
		})
	}
}

func networkCut(t *testing.T, caps Capabilities, want string) {
	defer func(f func() Capabilities) { detectCaps = f }(detectCaps)
	detectCaps = func() Capabilities { return caps }
	port, connected := listen(t)
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	uport := udp.LocalAddr().(*net.UDPAddr).Port
	ws, _ := workspace(t)
	off := Spec{Profile: WorkspaceWrite, Cwd: ws}
	on := Spec{Profile: WorkspaceWrite, Cwd: ws, Network: true}
	tcp := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && echo connected`, port)
	if r := run(t, off, nil, "/bin/bash", "-c", tcp); r.err == nil || connected() || r.report.Network != want {
		t.Errorf("network off: TCP connect worked or report %+v: %s", r.report, r.out)
	}
	if r := run(t, off, nil, "/bin/bash", "-c", fmt.Sprintf(`echo x > /dev/udp/127.0.0.1/%d`, uport)); r.err == nil {
		t.Errorf("network off: UDP send worked: %s", r.out)
	}
	for _, fam := range []string{"inet", "inet6", "netlink", "packet"} {
		if want == "netns" {
			break // sockets can be made, in a namespace with nothing to reach
		}
		if r := run(t, off, []string{"SANDBOX_TEST_HELPER=socket"}, os.Args[0], fam); r.err == nil {
			t.Errorf("network off: socket(%s) worked: %s", fam, r.out)
		}
	}
	if r := run(t, off, []string{"SANDBOX_TEST_HELPER=unixsock"}, os.Args[0]); r.err != nil || !strings.Contains(r.out, "pong") {
		t.Errorf("network off: a Unix socket in the workspace failed: %v: %s", r.err, r.out)
	}
	if r := run(t, on, nil, "/bin/bash", "-c", tcp); r.err != nil || !connected() {
		t.Errorf("network on: TCP connect failed: %v: %s", r.err, r.out)
	}
	if r := run(t, on, nil, "/bin/true"); r.report.Network != "on" {
		t.Errorf("network on: report %+v", r.report)
	}
}

// TestInt80 checks the seccomp arch guard: an i386 socket(AF_INET) made
// through int 0x80 from a 64-bit process is refused.
func TestInt80(t *testing.T) {
	requireSandbox(t)
	if !Detect().Seccomp || runtime.GOARCH != "amd64" {
		t.Skip("needs seccomp on x86_64")
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("needs gcc to build the int 0x80 helper")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "int80.c")
	os.WriteFile(src, []byte(`#include <stdio.h>
int main(void) {
	long r;
	/* i386 socket(2) is 359: socket(AF_INET, SOCK_STREAM, 0) */
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(359), "b"(2), "c"(1), "d"(0) : "memory");
	printf("%ld\n", r);
	return r >= 0 ? 0 : 1;
}
`), 0o644)
	bin := filepath.Join(dir, "int80")
	if out, err := exec.Command(gcc, "-O0", "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("cannot build the helper: %v: %s", err, out)
	}
	if out, err := exec.Command(bin).CombinedOutput(); err != nil {
		t.Skipf("int 0x80 fails outside the sandbox, so the kernel has IA32 emulation off (%v: %s); the arch guard is checked by TestSeccompProgram", err, out)
	}
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		for _, network := range []bool{false, true} {
			r := run(t, Spec{Profile: WorkspaceWrite, Cwd: ws, Network: network}, nil, bin)
			if r.err == nil || strings.TrimSpace(r.out) != "-1" {
				t.Errorf("network %v: int 0x80 socket: %v: %s (want -1, EPERM)", network, r.err, r.out)
			}
		}
	})
}

// TestForkBomb runs the classic fork bomb with the per-namespace pid_max
// and with the pids cgroup fallback.
func TestForkBomb(t *testing.T) {
	requireSandbox(t)
	c := Detect()
	t.Run("thread cgroup", func(t *testing.T) {
		if !c.ThreadLaunch {
			t.Skip("runs cannot start from a thread here")
		}
		forkBomb(t, c)
	})
	c.ThreadLaunch = false
	t.Run("pid_max", func(t *testing.T) {
		if !c.PIDNS || !c.PIDMaxNS {
			t.Skip("needs a PID namespace with its own pid_max (Linux 6.14)")
		}
		forkBomb(t, c)
	})
	t.Run("cgroup", func(t *testing.T) {
		if c.CgroupPids == "" {
			t.Skip("needs a writable pids cgroup")
		}
		c := c
		c.PIDMaxNS = false
		forkBomb(t, c)
	})
}

func forkBomb(t *testing.T, caps Capabilities) {
	defer func(f func() Capabilities) { detectCaps = f }(detectCaps)
	detectCaps = func() Capabilities { return caps }
	ws, _ := workspace(t)
	spec := Spec{Profile: WorkspaceWrite, Cwd: ws, Limits: Limits{Processes: 64}}
	cmd := exec.Command("/bin/bash", "-c", `:(){ :|:& };:; sleep 5; echo survived`)
	cmd.Dir = ws
	marker := fmt.Sprintf("AGENTEXEC_TEST_FORKBOMB=%d", time.Now().UnixNano())
	cmd.Env = append(os.Environ(), marker)
	defer waitGone(t, marker)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	h, err := Prepare(cmd, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		// A bound on liveness, not speed: the bomb ends in a few
		// seconds on an idle machine and took over 20 under a loaded
		// -race run of two packages at once.
		cmd.Process.Kill()
		<-done
		t.Error("fork bomb not ended after 90s")
	}
	if h.cg != nil {
		events, _ := os.ReadFile(filepath.Join(h.cg.dir, "pids.events"))
		if !strings.Contains(string(events), "max") || strings.Contains(string(events), "max 0") {
			t.Errorf("pids limit never hit: %s", events)
		}
	} else if !strings.Contains(out.String(), "Resource temporarily unavailable") {
		t.Errorf("pid_max never hit: %.500s", out.String())
	}
	t.Logf("layers %v", h.Report().Layers)
	dir := ""
	if h.cg != nil {
		dir = h.cg.dir
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if dir != "" {
		// Removed, or (the launcher thread's) empty and pooled for reuse.
		tasks, err := os.ReadFile(filepath.Join(dir, "tasks"))
		if err == nil && len(strings.TrimSpace(string(tasks))) != 0 {
			t.Errorf("cgroup %s left with tasks: %s", dir, tasks)
		}
		if _, serr := os.Stat(dir); err != nil && !errors.Is(serr, os.ErrNotExist) {
			t.Errorf("cgroup %s left behind unreadable: %v", dir, err)
		}
	}
}

func TestExitStatus(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		spec := Spec{Profile: WorkspaceWrite, Cwd: ws}
		if r := sh(t, spec, "exit 7"); r.code() != 7 {
			t.Errorf("exit 7: got %v", r.err)
		}
		if r := run(t, spec, nil, "/nonexistent/command"); r.code() != exitNotFound && !errors.Is(r.err, os.ErrNotExist) {
			t.Errorf("missing command: got %v: %s", r.err, r.out)
		}
		// A signal from outside the PID namespace ends its init and passes
		// through as the exit status.
		cmd := exec.Command("/bin/sleep", "100")
		cmd.Dir = ws
		h, err := Prepare(cmd, spec)
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		if err := h.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Errorf("want death by SIGKILL, got %v", err)
		}
	})
}

// TestTrampolineRefusal checks that a trampoline the parent does not
// release runs nothing.
func TestTrampolineRefusal(t *testing.T) {
	requireSandbox(t)
	withCaps(t, trampolineCaps())
	ws, _ := workspace(t)
	cmd := exec.Command("/bin/sh", "-c", "touch ran")
	cmd.Dir = ws
	h, err := Prepare(cmd, Spec{Profile: WorkspaceWrite, Cwd: ws})
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.goW.Close() // the parent refuses: as when the cgroup cannot be joined
	h.goW = nil
	h.closeChildEnds()
	if err := cmd.Wait(); err == nil || cmd.ProcessState.ExitCode() != exitSetup {
		t.Errorf("want exit %d, got %v", exitSetup, err)
	}
	h.Close()
	if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
		t.Error("the command ran although the parent refused")
	}
}

func TestTempDir(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		// A temp dir written to is removed at Close; one left as made
		// may be kept, empty, for a later run (tempdir_linux.go).
		r := sh(t, Spec{Profile: WorkspaceWrite, Cwd: ws}, `echo x > "$TMPDIR/f" && echo "$TMPDIR"`)
		dir := strings.TrimSpace(r.out)
		if r.err != nil || !strings.Contains(dir, "agentexec-run-") {
			t.Fatalf("TMPDIR %q: %v", dir, r.err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("temp dir %s left after Close: %v", dir, err)
		}
		r = sh(t, Spec{Profile: WorkspaceWrite, Cwd: ws}, `echo "$TMPDIR"`)
		dir = strings.TrimSpace(r.out)
		tempDirs.Lock()
		kept := slices.Contains(tempDirs.free, dir)
		tempDirs.Unlock()
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) && !(kept && pristineDir(dir)) {
			t.Errorf("temp dir %s left after Close, and not kept as made: %v", dir, err)
		}
		own := t.TempDir()
		r = sh(t, Spec{Profile: WorkspaceWrite, Cwd: ws, TempDir: own}, `echo x > "$TMPDIR/f" && echo "$TMPDIR"`)
		if r.err != nil || strings.TrimSpace(r.out) != own {
			t.Errorf("Spec.TempDir: %v: %s", r.err, r.out)
		}
		if _, err := os.Stat(filepath.Join(own, "f")); err != nil {
			t.Errorf("Spec.TempDir removed or unwritten: %v", err)
		}
	})
}

// TestParentDeath kills the process that started a sandbox and checks that
// the sandboxed tree dies with it.
func TestParentDeath(t *testing.T) {
	requireSandbox(t)
	for _, launcher := range []string{"thread", "trampoline"} {
		t.Run(launcher, func(t *testing.T) {
			if launcher == "thread" && !Detect().ThreadLaunch {
				t.Skip("runs cannot start from a thread here")
			}
			parentDeath(t, launcher)
		})
	}
}

// parentDeath starts a helper process that sandboxes a shell with two
// sleeps, kills the helper, and checks that the whole tree is gone.
func parentDeath(t *testing.T, launcher string) {
	ws, _ := workspace(t)
	marker := fmt.Sprintf("AGENTEXEC_TEST_PDEATH=%d", time.Now().UnixNano())
	cmd := exec.Command(os.Args[0], "/bin/sh", "-c", "sleep 100 & sleep 100")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_HELPER=parent", marker, "SANDBOX_TEST_LAUNCHER="+launcher)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 8+11)
	if _, err := io.ReadFull(out, line); err != nil || string(line[:8]) != "started\n" {
		t.Fatalf("helper: %q %v", line, err)
	}
	if got := strings.TrimSpace(string(line[8:])); got != launcher {
		t.Errorf("the helper's run used the %s launcher, want %s", got, launcher)
	}
	for i := 0; len(marked(marker)) < 4 && i < 100; i++ {
		time.Sleep(50 * time.Millisecond) // sh and its sleeps start
	}
	if n := len(marked(marker)); n < 4 {
		t.Errorf("want the helper, sh and two sleeps, found %d processes", n)
	}
	cmd.Process.Kill()
	cmd.Wait()
	waitGone(t, marker)
}

func TestRlimits(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		spec := Spec{Profile: WorkspaceWrite, Cwd: ws, Limits: Limits{OpenFiles: 77, FileSize: 4096, CPUSeconds: 60}}
		r := sh(t, spec, `ulimit -n; ulimit -f; ulimit -t; ulimit -c`)
		if r.err != nil || strings.Fields(r.out)[0] != "77" || strings.Fields(r.out)[1] != "8" || strings.Fields(r.out)[2] != "60" || strings.Fields(r.out)[3] != "0" {
			t.Errorf("limits: %v: %q", r.err, r.out)
		}
		r = sh(t, spec, `head -c 10000 /dev/zero > big`)
		if r.err == nil {
			t.Errorf("wrote past RLIMIT_FSIZE: %s", r.out)
		}
	})
}

// TestSignalsStayInside checks that the sandbox cannot signal the host.
func TestSignalsStayInside(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		r := sh(t, Spec{Profile: WorkspaceWrite, Cwd: ws}, fmt.Sprintf("kill -0 %d", os.Getpid()))
		if r.err == nil {
			t.Errorf("the sandbox could signal the test process: %s", r.out)
		}
	})
}

// TestHostUnixSockets checks that host daemons stay out of reach: an
// abstract socket (Landlock scope) and a masked pathname socket
// (/run/docker.sock, bound to /dev/null), with the network on or off.
// Other pathname sockets: TestOutsideUnixSockets.
func TestHostUnixSockets(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		off := Spec{Profile: WorkspaceWrite, Cwd: ws}
		on := Spec{Profile: WorkspaceWrite, Cwd: ws, Network: true}
		abstract := fmt.Sprintf("@agentexec-test-%d", os.Getpid())
		l, err := net.Listen("unix", abstract)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		go acceptAll(l)
		dial := func(spec Spec, addr string) result {
			return run(t, spec, []string{"SANDBOX_TEST_HELPER=dial"}, os.Args[0], "unix", addr)
		}
		if r := dial(off, abstract); r.err == nil {
			t.Errorf("network off: reached the host's abstract socket: %s", r.out)
		}
		if r := dial(on, abstract); r.err == nil {
			t.Errorf("network on: reached the host's abstract socket across the Landlock scope: %s", r.out)
		}
		const docker = "/run/docker.sock"
		if _, err := os.Lstat(docker); err == nil || os.Geteuid() != 0 {
			t.Skipf("%s exists or not root: not faking a docker daemon", docker)
		}
		dl, err := net.Listen("unix", docker)
		if err != nil {
			t.Skipf("cannot fake %s: %v", docker, err)
		}
		defer os.Remove(docker)
		defer dl.Close()
		go acceptAll(dl)
		if r := dial(off, docker); r.err == nil {
			t.Errorf("network off: reached %s: %s", docker, r.out)
		}
		if r := dial(on, docker); r.err == nil {
			t.Errorf("network on: reached %s: %s", docker, r.out)
		}
		if r := run(t, Spec{Profile: None}, []string{"SANDBOX_TEST_HELPER=dial"}, os.Args[0], "unix", docker); r.err != nil {
			t.Errorf("sandbox none: %s unreachable: %v: %s", docker, r.err, r.out)
		}
	})
}

func acceptAll(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}

// TestConcurrent runs sandboxes side by side, as a server does.
func TestConcurrent(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		spec := Spec{Profile: WorkspaceWrite, Cwd: ws}
		errs := make(chan error, 8)
		for i := range 8 {
			go func() {
				cmd := exec.Command("/bin/sh", "-c", fmt.Sprintf("echo %d > f%d && cat f%d", i, i, i))
				cmd.Dir = ws
				h, err := Prepare(cmd, spec)
				if err != nil {
					errs <- err
					return
				}
				defer h.Close()
				if err := h.Start(); err != nil {
					errs <- err
					return
				}
				errs <- cmd.Wait()
			}()
		}
		for range 8 {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
	})
}

// TestMountsWithinWritableRoot checks, for each launcher, that the mounts
// inside a writable root keep their own write access in the sandbox (one
// mounted read-only stays read-only, one mounted writable stays
// writable), that an extra writable root mounted writable is writable
// there too, and that what is outside the roots stays read-only.
func TestMountsWithinWritableRoot(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, sibling := workspace(t)
		extra := t.TempDir()
		for _, m := range []struct {
			dir   string
			flags uintptr
		}{{filepath.Join(ws, "rw"), 0}, {filepath.Join(ws, "ro"), unix.MS_RDONLY}, {filepath.Join(extra, "mnt"), 0}} {
			if err := os.Mkdir(m.dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := unix.Mount("tmpfs", m.dir, "tmpfs", m.flags, "size=64k"); err != nil {
				t.Skipf("cannot mount a tmpfs for the test: %v", err)
			}
			t.Cleanup(func() { unix.Unmount(m.dir, unix.MNT_DETACH) })
		}
		spec := Spec{Profile: WorkspaceWrite, Cwd: ws, WritableRoots: []string{filepath.Join(extra, "mnt")}}
		r := sh(t, spec, fmt.Sprintf(`echo x > top && echo x > rw/f && ! echo x > ro/f 2>/dev/null &&
			echo x > '%s/mnt/f' && ! echo x > '%s/new' 2>/dev/null && echo ok`, extra, sibling))
		if r.err != nil || !strings.Contains(r.out, "ok") {
			t.Fatalf("%v: %s", r.err, r.out)
		}
	})
}
