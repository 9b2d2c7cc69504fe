package gate

import "github.com/agentexec/agentexec/shellcfg"

// Action is what the gate decided.
type Action string

// The actions, in priority order deny > ask > allow.
const (
	Allow Action = "allow"
	Ask   Action = "ask"
	Deny  Action = "deny"
)

// RuleRef names the permission rule that decided, and where it came from.
type RuleRef struct {
	Text   string `json:"text"`   // as written, e.g. "Bash(rm *)"
	Source string `json:"source"` // policy file path, "inline", "flag", ...
	Action Action `json:"action"`
}

// BlacklistEntry names the catastrophic-command entry that matched.
type BlacklistEntry struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Decision is the gate's verdict on one command.
type Decision struct {
	Action Action `json:"decision"`
	// RuleDecision is what the permission rules alone said (allow, ask,
	// deny, or none when no rule matched), before mode and classifier.
	RuleDecision string             `json:"rule_decision"`
	Safety       Safety             `json:"safety"`
	Segments     []string           `json:"segments"`
	Rule         *RuleRef           `json:"rule,omitempty"`
	Blacklist    *BlacklistEntry    `json:"blacklist,omitempty"`
	Reason       string             `json:"reason"`
	Suggestions  []string           `json:"suggestions,omitempty"` // minimal allow rules for an ask
	OneOff       bool               `json:"one_off,omitempty"`     // an ask that may only be approved once
	Contain      bool               `json:"contain,omitempty"`     // run in the read-only sandbox, network off
	Mode         Mode               `json:"mode"`
	Shell        shellcfg.ShellType `json:"shell"`
	Class        Result             `json:"classification"`
}

// Input is everything a decision depends on. The gate is a pure function of
// it: no process starts and nothing but git configuration files is read.
type Input struct {
	Text   string
	Shell  shellcfg.ShellType
	Cwd    string
	Mode   Mode // "" means the policy's mode, else default
	Policy *Policy
	Env    []string
}

// Decide turns a command into allow / ask / deny.
// Placeholder until the rules issue lands: classify, then apply the mode.
func Decide(in Input) Decision {
	mode := in.Mode
	if mode == "" && in.Policy != nil {
		mode = in.Policy.Mode
	}
	if mode == "" {
		mode = ModeDefault
	}
	res := Classify(in.Text, ClassifyOptions{Shell: in.Shell, Cwd: in.Cwd, Env: in.Env})
	d := Decision{Safety: res.Safety, Segments: []string{in.Text}, RuleDecision: "none", Mode: mode, Shell: in.Shell, Class: res}
	switch {
	case mode == ModeYolo || res.Safety == ReadOnly:
		d.Action = Allow
	case mode == ModePlan && res.Safety == Write:
		d.Action = Deny
	default:
		d.Action = Ask
	}
	d.Reason = "placeholder decision: " + res.Reason
	return d
}
