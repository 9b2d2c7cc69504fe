package audit

// Record is one line of the log. The writer fills Seq, Time, Prev and Hash;
// callers fill the rest. Kind is "decision" or "run"; RunID links the two.
type Record struct {
	Seq   uint64 `json:"seq"`
	Time  string `json:"time"` // RFC 3339, UTC, nanoseconds
	Kind  string `json:"kind"`
	RunID string `json:"run_id"`

	// The request. Command and Argv are redacted before they are written,
	// and kept to MaxCommandBytes: past it the record holds the first
	// MaxCommandBytes, and CommandBytes and CommandSHA256 describe the
	// whole redacted text (for Argv, its words each followed by a NUL).
	Command       string   `json:"command,omitempty"`
	Argv          []string `json:"argv,omitempty"`
	CommandBytes  int64    `json:"command_bytes,omitempty"`  // only when truncated
	CommandSHA256 string   `json:"command_sha256,omitempty"` // only when truncated
	Shell         string   `json:"shell,omitempty"`
	Cwd           string   `json:"cwd,omitempty"`
	Mode          string   `json:"mode,omitempty"`

	// The decision. Segments is what older writers stored (one copy of
	// the text per segment, which a deep command multiplied): read, never
	// written; SegmentCount replaces it.
	Segments     []string `json:"segments,omitempty"`
	SegmentCount int      `json:"segment_count,omitempty"`
	Safety       string   `json:"safety,omitempty"`
	Decision     string   `json:"decision,omitempty"`
	RuleDecision string   `json:"rule_decision,omitempty"`
	Rule         string   `json:"rule,omitempty"`
	RuleSource   string   `json:"rule_source,omitempty"`
	Blacklist    string   `json:"blacklist,omitempty"`
	Reason       string   `json:"reason,omitempty"`
	Approved     string   `json:"approved,omitempty"` // "once" when an ask was approved
	// PolicyDigest is the digest of the policy the decision was made
	// under (gate.Policy.Digest), so a reloaded policy shows in the log.
	PolicyDigest string `json:"policy_digest,omitempty"`

	// The agent hook. A "hook" record is the decision `agentexec hook`
	// answered an agent with: Agent and Tool name the agent and its tool,
	// RunID is the hook decision's ID. The decision and run records of a
	// command the hook rewrote to run through agentexec carry that ID in
	// HookID: that is how the log joins the two.
	Agent  string `json:"agent,omitempty"`
	Tool   string `json:"tool,omitempty"`
	HookID string `json:"hook_id,omitempty"`

	// The run.
	Sandbox      string `json:"sandbox,omitempty"` // profile
	LandlockABI  int    `json:"landlock_abi,omitempty"`
	Network      string `json:"network,omitempty"` // how the network was cut, or "on"
	Status       string `json:"status,omitempty"`
	ExitCode     *int   `json:"exit_code,omitempty"`
	Signal       string `json:"signal,omitempty"`
	DurationMS   int64  `json:"duration_ms,omitempty"`
	StdoutBytes  int64  `json:"stdout_bytes,omitempty"`
	StderrBytes  int64  `json:"stderr_bytes,omitempty"`
	OutputSHA256 string `json:"output_sha256,omitempty"`
	// The run-time exec gate: "on", "off" (the operator opted out) or
	// "unavailable"; the programs the run started and the gate allowed,
	// each as bash text, redacted (at most a bounded number, the rest
	// counted); and, in an "exec_refused" record, the stopped program's
	// executable and the program that started it (redacted).
	ExecGate     string   `json:"exec_gate,omitempty"`
	Execs        []string `json:"execs,omitempty"`
	ExecsOmitted int      `json:"execs_omitted,omitempty"`
	Exe          string   `json:"exe,omitempty"`
	Caller       string   `json:"caller,omitempty"`
	Output       string   `json:"output,omitempty"` // only when configured

	// Connections are the run's network connections through the egress
	// proxy, allowed and refused (for plain HTTP, one per request).
	Connections []Connection `json:"connections,omitempty"`

	// The chain. Alg is "sha256" (unkeyed) or "hmac-sha256" (keyed); it is
	// part of the hashed bytes, and verify refuses a chain whose Alg changes
	// or, given a key, any record that is not keyed.
	Alg  string `json:"alg"`
	Prev string `json:"prev"`
	Hash string `json:"hash"`
}

// Connection is one connection of a run through the egress proxy.
type Connection struct {
	Protocol string `json:"protocol"` // http, connect, socks5
	Host     string `json:"host"`
	Port     int    `json:"port"`
	Allowed  bool   `json:"allowed"`
	// Rule is the allow entry that admitted it, or the deny entry that
	// refused it; RuleSource says where that entry came from.
	Rule       string `json:"rule,omitempty"`
	RuleSource string `json:"rule_source,omitempty"`
	Addr       string `json:"addr,omitempty"`    // the address connected to
	Refused    string `json:"refused,omitempty"` // the kind of refusal
	Suggest    string `json:"suggest,omitempty"` // the allow entry that would admit it
	Error      string `json:"error,omitempty"`
	BytesOut   int64  `json:"bytes_out,omitempty"`
	BytesIn    int64  `json:"bytes_in,omitempty"`
}
