package policy

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
	"mvdan.cc/sh/v3/shell"

	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/internal/jsonpos"
)

// codexConfig reads Codex's config.toml: the sandbox, the approval policy
// and the shell environment policy.
func (b *builder) codexConfig(path string, data []byte) error {
	var top map[string]any
	if _, err := toml.Decode(string(data), &top); err != nil {
		return tomlError(err)
	}
	at := func(key string) string { return srcLine(path, tomlKeyLine(data, key)) }
	if prof, ok := top["profile"].(string); ok {
		// The active profile's keys win over the top level.
		if profs, ok := top["profiles"].(map[string]any); ok {
			if p, ok := profs[prof].(map[string]any); ok {
				for k, v := range p {
					top[k] = v
				}
				b.mapped(at("profile"), "profile = "+prof, "the profile's settings are read over the top level")
			} else {
				return fmt.Errorf("line %d: profile %q is not among [profiles]", tomlKeyLine(data, "profile"), prof)
			}
		}
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := b.codexKey(path, data, k, top[k], at(k)); err != nil {
			return fmt.Errorf("line %d: %w", tomlKeyLine(data, k), err)
		}
	}
	return nil
}

func (b *builder) codexKey(path string, data []byte, k string, v any, src string) error {
	switch k {
	case "sandbox_mode":
		s, _ := v.(string)
		switch s {
		case "read-only", "workspace-write":
			b.pol.Sandbox.Profile = s
			b.mapped(src, "sandbox_mode = "+s, "sandbox profile "+s)
		case "danger-full-access":
			b.ignore(src, "sandbox_mode = danger-full-access", "agentexec keeps its sandbox; running unsandboxed takes an explicit --sandbox none")
		default:
			return fmt.Errorf("sandbox_mode: %q is not read-only, workspace-write or danger-full-access", s)
		}
	case "approval_policy":
		s, _ := v.(string)
		switch s {
		case "untrusted", "on-request":
			b.pol.Mode = gate.ModeDefault
			b.mapped(src, "approval_policy = "+s, "default mode: read-only commands and allowed rules run, others ask")
		case "on-failure":
			b.pol.Mode, b.pol.Unknown = gate.ModeDefault, "contain"
			b.mapped(src, "approval_policy = on-failure", "default mode with unknown: contain — a command the classifier cannot prove read-only runs contained instead of asking")
		case "never":
			b.pol.Mode = gate.ModeYolo
			b.mapped(src, "approval_policy = never", "yolo mode: nothing asks; the sandbox, deny rules and the blacklist still hold")
		default:
			return fmt.Errorf("approval_policy: %q is not untrusted, on-failure, on-request or never", s)
		}
	case "sandbox_workspace_write":
		return b.codexWorkspaceWrite(path, data, v)
	case "shell_environment_policy":
		return b.codexEnv(src, v)
	case "profile", "profiles":
	default:
		if s := nearest(k, []string{"sandbox_mode", "approval_policy", "sandbox_workspace_write", "shell_environment_policy"}); s != "" && s != k {
			return fmt.Errorf("unknown key %q; did you mean %q?", k, s)
		}
		b.unrelated(src, k, "does not concern running commands")
	}
	return nil
}

func (b *builder) codexWorkspaceWrite(path string, data []byte, v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return errors.New("sandbox_workspace_write: want a table")
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		x := m[k]
		src := srcLine(path, tomlKeyLine(data, k))
		switch k {
		case "writable_roots":
			roots, err := stringOrList(x, "sandbox_workspace_write.writable_roots")
			if err != nil {
				return err
			}
			for _, r := range roots {
				dir := b.expand(r, filepath.Dir(path))
				b.pol.Sandbox.WritableRoots = append(b.pol.Sandbox.WritableRoots, dir)
				b.mapped(src, "writable_roots: "+r, "writable root "+dir)
			}
		case "network_access":
			on, _ := x.(bool)
			b.pol.Sandbox.Network = gate.NetworkPolicy{Mode: gate.NetworkOff}
			if on {
				b.pol.Sandbox.Network.Mode = gate.NetworkOpen
			}
			b.mapped(src, fmt.Sprintf("network_access = %v", on), fmt.Sprintf("sandbox network %s", onOff(on)))
		case "exclude_tmpdir_env_var", "exclude_slash_tmp":
			b.mapped(src, k, "agentexec gives each run its own TMPDIR; /tmp stays read-only")
		default:
			b.ignore(src, "sandbox_workspace_write."+k, "no agentexec equivalent")
		}
	}
	return nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func (b *builder) codexEnv(src string, v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return errors.New("shell_environment_policy: want a table")
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		x := m[k]
		switch k {
		case "inherit":
			s, _ := x.(string)
			if s != "all" && s != "core" && s != "none" {
				return fmt.Errorf("shell_environment_policy.inherit: %q is not all, core or none", s)
			}
			b.pol.Env.Inherit = s
			b.mapped(src, "shell_environment_policy.inherit = "+s, "env.inherit "+s)
		case "exclude":
			pats, err := stringOrList(x, "shell_environment_policy.exclude")
			if err != nil {
				return err
			}
			b.pol.Env.Exclude = append(b.pol.Env.Exclude, pats...)
			b.mapped(src, "shell_environment_policy.exclude", "env.exclude "+strings.Join(pats, ", "))
		case "set":
			set, ok := x.(map[string]any)
			if !ok {
				return errors.New("shell_environment_policy.set: want a table")
			}
			if b.pol.Env.Set == nil {
				b.pol.Env.Set = map[string]string{}
			}
			for name, val := range set {
				b.pol.Env.Set[name] = fmt.Sprint(val)
				b.mapped(src, "shell_environment_policy.set."+name, fmt.Sprintf("set to %q for every command", fmt.Sprint(val)))
			}
		default:
			b.ignore(src, "shell_environment_policy."+k, "no agentexec equivalent")
		}
	}
	return nil
}

