//go:build !linux && !windows

package exec

import (
	"os"
	"sync/atomic"
	"syscall"
)

// Outside Linux there is no Pdeathsig.
func setPdeathsig(*syscall.SysProcAttr) {}

// Outside Linux there is no child subreaper: a process that leaves the
// group (setsid) escapes tree. Use Linux, where the sandbox's PID namespace
// and the subreaper close that gap.
func enableSubreaper() {}

// tree is the command's process group.
type tree struct {
	pid    int
	reaped bool
	killed atomic.Bool // never set: nothing to sweep here
}

func newTree(string) *tree { return &tree{} }

func (t *tree) started(pid int) { t.pid = pid }

// sweep does nothing: there is no init here.
func (t *tree) sweep() {}

// setGroup does nothing: there is no init outside Linux.
func (t *tree) setGroup(func() int) {}

// setEnclosed does nothing: there are no PID namespaces outside Linux.
func (t *tree) setEnclosed(bool) {}

// terminate sends SIGTERM to the group.
func (t *tree) terminate() { t.signal(syscall.SIGTERM) }

// termIsLost is false: outside Linux there is no sandbox PID namespace.
func (t *tree) termIsLost() bool { return false }

// othersAlive is not knowable without /proc; the grace period runs out.
func (t *tree) othersAlive() bool { return true }

// kill sends SIGKILL to the group.
func (t *tree) kill() { t.signal(syscall.SIGKILL) }

// signal signals the group while its leader is unreaped (so the group id
// is still ours); never pid 0, which would be our own group.
func (t *tree) signal(sig syscall.Signal) {
	if t.pid > 0 && !t.reaped {
		syscall.Kill(-t.pid, sig)
	}
}

// cleanup would end what the command left in its group, but once the
// leader was reaped its pid, and so the group id, may be reused: without a
// way to tell, nothing is signalled.
func (t *tree) cleanup() {}

// recheck does nothing here: cleanup does nothing either.
func (t *tree) recheck() {}

// waitExit is not available: os/exec's Wait does all the waiting.
func waitExit(int) {}

// noEcho is left undone here: text fed to a PTY is echoed.
func noEcho(*os.File) error { return nil }

// children is not available without /proc.
func children(int) []int { return nil }
