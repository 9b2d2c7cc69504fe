package gate

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentexec/agentexec/gate/facts"
	p "github.com/agentexec/agentexec/gate/programs"
	"github.com/agentexec/agentexec/internal/lazy"
	"github.com/agentexec/agentexec/internal/shwalk"
	"github.com/agentexec/agentexec/shellcfg"
)

// Rule is one compiled Bash(...) permission rule.
//
// Rule syntax, as Claude Code, Qwen Code and Gemini CLI users write it:
//
//	Bash                 every command
//	Bash(git status)     exactly "git status" (Claude Code's documented meaning, and
//	                     agentexec's); read as a prefix, "git status ARGS…" too, for
//	                     rules from Qwen Code and Gemini CLI (Meaning Prefix)
//	Bash(git *)          "git" and "git ARGS…", never "gitk"
//	Bash(npm run test:*) Claude Code's legacy prefix form, the same as "npm run test *"
//	Bash(* --version)    "*" is a wildcard anywhere; it also matches newlines
//	Bash(git * main)
//
// run_shell_command(...), Shell(...) and ShellTool(...) are aliases of
// Bash(...). A pattern is matched against one segment of a command, never
// against the whole compound, with runs of unquoted blanks between words
// read as one space.
type Rule struct {
	Text   string // as written, e.g. "Bash(git *)"
	Source string // file path, "inline" (a --batch line) or "flag"
	Line   int    // line in Source, 0 when unknown
	Action Action
	// Pattern is the command pattern between the parentheses, with the
	// legacy ":*" suffix rewritten to " *"; "" for a bare Bash.
	Pattern string
	// Meaning says how a pattern without "*" matches; the loader sets it
	// from the format the rule was written in.
	Meaning Meaning
	// Justification is the policy author's reason for the rule (Codex
	// justification, Gemini deny_message), quoted in the decision's reason.
	Justification string
	// Network lists the hosts a command this allow rule allows may reach
	// (agentexec's {"rule": ..., "network": [...]} form; network.go).
	Network []string
	// re is a regular-expression rule's (Meaning Regex) compiled form, pat
	// every other rule's; both nil for a bare Bash, which matches
	// everything.
	re  *regexp.Regexp
	pat *globPattern
	// Only marks a rule of the policy's allowlist of the only commands the
	// shell may run (Gemini's tools.core): Action is Allow, and a command
	// none of them covers is denied.
	Only bool
	// prefix is the literal text every match starts with (the pattern up
	// to its first "*", blanks normalized): a cheap test before the match.
	prefix string
	// lead is prefix's first byte, 0 when there is none: the cheapest
	// test, which Match makes before its call.
	lead byte
}

// bare reports a bare Bash rule, which matches every command.
func (r *Rule) bare() bool { return r.re == nil && r.pat == nil }

// Meaning is how a rule pattern without any "*" reads. Patterns with a
// trailing " *" or ":*" are prefixes and other "*" wildcards in every
// meaning.
type Meaning string

// The meanings.
const (
	// Exact: the command and nothing more — Claude Code documents
	// Bash(npm run build) as that exact command; agentexec reads its own
	// allow rules the same way. The zero value. Deny and ask rules are
	// always read as Prefix.
	Exact Meaning = ""
	// Prefix: the command, or the command, a blank and any arguments —
	// Qwen Code's and Gemini CLI's run_shell_command(git status).
	Prefix Meaning = "prefix"
	// Regex: the pattern is a regular expression searched for in the
	// command (Gemini CLI policy-engine commandRegex).
	Regex Meaning = "regex"
)

// Describe says in words what a rule with this meaning matches.
func (m Meaning) Describe() string {
	switch m {
	case Prefix:
		return "a pattern without * is a prefix at a word boundary"
	case Regex:
		return "a regular expression searched for in the command"
	}
	return "a pattern without * matches exactly that command"
}

// shellTools are the tool names whose rules are ours.
var shellTools = []string{"Bash", "run_shell_command", "Shell", "ShellTool"}

// ParseRule compiles one rule text with the Exact meaning. ok is false,
// with a nil error, for a well-formed rule of another tool (Read(...),
// WebFetch, mcp__x__y, …), which agentexec does not evaluate. A malformed
// Bash-family rule is an error naming the rule.
func ParseRule(text string, action Action, source string) (r Rule, ok bool, err error) {
	return ParseRuleAs(text, action, source, Exact)
}

// ParseRuleAs is ParseRule for a rule of a format whose bare patterns have
// meaning m (Exact or Prefix; see RegexRule for Regex).
func ParseRuleAs(text string, action Action, source string, m Meaning) (r Rule, ok bool, err error) {
	if m != Exact && m != Prefix {
		return Rule{}, false, fmt.Errorf("rule %q: meaning %q is not exact or prefix", text, m)
	}
	s := strings.TrimSpace(text)
	name, spec, hasSpec := cutTool(s)
	if !isShellTool(name) {
		if lookalike(name) {
			return Rule{}, false, fmt.Errorf("rule %q: tool names are case-sensitive; write %s", text, canonicalLookalike(name))
		}
		return Rule{}, false, otherToolError(text, s, name)
	}
	if action != Allow {
		// A deny or ask rule reads a bare pattern as a prefix whatever the
		// format: the stricter reading can only deny or ask more, and
		// deny Bash(git push) meant to stop git push origin main too.
		m = Prefix
	}
	r = Rule{Text: s, Source: source, Action: action, Meaning: m}
	if !hasSpec {
		if s != name {
			return Rule{}, false, fmt.Errorf("rule %q: malformed: text after the tool name must be (pattern)", text)
		}
		return r, true, nil
	}
	if !strings.HasSuffix(spec, ")") {
		return Rule{}, false, fmt.Errorf("rule %q: malformed: the pattern must end with the closing parenthesis", text)
	}
	pat := strings.TrimSpace(spec[:len(spec)-1])
	if pat == "" {
		return Rule{}, false, fmt.Errorf("rule %q: empty pattern; write Bash to match every command", text)
	}
	if strings.ContainsAny(pat, "\x00\r\n") {
		return Rule{}, false, fmt.Errorf("rule %q: a pattern cannot contain line breaks or NUL", text)
	}
	r.Pattern = legacyPrefix(pat)
	r.pat = newGlobPattern(r.Pattern, m)
	r.prefix = literalPrefix(r.Pattern)
	if r.prefix != "" {
		r.lead = r.prefix[0] // never NUL: a pattern holds none
	}
	return r, true, nil
}

