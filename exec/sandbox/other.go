//go:build !linux

package sandbox

import (
	"errors"
	"net"
	"os/exec"
	"runtime"
)

// Handle is a prepared sandboxed command. Outside Linux only profile None
// can be prepared, and its methods do nothing.
type Handle struct {
	cmd    *exec.Cmd
	report Report
}

// Prepare returns a Handle for profile None and an *UnavailableError for
// every other profile: this platform has no sandbox, and nothing is ever
// reported as sandboxed that was not.
func Prepare(cmd *exec.Cmd, spec Spec) (*Handle, error) {
	if spec.ExecCheck != nil {
		return nil, &UnavailableError{Profile: spec.Profile, Feature: "the exec gate", Reason: "it is implemented on Linux only"}
	}
	if spec.Profile == None {
		return &Handle{cmd: cmd, report: Report{Profile: None, Network: "on"}}, nil
	}
	_, err := makePlan(spec, Detect())
	return nil, err
}

// Start starts the command (profile None: nothing else can be prepared
// here).
func (h *Handle) Start() error { return h.StartWhen(nil) }

// StartWhen is Start once ready is closed (nil: at once).
func (h *Handle) StartWhen(ready <-chan struct{}) error {
	if err := CloseInherited(); err != nil {
		return err
	}
	if ready != nil {
		<-ready
	}
	return h.cmd.Start()
}

// OwnPIDNamespace is false: there are no PID namespaces here.
func (h *Handle) OwnPIDNamespace() bool { return false }

// Report says which layers applied: none.
func (h *Handle) Report() Report { return h.report }

// Outcome knows nothing beyond os/exec's ProcessState outside Linux.
func (h *Handle) Outcome() Outcome { return Outcome{} }

// ProxyListener fails outside Linux: no run can be prepared with
// Spec.Proxy here.
func (h *Handle) ProxyListener() (net.Listener, error) {
	return nil, errors.New("sandbox: no proxy listener on " + runtime.GOOS)
}

// CommandPID is 0: there is no init outside Linux.
func (h *Handle) CommandPID() int { return 0 }

// Close does nothing outside Linux.
func (h *Handle) Close() error { return nil }

// Kill does nothing: outside Linux nothing is sandboxed.
func (h *Handle) Kill() {}

// OOMKilled is always false outside Linux.
func (h *Handle) OOMKilled() bool { return false }

// EndedClean is always false outside Linux.
func (h *Handle) EndedClean() bool { return false }

// Release does nothing outside Linux: there are no standby launchers.
func Release() {}

// Main returns at once: there is no trampoline outside Linux.
func Main() { mainCalled.Store(true) }

// Detect reports that nothing can be enforced here.
func Detect() Capabilities {
	return Capabilities{OS: runtime.GOOS, Problems: []string{"no sandbox on " + runtime.GOOS}}
}
