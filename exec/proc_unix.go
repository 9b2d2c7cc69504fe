//go:build !windows

package exec

import (
	"os"
	osexec "os/exec"
	"strings"
	"syscall"

	"github.com/agentexec/agentexec/exec/sandbox"
	"github.com/agentexec/agentexec/shellcfg"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// setProcAttr puts the command in its own process group (its own session
// under a PTY, with the PTY as controlling terminal) so the whole group can
// be signalled, and asks the kernel to SIGKILL it if we die first.
// sandbox.Prepare merges its own attributes into these.
func setProcAttr(cmd *osexec.Cmd, usePTY bool) {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if usePTY {
		attr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	}
	setPdeathsig(attr)
	cmd.SysProcAttr = attr
}

// rawCmdLine matters only on Windows.
func rawCmdLine(*osexec.Cmd, shellcfg.ShellType) {}

// exitInfo returns the exit code, or the name of the signal that ended
// the process (then the code is nil).
func exitInfo(ps *os.ProcessState) (*int, string) {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return nil, unix.SignalName(ws.Signal())
	}
	code := ps.ExitCode()
	return &code, ""
}

// outcomeExit is exitInfo for the status the run's init reported.
func outcomeExit(o sandbox.Outcome) (*int, string) {
	if o.Signaled {
		return nil, unix.SignalName(o.Signal)
	}
	code := o.Code
	return &code, ""
}

// openPTY opens a pseudo-terminal of the given size (0 means 24x80) with
// echo off, so text fed to stdin is not repeated in the output.
func openPTY(rows, cols uint16) (master, tty *os.File, err error) {
	master, tty, err = pty.Open()
	if err != nil {
		return nil, nil, err
	}
	if rows == 0 {
		rows = 24
	}
	if cols == 0 {
		cols = 80
	}
	if err = pty.Setsize(master, &pty.Winsize{Rows: rows, Cols: cols}); err == nil {
		err = noEcho(tty)
	}
	if err != nil {
		master.Close()
		tty.Close()
		return nil, nil, err
	}
	return master, tty, nil
}

// feedPTY types the request's stdin into the terminal, then end-of-file
// (^D; twice when the text does not end a line, since the first one only
// flushes the partial line), so a program reading the terminal ends.
func feedPTY(master *os.File, stdin *string) {
	text := ""
	if stdin != nil {
		text = *stdin
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\x04"
	}
	master.WriteString(text + "\x04")
}

// mergeProcAttr keeps a drop-in caller's attributes but always gives the
// command its own process group (a new session is one too), never an
// existing group (which tree would then signal), and Pdeathsig.
func mergeProcAttr(user *syscall.SysProcAttr) *syscall.SysProcAttr {
	a := *user
	if !a.Setsid {
		a.Setpgid, a.Pgid = true, 0
	}
	setPdeathsig(&a)
	return &a
}