// RegexRule compiles a rule whose pattern is a regular expression (RE2
// syntax), as Gemini CLI's policy engine reads commandRegex. A deny or ask
// rule searches each candidate command text, as Gemini does; an allow rule
// must match a whole segment, so that "git" cannot allow `rm -rf / # git`.
// text is how the rule is shown.
func RegexRule(text, pattern string, action Action, source string) (Rule, error) {
	expr := `(?s)` + pattern
	if action == Allow {
		expr = `(?s)^(?:` + pattern + `)$`
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return Rule{}, fmt.Errorf("rule %q: bad regular expression: %v", text, err)
	}
	if _, err := regexp.Compile(`(?s)` + pattern); err != nil {
		return Rule{}, fmt.Errorf("rule %q: bad regular expression: %v", text, err)
	}
	return Rule{Text: text, Source: source, Action: action, Pattern: pattern, Meaning: Regex, re: re}, nil
}

// cutTool splits "Name(spec)" into Name and "spec)"; hasSpec reports an
// opening parenthesis.
func cutTool(s string) (name, spec string, hasSpec bool) {
	i := strings.IndexByte(s, '(')
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

func isShellTool(name string) bool {
	for _, t := range shellTools {
		if name == t {
			return true
		}
	}
	return false
}

// lookalike catches "bash(rm *)": silently ignoring a misspelt deny rule
// would widen what runs.
func lookalike(name string) bool { return canonicalLookalike(name) != "" }

func canonicalLookalike(name string) string {
	for _, t := range shellTools {
		if strings.EqualFold(strings.TrimSpace(name), t) {
			return t
		}
	}
	return ""
}

// otherToolError accepts the shape Tool or Tool(spec) for another tool and
// refuses text that is no rule at all.
func otherToolError(text, s, name string) error {
	if name == "" || !validToolName(name) {
		return fmt.Errorf("rule %q: malformed: want Tool or Tool(pattern)", text)
	}
	if len(s) > len(name) && !strings.HasSuffix(s, ")") {
		return fmt.Errorf("rule %q: malformed: the pattern must end with the closing parenthesis", text)
	}
	return nil
}

func validToolName(name string) bool {
	for _, c := range name {
		ok := c == '_' || c == '-' || c == '*' || c == '.' || c == ':' ||
			(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// legacyPrefix rewrites Claude Code's "prefix:*" into "prefix *".
func legacyPrefix(pat string) string {
	if strings.HasSuffix(pat, ":*") {
		return strings.TrimRight(pat[:len(pat)-2], " \t") + " *"
	}
	return pat
}

// Match reports whether the rule's pattern matches one candidate text,
// already normalized by normalizeBlanks.
func (r *Rule) Match(candidate string) bool {
	// Most candidates differ from a rule's prefix in the first byte: that
	// test, small enough to be inlined where rules are tried in turn, is
	// cheaper than the call (and the prefix comparison's).
	if r.lead != 0 && (candidate == "" || candidate[0] != r.lead) {
		return false
	}
	return r.matchSlow(candidate)
}

// matchSlow is Match past the first byte.
func (r *Rule) matchSlow(candidate string) bool {
	switch {
	case r.bare():
		return true
	case r.pat != nil:
		return strings.HasPrefix(candidate, r.prefix) && r.pat.match(candidate)
	}
	return r.re.MatchString(candidate)
}

// globPattern is a command pattern compiled for matching: its text split
// at each "*" (every star matches any text, line breaks included), and
// whether a word-boundary tail follows — the rest of the candidate is
// nothing or a blank and anything. The tests hold it to the anchored
// regexp the same meaning makes (compilePattern, in glob_test.go).
type globPattern struct {
	parts []string
	tail  bool
}

func newGlobPattern(pat string, m Meaning) *globPattern {
	pat = normalizeBlanks(pat)
	switch {
	case !strings.Contains(pat, "*") && m != Prefix:
		return &globPattern{parts: []string{pat}}
	case !strings.Contains(pat, "*"):
		return &globPattern{parts: []string{pat}, tail: true}
	case strings.HasSuffix(pat, " *"):
		return &globPattern{parts: strings.Split(strings.TrimSuffix(pat, " *"), "*"), tail: true}
	}
	return &globPattern{parts: strings.Split(pat, "*")}
}

// text is the pattern as one glob, a tail read as a star ("git push *"
// is "git push*": the bare prefix is the star matching nothing), for
// meeting a text with holes (globsMeet).
func (g *globPattern) text() string {
	t := strings.Join(g.parts, "*")
	if g.tail {
		t += "*"
	}
	return t
}

// match reports whether s matches: the first part is a prefix, the middle
// ones are found leftmost in turn (for stars alone, leftmost is never
// worse), and the last part ends the text or, with a tail, a word.
func (g *globPattern) match(s string) bool {
	first := g.parts[0]
	if !strings.HasPrefix(s, first) {
		return false
	}
	if len(g.parts) == 1 {
		rest := s[len(first):]
		return rest == "" || g.tail && rest[0] == ' '
	}
	s = s[len(first):]
	last := len(g.parts) - 1
	for _, part := range g.parts[1:last] {
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
	}
	end := g.parts[last]
	if !g.tail || end == "" {
		// A trailing star takes the rest, tail or not.
		return strings.HasSuffix(s, end)
	}
	// The last part ends the text or is followed by a blank: try each
	// place it occurs.
	for off := 0; ; {
		i := strings.Index(s[off:], end)
		if i < 0 {
			return false
		}
		j := off + i + len(end)
		if j == len(s) || s[j] == ' ' {
			return true
		}
		off += i + 1
	}
}

// literalPrefix is a glob pattern's text before its first "*", with blanks
// normalized as candidates are.
func literalPrefix(pat string) string {
	pat = normalizeBlanks(pat)
	if i := strings.IndexByte(pat, '*'); i >= 0 {
		// "x *" also matches the bare "x": the space is optional.
		return strings.TrimRight(pat[:i], " ")
	}
	return pat
}

// ruleSet is a policy's compiled rules per action.
type ruleSet struct {
	deny, ask, allow []Rule
	// only, when not empty, are the only commands the shell may run at
	// all (Gemini CLI's tools.core shell allowlist): anything else is
	// denied, whatever the other rules say.
	only []Rule
}

// compileRules parses every Bash-family rule; strictOther makes a rule of
// another tool an error (agentexec's own file format) instead of ignored
// (a Claude Code / Qwen Code settings file, where it belongs to that tool).
func compileRules(p Permissions, source string, strictOther bool) (*ruleSet, error) {
	rs := &ruleSet{}
	lists := []struct {
		texts []string
		a     Action
		dst   *[]Rule
	}{{p.Deny, Deny, &rs.deny}, {p.Ask, Ask, &rs.ask}, {p.Allow, Allow, &rs.allow}}
	for _, l := range lists {
		for _, t := range l.texts {
			r, ok, err := ParseRule(t, l.a, source)
			if err != nil {
				return nil, fmt.Errorf("permissions.%s: %w", l.a, err)
			}
			if !ok && strictOther {
				return nil, fmt.Errorf("permissions.%s: rule %q is not a shell rule (agentexec's format holds only Bash(...) rules; rules of other tools belong in that agent's settings file)", l.a, t)
			}
			if ok {
				if l.a == Allow {
					r.Network = p.Network[t]
				}
				*l.dst = append(*l.dst, r)
			}
		}
	}
	return rs, nil
}

// setLines gives each rule of rs its line in the file, in list order
// (every rule of agentexec's format compiles, so the orders agree).
func (rs *ruleSet) setLines(lines map[Action][]int) {
	for _, l := range []struct {
		a     Action
		rules []Rule
	}{{Deny, rs.deny}, {Ask, rs.ask}, {Allow, rs.allow}} {
		if len(lines[l.a]) != len(l.rules) {
			continue
		}
		for i := range l.rules {
			l.rules[i].Line = lines[l.a][i]
		}
	}
}

// groupRules sorts compiled rules into a set by action.
func groupRules(rules []Rule) *ruleSet {
	rs := &ruleSet{}
	for _, r := range rules {
		switch {
		case r.Only:
			rs.only = append(rs.only, r)
			continue
		}
		switch r.Action {
		case Deny:
			rs.deny = append(rs.deny, r)
		case Ask:
			rs.ask = append(rs.ask, r)
		default:
			rs.allow = append(rs.allow, r)
		}
	}
	return rs
}

// merge returns a new set with extra's rules after rs's.
func (rs *ruleSet) merge(extra *ruleSet) *ruleSet {
	out := &ruleSet{}
	out.deny = append(append(out.deny, rs.deny...), extra.deny...)
	out.ask = append(append(out.ask, rs.ask...), extra.ask...)
	out.allow = append(append(out.allow, rs.allow...), extra.allow...)
	out.only = append(append(out.only, rs.only...), extra.only...)
	return out
}

// firstMatch returns the first rule matching any of the candidates.
func firstMatch(rules []Rule, candidates []string) (Rule, bool) {
	for i := range rules {
		for _, c := range candidates {
			if rules[i].Match(c) {
				return rules[i], true
			}
		}
	}
	return Rule{}, false
}

// normalizeBlanks removes line continuations, trims, and turns each run of
// unquoted spaces and tabs into one space. Blanks inside quotes are kept:
// `grep "a  b"` and `grep "a b"` are different commands.
func normalizeBlanks(s string) string {
	if blanksNormal(s) {
		return s
	}
	s = strings.ReplaceAll(s, "\\\n", "")
	s = trimBlanks(s)
	var b strings.Builder
	var quote byte
	blank := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote == 0 && (c == ' ' || c == '\t') {
			blank = true
			continue
		}
		if blank {
			b.WriteByte(' ')
			blank = false
		}
		var n int
		quote, n = quoteStep(s, i, quote)
		b.WriteString(s[i : i+n])
		i += n - 1
	}
	return b.String()
}

// blanksNormal reports a text normalizeBlanks would return unchanged: no
// tab, no line continuation, no run of two spaces, no blank at either end
// (blanks inside quotes then need no care either).
func blanksNormal(s string) bool {
	if s == "" {
		return true
	}
	// Each test is one vectorized search: long candidates are common.
	return s[0] != ' ' && s[len(s)-1] != ' ' && strings.IndexByte(s, '\t') < 0 &&
		!strings.Contains(s, "  ") && !strings.Contains(s, "\\\n")
}

// quoteStep reads the byte (or escape pair) at s[i] in quote state quote
// (0, '\”, '"', or '$' for $'…') and returns the new state and how many
// bytes it consumed.
func quoteStep(s string, i int, quote byte) (byte, int) {
	c := s[i]
	if c == '\\' && quote != '\'' && i+1 < len(s) {
		return quote, 2
	}
	switch {
	case quote == 0 && c == '\'' && i > 0 && s[i-1] == '$':
		return '$', 1
	case quote == 0 && (c == '\'' || c == '"'):
		return c, 1
	case quote == '$' && c == '\'':
		return 0, 1
	case quote != 0 && c == quote:
		return 0, 1
	}
	return quote, 1
}

// assignmentPrefix returns the length of s's leading VAR=value words
// (quote-aware), 0 when there are none.
func assignmentPrefix(s string) int {
	end := 0
	for {
		rest := s[end:]
		trimmed := trimLeftBlanks(rest)
		if !startsAssignName(trimmed) {
			return end // not NAME=, NAME+= or NAME[: the word is not read
		}
		w := shellWordLen(trimmed)
		if w == 0 || !isAssignWord(trimmed[:w]) {
			return end
		}
		end += len(rest) - len(trimmed) + w
	}
}

// startsAssignName reports whether w starts as an assignment word does: a
// name followed by '=', "+=" or '['.
func startsAssignName(w string) bool {
	i := 0
	for i < len(w) && (w[i] == '_' || (w[i]|0x20 >= 'a' && w[i]|0x20 <= 'z') || (i > 0 && w[i] >= '0' && w[i] <= '9')) {
		i++
	}
	return i > 0 && i < len(w) && (w[i] == '=' || w[i] == '[' || w[i] == '+' && i+1 < len(w) && w[i+1] == '=')
}

// isAssignWord reports a NAME=, NAME+= or NAME[sub]= word.
func isAssignWord(w string) bool {
	i := 0
	for i < len(w) && (w[i] == '_' || (w[i]|0x20 >= 'a' && w[i]|0x20 <= 'z') || (i > 0 && w[i] >= '0' && w[i] <= '9')) {
		i++
	}
	if i == 0 {
		return false
	}
	if i < len(w) && w[i] == '[' {
		j := strings.IndexByte(w[i:], ']')
		if j < 0 {
			return false
		}
		i += j + 1
	}
	if i < len(w) && w[i] == '+' {
		i++
	}
	return i < len(w) && w[i] == '='
}

// wordLen is the length of the shell word at the start of s: up to an
// unquoted blank.
func shellWordLen(s string) int {
	var quote byte
	for i := 0; i < len(s); {
		if quote == 0 && (s[i] == ' ' || s[i] == '\t') {
			return i
		}
		var n int
		quote, n = quoteStep(s, i, quote)
		i += n
	}
	return len(s)
}

// Why allow rules could not apply to a command (ruleVerdict.blocked).
const (
	blockSuspicious = "suspicious" // shellcfg.Scan found characters that hide text
	blockUnbalanced = "unbalanced" // the splitter saw an unclosed quote or substitution
	blockCapped     = "capped"     // more than MaxSegments segments
	blockUnparsed   = "unparsed"   // bash/sh text the parser cannot read
	blockDataCode   = "data-code"  // bash would run code hidden in a value (classifier evidence)
	blockHidden     = "hidden"     // a hidden execution the deny and ask rules cannot see into
)

// dataCodeRules are the classifier findings of code that bash runs out of
// data — a variable's value or the environment — rather than out of the
// text a rule was matched against: `${x@P}`, `${!x}`, arithmetic on a
// variable (its value is evaluated in turn, and `a[$(cmd)]` runs cmd),
// `[[ x -eq … ]]` and `-v`, and an environment that makes bash or every
// program load code. Whatever the rule says about the visible command, an
// allow rule cannot vouch for what is not in it (bypass classes 9 and 10;
// Gemini fails closed on any @P).
var dataCodeRules = lazy.NewSet(
	"prompt-expansion", "indirect-expansion", "arithmetic-operand",
	"arithmetic-test", "shell-environment",
)

// configRunRules are the classifier findings of a program the project's
// configuration makes a command run (git's core.fsmonitor, diff.external,
// hooks, aliases in .git/config …), or of a configuration the classifier
// could not read (git after a cd, git -C DIR, --git-dir): the text does
// not spell what runs, so the deny and ask rules cannot see it. Like project code run by name, the run-time
// exec gate watches what it starts; without one, no allow rule can vouch
// for it while deny or ask rules exist.
var configRunRules = lazy.NewSet("git-config", "git-after-cd", "git-global-option")

// configRuns returns the first classifier finding of a program run by the
// configuration.
func configRuns(r Result) (Evidence, bool) {
	for _, e := range r.Evidence {
		if configRunRules.Has(e.Rule) {
			return e, true
		}
	}
	return Evidence{}, false
}

// dataCode returns the first classifier finding of code run out of data,
// as "rule: detail (at byte N)", or "".
func dataCode(r Result) string {
	for _, e := range r.Evidence {
		if dataCodeRules.Has(e.Rule) {
			return fmt.Sprintf("%s at byte %d: %s", e.Rule, e.Offset, e.Detail)
		}
	}
	return ""
}

// ruleVerdict is what the permission rules alone said about a command.
type ruleVerdict struct {
	decision  string // allow, ask, deny or none
	rule      Rule   // the deciding rule, when decision is not none
	blocked   string // why allow rules could not apply, or ""
	detail    string // for blocked: what was found
	uncovered string // the first segment no allow rule matched
	matched   int    // for allow: the segments the rules matched (here-doc data aside)
	total     int    // segments before deduplication
	// mayDeny: the deny rule matches only for some values of words known
	// at run time, so the verdict is ask, not deny.
	mayDeny bool
	// guess: the rule matched a call the gate only guesses the command
	// may run (how, and its text), "" otherwise.
	guess string
	// unmatched: the command's nested calls spell more text than the
	// rules are matched against (strictCandidates), so a deny or ask rule
	// may match the rest; with mayDeny, the verdict is ask.
	unmatched bool
	// readOnlyRest: the allow rules cover some parts (rule is the first
	// that does) and the rest is proven read-only.
	readOnlyRest bool
	// outsideOnly is the part of the command outside the policy's only
	// commands (a deny), "" otherwise.
	outsideOnly string
	// cover is which allow rule covers each call, when the allow rules
	// were matched (nil otherwise): the suggestions read it.
	cover *coverage
}

// coverage is which allow rule covers each call the shell runs, matched
// once per decision: allowAll, allowWithReadOnly and the suggestions each
// read it (they matched every call against every rule again).
type coverage struct {
	calls []*facts.Call
	by    []int // index of the covering rule in the list, -1 for none
	buf   [4]int
	some  bool // some call is covered
}

func coverageOf(allow []Rule, t *facts.Tree) *coverage {
	cv := &coverage{calls: topCalls(t)}
	cv.by = cv.buf[:0]
	for _, c := range cv.calls {
		k := coveringIndex(allow, c)
		if k < 0 {
			k = coveredThrough(allow, t, c, 0)
		}
		cv.by = append(cv.by, k)
		cv.some = cv.some || k >= 0
	}
	return cv
}

// coveredThrough is the rule covering c as the command a transparent
// launcher runs (timeout 60 npm test under Bash(npm test:*)), or -1: c
// must be such a launcher, read whole (no hidden execution of its own),
// without redirections or assignments that are not inert, starting
// exactly one call, itself covered.
func coveredThrough(allow []Rule, t *facts.Tree, c *facts.Call, depth int) int {
	if c.Prog == nil || !c.Prog.Transparent || c.WriteRedir || !inertAssigns(c) || depth > 8 {
		return -1
	}
	for _, h := range t.Hidden {
		if h.Call == c {
			return -1 // an option it does not know, a computed word: not read through
		}
	}
	var inner *facts.Call
	for _, n := range t.Calls {
		if n.Via == c {
			if inner != nil {
				return -1
			}
			inner = n
		}
	}
	if inner == nil {
		return -1
	}
	if k := coveringIndex(allow, inner); k >= 0 {
		return k
	}
	return coveredThrough(allow, t, inner, depth+1)
}

// inertAssigns reports whether every assignment before c is an inert
// variable given a static value (programs.Inert).
func inertAssigns(c *facts.Call) bool {
	for _, a := range c.Assigns {
		if !p.Inert(a.Name) || !a.Value.Static {
			return false
		}
	}
	return true
}

// segmentCovered reports the rule that covers segment s as a call: the
// call of the same text (after bash's time keyword) when coverage found
// one for it — through an inert assignment or a transparent launcher.
func segmentCovered(allow []Rule, s string, cv *coverage) (Rule, bool) {
	if cv == nil || !cv.some {
		return Rule{}, false // (then no call answers, whatever s is)
	}
	n := normalizeBlanks(s)
	if rest, ok := strings.CutPrefix(n, "time "); ok {
		n = strings.TrimPrefix(rest, "-p ")
	}
	for i, c := range cv.calls {
		if k := cv.by[i]; k >= 0 && normalizeBlanks(c.Text) == n {
			return allow[k], true
		}
	}
	return Rule{}, false
}

// uncovered are the calls no allow rule covers.
func (cv *coverage) uncovered() []*facts.Call {
	var out []*facts.Call
	for i, c := range cv.calls {
		if cv.by[i] < 0 {
			out = append(out, c)
		}
	}
	return out
}

func (rv ruleVerdict) ref() *RuleRef {
	if rv.decision == RuleNone || rv.rule.Text == "" {
		return nil
	}
	return &RuleRef{Text: rv.rule.Text, Source: rv.rule.Source, Action: rv.rule.Action}
}

// ruleInput is what the rules read of a command.
type ruleInput struct {
	text     string
	shell    shellcfg.ShellType
	seg      Segmentation
	tree     *facts.Tree
	class    Result
	execGate bool
}

// evalRules applies deny, then ask, then allow rules to a segmented
// command. Deny and ask rules see every segment (all of them, past the
// cap), each also with its leading assignments skipped and in shellcfg's
// normalized spelling, plus every call of the facts tree — those nested
// in launchers, -c scripts, find -exec and the rest included — in every
// spelling (quotes removed, argv[0] as basename, git's global options
// dropped, words known only at run time as holes a `*` may stand for): a
// stricter reading can only deny or ask more. A deny rule that matches
// only for some values of the holes asks. Allow rules see only the raw
// segments and the calls the shell runs itself, and all of them must
// match; none may cover a hidden execution while a deny or ask rule
// exists.
func evalRules(rs *ruleSet, in ruleInput) ruleVerdict {
	var cands []spelling
	complete := true
	if len(rs.deny)+len(rs.ask) > 0 {
		// Only deny and ask rules read the candidates (allowAll has its
		// own): without them, the spellings are not built at all.
		cands, complete = strictCandidates(in.seg.Segments, in.tree)
		// The whole text is a candidate too: a deny rule may name a whole
		// compound (Gemini policy-engine: deny `Bash(git status && ls)`).
		// A text that is its one segment is spelled already: the
		// segment's spelling is always the first.
		if segs := in.seg.Segments; len(segs) == 0 || segs[0] != in.text {
			if whole := (spelling{text: normalizeBlanks(in.text)}); !slices.Contains(cands, whole) {
				cands = append(cands, whole)
			}
		}
	}
	if r, m, guess := bestMatchWhy(rs.deny, cands); m == sureMatch {
		return ruleVerdict{decision: string(Deny), rule: r}
	} else if m == mayMatch {
		return ruleVerdict{decision: string(Ask), rule: r, mayDeny: true, guess: guess}
	}
	if !complete {
		return ruleVerdict{decision: string(Ask), rule: firstRule(rs), mayDeny: true, unmatched: true}
	}
	if len(rs.only) > 0 {
		if _, outside, _ := allowAll(rs.only, in.shell, in.seg, in.tree, nil); outside != "" || !in.shell.IsPOSIX() || in.tree == nil || !in.tree.Parsed {
			return ruleVerdict{decision: string(Deny), rule: rs.only[0], outsideOnly: firstNonEmpty(outside, in.text)}
		}
	}
	if r, m, guess := bestMatchWhy(rs.ask, cands); m != noMatch {
		return ruleVerdict{decision: string(Ask), rule: r, guess: guess}
	}
	rv := ruleVerdict{decision: RuleNone, total: in.seg.Total}
	rv.blocked, rv.detail = allowBlocked(in.text, in.shell, in.seg, in.tree)
	if rv.blocked == "" {
		if dc := dataCode(in.class); dc != "" {
			rv.blocked, rv.detail = blockDataCode, dc
			if !in.execGate {
				// Nor can the deny and ask rules see that code, when no
				// exec gate judges what it runs: rule is the first of
				// them, for yolo mode (decideYolo).
				rv.rule = firstRule(rs)
			}
		}
	}
	if rv.blocked == "" && len(rs.deny)+len(rs.ask) > 0 && in.shell.IsPOSIX() {
		if h, ok := unseenByRules(in.tree, in.execGate); ok {
			rv.blocked, rv.detail = blockHidden, describeHidden(h)
			rv.rule = firstRule(rs)
		} else if e, ok := configRuns(in.class); ok && !in.execGate {
			rv.blocked, rv.detail = blockHidden, fmt.Sprintf("%s (bytes %d–%d)", e.Detail, e.Offset, e.End)
			rv.rule = firstRule(rs)
		}
	}
	if rv.blocked != "" || len(rs.allow) == 0 {
		return rv
	}
	if in.shell.IsPOSIX() {
		rv.cover = coverageOf(rs.allow, in.tree)
	}
	r, uncovered, matched := allowAll(rs.allow, in.shell, in.seg, in.tree, rv.cover)
	if uncovered != "" {
		if r, ok := allowWithReadOnly(rs.allow, in, rv.cover); ok {
			// The rules alone did not allow it (rule_decision stays none):
			// the mode allows it with the read-only rest.
			rv.rule, rv.readOnlyRest = r, true
		}
		rv.uncovered = uncovered
		return rv
	}
	rv.decision, rv.rule, rv.matched = string(Allow), r, matched
	return rv
}

// bodyData reports whether segment s is here-doc data to both readings:
// the splitter found it only as a body line, and it is a line of a body
// the parse found (bodies, from hdocBodies). Where the two disagree on
// where a body ends, the segment is matched like any other.
func bodyData(seg Segmentation, s string, bodies []string) bool {
	if len(bodies) == 0 || !seg.isData(s) {
		return false
	}
	for _, b := range bodies {
		for line := range strings.Lines(b) {
			if strings.Trim(strings.TrimSuffix(line, "\n"), " \t") == s {
				return true
			}
		}
	}
	return false
}

// hdocBodies are the texts of the here-document bodies in t's parse.
func hdocBodies(t *facts.Tree) []string {
	var out []string
	shwalk.Walk(t.File, func(n syntax.Node) bool {
		if r, ok := n.(*syntax.Redirect); ok && r.Hdoc != nil {
			start, end := int(r.Hdoc.Pos().Offset()), int(r.Hdoc.End().Offset())
			if 0 <= start && start <= end && end <= len(t.Src) {
				out = append(out, t.Src[start:end])
			}
		}
		return true
	})
	return out
}

// allowWithReadOnly allows a compound whose every part is either matched
// by an allow rule or proven read-only where it stands (Claude Code users
// expect `npm run test 2>&1 | tail -20` and `cd src && npm run test` under
// Bash(npm run test:*)). Proven read-only means the classifier's reading
// of the whole text gave it read-only evidence and nothing else, and no
// evidence outside the rule-covered calls is anything but read-only (a
// loop, a shared assignment, a redirect into a file all stop it). At least
// one call must match a rule.
func allowWithReadOnly(allow []Rule, in ruleInput, cv *coverage) (Rule, bool) {
	if !in.shell.IsPOSIX() || in.tree == nil || !in.tree.Parsed || cv == nil {
		return Rule{}, false
	}
	var first Rule
	covered := 0
	var spans []facts.Span
	for i, c := range cv.calls {
		if k := cv.by[i]; k >= 0 {
			if covered == 0 {
				first = allow[k]
			}
			covered++
			spans = append(spans, c.Span)
			continue
		}
		if !provenReadOnly(in.class, c.Span) || c.WriteRedir {
			return Rule{}, false
		}
	}
	if covered == 0 {
		return Rule{}, false
	}
	for _, e := range in.class.Evidence {
		if e.Safety.Norm() != ReadOnly && !insideAny(e, spans) {
			return Rule{}, false
		}
	}
	var bodies []string
	if len(in.seg.Data) > 0 {
		bodies = hdocBodies(in.tree)
	}
	for _, s := range in.seg.Segments {
		if bodyData(in.seg, s, bodies) {
			continue // the calls, all checked above, are what runs
		}
		if _, ok := firstMatch(allow, []string{normalizeBlanks(s)}); ok {
			continue
		}
		if _, ok := segmentCovered(allow, s, cv); ok {
			continue
		}
		if Classify(s, ClassifyOptions{Shell: in.shell}).Safety.Norm() != ReadOnly {
			return Rule{}, false
		}
	}
	return first, true
}

// provenReadOnly reports whether the classifier's evidence within sp is
// all read-only, and there is some.
func provenReadOnly(r Result, sp facts.Span) bool {
	found := false
	for _, e := range r.Evidence {
		if e.Offset >= sp.Start && e.End <= sp.End && e.End > e.Offset {
			if e.Safety.Norm() != ReadOnly {
				return false
			}
			found = true
		}
	}
	return found
}

// insideAny reports evidence within one of spans; evidence about the text
// as a whole (no span) is inside none.
func insideAny(e Evidence, spans []facts.Span) bool {
	if e.End <= e.Offset {
		return false
	}
	for _, sp := range spans {
		if e.Offset >= sp.Start && e.End <= sp.End {
			return true
		}
	}
	return false
}

// coveringIndex is the index of the first allow rule that covers a call,
// -1 for none: a call whose text hides a substitution is covered by none,
// and a call redirecting output into a file only by a rule that spells a
// '>' (or a bare Bash).
func coveringIndex(allow []Rule, c *facts.Call) int {
	if hiddenSubst(c) {
		return -1
	}
	n := normalizeBlanks(c.Text)
	bare := ""
	if len(c.Assigns) > 0 && inertAssigns(c) {
		if k := assignmentPrefix(n); k > 0 {
			bare = trimLeftBlanks(n[k:])
		}
	}
	for i := range allow {
		r := &allow[i]
		if c.WriteRedir && !r.bare() && !strings.Contains(r.Pattern, ">") {
			continue
		}
		if r.Match(n) || bare != "" && r.Match(bare) {
			return i
		}
	}
	return -1
}

// firstRule is the first deny (else ask) rule, named when a hidden
// execution keeps allow rules from applying.
func firstRule(rs *ruleSet) Rule {
	if len(rs.deny) > 0 {
		return rs.deny[0]
	}
	if len(rs.ask) > 0 {
		return rs.ask[0]
	}
	return Rule{}
}

// bestMatch returns the first rule that surely matches a candidate, else
// the first that may.
func bestMatch(rules []Rule, cands []spelling) (Rule, ruleMatch) {
	r, m, _ := bestMatchWhy(rules, cands)
	return r, m
}

// bestMatchWhy is bestMatch, also saying how the call matched is only
// guessed to run ("" when it surely runs). A match on a guessed call may
// match, no more.
func bestMatchWhy(rules []Rule, cands []spelling) (Rule, ruleMatch, string) {
	var maybe *Rule
	found, guess := noMatch, ""
	for i := range rules {
		r := &rules[i] // a Rule is large: not copied per candidate
		for _, c := range cands {
			if !c.holes && r.lead != 0 && (c.text == "" || c.text[0] != r.lead) {
				continue // Match's first test, without the call: noMatch
			}
			m := r.match(c)
			if m == sureMatch && c.guess == "" {
				return *r, sureMatch, ""
			}
			if m != noMatch && found == noMatch {
				maybe, found, guess = r, mayMatch, c.guess
			}
		}
	}
	if maybe == nil {
		return Rule{}, found, guess
	}
	return *maybe, found, guess
}

// guessOf describes the guessed call c belongs to: the program that may
// run it and its text.
func guessOf(c *facts.Call) string {
	for x := c; x != nil; x = x.Via {
		if x.Guess {
			return x.How + " `" + clipText(x.Text) + "`"
		}
	}
	return ""
}

// strictCandidates lists what deny and ask rules are matched against,
// each spelling once. Nested calls repeat the text around them (the call
// outside a substitution spells the substitution too), so their spellings
// can grow with the square of the text: past spellingBudget(total) bytes
// the rest is not built and complete is false — the rules could not be
// matched against everything, and the caller fails closed.
func strictCandidates(segs []string, t *facts.Tree) (out []spelling, complete bool) {
	// The budget is on the text's size: segments nest as calls do.
	size := 0
	for _, s := range segs {
		size = max(size, len(s))
	}
	if t != nil {
		size = max(size, len(t.Src))
	}
	budget, used := spellingBudget(size), 0
	// Each spelling is kept once, as it comes: a long chain of one
	// command repeats a few spellings thousands of times, and room for
	// all of them (and a map as large) had been a tenth of its bytes.
	n := 2 * len(segs)
	if t != nil {
		n += 3 * len(t.Calls)
	}
	d := spellingSet{out: make([]spelling, 0, min(n, 32))}
	add := func(s string) {
		from := len(d.out)
		n := normalizeBlanks(s)
		d.out = append(d.out, spelling{text: n})
		if k := assignmentPrefix(n); k > 0 {
			d.out = append(d.out, spelling{text: trimLeftBlanks(n[k:])})
		}
		d.keepNew(from)
	}
	for _, s := range segs {
		if used += len(s); used > budget {
			return d.out, false
		}
		add(s)
		if ns := shellcfg.Normalize(s); ns != s {
			add(ns)
		}
	}
	if t != nil {
		for _, c := range t.Calls {
			if used += len(c.Text); used > budget {
				return d.out, false
			}
			k := len(d.out)
			d.out = appendSpellings(d.out, c)
			if c.Guessed() {
				for i := k; i < len(d.out); i++ {
					d.out[i].guess = guessOf(c)
				}
			}
			d.keepNew(k)
		}
	}
	return d.out, true
}

// spellingSet is a list of spellings each kept once, in the order first
// seen.
type spellingSet struct {
	out  []spelling
	seen map[spelling]struct{} // past a few spellings; nil before
}

// keepNew drops the spellings appended from out[k] on that are already
// kept (before k, or earlier among the new ones).
func (d *spellingSet) keepNew(k int) {
	if k <= 16 && len(d.out) == k+1 && !slices.Contains(d.out[:k], d.out[k]) {
		return // one new spelling, not seen before: the usual case
	}
	j := k
	for _, s := range d.out[k:] {
		if d.has(d.out[:j], s) {
			continue
		}
		d.out[j] = s
		j++
		if d.seen != nil {
			d.seen[s] = struct{}{}
		}
	}
	d.out = d.out[:j]
}

// has reports s among kept: compared one by one while few (cheaper than
// hashing), then in a map made of them.
func (d *spellingSet) has(kept []spelling, s spelling) bool {
	if d.seen == nil && len(kept) <= 16 {
		return slices.Contains(kept, s)
	}
	if d.seen == nil {
		d.seen = make(map[spelling]struct{}, 2*len(kept))
		for _, x := range kept {
			d.seen[x] = struct{}{}
		}
	}
	_, ok := d.seen[s]
	return ok
}

// spellingBudget bounds the bytes of call texts spelled for a text of n
// bytes: far above what real commands need (their calls' texts add up to
// a few times the text), far below the square of a hostile text.
func spellingBudget(n int) int { return 8*n + 64<<10 }

// allowBlocked says why no allow rule may apply, checked in order of
// gravity: too many segments, characters that hide text, an unbalanced
// split, bash text the parser cannot read.
func allowBlocked(text string, shell shellcfg.ShellType, seg Segmentation, t *facts.Tree) (string, string) {
	if seg.Total > MaxSegments {
		return blockCapped, ""
	}
	if sus := shellcfg.Scan(text); len(sus) > 0 {
		return blockSuspicious, fmt.Sprintf("%s at byte %d", sus[0].Name, sus[0].Offset)
	}
	if seg.Unbalanced {
		return blockUnbalanced, ""
	}
	if shell.IsPOSIX() && (t == nil || !t.Parsed) {
		return blockUnparsed, ""
	}
	return "", ""
}

// allowAll checks that every segment, and for bash and sh every call the
// shell runs, matches an allow rule; a command that redirects output into
// a file needs a rule whose pattern spells a '>' (or a bare Bash). A
// here-doc body line that both the splitter and the parse read as data
// (bodyData) is text a command reads, not a command: only the calls are
// matched there. It returns the rule of the first segment matched and how
// many were, or the first text left uncovered.
//
// cv, when not nil, is the calls' coverage by these rules, already matched.
func allowAll(allow []Rule, shell shellcfg.ShellType, seg Segmentation, t *facts.Tree, cv *coverage) (Rule, string, int) {
	var first Rule
	found, matched := false, 0
	var bodies []string
	if shell.IsPOSIX() && t != nil && t.Parsed && len(seg.Data) > 0 {
		bodies = hdocBodies(t)
	}
	for _, s := range seg.Segments {
		if bodyData(seg, s, bodies) {
			continue // every call is checked below: the parse runs none here
		}
		r, ok := firstMatch(allow, []string{normalizeBlanks(s)})
		if !ok && shell.IsPOSIX() && t != nil {
			if cv == nil {
				cv = coverageOf(allow, t)
			}
			r, ok = segmentCovered(allow, s, cv)
		}
		if !ok {
			return Rule{}, s, 0
		}
		if !found {
			first, found = r, true
		}
		matched++
	}
	if !shell.IsPOSIX() {
		return first, "", matched
	}
	if cv == nil {
		cv = coverageOf(allow, t)
	}
	for i, c := range cv.calls {
		if cv.by[i] < 0 {
			return Rule{}, c.Text, 0
		}
	}
	return first, "", matched
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