// tomlKeyLine finds the line where key is first assigned or opens a table.
func tomlKeyLine(data []byte, key string) int {
	re := regexp.MustCompile(`^\s*(\[\s*)?"?` + regexp.QuoteMeta(key) + `"?\s*(=|\])`)
	for i, line := range bytes.Split(data, []byte("\n")) {
		if re.Match(line) {
			return i + 1
		}
	}
	return 0
}

func nearest(s string, list []string) string {
	for _, c := range list {
		if strings.EqualFold(c, s) {
			return c
		}
	}
	return jsonpos.Nearest(s, list)
}

// codexRules evaluates a Codex .rules file with a Starlark interpreter:
// each prefix_rule(...) call becomes rules, its match and not_match
// examples checked at load as Codex does.
func (b *builder) codexRules(path string, data []byte) error {
	var rules []codexRule
	prefixRule := starlark.NewBuiltin("prefix_rule", func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		r, err := readPrefixRule(fn, args, kwargs)
		if err != nil {
			return nil, err
		}
		r.line = int(th.CallFrame(1).Pos.Line)
		rules = append(rules, r)
		return starlark.None, nil
	})
	th := &starlark.Thread{Name: path, Load: func(*starlark.Thread, string) (starlark.StringDict, error) {
		return nil, errors.New("load() is not supported in agentexec's reading of .rules files")
	}}
	th.SetMaxExecutionSteps(1 << 20) // a rules file is declarations, not a program
	opts := &syntax.FileOptions{}
	if _, err := starlark.ExecFileOptions(opts, th, path, data, starlark.StringDict{"prefix_rule": prefixRule}); err != nil {
		return starlarkError(err)
	}
	for _, r := range rules {
		if err := b.codexRule(path, r); err != nil {
			return fmt.Errorf("line %d: prefix_rule: %w", r.line, err)
		}
	}
	return nil
}

func starlarkError(err error) error {
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		return errors.New(ee.Backtrace())
	}
	return err
}

// codexRule is one prefix_rule call.
type codexRule struct {
	line          int
	pattern       [][]string // per position, the alternatives
	decision      string
	justification string
	match         [][]string
	notMatch      [][]string
}

func readPrefixRule(fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (codexRule, error) {
	var pattern, match, notMatch *starlark.List
	var decision, justification string = "allow", ""
	if err := starlark.UnpackArgs(fn.Name(), args, kwargs,
		"pattern", &pattern, "decision?", &decision, "justification?", &justification,
		"match?", &match, "not_match?", &notMatch); err != nil {
		return codexRule{}, err
	}
	r := codexRule{decision: decision, justification: justification}
	if pattern.Len() == 0 {
		return r, errors.New("pattern: empty")
	}
	for i := range pattern.Len() {
		alts, err := tokenAlternatives(pattern.Index(i))
		if err != nil {
			return r, fmt.Errorf("pattern[%d]: %w", i, err)
		}
		r.pattern = append(r.pattern, alts)
	}
	var err error
	if r.match, err = examples(match, "match"); err != nil {
		return r, err
	}
	if r.notMatch, err = examples(notMatch, "not_match"); err != nil {
		return r, err
	}
	return r, nil
}

func tokenAlternatives(v starlark.Value) ([]string, error) {
	if s, ok := starlark.AsString(v); ok {
		return []string{s}, nil
	}
	l, ok := v.(*starlark.List)
	if !ok || l.Len() == 0 {
		return nil, fmt.Errorf("want a string or a non-empty list of strings, got %s", v.Type())
	}
	var out []string
	for i := range l.Len() {
		s, ok := starlark.AsString(l.Index(i))
		if !ok {
			return nil, fmt.Errorf("alternative %d: want a string, got %s", i, l.Index(i).Type())
		}
		out = append(out, s)
	}
	return out, nil
}

// examples reads match/not_match: each a command string (split as a
// shell would) or a list of words.
func examples(l *starlark.List, key string) ([][]string, error) {
	if l == nil {
		return nil, nil
	}
	var out [][]string
	for i := range l.Len() {
		v := l.Index(i)
		if s, ok := starlark.AsString(v); ok {
			words, err := shell.Fields(s, nil)
			if err != nil {
				return nil, fmt.Errorf("%s[%d] %q: %v", key, i, s, err)
			}
			out = append(out, words)
			continue
		}
		words, err := tokenAlternatives(v)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", key, i, err)
		}
		out = append(out, words)
	}
	return out, nil
}

