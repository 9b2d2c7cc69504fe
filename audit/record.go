package audit

// Record is one line of the log. The writer fills Seq, Time, Prev and Hash;
// callers fill the rest. Kind is "decision" or "run"; RunID links the two.
type Record struct {
	Seq   uint64 `json:"seq"`
	Time  string `json:"time"` // RFC 3339, UTC, nanoseconds
	Kind  string `json:"kind"`
	RunID string `json:"run_id"`

	// The request.
	Command string   `json:"command,omitempty"` // redacted before it is written
	Argv    []string `json:"argv,omitempty"`    // redacted before it is written
	Shell   string   `json:"shell,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	Mode    string   `json:"mode,omitempty"`

	// The decision.
	Segments     []string `json:"segments,omitempty"`
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
	Output       string `json:"output,omitempty"` // only when configured

	// The chain. Alg is "sha256" (unkeyed) or "hmac-sha256" (keyed); it is
	// part of the hashed bytes, and verify refuses a chain whose Alg changes
	// or, given a key, any record that is not keyed.
	Alg  string `json:"alg"`
	Prev string `json:"prev"`
	Hash string `json:"hash"`
}
