package hook

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/agentexec/agentexec/gate"
)

// File tools are judged by the policy's Read(...) and Edit(...) rules
// (Write(...) is read as Edit(...)), priority deny > ask; an allow rule
// gives no opinion, so the agent's own rules decide. A Write call is also
// held to the workspace boundary: outside the workspace and the policy's
// sandbox.writable_roots it asks (the sandbox would refuse a shell command
// the same write), inside .git or a Protected path it asks, and in plan
// mode every write is denied. Paths are checked as given and with symlinks
// resolved, so a link cannot carry a write out of the workspace.
//
// The rule patterns follow Claude Code's (gitignore-style): //p is the
// absolute path /p, ~/p is under the home directory, /p is under the
// directory the policy file belongs to (the project root for a
// .claude/.qwen/.gemini settings file), ./p and p are under the call's
// working directory; * stays within one path segment, ** spans any
// number, and a pattern without a slash matches a name at any depth. A
// rule matches a path when it matches the path or any directory above it.
//
// This is the interim file-rule model of the hook; it gives way to
// gate/filerules.go (the one model the sandbox also reads) once that lands.

// fileRule is one compiled Read/Edit rule.
type fileRule struct {
	text   string // as written, e.g. "Read(./.env)"
	op     Kind   // Read or Write
	action gate.Action
	base   string // absolute directory the pattern is under ("" for anywhere)
	pat    string // slash-separated pattern relative to base
	any    bool   // the pattern has no slash: match a name at any depth under base
	source string // file:line
}

// fileRules compiles the policy's file rules for a call in cwd.
func fileRules(p *gate.Policy, cwd, home string) []fileRule {
	if p == nil {
		return nil
	}
	var out []fileRule
	for _, fr := range p.Files {
		if r, ok := parseFileRule(fr.Text, fr.Action, fr.File, cwd, home); ok {
			r.source = fr.Source
			out = append(out, r)
		}
	}
	return out
}

// parseFileRule reads Read(pat), Edit(pat) or Write(pat); other rules are
// not file rules.
func parseFileRule(text string, a gate.Action, source, cwd, home string) (fileRule, bool) {
	t := strings.TrimSpace(text)
	var op Kind
	var inner string
	for prefix, k := range map[string]Kind{"Read(": Read, "Edit(": Write, "Write(": Write} {
		if s, ok := strings.CutPrefix(t, prefix); ok && strings.HasSuffix(s, ")") {
			op, inner = k, strings.TrimSuffix(s, ")")
		}
	}
	if op == 0 || strings.TrimSpace(inner) == "" {
		return fileRule{}, false
	}
	r := fileRule{text: t, op: op, action: a}
	switch {
	case strings.HasPrefix(inner, "//"):
		r.base, r.pat = "/", strings.TrimPrefix(inner, "//")
	case strings.HasPrefix(inner, "~/"):
		r.base, r.pat = home, strings.TrimPrefix(inner, "~/")
	case strings.HasPrefix(inner, "/"):
		r.base, r.pat = policyRoot(source, cwd), strings.TrimPrefix(inner, "/")
	default:
		r.base, r.pat = cwd, strings.TrimPrefix(inner, "./")
		r.any = !strings.HasPrefix(inner, "./") && !strings.Contains(strings.TrimSuffix(inner, "/"), "/")
	}
	r.pat = strings.TrimSuffix(r.pat, "/")
	if r.base == "" {
		return fileRule{}, false // ~/ without a home: the rule cannot be placed
	}
	return r, true
}

// policyRoot is the directory a policy file's /p patterns are under.
func policyRoot(source, cwd string) string {
	if source == "" || !filepath.IsAbs(source) {
		return cwd
	}
	dir := filepath.Dir(source)
	switch filepath.Base(dir) {
	case ".claude", ".qwen", ".gemini", ".codex", ".agentexec":
		return filepath.Dir(dir)
	}
	return dir
}

// matches reports whether the rule covers abs (or a directory above it).
func (r fileRule) matches(abs string) bool {
	rel, ok := within(r.base, abs)
	if !ok {
		return false
	}
	segs := strings.Split(rel, "/")
	if rel == "" {
		segs = nil
	}
	pat := strings.Split(r.pat, "/")
	for n := len(segs); n >= 1; n-- { // the path, then each directory above it
		if r.any {
			if ok, _ := path.Match(r.pat, segs[n-1]); ok {
				return true
			}
			continue
		}
		if globSegments(pat, segs[:n]) {
			return true
		}
	}
	return false
}

