package policy

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/internal/jsonpos"
)

// doc is one parsed JSON settings file.
type doc struct {
	path string
	data []byte
	top  *jsonpos.Value
}

func parseDoc(path string, data []byte) (*doc, error) {
	data = stripBOM(data)
	v, err := jsonpos.Parse(data, jsonpos.Options{Comments: true})
	if err != nil {
		return nil, err
	}
	if v.Kind != jsonpos.Object {
		return nil, errNotObject(v)
	}
	return &doc{path: path, data: data, top: v}, nil
}

// at is "path:line" of a value.
func (d *doc) at(v *jsonpos.Value) string { return srcLine(d.path, jsonpos.Line(d.data, v.Offset)) }

func (d *doc) keyAt(m jsonpos.Member) string {
	return srcLine(d.path, jsonpos.Line(d.data, m.KeyOffset))
}

// errAt is an error at v's line naming the key path.
func (d *doc) errAt(v *jsonpos.Value, format string, args ...any) error {
	return &jsonpos.FieldError{Line: jsonpos.Line(d.data, v.Offset), Msg: fmt.Sprintf(format, args...)}
}

// strings reads a list of strings at key (nil when absent).
func (d *doc) strs(v *jsonpos.Value, key string) ([]*jsonpos.Value, error) {
	if v == nil || v.Kind == jsonpos.Null {
		return nil, nil
	}
	if v.Kind != jsonpos.Array {
		return nil, d.errAt(v, "%s: want a list of strings, got %s", key, v.Kind)
	}
	for i, it := range v.Items {
		if it.Kind != jsonpos.String {
			return nil, d.errAt(it, "%s[%d]: want a string, got %s", key, i, it.Kind)
		}
	}
	return v.Items, nil
}

