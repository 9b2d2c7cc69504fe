package gate

import (
	"fmt"
	"github.com/agentexec/agentexec/gate/facts"
	"github.com/agentexec/agentexec/internal/lazy"
	"path"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// FileRule is one Read(...), Edit(...) or Write(...) rule of a Claude Code
// or Qwen Code settings file. Its path follows gitignore rules, as those
// tools read it:
//
//	//abs/path  an absolute path
//	~/path      under the home directory (HOME of the command's environment)
//	/path       from the project root
//	./path      from the project root
//	name        a name with no slash (but a trailing one) matches at any depth below the project root
//	a/b         a path with a slash inside is anchored at the project root
//
// with *, ? and [...] within a name, ** for any number of directories, and
// a trailing / for directories only. A rule for a directory covers what is
// in it. The project root is the directory holding the settings file's
// .claude or .qwen directory (else the settings file's own directory).
//
// Deny and ask rules are enforced twice: the gate refuses (or asks about) a
// command whose visible operands or redirect targets name a covered path,
// and the sandbox hides what a Read rule covers (an empty read-only file or
// directory in its place) and binds what an Edit or Write rule covers
// read-only inside a writable root. Allow rules never widen either.
type FileRule struct {
	Tool   string // "Read", "Edit", "Write", "MultiEdit" or "NotebookEdit"
	Action Action // Allow, Ask or Deny
	Text   string // as written, e.g. "Read(./.env)"
	Source string // the settings file
	// Base says what Pattern is relative to: "/" (absolute, the project
	// root already joined in) or "~" (the home directory).
	Base    string
	Pattern string // slash-separated, clean; may hold glob characters
	DirOnly bool   // the path ended in /
}

// fileTools are the tools whose rules are file rules; Write and Edit both
// govern changing a file.
var fileTools = lazy.NewSet("Read", "Edit", "Write", "MultiEdit", "NotebookEdit")

// Writes reports whether r governs changing files (Edit or Write) rather
// than reading them.
func (r FileRule) Writes() bool { return r.Tool != "Read" }

// Path returns r's pattern as an absolute path, the home directory being
// home; ok is false for a ~ rule without a home.
func (r FileRule) Path(home string) (string, bool) {
	if r.Base != "~" {
		return r.Pattern, true
	}
	if !filepath.IsAbs(home) {
		return "", false
	}
	return path.Join(filepath.ToSlash(home), r.Pattern), true
}

// ParseFileRule reads one rule text of a settings file; ok is false for a
// rule of another tool (and for a bare Read or Edit, which governs the
// agent's tool as a whole, not a path). project is the absolute project
// root ([SettingsProject]); home, when known, resolves ~ now, else it is
// resolved with the HOME of each command's environment.
func ParseFileRule(text string, action Action, source, project, home string) (r FileRule, ok bool, err error) {
	s := strings.TrimSpace(text)
	name, spec, hasSpec := strings.Cut(s, "(")
	if !fileTools.Has(name) {
		return FileRule{}, false, nil
	}
	if !hasSpec {
		// A bare Read or Edit governs that tool of the agent as a whole,
		// not a path: nothing for a command's files.
		return FileRule{}, false, nil
	}
	if !strings.HasSuffix(spec, ")") {
		return FileRule{}, false, fmt.Errorf("rule %q: malformed: the path must end with the closing parenthesis", text)
	}
	p := strings.TrimSpace(spec[:len(spec)-1])
	if p == "" || strings.ContainsAny(p, "\x00\r\n") {
		return FileRule{}, false, fmt.Errorf("rule %q: the path is empty or holds a line break or NUL", text)
	}
	r = FileRule{Tool: name, Action: action, Text: s, Source: source, Base: "/"}
	r.DirOnly = strings.HasSuffix(p, "/") && len(p) > 1
	p = strings.TrimSuffix(p, "/")
	proj := filepath.ToSlash(project)
	switch {
	case strings.HasPrefix(p, "//"):
		r.Pattern = path.Clean(p[1:])
	case (p == "~" || strings.HasPrefix(p, "~/")) && filepath.IsAbs(home):
		r.Pattern = path.Join(filepath.ToSlash(home), p[1:])
	case p == "~" || strings.HasPrefix(p, "~/"):
		r.Base, r.Pattern = "~", path.Clean(strings.TrimPrefix(strings.TrimPrefix(p, "~"), "/"))
	case strings.HasPrefix(p, "/"), strings.HasPrefix(p, "./"), strings.HasPrefix(p, "../"), p == ".", p == "":
		r.Pattern = path.Join(proj, p)
	case !strings.Contains(p, "/"):
		r.Pattern = path.Join(proj, "**", p) // a bare name matches at any depth
	default:
		r.Pattern = path.Join(proj, p)
	}
	for _, seg := range strings.Split(r.Pattern, "/") {
		if _, err := path.Match(seg, ""); err != nil && seg != "**" {
			return FileRule{}, false, fmt.Errorf("rule %q: malformed pattern %q", text, seg)
		}
	}
	return r, true, nil
}

// SettingsProject is the project root of the settings file at path: the
// parent of its .claude, .qwen or .gemini directory, else its directory.
func SettingsProject(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	dir := filepath.Dir(abs)
	switch filepath.Base(dir) {
	case ".claude", ".qwen", ".gemini":
		return filepath.Dir(dir)
	}
	return dir
}

// MatchFile reports whether the absolute path p is covered by r: p, or a
// directory above it, matches r's pattern. A directory-only rule is taken
// to match p itself too, since the gate cannot tell a directory from a
// file: the stricter reading.
func (r FileRule) MatchFile(p, home string) bool {
	pat, ok := r.Path(home)
	if !ok {
		return false
	}
	p = path.Clean(filepath.ToSlash(p))
	for q := p; ; q = path.Dir(q) {
		if globMatch(pat, q) {
			return true
		}
		if q == "/" || q == "." {
			return false
		}
	}
}

// globMatch matches a slash-separated path against a pattern whose
// segments are path.Match patterns or ** (any number of segments).
func globMatch(pattern, p string) bool {
	return segsMatch(strings.Split(pattern, "/"), strings.Split(p, "/"))
}

func segsMatch(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if segsMatch(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// fileTarget is a path a command names: an operand or a redirect target.
type fileTarget struct {
	path     string // absolute
	glob     bool   // it holds glob characters the shell will expand
	write    bool   // a redirect that writes it
	redir    bool
	readOnly bool // an operand of a command the classifier reads as read-only
}

// checkFileRules is the gate's half of the file rules: the first deny rule
// (else ask rule) that covers a path the command visibly names. A Read
// rule covers any operand and redirect target; an Edit or Write rule a
// redirect that writes, and operands when the command is not read-only.
func checkFileRules(in Input, t *facts.Tree, d Decision) (Decision, bool) {
	if in.Policy == nil || len(in.Policy.Files) == 0 || !t.Parsed {
		return d, false
	}
	home := envValue(in.Env, "HOME")
	ft := targetFinder{in: in, home: home, classify: d.Safety != ReadOnly && hasWriteRules(in.Policy.Files)}
	targets := ft.find(t)
	for _, action := range []Action{Deny, Ask} {
		for _, r := range in.Policy.Files {
			if r.Action != action {
				continue
			}
			for _, t := range targets {
				if r.Writes() && !t.write && (t.redir || t.readOnly || d.Safety == ReadOnly) {
					continue
				}
				if !t.covers(r, home) {
					continue
				}
				d.RuleDecision = string(action)
				d.Rule = &RuleRef{Text: r.Text, Source: r.Source, Action: action}
				what, layer := "read", "hides it"
				if r.Writes() {
					what, layer = "change", "keeps it read-only"
				}
				if action == Deny {
					return d.deny(fmt.Sprintf("Denied by the rule %s (%s): the command names %s, which no command may %s; the sandbox %s as well.", r.Text, r.Source, t.path, what, layer)), true
				}
				return d.ask(fmt.Sprintf("Needs the user's approval: the rule %s (%s) asks before a command may %s %s.", r.Text, r.Source, what, t.path)), true
			}
		}
	}
	return d, false
}

// covers reports whether r covers t: its path, or for a glob operand any
// path the glob could expand to that r's pattern names literally.
func (t fileTarget) covers(r FileRule, home string) bool {
	if !t.glob {
		return r.MatchFile(t.path, home)
	}
	pat, ok := r.Path(home)
	if !ok {
		return false
	}
	// The rule's path (or one below it) as the glob would find it.
	if strings.ContainsAny(pat, "*?[") {
		return false // two patterns: the sandbox's mask still holds
	}
	for q := pat; q != "/" && q != "."; q = path.Dir(q) {
		if globMatch(t.path, q) {
			return true
		}
	}
	return false
}

// hasWriteRules reports whether an Edit or Write rule denies or asks.
func hasWriteRules(rules []FileRule) bool {
	for _, r := range rules {
		if r.Writes() && r.Action != Allow {
			return true
		}
	}
	return false
}

// targetFinder lists the paths a command names.
type targetFinder struct {
	in       Input
	home     string
	classify bool // classify each command, for the Edit and Write rules
}

// find lists the paths the tree's calls — nested ones included (-c and
// eval payloads, launchers' commands) — name as operands (every static
// word after the command name, and the value of --opt=value) and redirect
// targets, resolved against the cwd.
func (ft targetFinder) find(t *facts.Tree) []fileTarget {
	var out []fileTarget
	for _, c := range t.Calls {
		out = append(out, ft.redirs(c)...)
		out = append(out, ft.call(c)...)
	}
	return out
}

// redirs lists the files a call's redirections name.
func (ft targetFinder) redirs(c *facts.Call) []fileTarget {
	var out []fileTarget
	for _, r := range c.Redirs {
		if r.Node == nil || r.Node.Word == nil || r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc {
			continue
		}
		v, ok := wordValue(r.Node.Word, ft.home)
		if !ok || ((r.Op == syntax.DplOut || r.Op == syntax.DplIn) && facts.IsFdWord(v)) {
			continue
		}
		if p, ok := targetPath(v, ft.in.Cwd, ft.home); ok {
			out = append(out, fileTarget{path: p, glob: strings.ContainsAny(v, "*?["), write: r.Op != syntax.RdrIn && r.Op != syntax.DplIn, redir: true})
		}
	}
	return out
}

// call lists the operands of one call.
func (ft targetFinder) call(c *facts.Call) []fileTarget {
	var out []fileTarget
	ro := false
	if ft.classify {
		cl := Classify(c.Text, ClassifyOptions{Shell: ft.in.shell(), Cwd: ft.in.Cwd, Env: ft.in.Env, ReadOnlyCommands: ft.in.readOnly()})
		ro = cl.Safety.Norm() == ReadOnly
	}
	add := func(v string) {
		if p, ok := targetPath(v, ft.in.Cwd, ft.home); ok {
			out = append(out, fileTarget{path: p, glob: strings.ContainsAny(v, "*?["), readOnly: ro})
		}
	}
	for _, w := range c.Argv[1:] {
		v, ok := w.Value, w.Static && !w.Hole
		if !ok && w.Node != nil {
			v, ok = wordValue(w.Node, ft.home)
		}
		if !ok {
			continue
		}
		add(v)
		if _, val, ok := strings.Cut(v, "="); ok && strings.HasPrefix(v, "-") && val != "" {
			add(val)
		}
	}
	return out
}

// wordValue is staticWord, also expanding a leading ~/ with home.
func wordValue(w *syntax.Word, home string) (string, bool) {
	if v, ok := facts.Static(w); ok {
		return v, true
	}
	if len(w.Parts) != 1 || home == "" {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok || !(l.Value == "~" || strings.HasPrefix(l.Value, "~/")) || strings.ContainsAny(l.Value, "\\{}$'\"`") {
		return "", false
	}
	return home + strings.TrimPrefix(l.Value, "~"), true
}

// targetPath makes an operand an absolute, clean path; ok is false for an
// empty word or one that is an option (it starts with -).
func targetPath(v, cwd, home string) (string, bool) {
	if v == "" || strings.HasPrefix(v, "-") {
		return "", false
	}
	if !strings.HasPrefix(v, "/") {
		if !filepath.IsAbs(cwd) {
			return "", false
		}
		v = path.Join(filepath.ToSlash(cwd), v)
	}
	return path.Clean(v), true
}

// envValue is the last value of key in env.
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}
