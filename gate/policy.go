package gate

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// Policy is the policy file of DESIGN.md: the permission rules, the mode and
// the sections the executor reads (sandbox, env, output, timeout, audit).
// The gate reads Permissions, Mode, ReadOnlyCommands, Unknown and Blacklist;
// the other sections are data carried for the executor. A nil *Policy is
// valid and means "no rules, default mode".
type Policy struct {
	Permissions      Permissions     `json:"permissions"`
	Mode             Mode            `json:"mode,omitempty"`
	ReadOnlyCommands []string        `json:"read_only_commands,omitempty"`
	Unknown          string          `json:"unknown,omitempty"` // "ask" (default) or "contain"
	Sandbox          SandboxPolicy   `json:"sandbox"`
	Blacklist        BlacklistPolicy `json:"blacklist"`
	Env              EnvPolicy       `json:"env"`
	Output           OutputPolicy    `json:"output"`
	Timeout          Duration        `json:"timeout,omitempty"`
	Audit            AuditPolicy     `json:"audit"`

	// Source is the file the policy was loaded from ("" when built in code).
	Source string `json:"-"`
}

// Permissions holds the Bash(...) rule texts as users write them.
type Permissions struct {
	Allow []string `json:"allow,omitempty"`
	Ask   []string `json:"ask,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// SandboxPolicy configures the kernel sandbox a command runs in.
type SandboxPolicy struct {
	Profile       string   `json:"profile,omitempty"` // read-only, workspace-write (default), none
	Network       bool     `json:"network,omitempty"`
	WritableRoots []string `json:"writable_roots,omitempty"`
	ReadableRoots []string `json:"readable_roots,omitempty"` // empty: the whole filesystem
	// ProtectGit keeps .git and the policy file read-only inside
	// workspace-write; nil means true.
	ProtectGit *bool `json:"protect_git,omitempty"`
}

// BlacklistPolicy adds user entries to the built-in catastrophic-command list.
type BlacklistPolicy struct {
	Extra []BlacklistExtra `json:"extra,omitempty"`
}

// BlacklistExtra is one user blacklist entry: a Bash(...) style command
// pattern with a name and a reason shown to the model.
type BlacklistExtra struct {
	Name    string `json:"name"`
	Pattern string `json:"pattern"`
	Reason  string `json:"reason"`
}

// EnvPolicy says which environment variables a command inherits.
type EnvPolicy struct {
	Inherit string            `json:"inherit,omitempty"` // all (default), core, none
	Exclude []string          `json:"exclude,omitempty"` // glob patterns; nil means the default secret list
	Set     map[string]string `json:"set,omitempty"`
}

// OutputPolicy bounds what is kept of a command's output.
type OutputPolicy struct {
	MaxBytes int `json:"max_bytes,omitempty"`
}

// AuditPolicy configures the decision log.
type AuditPolicy struct {
	Path    string `json:"path,omitempty"`     // "" default location, "off" disables
	KeyFile string `json:"key_file,omitempty"` // HMAC key for a keyed chain
}

// Duration is a time.Duration that reads and writes as a Go duration string
// ("120s", "2m").
type Duration time.Duration

// UnmarshalJSON accepts a duration string or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("timeout: %v", err)
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("timeout: want a duration string such as \"120s\"")
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// LoadPolicy reads a policy file: agentexec's own format or the settings
// file of Claude Code / Qwen Code / Gemini CLI (only its permissions block
// matters). Errors name the file.
func LoadPolicy(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return ParsePolicy(data, path)
}

// ParsePolicy parses policy JSON; source names it in errors and rule
// provenance.
func ParsePolicy(data []byte, source string) (*Policy, error) {
	p := &Policy{}
	if err := json.Unmarshal(data, p); err != nil {
		return nil, fmt.Errorf("policy %s: %v", source, err)
	}
	p.Source = source
	if _, err := ParseMode(string(p.Mode)); err != nil {
		return nil, fmt.Errorf("policy %s: %v", source, err)
	}
	switch strings.TrimSpace(p.Unknown) {
	case "", "ask", "contain":
	default:
		return nil, fmt.Errorf("policy %s: unknown: %q is not ask or contain", source, p.Unknown)
	}
	if err := p.compile(); err != nil {
		return nil, fmt.Errorf("policy %s: %w", source, err)
	}
	return p, nil
}