// within returns abs relative to base ("" for base itself), slash-separated.
func within(base, abs string) (string, bool) {
	rel, err := filepath.Rel(base, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	if rel == "." {
		return "", true
	}
	return filepath.ToSlash(rel), true
}

// globSegments matches path segments against pattern segments, where **
// stands for any number of segments (zero included).
func globSegments(pat, segs []string) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if globSegments(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	if len(segs) == 0 {
		return false
	}
	ok, err := path.Match(pat[0], segs[0])
	return err == nil && ok && globSegments(pat[1:], segs[1:])
}

// checkFiles judges a Read or Write call.
func checkFiles(c Call, cfg Config) Verdict {
	rules := fileRules(cfg.Policy, c.Cwd, cfg.Home)
	best := Verdict{}
	for _, p := range c.Paths {
		for _, spelling := range spellings(p) {
			v := checkPath(c, cfg, rules, spelling)
			if rank(v.Action) > rank(best.Action) {
				best = v
			}
		}
	}
	return best
}

// spellings are p and p with its symlinks resolved (as far as it exists).
func spellings(p string) []string {
	real := resolveExisting(p)
	if real == p {
		return []string{p}
	}
	return []string{p, real}
}

// resolveExisting resolves the symlinks of p's longest existing prefix and
// appends the rest: a file about to be created is judged where it will be.
func resolveExisting(p string) string {
	rest := ""
	for cur := p; ; cur = filepath.Dir(cur) {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		if cur == filepath.Dir(cur) {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
	}
}

func rank(a Action) int {
	switch a {
	case Deny:
		return 3
	case Ask:
		return 2
	case Allow:
		return 1
	}
	return 0
}

func checkPath(c Call, cfg Config, rules []fileRule, p string) Verdict {
	if v := ruleVerdict(c.Kind, rules, p); v.Action != None {
		return v
	}
	if c.Kind != Write {
		return Verdict{}
	}
	mode := cfg.Mode
	if mode == "" {
		mode = c.Mode
	}
	if mode == "" && cfg.Policy != nil {
		mode = cfg.Policy.Mode
	}
	if mode == gate.ModePlan {
		return Verdict{Action: Deny, Reason: fmt.Sprintf("agentexec: denied: plan mode changes no files, and %s would write %s. Finish the plan first.", c.Tool, p)}
	}
	if !insideRoots(p, writeRoots(c, cfg)) {
		return Verdict{Action: Ask, Reason: fmt.Sprintf("agentexec: needs your approval: %s would write %s, outside the workspace; agentexec's sandbox lets no command write there.", c.Tool, p)}
	}
	if what, ok := protected(p, cfg); ok {
		return Verdict{Action: Ask, Reason: fmt.Sprintf("agentexec: needs your approval: %s would change %s (%s), which agentexec's sandbox keeps read-only.", c.Tool, p, what)}
	}
	return Verdict{}
}

func ruleVerdict(k Kind, rules []fileRule, p string) Verdict {
	var ask *fileRule
	for i, r := range rules {
		if r.op != k || !r.matches(p) {
			continue
		}
		if r.action == gate.Deny {
			return Verdict{Action: Deny, Reason: fmt.Sprintf("agentexec: denied by the rule %s%s: %s is off limits. Do not try to reach it another way; ask the user if you need it.", r.text, from(r.source), p)}
		}
		if ask == nil {
			ask = &rules[i]
		}
	}
	if ask != nil {
		return Verdict{Action: Ask, Reason: fmt.Sprintf("agentexec: needs your approval: the rule %s%s asks before %s is touched.", ask.text, from(ask.source), p)}
	}
	return Verdict{}
}

func from(source string) string {
	if source == "" {
		return ""
	}
	return " (from " + source + ")"
}

// writeRoots are where a file tool may write without asking.
func writeRoots(c Call, cfg Config) []string {
	ws := cfg.Workspace
	if ws == "" {
		ws = c.Cwd
	}
	roots := []string{ws, resolveExisting(ws)}
	if cfg.Policy != nil {
		for _, r := range cfg.Policy.Sandbox.WritableRoots {
			if r = resolveDir(ws, r); r != "" {
				roots = append(roots, r, resolveExisting(r))
			}
		}
	}
	return roots
}

func insideRoots(p string, roots []string) bool {
	for _, r := range roots {
		if _, ok := within(r, p); ok {
			return true
		}
	}
	return false
}

// protected reports whether p is inside a .git directory or a Protected
// path, and which.
func protected(p string, cfg Config) (string, bool) {
	for _, seg := range strings.Split(filepath.ToSlash(p), "/") {
		if seg == ".git" {
			return "the git repository's own files", true
		}
	}
	for _, q := range cfg.Protected {
		if q == "" {
			continue
		}
		for _, s := range []string{q, resolveExisting(q)} {
			if _, ok := within(s, p); ok {
				return "where the agent's hook and agentexec's policy are configured", true
			}
		}
	}
	return "", false
}
