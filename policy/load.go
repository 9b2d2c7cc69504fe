// Package policy loads the permission settings people already have —
// agentexec's own policy file, Claude Code, Qwen Code and Gemini CLI
// settings, Gemini CLI policy-engine TOML, Codex config.toml and .rules —
// into one *gate.Policy, and says where every rule came from, what each
// setting was mapped to and what was not applied and why.
//
// A file's format is detected by its content (or named with Format), never
// guessed because another parse failed: agentexec's own format stays
// strict. Rules of tools that are not a shell are mapped where another
// part of agentexec reads them or listed as ignored; nothing is dropped
// without a word.
package policy

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentexec/agentexec/gate"
)

// Format names a policy file format.
type Format string

// The formats.
const (
	Agentexec    Format = "agentexec"
	Claude       Format = "claude"
	Qwen         Format = "qwen"
	Gemini       Format = "gemini"
	GeminiPolicy Format = "gemini-policy" // policy-engine TOML
	Codex        Format = "codex"         // config.toml
	CodexRules   Format = "codex-rules"   // Starlark .rules
)

// ParseFormat reads a --policy-format value: agentexec, claude, qwen,
// gemini (settings.json or policy TOML, told apart by syntax), codex
// (config.toml or .rules, likewise), or "" to detect.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case "", Agentexec, Claude, Qwen, Gemini, GeminiPolicy, Codex, CodexRules:
		return f, nil
	}
	return "", fmt.Errorf("--policy-format: %q is not agentexec, claude, qwen, gemini or codex", s)
}

// Options say what to load.
type Options struct {
	// Path is one policy file (--policy). Empty with Project set: the
	// project's settings, layered.
	Path string
	// Project is a project directory (--project): Claude Code's layers
	// (managed > .claude/settings.local.json > .claude/settings.json >
	// ~/.claude/settings.json), else the project's .qwen, .gemini or
	// .codex settings over the user's.
	Project string
	// Format forces the format of Path ("" detects it by content).
	Format Format
	// Home is the user's home directory, for ~/.claude and for "~/" in
	// paths; "" reads no user-level files.
	Home string
	// Managed is Claude Code's managed settings file; "" means the
	// platform's location (ManagedSettingsPath), "-" none.
	Managed string
	// Workspace is the directory whose .agentexec/local.json (the rules
	// an "always" approval wrote) is layered on top; "" reads none.
	Workspace string
}

// Loaded is a loaded policy and its account: what is in force, where it
// came from, and what was not applied.
type Loaded struct {
	Policy *gate.Policy
	Format Format // the format of the main file ("" for none)
	// Files are the files read, highest precedence first.
	Files []File
	// Mapped lists settings applied other than as rules (mode, env,
	// writable roots, read-only commands, …), each with what it became.
	Mapped []Note
	// Ignored lists settings and rules that agentexec does not apply,
	// each with why. `policy check` fails when it is not empty.
	Ignored []Note
	// Refused lists read_only_commands entries the vouching floor refuses.
	Refused []Note
	// Unrelated lists top-level keys that do not concern running commands
	// (a model, a theme, hooks of that agent); shown, never failing.
	Unrelated []Note
	// Written maps a rule text as agentexec reads it to how the file
	// wrote it, where they differ (tools.exclude run_shell_command(rm)).
	Written map[string]string
	// LocalFile is where an "always" approval writes its rule, and
	// LocalFormat its format (agentexec's, or Claude's settings.local.json).
	LocalFile   string
	LocalFormat Format
	// DontAsk: Claude Code's dontAsk mode — what would ask is refused
	// without asking.
	DontAsk bool
	// NoYolo: the settings forbid bypassing permissions (yolo mode).
	NoYolo bool
	// Watch are the paths whose change means the policy should be read
	// again: every file read plus the layers that could appear.
	Watch []string
}

// File is one file read.
type File struct {
	Path   string `json:"path"`
	Format Format `json:"format"`
	Scope  string `json:"scope,omitempty"` // managed, local, project, user, or "" for --policy
}

// Note is one line of the account: a setting or rule, where it is, and
// what became of it.
type Note struct {
	Source string `json:"source"` // file:line
	Item   string `json:"item"`   // the key or the rule as written
	Detail string `json:"detail"` // what it became, or why it was not applied
}

