package gate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/agentexec/agentexec/internal/jsonpos"
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

	// Files are the Read(...), Edit(...) and Write(...) rules of settings
	// files (filerules.go; package policy reads them), enforced by the gate
	// and the sandbox.
	Files []FileRule `json:"-"`

	// Source is the file the policy was loaded from ("" when built in code).
	Source string `json:"-"`

	// Rules are rules a loader compiled from another format (Claude Code,
	// Qwen Code, Gemini CLI, Codex), each with its own provenance and
	// meaning; they are decided together with Permissions. Call Compile
	// after setting them.
	Rules []Rule `json:"-"`

	// compiled holds the parsed rules; set by ParsePolicy, Compile and
	// With. A Policy built in code is compiled on each Decide instead.
	compiled *compiledPolicy
	// lines are the lines of Permissions' rule texts in Source.
	lines map[Action][]int
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

	// ExecGate is "on" (the default: every program a command starts is
	// checked when it starts, see DecideExec) or "off" (the operator's
	// choice to run without it where it cannot run, reported as such).
	ExecGate string `json:"exec_gate,omitempty"`
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
	// Memory caps the run's memory in bytes (a memory cgroup, else
	// RLIMIT_AS; default three quarters of the host's memory).
	Memory uint64 `json:"memory,omitempty"`
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

// LoadPolicy reads a policy file in agentexec's own format (see
// ParsePolicy). The settings files of other agents are read by package
// policy, which detects the format by content. Errors name the file.
func LoadPolicy(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return ParsePolicy(data, path)
}

// ParsePolicy parses a policy in agentexec's own format; source names it
// in errors and rule provenance.
//
// The format is strict: an unknown key anywhere is an error naming it, with
// the nearest known key suggested; a value of the wrong type is an error
// naming its path and line; a syntax error names its line and column; a
// rule of another tool is an error. // and /* */ comments are allowed.
// Every rule remembers its line.
func ParsePolicy(data []byte, source string) (*Policy, error) {
	p, err := parseOwn(data)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", source, err)
	}
	p.Source = source
	if err := p.validate(true); err != nil {
		return nil, fmt.Errorf("policy %s: %w", source, err)
	}
	return p, nil
}

// parseOwn decodes agentexec's format, refusing unknown keys.
func parseOwn(data []byte) (*Policy, error) {
	v, err := jsonpos.Parse(data, jsonpos.Options{Comments: true})
	if err != nil {
		return nil, err
	}
	if v.Kind != jsonpos.Object {
		return nil, fmt.Errorf("want a JSON object at the top level, got %s", v.Kind)
	}
	if err := jsonpos.Check(data, v, reflect.TypeFor[ownFile]()); err != nil {
		return nil, err
	}
	p := &Policy{}
	body := *v
	body.Members = nil
	for _, m := range v.Members {
		if m.Key != "$schema" {
			body.Members = append(body.Members, m)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return nil, jsonError(err)
	}
	p.lines = ruleLines(data, v.Get("permissions"))
	return p, nil
}

// ownFile is the schema of agentexec's format: the Policy's keys plus
// $schema, which editors use and agentexec ignores.
type ownFile struct {
	Policy
	Schema string `json:"$schema"`
	// Permissions shadows Policy's (which decodes itself) so that a typo
	// inside it is named with the nearest key; an allow entry is a rule
	// text or the {"rule", "network"} object Permissions reads.
	Permissions struct {
		Allow []any    `json:"allow"`
		Ask   []string `json:"ask"`
		Deny  []string `json:"deny"`
	} `json:"permissions"`
}

// ruleLines finds the line of every rule text in a permissions object.
func ruleLines(data []byte, perms *jsonpos.Value) map[Action][]int {
	out := map[Action][]int{}
	for _, a := range []Action{Allow, Ask, Deny} {
		for _, it := range perms.Get(string(a)).ItemsOrNil() {
			out[a] = append(out[a], jsonpos.Line(data, it.Offset))
		}
	}
	return out
}

// jsonError turns encoding/json's errors into ones naming the field.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Errorf("%s: want %s, got JSON %s", te.Field, te.Type, te.Value)
	}
	if msg, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("unknown key %s", msg)
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
	switch p.Sandbox.ExecGate {
	case "", "on", "off":
	default:
		return fmt.Errorf("sandbox.exec_gate: %q is not on or off", p.Sandbox.ExecGate)
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

// Compile validates a Policy a loader built (mode, sections, rules) and
// compiles its Permissions, Rules and blacklist once, as ParsePolicy does;
// rules of other tools in Permissions are an error (a loader keeps them out).
func (p *Policy) Compile() error {
	return p.validate(true)
}

func compilePolicy(p *Policy, strict bool) (*compiledPolicy, error) {
	rs, err := compileRules(p.Permissions, p.ruleSource(), strict)
	if err != nil {
		return nil, err
	}
	rs.setLines(p.lines)
	rs = rs.merge(groupRules(p.Rules))
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
	fields := []any{p.Permissions, p.Mode, p.ReadOnlyCommands, p.Unknown, p.Blacklist}
	if len(p.Rules) > 0 {
		type ruleKey struct{ Text, Action, Meaning, Pattern string }
		keys := make([]ruleKey, len(p.Rules))
		for i, r := range p.Rules {
			keys[i] = ruleKey{r.Text, string(r.Action), string(r.Meaning), r.Pattern}
		}
		fields = append(fields, keys)
	}
	_ = json.NewEncoder(h).Encode(fields)
	return hex.EncodeToString(h.Sum(nil))
}

// InForce returns the compiled rules of p in the order they are checked
// (deny, ask, allow), each with its source, line and meaning: what
// `agentexec policy show` lists.
func (p *Policy) InForce() ([]Rule, error) {
	c, err := p.rulesFor()
	if err != nil {
		return nil, err
	}
	return append(append(append(append([]Rule(nil), c.rules.deny...), c.rules.only...), c.rules.ask...), c.rules.allow...), nil
}
