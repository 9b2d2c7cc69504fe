package gate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

	// compiled holds the parsed rules; set by ParsePolicy and With. A
	// Policy built in code is compiled on each Decide instead.
	compiled *compiledPolicy
}

// compiledPolicy is what Decide needs from a Policy, parsed once.
type compiledPolicy struct {
	rules  *ruleSet
	extras []blacklistExtra
}

// Permissions holds the Bash(...) rule texts as users write them.
type Permissions struct {
	Allow []string `json:"allow,omitempty"`
	Ask   []string `json:"ask,omitempty"`
	Deny  []string `json:"deny,omitempty"`
	// Network maps an allow rule's text to the hosts a command it allows
	// may reach (network.go).
	Network map[string][]string `json:"-"`
}

// SandboxPolicy configures the kernel sandbox a command runs in.
type SandboxPolicy struct {
	Profile       string   `json:"profile,omitempty"` // read-only, workspace-write (default), none
	WritableRoots []string `json:"writable_roots,omitempty"`
	ReadableRoots []string `json:"readable_roots,omitempty"` // empty: the whole filesystem
	// ProtectGit keeps .git and the policy file read-only inside
	// workspace-write; nil means true.
	ProtectGit *bool         `json:"protect_git,omitempty"`
	Limits     SandboxLimits `json:"limits"`

	// Network is false (cut), true (open) or {"allow": [...], "deny":
	// [...], "allow_local": false} (through the egress proxy): network.go.
	Network NetworkPolicy `json:"network"`
}

// SandboxLimits are the resource limits of a sandboxed command; 0 leaves a
// limit as it is (no core dumps either way).
type SandboxLimits struct {
	CPUSeconds   uint64 `json:"cpu_seconds,omitempty"`   // RLIMIT_CPU: SIGXCPU, then SIGKILL a second later
	AddressSpace uint64 `json:"address_space,omitempty"` // RLIMIT_AS, bytes
	FileSize     uint64 `json:"file_size,omitempty"`     // RLIMIT_FSIZE, bytes
	OpenFiles    uint64 `json:"open_files,omitempty"`    // RLIMIT_NOFILE
	// Processes bounds the run's processes and threads (a pids cgroup or
	// the PID namespace's pid_max; default 512).
	Processes uint64 `json:"processes,omitempty"`
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
	// RotateBytes starts a new file (the chain continues) once the log
	// reaches this size; 0 never rotates.
	RotateBytes int64 `json:"rotate_bytes,omitempty"`
	// AnchorEvery writes the chain head to the anchors file every N
	// records; 0 means the audit package's default.
	AnchorEvery int `json:"anchor_every,omitempty"`
	// NoSync skips the fsync after each record (faster; a crash may lose
	// the last records, never corrupt the chain).
	NoSync bool `json:"no_sync,omitempty"`
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
// file of Claude Code / Qwen Code (only its permissions block matters).
// Errors name the file. See ParsePolicy for how the two are told apart.
func LoadPolicy(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return ParsePolicy(data, path)
}

// agentexecKeys are the top-level keys of agentexec's own format.
var agentexecKeys = map[string]bool{
	"permissions": true, "mode": true, "read_only_commands": true, "unknown": true,
	"sandbox": true, "blacklist": true, "env": true, "output": true,
	"timeout": true, "audit": true, "$schema": true,
}

// ParsePolicy parses policy JSON; source names it in errors and rule
// provenance.
//
// A file is read as a Claude Code / Qwen Code settings file when it has
// any top-level key that is not one of agentexec's (permissions, mode,
// read_only_commands, unknown, sandbox, blacklist, env, output, timeout,
// audit, $schema), or when its permissions block has a key agentexec does
// not use (defaultMode, additionalDirectories, …); failing both, when it
// has none of agentexec's own sections (only permissions, env, $schema)
// and its base name is settings.json or settings.local.json. From a settings file only
// permissions.allow/ask/deny and permissions.defaultMode are read (plan →
// plan, bypassPermissions → yolo, anything else → default); rules of other
// tools (Read(...), WebFetch, mcp__…) are ignored, as they belong to those
// tools. Everything else is agentexec's own format, decoded strictly: an
// unknown field anywhere is an error naming it, and a rule of another tool
// is an error. A malformed Bash(...) rule is an error in both.
func ParsePolicy(data []byte, source string) (*Policy, error) {
	settings, err := isSettingsFile(data, source)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %v", source, err)
	}
	var p *Policy
	if settings {
		p, err = parseSettings(data)
	} else {
		p, err = parseOwn(data)
	}
	if err != nil {
		return nil, fmt.Errorf("policy %s: %v", source, err)
	}
	p.Source = source
	if err := p.validate(!settings); err != nil {
		return nil, fmt.Errorf("policy %s: %w", source, err)
	}
	return p, nil
}

func isSettingsFile(data []byte, source string) (bool, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return false, jsonError(err)
	}
	own := false
	for k := range top {
		if !agentexecKeys[k] {
			return true, nil
		}
		own = own || (k != "permissions" && k != "env" && k != "$schema")
	}
	var perms map[string]json.RawMessage
	if raw, ok := top["permissions"]; ok && json.Unmarshal(raw, &perms) == nil {
		for k := range perms {
			if k != "allow" && k != "ask" && k != "deny" {
				return true, nil
			}
		}
	}
	if raw, ok := top["sandbox"]; ok && claudeSandbox(raw) {
		return true, nil
	}
	if own {
		return false, nil
	}
	base := filepath.Base(source)
	return base == "settings.json" || base == "settings.local.json", nil
}

// parseOwn decodes agentexec's format, refusing unknown fields.
func parseOwn(data []byte) (*Policy, error) {
	p := &Policy{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return nil, jsonError(err)
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON object")
	}
	return p, nil
}

