package sandbox

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestPTY runs a sandboxed command on a pseudo-terminal, as a caller using
// creack/pty does (Setsid and Setctty), and checks that it has its
// controlling terminal and may reopen /dev/tty.
func TestPTY(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		checkPTY(t, Spec{Profile: ReadOnly, Cwd: ws})
	})
}

func checkPTY(t *testing.T, spec Spec) {
	t.Helper()
	got, err := ptyRun(t, spec, `tty; echo via-dev-tty > /dev/tty; stty size; echo done`)
	for _, want := range []string{"/dev/pts/", "via-dev-tty", "33 77", "done"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q (wait: %v):\n%s", want, err, got)
		}
	}
}

// ptyRun runs script on a new 33x77 pseudo-terminal in the sandbox.
func ptyRun(t *testing.T, spec Spec, script string) (string, error) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	defer ptmx.Close()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = spec.Cwd
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Pdeathsig: syscall.SIGKILL}
	pty.Setsize(ptmx, &pty.Winsize{Rows: 33, Cols: 77})
	h, err := Prepare(cmd, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() { io.Copy(&out, ptmx); close(copied) }()
	werr := cmd.Wait()
	select {
	case <-copied:
	case <-time.After(5 * time.Second):
	}
	return strings.ReplaceAll(out.String(), "\r", ""), werr
}

// TestNoTIOCSTI checks that a sandboxed command cannot type into its
// controlling terminal (which may be the caller's), while the same command
// unsandboxed can on this kernel.
func TestNoTIOCSTI(t *testing.T) {
	requireSandbox(t)
	if !Detect().Seccomp {
		t.Skip("no seccomp")
	}
	ws, _ := workspace(t)
	tiocsti := func(profile Profile) error {
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Skipf("no pseudo-terminals: %v", err)
		}
		defer ptmx.Close()
		defer tty.Close()
		cmd := exec.Command(os.Args[0])
		cmd.Dir = ws
		cmd.Env = append(cmd.Environ(), "SANDBOX_TEST_HELPER=tiocsti")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
		h, err := Prepare(cmd, Spec{Profile: profile, Cwd: ws})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		if err := h.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd.Wait()
	}
	if err := tiocsti(None); err != nil {
		t.Skipf("TIOCSTI fails even unsandboxed (dev.tty.legacy_tiocsti=0?): %v", err)
	}
	if err := tiocsti(WorkspaceWrite); err == nil {
		t.Error("TIOCSTI worked inside the sandbox")
	}
}
