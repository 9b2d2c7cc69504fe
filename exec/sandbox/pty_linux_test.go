package sandbox

import (
	"bytes"
	"io"
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
	ws, _ := workspace(t)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	defer ptmx.Close()
	cmd := exec.Command("/bin/sh", "-c", `tty; echo via-dev-tty > /dev/tty; stty size; echo done`)
	cmd.Dir = ws
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Pdeathsig: syscall.SIGKILL}
	pty.Setsize(ptmx, &pty.Winsize{Rows: 33, Cols: 77})
	h, err := Prepare(cmd, Spec{Profile: ReadOnly, Cwd: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	if err := h.Started(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() { io.Copy(&out, ptmx); close(copied) }()
	werr := cmd.Wait()
	select {
	case <-copied:
	case <-time.After(5 * time.Second):
	}
	got := strings.ReplaceAll(out.String(), "\r", "")
	for _, want := range []string{"/dev/pts/", "via-dev-tty", "33 77", "done"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q (wait: %v):\n%s", want, werr, got)
		}
	}
}
