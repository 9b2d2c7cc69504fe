package exec

import (
	"context"
	"time"

	"github.com/agentexec/agentexec/audit"
	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/shellcfg"
)

// Approver is asked when the gate says ask. It returns true to run this
// exact request once. It is called from the goroutine running RunCommand and
// must return when ctx is done. A nil Approver refuses every ask (the
// observation is needs_approval).
type Approver func(ctx context.Context, req Request, d gate.Decision) (bool, error)

// AuditSink receives one record per decision and per finished run.
// Append must be safe for concurrent use; an error is reported on the
// observation but does not stop the run.
type AuditSink interface {
	Append(rec *audit.Record) error
}

// Runner runs run_command requests through the gate and the sandbox. It is
// configured once and safe for concurrent use; the zero value is valid
// (no rules, default mode, workspace-write sandbox, no audit).
type Runner struct {
	Policy   *gate.Policy
	Mode     gate.Mode // "" means the policy's mode
	Approver Approver
	Audit    AuditSink

	// Sandbox is the profile ("read-only", "workspace-write", "none");
	// "" means the policy's, else workspace-write.
	Sandbox string
	// Network allows network access inside the sandbox.
	Network bool

	Cwd            string             // default working directory ("" = process cwd)
	Shell          shellcfg.ShellType // configured shell ("" = detect)
	Timeout        time.Duration      // default timeout (0 = policy's, else 120s)
	MaxOutputBytes int                // default output cap (0 = policy's, else 30000)
}

// RunCommand gates and runs one request. It never returns an error: every
// outcome, including bad requests, is an Observation.
// Placeholder until the exec issue lands.
func (r *Runner) RunCommand(ctx context.Context, req Request) Observation {
	return Observation{Status: StatusError, Error: "exec: not implemented yet"}
}