// Clean reports whether nothing was ignored or refused (`policy check`).
func (l *Loaded) Clean() bool { return len(l.Ignored) == 0 && len(l.Refused) == 0 }

// Load reads the policy o describes. With neither Path nor Project it
// returns an empty policy (plus the workspace's local rules, if any).
// Errors name the file and, where there is one, the line.
func Load(o Options) (*Loaded, error) {
	b := newBuilder(o)
	var err error
	switch {
	case o.Path != "":
		err = b.loadFile(o.Path, o.Format, "")
	case o.Project != "":
		err = b.loadProject(o.Project)
	}
	if err != nil {
		return nil, err
	}
	if err := b.loadLocal(); err != nil {
		return nil, err
	}
	return b.finish()
}

// builder accumulates a Loaded as files are read.
type builder struct {
	o     Options
	l     *Loaded
	base  *gate.Policy // agentexec's own file, when that was the main file
	pol   gate.Policy  // sections mapped from other formats
	rules []gate.Rule
	seen  map[string]bool // rule keys, so layered duplicates count once
}

func newBuilder(o Options) *builder {
	return &builder{o: o, l: &Loaded{Written: map[string]string{}}, seen: map[string]bool{}}
}

// loadFile reads one file in format f (detected when ""), as scope.
func (b *builder) loadFile(path string, f Format, scope string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("policy: %w", err)
	}
	if f == "" || f == Gemini || f == Codex {
		f, err = detect(path, data, f)
		if err != nil {
			return fmt.Errorf("policy %s: %w", path, err)
		}
	}
	if b.l.Format == "" {
		b.l.Format = f
	}
	b.l.Files = append(b.l.Files, File{Path: path, Format: f, Scope: scope})
	b.l.Watch = append(b.l.Watch, path)
	switch f {
	case Agentexec:
		err = b.agentexec(path, data)
	case Claude, Qwen:
		err = b.settings(path, data, f)
	case Gemini:
		err = b.gemini(path, data)
	case GeminiPolicy:
		err = b.geminiPolicy(path, data)
	case Codex:
		err = b.codexConfig(path, data)
	case CodexRules:
		err = b.codexRules(path, data)
	}
	if err != nil {
		return fmt.Errorf("policy %s: %w", path, err)
	}
	return nil
}

// agentexec reads agentexec's own format as the base policy.
func (b *builder) agentexec(path string, data []byte) error {
	if b.base != nil {
		return errors.New("a second agentexec policy file cannot be layered; merge the two")
	}
	p, err := gate.ParsePolicy(data, path)
	if err != nil {
		// ParsePolicy's error already names the file.
		return unwrapNamed(err, path)
	}
	b.base = p
	for _, n := range p.ReadOnlyCommands {
		if why := gate.VouchRefused(n); why != "" {
			b.refuse(path, "read_only_commands: "+n, "not vouched: "+why)
		}
	}
	return nil
}

// unwrapNamed strips a "policy PATH: " prefix the caller adds again.
func unwrapNamed(err error, path string) error {
	if msg, ok := strings.CutPrefix(err.Error(), "policy "+path+": "); ok {
		return errors.New(msg)
	}
	return err
}

// addRule compiles one shell rule as the file wrote it.
func (b *builder) addRule(text string, a gate.Action, src string, m gate.Meaning, written string) error {
	r, ok, err := gate.ParseRuleAs(text, a, src, m)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("rule %q is not a shell rule", text)
	}
	b.appendRule(r, written)
	return nil
}

func (b *builder) appendRule(r gate.Rule, written string) {
	if r.Line == 0 {
		r.Source, r.Line = splitSrc(r.Source)
	}
	key := string(r.Action) + "\x00" + string(r.Meaning) + "\x00" + r.Text
	if b.seen[key] {
		return
	}
	b.seen[key] = true
	b.rules = append(b.rules, r)
	if written != "" && written != r.Text {
		b.l.Written[r.Text] = written
	}
}

func (b *builder) mapped(src, item, detail string) {
	b.l.Mapped = append(b.l.Mapped, Note{src, item, detail})
}

