package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestMain makes the test binary its own trampoline, and its own helper
// command when SANDBOX_TEST_HELPER names one (as os/exec's tests do).
func TestMain(m *testing.M) {
	Main()
	mainNS, mainCapEff = mainThreadState()
	if os.Getenv("SANDBOX_TEST_LAUNCHER") == "trampoline" {
		detectCaps = trampolineCaps
	}
	if h := os.Getenv("SANDBOX_TEST_HELPER"); h != "" {
		os.Exit(runHelper(h, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// runHelper runs inside the sandbox as the command.
func runHelper(name string, args []string) int {
	switch name {
	case "unixsock":
		return helperUnixSocket()
	case "socket":
		return helperSocket(args)
	case "parent":
		return helperParent(args)
	case "tiocsti":
		c := byte('x')
		_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, 0, syscall.TIOCSTI, uintptr(unsafe.Pointer(&c)))
		if errno != 0 {
			fmt.Println("TIOCSTI:", errno)
			return 1
		}
		return 0
	case "dial":
		c, err := net.Dial(args[0], args[1])
		if err != nil {
			fmt.Println(err)
			return 1
		}
		c.Close()
		fmt.Println("connected")
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown helper %q\n", name)
	return 2
}

// helperUnixSocket listens on a socket in the cwd and talks to itself.
func helperUnixSocket() int {
	l, err := net.Listen("unix", "helper.sock")
	if err != nil {
		fmt.Println("listen:", err)
		return 1
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Write([]byte("pong"))
			c.Close()
		}
	}()
	c, err := net.Dial("unix", "helper.sock")
	if err != nil {
		fmt.Println("dial:", err)
		return 1
	}
	b := make([]byte, 4)
	_, err = c.Read(b)
	fmt.Println(string(b), err)
	return 0
}

// helperSocket makes a socket of the family in args[0] and prints the errno.
func helperSocket(args []string) int {
	fam := map[string]int{"inet": syscall.AF_INET, "inet6": syscall.AF_INET6, "unix": syscall.AF_UNIX, "netlink": syscall.AF_NETLINK, "packet": syscall.AF_PACKET}[args[0]]
	fd, err := syscall.Socket(fam, syscall.SOCK_DGRAM, 0)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	syscall.Close(fd)
	fmt.Println("ok")
	return 0
}

// result is one sandboxed run.
type result struct {
	out    string
	err    error
	report Report
}

func (r result) code() int {
	var ee *exec.ExitError
	if errors.As(r.err, &ee) {
		return ee.ExitCode()
	}
	if r.err != nil {
		return -1
	}
	return 0
}

// run runs argv in the sandbox described by spec, with the cwd spec.Cwd,
// and returns its combined output.
func run(t *testing.T, spec Spec, env []string, argv ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = spec.Cwd
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	h, err := Prepare(cmd, spec)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	defer func() {
		if err := h.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	if err := h.Start(); err != nil {
		return result{err: err, report: h.Report()}
	}
	err = cmd.Wait()
	return result{out: out.String(), err: err, report: h.Report()}
}

func sh(t *testing.T, spec Spec, script string) result {
	t.Helper()
	return run(t, spec, nil, "/bin/sh", "-c", script)
}

// workspace makes a workspace with a .git/hooks directory and a sibling
// directory holding a file, and returns their paths.
func workspace(t *testing.T) (ws, sibling string) {
	t.Helper()
	base := t.TempDir()
	ws, sibling = filepath.Join(base, "ws"), filepath.Join(base, "sibling")
	for _, d := range []string{filepath.Join(ws, ".git", "hooks"), sibling} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(sibling, "file"), filepath.Join(ws, ".git", "config")} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws, sibling
}

// trampolineCaps is Detect with the thread launcher ruled out.
func trampolineCaps() Capabilities {
	c := Detect()
	c.ThreadLaunch = false
	return c
}

// eachLauncher runs f once for each way of starting a run this host has:
// the launcher thread and the trampoline.
func eachLauncher(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	c := Detect()
	t.Run("thread", func(t *testing.T) {
		if !c.ThreadLaunch {
			t.Skipf("runs cannot start from a thread here (root, cgroup v1 pids, seccomp and Linux 6.15 needed; problems: %s)", strings.Join(c.Problems, "; "))
		}
		withCaps(t, c)
		f(t)
	})
	t.Run("trampoline", func(t *testing.T) {
		withCaps(t, trampolineCaps())
		f(t)
	})
}

// setStandbys turns standby launchers on or off for the rest of the test,
// dropping those readied.
func setStandbys(tb testing.TB, on bool) {
	standbys.Lock()
	old := standbys.off
	standbys.off = !on
	standbys.Unlock()
	for sb := takeStandby(); sb != nil; sb = takeStandby() {
		sb.drop()
	}
	tb.Cleanup(func() {
		standbys.Lock()
		standbys.off = old
		standbys.Unlock()
	})
}

// withCaps makes Prepare see caps for the rest of the test.
func withCaps(t *testing.T, caps Capabilities) {
	old := detectCaps
	detectCaps = func() Capabilities { return caps }
	t.Cleanup(func() { detectCaps = old })
}

// requireSandbox skips when this kernel cannot run the profiles at all.
func requireSandbox(t *testing.T) {
	t.Helper()
	c := Detect()
	if _, err := makePlan(Spec{Profile: WorkspaceWrite}, c); err != nil {
		t.Skipf("no sandbox on this host: %v (problems: %s)", err, strings.Join(c.Problems, "; "))
	}
}

// helperParent starts args in a workspace-write sandbox of the cwd, says
// so on stdout and waits: the test kills it to check the parent-death
// signal.
func helperParent(args []string) int {
	cwd, _ := os.Getwd()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	h, err := Prepare(cmd, Spec{Profile: WorkspaceWrite, Cwd: cwd})
	if err == nil {
		err = h.Start()
	}
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("started")
	fmt.Printf("%-10s\n", h.Report().Launcher)
	cmd.Wait()
	return 0
}

// marked lists the processes whose environment holds marker.
func marked(marker string) []string {
	var pids []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if b, err := os.ReadFile("/proc/" + d.Name() + "/environ"); err == nil && bytes.Contains(b, []byte(marker)) {
			pids = append(pids, d.Name())
		}
	}
	return pids
}

// waitGone polls until no process carries marker, for up to 10s.
func waitGone(t *testing.T, marker string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if len(marked(marker)) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("processes left behind: %v", marked(marker))
}
