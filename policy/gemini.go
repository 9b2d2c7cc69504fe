package policy

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/internal/jsonpos"
)

// gemini reads Gemini CLI settings (v2 sections and the v1 tool lists).
func (b *builder) gemini(path string, data []byte) error {
	d, err := parseDoc(path, data)
	if err != nil {
		return err
	}
	for _, m := range d.top.Members {
		switch m.Key {
		case "$schema":
		case "tools", "coreTools", "excludeTools", "allowedTools", "general", "security":
			err = b.geminiKey(d, m, gate.Prefix)
		case "sandbox":
			b.unrelated(d.keyAt(m), "sandbox", "Gemini CLI's container sandbox; agentexec runs every command in its kernel sandbox (--sandbox)")
		default:
			if err = d.nearTopLevel(m, []string{"tools", "coreTools", "excludeTools", "allowedTools"}); err == nil {
				b.unrelated(d.keyAt(m), m.Key, "does not concern running commands")
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// geminiKey reads one tool-list or mode key of Gemini CLI or Qwen Code
// settings; m is prefix (run_shell_command(git) is git and git ARGS…).
func (b *builder) geminiKey(d *doc, m jsonpos.Member, meaning gate.Meaning) error {
	switch m.Key {
	case "tools":
		return b.geminiTools(d, m.Value, meaning)
	case "coreTools":
		return b.toolList(d, m.Value, "coreTools", "core", meaning)
	case "excludeTools":
		return b.toolList(d, m.Value, "excludeTools", "exclude", meaning)
	case "allowedTools":
		return b.toolList(d, m.Value, "allowedTools", "allowed", meaning)
	case "general":
		return b.geminiGeneral(d, m.Value)
	case "security":
		return b.geminiSecurity(d, m.Value)
	}
	return nil
}

// geminiToolKeys are the tools keys that decide what runs.
var geminiToolKeys = []string{"core", "exclude", "allowed", "approvalMode"}

func (b *builder) geminiTools(d *doc, v *jsonpos.Value, meaning gate.Meaning) error {
	if v.Kind != jsonpos.Object {
		return d.errAt(v, "tools: want an object, got %s", v.Kind)
	}
	for _, m := range v.Members {
		var err error
		switch m.Key {
		case "core", "exclude", "allowed":
			err = b.toolList(d, m.Value, "tools."+m.Key, m.Key, meaning)
		case "approvalMode":
			err = b.approvalMode(d, m.Value, "tools.approvalMode")
		default:
			if s := jsonpos.Nearest(m.Key, geminiToolKeys); s != "" && s != m.Key {
				return &jsonpos.FieldError{Line: jsonpos.Line(d.data, m.KeyOffset), Msg: fmt.Sprintf("unknown key %q in tools; did you mean %q?", m.Key, s)}
			}
			b.unrelated(d.keyAt(m), "tools."+m.Key, "does not decide which commands run")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// toolList reads a core, exclude or allowed list.
func (b *builder) toolList(d *doc, v *jsonpos.Value, key, kind string, meaning gate.Meaning) error {
	items, err := d.strs(v, key)
	if err != nil {
		return err
	}
	var shellCore []*jsonpos.Value
	shellAvailable := false
	for _, it := range items {
		src, text := d.at(it), strings.TrimSpace(it.Str)
		switch kind {
		case "exclude":
			err = b.geminiRule(src, text, gate.Deny, meaning, key)
		case "allowed":
			err = b.geminiRule(src, text, gate.Allow, meaning, key)
		case "core":
			if !isShellRule(text) {
				b.unrelated(src, key+": "+text, "makes the agent's own tool available; not a shell command")
				continue
			}
			if !strings.Contains(text, "(") {
				shellAvailable = true
				b.mapped(src, key+": "+text, "the shell is available (no restriction)")
				continue
			}
			shellCore = append(shellCore, it)
		}
		if err != nil {
			return d.errAt(it, "%s: %v", key, err)
		}
	}
	if kind != "core" || len(items) == 0 || shellAvailable {
		return nil
	}
	if len(shellCore) == 0 {
		// The shell is not among the core tools: the agent has none.
		b.appendRule(mustRule("Bash", gate.Deny, d.at(v)), key+" (no shell tool listed)")
		b.mapped(d.at(v), key, "lists no shell tool, so the agent has no shell: every command is denied (deny Bash)")
		return nil
	}
	for _, it := range shellCore {
		r, ok, err := gate.ParseRuleAs(canonicalShell(strings.TrimSpace(it.Str)), gate.Allow, d.at(it), meaning)
		if err != nil || !ok {
			return d.errAt(it, "%s: %v", key, err)
		}
		r.Only = true
		b.appendRule(r, key+": "+it.Str)
		b.mapped(d.at(it), key+": "+it.Str, "only the listed shell commands may run: a command outside every entry is denied")
	}
	return nil
}

// geminiRule applies one exclude or allowed entry; a bare shell name is
// the whole shell.
func (b *builder) geminiRule(src, text string, a gate.Action, meaning gate.Meaning, key string) error {
	if isShellRule(text) {
		inner := canonicalShell(text)
		if strings.HasSuffix(inner, "()") {
			// ShellTool() blocks everything in Gemini's legacy model.
			inner = "Bash"
		}
		return b.addRule(inner, a, src, meaning, key+": "+text)
	}
	return b.toolRule(src, text, a, meaning, key+": "+text)
}

func mustRule(text string, a gate.Action, src string) gate.Rule {
	r, _, err := gate.ParseRuleAs(text, a, src, gate.Prefix)
	if err != nil {
		panic(err) // a constant rule text
	}
	return r
}

// approvalMode maps Gemini's and Qwen's mode names.
func (b *builder) approvalMode(d *doc, v *jsonpos.Value, key string) error {
	if v.Kind != jsonpos.String {
		return d.errAt(v, "%s: want a string, got %s", key, v.Kind)
	}
	mode, detail, ok := mapMode(v.Str)
	if !ok {
		return d.errAt(v, "%s: %q is not default, auto_edit, plan or yolo", key, v.Str)
	}
	if b.pol.Mode == "" {
		b.pol.Mode = mode
		b.mapped(d.at(v), key+": "+v.Str, detail)
	}
	return nil
}

func (b *builder) geminiGeneral(d *doc, v *jsonpos.Value) error {
	if v.Kind != jsonpos.Object {
		return d.errAt(v, "general: want an object, got %s", v.Kind)
	}
	for _, m := range v.Members {
		if m.Key == "defaultApprovalMode" {
			if err := b.approvalMode(d, m.Value, "general.defaultApprovalMode"); err != nil {
				return err
			}
		}
	}
	return nil
}

func (b *builder) geminiSecurity(d *doc, v *jsonpos.Value) error {
	if v.Kind != jsonpos.Object {
		return d.errAt(v, "security: want an object, got %s", v.Kind)
	}
	if y := v.Get("disableYoloMode"); y != nil && y.Kind == jsonpos.Bool && y.Raw == "true" {
		b.l.NoYolo = true
		b.mapped(d.at(y), "security.disableYoloMode", "yolo mode is refused (--mode yolo is an error)")
	}
	return nil
}

// geminiTOMLRule is one [[rule]] of a Gemini CLI policy file.
type geminiTOMLRule struct {
	ToolName         any      `toml:"toolName"`
	McpName          string   `toml:"mcpName"`
	CommandPrefix    any      `toml:"commandPrefix"`
	CommandRegex     string   `toml:"commandRegex"`
	ArgsPattern      string   `toml:"argsPattern"`
	Decision         string   `toml:"decision"`
	Priority         *float64 `toml:"priority"`
	Modes            []string `toml:"modes"`
	AllowRedirection bool     `toml:"allowRedirection"`
	DenyMessage      string   `toml:"deny_message"`
	DenyMessage2     string   `toml:"denyMessage"`
	Interactive      *bool    `toml:"interactive"`
}

type geminiTOML struct {
	Rule    []geminiTOMLRule `toml:"rule"`
	Checker []map[string]any `toml:"safety_checker"`
}

// detectTOML tells a Gemini policy file ([[rule]]) from Codex's config.
func detectTOML(data []byte) (Format, error) {
	var top map[string]any
	if _, err := toml.Decode(string(data), &top); err != nil {
		return "", tomlError(err)
	}
	if _, ok := top["rule"]; ok {
		return GeminiPolicy, nil
	}
	if _, ok := top["safety_checker"]; ok {
		return GeminiPolicy, nil
	}
	return Codex, nil
}

// tomlError gives a TOML error its line and column in our words.
func tomlError(err error) error {
	if pe, ok := err.(toml.ParseError); ok {
		return fmt.Errorf("line %d, column %d: %s", pe.Position.Line, pe.Position.Col, pe.Message)
	}
	return err
}

// ruleLines are the lines of the [[rule]] headers, in order.
func ruleLines(data []byte, header string) []int {
	var out []int
	for i, line := range bytes.Split(data, []byte("\n")) {
		if strings.HasPrefix(strings.TrimSpace(string(line)), header) {
			out = append(out, i+1)
		}
	}
	return out
}

// geminiPolicy reads a policy-engine TOML file. Gemini picks the matching
// rule of highest priority; agentexec's deny > ask > allow order is the
// same or stricter, which show notes where priorities disagree.
func (b *builder) geminiPolicy(path string, data []byte) error {
	var f geminiTOML
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return tomlError(err)
	}
	for _, k := range md.Undecoded() {
		if len(k) > 0 && k[0] == "rule" {
			return fmt.Errorf("[[rule]]: unknown key %q", k[len(k)-1])
		}
	}
	lines := ruleLines(data, "[[rule]]")
	for i, r := range f.Rule {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		if err := b.geminiTOMLRule(srcLine(path, line), r); err != nil {
			return fmt.Errorf("line %d: [[rule]] %d: %w", line, i+1, err)
		}
	}
	if len(f.Checker) > 0 {
		b.ignore(path, "[[safety_checker]]", "Gemini CLI's own checker programs; agentexec does not run them")
	}
	return nil
}

func (b *builder) geminiTOMLRule(src string, r geminiTOMLRule) error {
	var a gate.Action
	switch r.Decision {
	case "allow":
		a = gate.Allow
	case "deny":
		a = gate.Deny
	case "ask_user":
		a = gate.Ask
	default:
		return fmt.Errorf("decision: %q is not allow, deny or ask_user", r.Decision)
	}
	tools, err := stringOrList(r.ToolName, "toolName")
	if err != nil {
		return err
	}
	shell := false
	for _, t := range tools {
		if isShellRule(t) || t == "*" {
			shell = true
		} else {
			b.ignore(src, "toolName = "+t, "a rule of the agent's own tool "+t+", not a shell command")
		}
	}
	if !shell {
		return nil
	}
	desc := ruleDesc(r)
	if len(r.Modes) > 0 && a == gate.Allow && !contains(r.Modes, "default") {
		b.ignore(src, desc, "an allow rule only for modes "+strings.Join(r.Modes, ", ")+"; agentexec applies allow rules in every mode, so it is not applied")
		return nil
	}
	if len(r.Modes) > 0 && a != gate.Allow {
		b.mapped(src, desc, "applied in every mode (it names "+strings.Join(r.Modes, ", ")+"): a stricter reading")
	}
	if r.ArgsPattern != "" {
		b.ignore(src, desc, "argsPattern matches Gemini's JSON-encoded arguments, not a command; use commandPrefix or commandRegex")
		return nil
	}
	prefixes, err := stringOrList(r.CommandPrefix, "commandPrefix")
	if err != nil {
		return err
	}
	why := r.DenyMessage + r.DenyMessage2
	switch {
	case len(prefixes) > 0:
		for _, p := range prefixes {
			rule, ok, err := gate.ParseRuleAs("Bash("+strings.TrimSpace(p)+")", a, src, gate.Prefix)
			if err != nil || !ok {
				return fmt.Errorf("commandPrefix %q: %v", p, err)
			}
			rule.Justification = why
			b.appendRule(rule, desc)
		}
	case r.CommandRegex != "":
		text := "commandRegex(" + r.CommandRegex + ")"
		rule, err := gate.RegexRule(text, r.CommandRegex, a, src)
		if err != nil {
			return err
		}
		rule.Justification = why
		b.appendRule(rule, desc)
	default:
		rule := mustRule("Bash", a, src)
		rule.Justification = why
		b.appendRule(rule, desc)
	}
	if r.AllowRedirection && a == gate.Allow {
		b.mapped(src, desc+" allowRedirection", "not needed: an allow rule covers a redirection only when its pattern spells the '>'")
	}
	return nil
}

func ruleDesc(r geminiTOMLRule) string {
	var parts []string
	if r.CommandPrefix != nil {
		parts = append(parts, fmt.Sprintf("commandPrefix = %v", r.CommandPrefix))
	}
	if r.CommandRegex != "" {
		parts = append(parts, fmt.Sprintf("commandRegex = %q", r.CommandRegex))
	}
	parts = append(parts, "decision = "+r.Decision)
	if r.Priority != nil {
		parts = append(parts, fmt.Sprintf("priority = %g", *r.Priority))
	}
	return "[[rule]] " + strings.Join(parts, ", ")
}

// stringOrList reads a TOML value that is a string or a list of them.
func stringOrList(v any, key string) ([]string, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []string{t}, nil
	case []any:
		out := make([]string, 0, len(t))
		for i, x := range t {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("%s[%d]: want a string", key, i)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: want a string or a list of strings", key)
}
