package hook

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentexec/agentexec/gate"
)

// File tools are judged by the policy's file rules — gate.FileRule, the
// one model the gate and the sandbox read too (Read(...) for reading
// tools, Edit(...) and Write(...) for writing ones), priority deny > ask;
// an allow rule gives no opinion, so the agent's own rules decide. A Write
// call is also held to the workspace boundary: outside the workspace and
// the policy's sandbox.writable_roots it asks (the sandbox would refuse a
// shell command the same write), inside .git or a Protected path it asks,
// and in plan mode every write is denied. Paths are checked as given and
// with symlinks resolved, so a link cannot carry a write out of the
// workspace or around a rule.

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

// checkFiles judges a Read or Write call.
func checkFiles(c Call, cfg Config) Verdict {
	var rules []gate.FileRule
	if cfg.Policy != nil {
		rules = cfg.Policy.Files
	}
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

func checkPath(c Call, cfg Config, rules []gate.FileRule, p string) Verdict {
	if v := ruleVerdict(c.Kind, rules, p, cfg.Home); v.Action != None {
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

func ruleVerdict(k Kind, rules []gate.FileRule, p, home string) Verdict {
	var ask *gate.FileRule
	for i, r := range rules {
		if r.Writes() != (k == Write) || r.Action == gate.Allow || !r.MatchFile(p, home) {
			continue
		}
		if r.Action == gate.Deny {
			return Verdict{Action: Deny, Reason: fmt.Sprintf("agentexec: denied by the rule %s%s: %s is off limits. Do not try to reach it another way; ask the user if you need it.", r.Text, from(r.Source), p)}
		}
		if ask == nil {
			ask = &rules[i]
		}
	}
	if ask != nil {
		return Verdict{Action: Ask, Reason: fmt.Sprintf("agentexec: needs your approval: the rule %s%s asks before %s is touched.", ask.Text, from(ask.Source), p)}
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