func (b *builder) ignore(src, item, detail string) {
	b.l.Ignored = append(b.l.Ignored, Note{src, item, detail})
}

func (b *builder) refuse(src, item, detail string) {
	b.l.Refused = append(b.l.Refused, Note{src, item, detail})
}

func (b *builder) unrelated(src, item, detail string) {
	b.l.Unrelated = append(b.l.Unrelated, Note{src, item, detail})
}

// finish puts the pieces together and compiles the policy.
func (b *builder) finish() (*Loaded, error) {
	var p *gate.Policy
	if b.base != nil {
		cp := *b.base
		p = &cp
	} else {
		p = &b.pol
		p.Source = firstPath(b.l.Files)
	}
	if b.base != nil {
		mergeSections(p, &b.pol)
	}
	if n := &p.Sandbox.Network; len(n.Allow) > 0 && (n.Mode == "" || n.Mode == gate.NetworkOff) {
		// Any allowed domain puts the network behind the proxy; a deny
		// list alone opens nothing.
		n.Mode = gate.NetworkProxy
	}
	p.Rules = append(slices.Clone(p.Rules), b.rules...)
	if err := p.Compile(); err != nil {
		return nil, fmt.Errorf("policy %s: %w", p.Source, err)
	}
	b.l.Policy = p
	if b.l.LocalFile == "" && b.o.Workspace != "" {
		b.l.LocalFile, b.l.LocalFormat = filepath.Join(b.o.Workspace, ".agentexec", "local.json"), Agentexec
	}
	return b.l, nil
}

// mergeSections adds what other formats mapped (only env.set, writable
// roots and file rules can meet agentexec's own file: through local
// layers) to p.
func mergeSections(p, from *gate.Policy) {
	if len(from.Env.Set) > 0 {
		set := map[string]string{}
		for k, v := range p.Env.Set {
			set[k] = v
		}
		for k, v := range from.Env.Set {
			set[k] = v
		}
		p.Env.Set = set
	}
	p.Sandbox.WritableRoots = append(slices.Clone(p.Sandbox.WritableRoots), from.Sandbox.WritableRoots...)
	p.Files = append(slices.Clone(p.Files), from.Files...)
}

func firstPath(files []File) string {
	if len(files) == 0 {
		return ""
	}
	return files[0].Path
}

// srcLine is "path:line" (or path alone for line 0).
func srcLine(path string, line int) string {
	if line <= 0 {
		return path
	}
	return fmt.Sprintf("%s:%d", path, line)
}

// splitSrc splits "path:line" (the form notes use) for a rule.
func splitSrc(src string) (string, int) {
	i := strings.LastIndexByte(src, ':')
	if i < 0 {
		return src, 0
	}
	n, err := strconv.Atoi(src[i+1:])
	if err != nil || n <= 0 {
		return src, 0
	}
	return src[:i], n
}

// detect names the format of data by its content. hint is Gemini or Codex
// when --policy-format named the agent but not which of its files.
func detect(path string, data []byte, hint Format) (Format, error) {
	trimmed := bytes.TrimSpace(stripBOM(data))
	ext := strings.ToLower(filepath.Ext(path))
	jsonish := len(trimmed) > 0 && (trimmed[0] == '{' || bytes.HasPrefix(trimmed, []byte("//")) || bytes.HasPrefix(trimmed, []byte("/*")))
	switch {
	case jsonish && ext != ".toml" && ext != ".rules":
	case ext == ".rules" || bytes.Contains(data, []byte("prefix_rule(")):
		return CodexRules, nil
	case ext == ".toml" || hint != "":
		return detectTOML(data)
	default:
		return "", fmt.Errorf("not a policy file: want a JSON object (agentexec, Claude Code, Qwen Code or Gemini CLI settings), TOML (Gemini CLI policy, Codex config.toml) or a Codex .rules file")
	}
	f, err := detectJSON(path, data)
	if err != nil {
		return "", err
	}
	switch hint {
	case Gemini:
		return Gemini, nil
	case Codex:
		return "", fmt.Errorf("--policy-format codex: want a config.toml or a .rules file, got JSON")
	}
	return f, nil
}

func stripBOM(b []byte) []byte { return bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) }
