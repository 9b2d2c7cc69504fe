package sandbox

import (
	"errors"
	"os/exec"
)

// Handle is a prepared sandboxed command.
type Handle struct{ spec Spec }

// Prepare rewrites cmd (Path, Args, Env, Dir and stdio already set, not yet
// started) so that it starts through the trampoline. Placeholder: only None.
func Prepare(cmd *exec.Cmd, spec Spec) (*Handle, error) {
	if spec.Profile != None {
		return nil, errors.New("sandbox: not implemented yet; use sandbox none")
	}
	return &Handle{spec: spec}, nil
}

// Started must be called right after cmd.Start succeeded.
func (h *Handle) Started() error { return nil }

// Report says which layers applied.
func (h *Handle) Report() Report { return Report{Profile: h.spec.Profile, Network: "on"} }

// Close releases what Prepare made (cgroup, temp dir). Call after Wait.
func (h *Handle) Close() error { return nil }

// Main runs the trampoline when the process was started as one and never
// returns then; otherwise it returns at once. Call it first in main.
func Main() {}