// checkKeys refuses a key of obj that is not in known: inside a block
// that decides what runs, a typo would silently widen or narrow it.
func (d *doc) checkKeys(obj *jsonpos.Value, where string, known ...string) error {
	if obj.Kind != jsonpos.Object {
		return d.errAt(obj, "%s: want an object, got %s", where, obj.Kind)
	}
	for _, m := range obj.Members {
		if contains(known, m.Key) {
			continue
		}
		msg := fmt.Sprintf("unknown key %q in %s", m.Key, where)
		if s := jsonpos.Nearest(m.Key, known); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		} else {
			msg += fmt.Sprintf(" (known keys: %s)", strings.Join(sorted(known), ", "))
		}
		return &jsonpos.FieldError{Line: jsonpos.Line(d.data, m.KeyOffset), Msg: msg}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sorted(list []string) []string {
	out := append([]string(nil), list...)
	sort.Strings(out)
	return out
}

// nearTopLevel refuses an unknown top-level key that is a likely typo of
// a key that decides what runs ("permisions"): peers' files have many
// other keys, which are listed as unrelated, but a misspelt permissions
// block must not vanish.
func (d *doc) nearTopLevel(m jsonpos.Member, decisive []string) error {
	if s := jsonpos.Nearest(m.Key, decisive); s != "" && s != m.Key {
		return &jsonpos.FieldError{Line: jsonpos.Line(d.data, m.KeyOffset),
			Msg: fmt.Sprintf("unknown key %q at top level; did you mean %q?", m.Key, s)}
	}
	return nil
}

var claudePermKeys = []string{"allow", "ask", "deny", "defaultMode", "additionalDirectories", "disableBypassPermissionsMode"}
var qwenPermKeys = []string{"allow", "ask", "deny", "defaultMode", "planMode"}

// settings reads Claude Code and Qwen Code settings.
func (b *builder) settings(path string, data []byte, f Format) error {
	d, err := parseDoc(path, data)
	if err != nil {
		return err
	}
	meaning := gate.Exact // Claude documents Bash(x) as exactly x
	if f == Qwen {
		meaning = gate.Prefix
	}
	for _, m := range d.top.Members {
		switch m.Key {
		case "$schema":
		case "permissions":
			err = b.permissions(d, m.Value, f, meaning)
		case "env":
			err = b.env(d, m.Value)
		case "sandbox":
			if f == Claude {
				err = b.claudeSandbox(d, m.Value)
			} else {
				b.unrelated(d.keyAt(m), "sandbox", "Qwen Code's own sandbox setting; agentexec runs every command in its kernel sandbox (--sandbox)")
			}
		case "tools", "coreTools", "excludeTools", "allowedTools", "general", "security":
			if f == Qwen {
				err = b.geminiKey(d, m, gate.Prefix)
			} else {
				b.unrelated(d.keyAt(m), m.Key, "not a Claude Code setting agentexec reads")
			}
		case "hooks":
			b.unrelated(d.keyAt(m), "hooks", "run by the agent itself around its tool calls; agentexec does not run them")
		default:
			if err = d.nearTopLevel(m, []string{"permissions", "env", "sandbox", "tools"}); err == nil {
				b.unrelated(d.keyAt(m), m.Key, "does not concern running commands")
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// permissions reads the allow/ask/deny lists and the keys beside them.
func (b *builder) permissions(d *doc, v *jsonpos.Value, f Format, meaning gate.Meaning) error {
	known := claudePermKeys
	if f == Qwen {
		known = qwenPermKeys
	}
	if err := d.checkKeys(v, "permissions", known...); err != nil {
		return err
	}
	for _, m := range v.Members {
		var err error
		switch m.Key {
		case "allow", "ask", "deny":
			err = b.ruleList(d, m.Value, "permissions."+m.Key, gate.Action(m.Key), meaning)
		case "defaultMode":
			err = b.defaultMode(d, m.Value, f)
		case "additionalDirectories":
			err = b.additionalDirs(d, m.Value)
		case "disableBypassPermissionsMode":
			if m.Value.Kind == jsonpos.String && m.Value.Str == "disable" {
				b.l.NoYolo = true
				b.mapped(d.at(m.Value), "permissions.disableBypassPermissionsMode", "yolo mode is refused (--mode yolo is an error)")
			}
		case "planMode":
			err = b.planMode(d, m.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ruleList reads one list of tool rules.
func (b *builder) ruleList(d *doc, v *jsonpos.Value, key string, a gate.Action, meaning gate.Meaning) error {
	items, err := d.strs(v, key)
	if err != nil {
		return err
	}
	for _, it := range items {
		if err := b.toolRule(d.at(it), it.Str, a, meaning, it.Str); err != nil {
			return d.errAt(it, "%s: %v", key, err)
		}
	}
	return nil
}

// toolRule applies one rule of any tool: a shell rule becomes a gate rule;
// the rules other parts of agentexec read are handed to them; any other
// tool's rule is listed as ignored.
func (b *builder) toolRule(src, text string, a gate.Action, meaning gate.Meaning, written string) error {
	text = strings.TrimSpace(text)
	name, _, _ := strings.Cut(text, "(")
	if isShellRule(text) {
		return b.addRule(canonicalShell(text), a, src, meaning, written)
	}
	if _, ok, err := gate.ParseRule(text, a, src); err != nil {
		return err // a lookalike such as bash(rm *), or no rule at all
	} else if ok {
		return b.addRule(text, a, src, meaning, written)
	}
	switch name {
	case "Read", "Edit", "Write", "MultiEdit", "NotebookEdit":
		return b.fileRule(src, text, a)
	case "WebFetch":
		b.webFetch(src, text, a)
	default:
		b.ignore(src, text, fmt.Sprintf("a rule of the agent's own tool %s, not a shell command: agentexec gates only the commands it runs", name))
	}
	return nil
}

// fileRule reads a Read(...), Edit(...) or Write(...) rule: the gate
// refuses a command naming what it covers, the sandbox hides it (Read) or
// binds it read-only (Edit, Write); see gate.FileRule.
func (b *builder) fileRule(src, text string, a gate.Action) error {
	path, _ := splitSrc(src)
	r, ok, err := gate.ParseFileRule(text, a, src, gate.SettingsProject(path), b.o.Home)
	if err != nil {
		return err
	}
	if !ok {
		b.ignore(src, text, "a rule for the agent's file tool as a whole, not for a path: agentexec has nothing to apply it to")
		return nil
	}
	b.pol.Files = append(b.pol.Files, r)
	switch {
	case a == gate.Allow:
		b.mapped(src, text, "allows nothing beyond the sandbox's profile (an allow never widens it)")
	case r.Writes():
		b.mapped(src, text, fmt.Sprintf("%s: a command naming it is %s; the sandbox binds it read-only", r.Pattern, verb(a)))
	default:
		b.mapped(src, text, fmt.Sprintf("%s: a command naming it is %s; the sandbox hides it", r.Pattern, verb(a)))
	}
	return nil
}

func verb(a gate.Action) string {
	if a == gate.Ask {
		return "asked about"
	}
	return "refused"
}

// canonicalShell writes run_shell_command(x), Shell(x) and ShellTool(x)
// as Bash(x), the spelling agentexec shows; a bare name stays bare.
func canonicalShell(text string) string {
	name, rest, ok := strings.Cut(text, "(")
	if !ok || name == "Bash" {
		if !ok {
			return "Bash"
		}
		return text
	}
	return "Bash(" + rest
}

// defaultMode maps a settings approval mode to agentexec's.
func (b *builder) defaultMode(d *doc, v *jsonpos.Value, f Format) error {
	if v.Kind != jsonpos.String {
		return d.errAt(v, "permissions.defaultMode: want a string, got %s", v.Kind)
	}
	mode, detail, ok := mapMode(v.Str)
	if !ok {
		return d.errAt(v, "permissions.defaultMode: %q is not default, acceptEdits, plan, dontAsk or bypassPermissions", v.Str)
	}
	if b.pol.Mode == "" {
		b.pol.Mode = mode
		b.l.DontAsk = v.Str == "dontAsk"
		b.mapped(d.at(v), "permissions.defaultMode: "+v.Str, detail)
	} else {
		b.mapped(d.at(v), "permissions.defaultMode: "+v.Str, "overridden by a higher layer")
	}
	_ = f
	return nil
}

// mapMode is the documented meaning of each peer approval mode.
func mapMode(s string) (gate.Mode, string, bool) {
	switch s {
	case "default":
		return gate.ModeDefault, "default mode", true
	case "plan":
		return gate.ModePlan, "plan mode: only read-only commands run", true
	case "acceptEdits", "autoEdit", "auto_edit", "auto-edit":
		return gate.ModeDefault, "default mode: accepting edits concerns the agent's file tools; a shell command that writes still needs a rule or an approval", true
	case "dontAsk":
		return gate.ModeDefault, "default mode without asking: a command no rule allows and the classifier cannot prove read-only is refused instead of asked", true
	case "bypassPermissions", "yolo":
		return gate.ModeYolo, "yolo mode: runs without asking, inside the sandbox; deny rules and the blacklist still hold", true
	}
	return "", "", false
}

// additionalDirs become writable roots of the sandbox.
func (b *builder) additionalDirs(d *doc, v *jsonpos.Value) error {
	items, err := d.strs(v, "permissions.additionalDirectories")
	if err != nil {
		return err
	}
	for _, it := range items {
		dir := b.expand(it.Str, filepath.Dir(filepath.Dir(d.path)))
		b.pol.Sandbox.WritableRoots = append(b.pol.Sandbox.WritableRoots, dir)
		b.mapped(d.at(it), "permissions.additionalDirectories: "+it.Str, "writable root "+dir+" in the sandbox")
	}
	return nil
}

// expand resolves ~/ against Home and a relative path against base.
func (b *builder) expand(p, base string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && b.o.Home != "" {
		return filepath.Join(b.o.Home, rest)
	}
	if p == "~" && b.o.Home != "" {
		return b.o.Home
	}
	if !filepath.IsAbs(p) {
		return filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// env sets variables for every command; a higher layer's value wins.
func (b *builder) env(d *doc, v *jsonpos.Value) error {
	if v.Kind != jsonpos.Object {
		return d.errAt(v, "env: want an object of variables, got %s", v.Kind)
	}
	if b.pol.Env.Set == nil {
		b.pol.Env.Set = map[string]string{}
	}
	for _, m := range v.Members {
		val := m.Value.Str
		switch m.Value.Kind {
		case jsonpos.String:
		case jsonpos.Number, jsonpos.Bool:
			val = m.Value.Raw
		default:
			return d.errAt(m.Value, "env.%s: want a string, got %s", m.Key, m.Value.Kind)
		}
		if m.Key == "" || strings.ContainsAny(m.Key, "=\x00") || strings.ContainsRune(val, 0) {
			return d.errAt(m.Value, "env: %q is not a variable a command can receive", m.Key)
		}
		if _, set := b.pol.Env.Set[m.Key]; set {
			b.mapped(d.keyAt(m), "env."+m.Key, "overridden by a higher layer")
			continue
		}
		b.pol.Env.Set[m.Key] = val
		b.mapped(d.keyAt(m), "env."+m.Key, "set to "+fmt.Sprintf("%q", val)+" for every command")
	}
	return nil
}

// claudeSandbox maps Claude Code's sandbox block.
func (b *builder) claudeSandbox(d *doc, v *jsonpos.Value) error {
	if err := d.checkKeys(v, "sandbox", "enabled", "autoAllowBashIfSandboxed", "excludedCommands",
		"allowUnsandboxedCommands", "network", "enableWeakerNestedSandbox", "ignoreViolations"); err != nil {
		return err
	}
	for _, m := range v.Members {
		src := d.keyAt(m)
		switch m.Key {
		case "enabled":
			if m.Value.Kind == jsonpos.Bool && m.Value.Raw == "false" {
				b.ignore(src, "sandbox.enabled: false", "agentexec runs every command in its sandbox; turning it off takes an explicit --sandbox none")
			} else {
				b.mapped(src, "sandbox.enabled", "commands run in agentexec's sandbox (always)")
			}
		case "excludedCommands":
			items, err := d.strs(m.Value, "sandbox.excludedCommands")
			if err != nil {
				return err
			}
			for _, it := range items {
				b.ignore(d.at(it), "sandbox.excludedCommands: "+it.Str, "still sandboxed: agentexec never runs a command unsandboxed because a settings file says so; opt in explicitly with --sandbox none")
			}
		case "autoAllowBashIfSandboxed":
			if m.Value.Kind == jsonpos.Bool && m.Value.Raw == "true" {
				b.pol.Unknown = "contain"
				b.mapped(src, "sandbox.autoAllowBashIfSandboxed", "unknown: contain — a command the classifier cannot prove read-only runs contained (read-only sandbox, no network) instead of asking; writes still ask")
			}
		case "allowUnsandboxedCommands":
			b.mapped(src, "sandbox.allowUnsandboxedCommands", "agentexec never lets a command leave the sandbox on its own request")
		case "network":
			if err := b.claudeNetwork(d, m.Value); err != nil {
				return err
			}
		default:
			b.ignore(src, "sandbox."+m.Key, "no agentexec equivalent")
		}
	}
	return nil
}

// planMode reads Qwen's permissions.planMode.extraReadOnlyCommands.
func (b *builder) planMode(d *doc, v *jsonpos.Value) error {
	if err := d.checkKeys(v, "permissions.planMode", "extraReadOnlyCommands"); err != nil {
		return err
	}
	items, err := d.strs(v.Get("extraReadOnlyCommands"), "permissions.planMode.extraReadOnlyCommands")
	if err != nil {
		return err
	}
	for _, it := range items {
		n := strings.TrimSpace(it.Str)
		if n == "" || strings.ContainsAny(n, " \t\n") {
			return d.errAt(it, "permissions.planMode.extraReadOnlyCommands: %q is not a command name", it.Str)
		}
		if why := gate.VouchRefused(n); why != "" {
			b.refuse(d.at(it), "extraReadOnlyCommands: "+n, "not vouched: "+why)
			continue
		}
		b.pol.ReadOnlyCommands = append(b.pol.ReadOnlyCommands, n)
		b.mapped(d.at(it), "permissions.planMode.extraReadOnlyCommands: "+n, "read_only_commands: classified like cat while its arguments are plain")
	}
	return nil
}

// webFetch maps WebFetch(domain:X): an allow rule puts X on the sandbox's
// network allowlist (reached through agentexec's egress proxy), a deny
// rule on its deny list. Other WebFetch rules concern the agent's own tool.
func (b *builder) webFetch(src, text string, a gate.Action) {
	spec, _ := strings.CutPrefix(text, "WebFetch(")
	domain, ok := strings.CutPrefix(strings.TrimSuffix(spec, ")"), "domain:")
	domain = strings.TrimSpace(domain)
	switch {
	case !ok || domain == "" || !strings.HasSuffix(spec, ")"):
		b.ignore(src, text, "a rule of the agent's own WebFetch tool without a domain: agentexec's network lists take WebFetch(domain:…)")
	case a == gate.Allow:
		b.pol.Sandbox.Network.Allow = append(b.pol.Sandbox.Network.Allow, domain)
		b.mapped(src, text, "network allowlist: commands may reach "+domain+" through agentexec's egress proxy")
	case a == gate.Deny:
		b.pol.Sandbox.Network.Deny = append(b.pol.Sandbox.Network.Deny, domain)
		b.mapped(src, text, "network deny list: "+domain+" is refused")
	default:
		b.ignore(src, text, "the egress proxy cannot ask; "+domain+" stays off the allowlist (refused)")
	}
}

// claudeNetwork maps sandbox.network: allowedDomains and deniedDomains
// become the network lists.
func (b *builder) claudeNetwork(d *doc, v *jsonpos.Value) error {
	if v.Kind != jsonpos.Object {
		return d.errAt(v, "sandbox.network: want an object, got %s", v.Kind)
	}
	for _, m := range v.Members {
		switch m.Key {
		case "allowedDomains", "deniedDomains":
			items, err := d.strs(m.Value, "sandbox.network."+m.Key)
			if err != nil {
				return err
			}
			for _, it := range items {
				if m.Key == "allowedDomains" {
					b.pol.Sandbox.Network.Allow = append(b.pol.Sandbox.Network.Allow, it.Str)
					b.mapped(d.at(it), "sandbox.network.allowedDomains: "+it.Str, "network allowlist (through agentexec's egress proxy)")
				} else {
					b.pol.Sandbox.Network.Deny = append(b.pol.Sandbox.Network.Deny, it.Str)
					b.mapped(d.at(it), "sandbox.network.deniedDomains: "+it.Str, "network deny list")
				}
			}
		default:
			b.ignore(d.keyAt(m), "sandbox.network."+m.Key, "no agentexec equivalent: commands reach only the allowlist's hosts, through the proxy")
		}
	}
	return nil
}
