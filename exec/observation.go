package exec

import "github.com/agentexec/agentexec/gate"

// Status says how a request ended.
type Status string

// The statuses.
const (
	StatusExited        Status = "exited"
	StatusTimedOut      Status = "timed_out"
	StatusRejected      Status = "rejected"
	StatusNeedsApproval Status = "needs_approval"
	StatusError         Status = "error"
)

// Observation is what comes back from a request: always something the model
// can read.
type Observation struct {
	Status     Status `json:"status"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	Signal     string `json:"signal,omitempty"`
	Stdout     string `json:"stdout,omitempty"`
	Stderr     string `json:"stderr,omitempty"`
	Output     string `json:"output,omitempty"` // merged stdout+stderr (PTY)
	Truncated  bool   `json:"truncated,omitempty"`
	Omitted    int64  `json:"omitted_bytes,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	// StdoutBytes and StderrBytes count everything the command wrote to
	// each stream, kept or not (with a PTY, StdoutBytes is the merged
	// output).
	StdoutBytes int64 `json:"stdout_bytes,omitempty"`
	StderrBytes int64 `json:"stderr_bytes,omitempty"`
	// TimeoutMS is the timeout that applied, set when it expired.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`

	Decision     gate.Action    `json:"decision,omitempty"`
	RuleDecision string         `json:"rule_decision,omitempty"`
	Safety       gate.Safety    `json:"safety,omitempty"`
	Rule         string         `json:"rule,omitempty"`
	RuleSource   string         `json:"rule_source,omitempty"`
	Blacklist    string         `json:"blacklist,omitempty"`
	Reason       string         `json:"reason,omitempty"`
	Suggestions  []string       `json:"suggestions,omitempty"`
	Error        string         `json:"error,omitempty"`
	Sandbox      *SandboxReport `json:"sandbox,omitempty"`
	RunID        string         `json:"run_id,omitempty"`

	// Network is the egress proxy's evidence, for a run whose network
	// went through it (network.go).
	Network *NetworkReport `json:"network,omitempty"`

	// ExecGate says whether the run-time exec gate watched the programs
	// the run started: "on", "off" (the operator opted out) or
	// "unavailable" (this host cannot trace). ExecRefused is the program
	// it stopped, which ended the run (Status is then rejected).
	ExecGate    string       `json:"exec_gate,omitempty"`
	ExecRefused *ExecRefusal `json:"exec_refused,omitempty"`
}

// SandboxReport says which kernel layers applied to a run.
type SandboxReport struct {
	Profile     string   `json:"profile"`
	LandlockABI int      `json:"landlock_abi,omitempty"`
	Network     string   `json:"network,omitempty"` // "netns", "seccomp", "netns+seccomp", "proxy", "on"
	Layers      []string `json:"layers,omitempty"`
	Contained   bool     `json:"contained,omitempty"` // an unknown command run read-only instead of asking
	// Masks are the paths hidden from the command (denied Read rules, the
	// audit key and lock), ReadOnly the paths bound read-only inside a
	// writable root (denied Edit and Write rules, the audit log).
	Masks    []string `json:"masks,omitempty"`
	ReadOnly []string `json:"read_only,omitempty"`
	// Memory is the run's memory cap in bytes; OOMKilled says the kernel
	// killed a process of the run when it reached it.
	Memory    uint64 `json:"memory_limit,omitempty"`
	OOMKilled bool   `json:"oom_killed,omitempty"`
	// Notes say what this run's sandbox covers less than its profile
	// promises (a bounded search that stopped, say).
	Notes []string `json:"notes,omitempty"`
}