// maxExpansion bounds the rules one prefix_rule expands to.
const maxExpansion = 256

func (b *builder) codexRule(path string, r codexRule) error {
	var a gate.Action
	switch r.decision {
	case "allow":
		a = gate.Allow
	case "prompt":
		a = gate.Ask
	case "forbidden":
		a = gate.Deny
	default:
		return fmt.Errorf("decision: %q is not allow, prompt or forbidden", r.decision)
	}
	src := srcLine(path, r.line)
	texts, err := expandPattern(r.pattern, a)
	if err != nil {
		return err
	}
	var compiled []gate.Rule
	for _, t := range texts {
		rule, ok, err := gate.ParseRuleAs(t, a, src, gate.Prefix)
		if err != nil || !ok {
			return fmt.Errorf("pattern %s: %v", t, err)
		}
		rule.Justification = r.justification
		compiled = append(compiled, rule)
	}
	for _, ex := range r.match {
		if !codexMatches(r.pattern, ex) {
			return fmt.Errorf("the match example %q does not match the pattern %s", strings.Join(ex, " "), patternText(r.pattern))
		}
		if !anyMatch(compiled, ex) {
			return fmt.Errorf("the match example %q is not matched by agentexec's reading of the pattern %s", strings.Join(ex, " "), patternText(r.pattern))
		}
	}
	for _, ex := range r.notMatch {
		if codexMatches(r.pattern, ex) || anyMatch(compiled, ex) {
			return fmt.Errorf("the not_match example %q matches the pattern %s", strings.Join(ex, " "), patternText(r.pattern))
		}
	}
	desc := "prefix_rule(pattern=" + patternText(r.pattern) + ", decision=" + r.decision + ")"
	for _, rule := range compiled {
		b.appendRule(rule, desc)
	}
	return nil
}

// expandPattern turns a token pattern into Bash(...) prefix rules, one per
// combination of alternatives.
func expandPattern(pattern [][]string, a gate.Action) ([]string, error) {
	combos := [][]string{nil}
	for _, alts := range pattern {
		var next [][]string
		for _, c := range combos {
			for _, alt := range alts {
				if strings.ContainsAny(alt, "*\n") && a == gate.Allow {
					return nil, fmt.Errorf("the word %q holds a * or a line break, which an agentexec allow rule cannot spell exactly", alt)
				}
				next = append(next, append(append([]string(nil), c...), quoteWord(alt)))
			}
		}
		if len(next) > maxExpansion {
			return nil, fmt.Errorf("the pattern expands to more than %d commands", maxExpansion)
		}
		combos = next
	}
	out := make([]string, len(combos))
	for i, c := range combos {
		out[i] = "Bash(" + strings.Join(c, " ") + " *)"
	}
	return out, nil
}

// quoteWord quotes a word the way a shell command would spell it.
func quoteWord(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t'\"\\$`|&;<>()[]{}?#~!") {
		return w
	}
	q, err := shellQuote(w)
	if err != nil {
		return w
	}
	return q
}

func shellQuote(w string) (string, error) {
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'", nil
}

func codexMatches(pattern [][]string, argv []string) bool {
	if len(argv) < len(pattern) {
		return false
	}
	for i, alts := range pattern {
		if !contains(alts, argv[i]) {
			return false
		}
	}
	return true
}

func anyMatch(rules []gate.Rule, argv []string) bool {
	words := make([]string, len(argv))
	for i, w := range argv {
		words[i] = quoteWord(w)
	}
	text := strings.Join(words, " ")
	for _, r := range rules {
		if r.Match(text) {
			return true
		}
	}
	return false
}

func patternText(p [][]string) string {
	parts := make([]string, len(p))
	for i, alts := range p {
		if len(alts) == 1 {
			parts[i] = fmt.Sprintf("%q", alts[0])
		} else {
			q := make([]string, len(alts))
			for j, a := range alts {
				q[j] = fmt.Sprintf("%q", a)
			}
			parts[i] = "[" + strings.Join(q, ", ") + "]"
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