// settingsFile is the part of a Claude Code / Qwen Code settings file
// agentexec reads.
type settingsFile struct {
	Permissions struct {
		Allow       []string `json:"allow"`
		Ask         []string `json:"ask"`
		Deny        []string `json:"deny"`
		DefaultMode string   `json:"defaultMode"`
	} `json:"permissions"`
	Sandbox struct {
		Network struct {
			AllowedDomains []string `json:"allowedDomains"`
		} `json:"network"`
	} `json:"sandbox"`
}

func parseSettings(data []byte) (*Policy, error) {
	var sf settingsFile
	if err := json.Unmarshal(data, &sf); err != nil {
		return nil, jsonError(err)
	}
	p := &Policy{Permissions: Permissions{Allow: sf.Permissions.Allow, Ask: sf.Permissions.Ask, Deny: sf.Permissions.Deny}}
	p.Sandbox.Network = settingsNetwork(sf.Permissions.Allow, sf.Permissions.Deny, sf.Sandbox.Network.AllowedDomains)
	switch sf.Permissions.DefaultMode {
	case "plan":
		p.Mode = ModePlan
	case "bypassPermissions":
		p.Mode = ModeYolo
	default:
		p.Mode = ModeDefault
	}
	return p, nil
}

// jsonError turns encoding/json's errors into ones naming the field.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Errorf("field %s: want %s, got JSON %s", te.Field, te.Type, te.Value)
	}
	if msg, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("unknown field %s", msg)
	}
	return err
}

// validate checks the mode and unknown fields and compiles the rules.
func (p *Policy) validate(strict bool) error {
	if _, err := ParseMode(string(p.Mode)); err != nil {
		return err
	}
	switch strings.TrimSpace(p.Unknown) {
	case "", "ask", "contain":
	default:
		return fmt.Errorf("unknown: %q is not ask or contain", p.Unknown)
	}
	for i, n := range p.ReadOnlyCommands {
		if strings.TrimSpace(n) == "" || strings.ContainsAny(n, " \t\n") {
			return fmt.Errorf("read_only_commands[%d]: %q is not a command name", i, n)
		}
	}
	if l := p.Sandbox.Limits.OpenFiles; l != 0 && l < 8 {
		return fmt.Errorf("sandbox.limits.open_files: %d leaves a command no room for its standard files and libraries (want 0 or at least 8)", l)
	}
	if err := p.Sandbox.Network.validate("sandbox.network"); err != nil {
		return err
	}
	if p.Audit.RotateBytes < 0 {
		return fmt.Errorf("audit.rotate_bytes: %d is negative", p.Audit.RotateBytes)
	}
	if p.Audit.AnchorEvery < 0 {
		return fmt.Errorf("audit.anchor_every: %d is negative", p.Audit.AnchorEvery)
	}
	c, err := compilePolicy(p, strict)
	if err != nil {
		return err
	}
	p.compiled = c
	return nil
}

func compilePolicy(p *Policy, strict bool) (*compiledPolicy, error) {
	rs, err := compileRules(p.Permissions, p.ruleSource(), strict)
	if err != nil {
		return nil, err
	}
	extras, err := compileExtras(p.Blacklist.Extra, p.ruleSource())
	if err != nil {
		return nil, err
	}
	return &compiledPolicy{rules: rs, extras: extras}, nil
}

func (p *Policy) ruleSource() string {
	if p.Source == "" {
		return "policy"
	}
	return p.Source
}

// rulesFor returns p's compiled rules, compiling a Policy built in code on
// the spot (nil p: no rules). An error means a malformed rule in a Policy
// that never went through ParsePolicy.
func (p *Policy) rulesFor() (*compiledPolicy, error) {
	if p == nil {
		return &compiledPolicy{rules: &ruleSet{}}, nil
	}
	if p.compiled != nil {
		return p.compiled, nil
	}
	return compilePolicy(p, false)
}

// With returns a new policy: p (nil means empty) plus extra rules and
// read-only commands, the extra rules remembering source ("inline" for a
// --batch line, "flag" for the command line). p is not modified.
func (p *Policy) With(extra Permissions, readOnly []string, source string) (*Policy, error) {
	base, err := p.rulesFor()
	if err != nil {
		return nil, err
	}
	add, err := compileRules(extra, source, true)
	if err != nil {
		return nil, err
	}
	q := &Policy{}
	if p != nil {
		*q = *p
	}
	q.Permissions = Permissions{
		Allow:   concatStrings(q.Permissions.Allow, extra.Allow),
		Ask:     concatStrings(q.Permissions.Ask, extra.Ask),
		Deny:    concatStrings(q.Permissions.Deny, extra.Deny),
		Network: mergeNetwork(q.Permissions.Network, extra.Network),
	}
	q.ReadOnlyCommands = concatStrings(q.ReadOnlyCommands, readOnly)
	q.compiled = &compiledPolicy{rules: base.rules.merge(add), extras: base.extras}
	return q, nil
}

func concatStrings(a, b []string) []string {
	return append(append([]string(nil), a...), b...)
}

// Digest is a hash of everything in p that a decision depends on: the
// rule texts, the mode, the read-only commands, the unknown setting and
// the blacklist extras. Approvals are bound to it.
func (p *Policy) Digest() string {
	if p == nil {
		p = &Policy{} // no policy and an empty one decide alike
	}
	h := sha256.New()
	_ = json.NewEncoder(h).Encode([]any{p.Permissions, p.Mode, p.ReadOnlyCommands, p.Unknown, p.Blacklist})
	return hex.EncodeToString(h.Sum(nil))
}
