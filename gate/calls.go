package gate

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/agentexec/agentexec/gate/facts"
	p "github.com/agentexec/agentexec/gate/programs"
	"github.com/agentexec/agentexec/internal/lazyre"
	"github.com/agentexec/agentexec/shellcfg"
)

// hole stands for a word computed at run time in a spelling: a rule
// pattern's `*` may stand for it, any literal text may not.
const hole = "\x00"

// spelling is one way a call can be matched by a rule: text, with holes
// where its words are only known at run time.
type spelling struct {
	text  string
	holes bool
	// guess, when not "", says how the call is only guessed to run (see
	// facts.Call.Guess): a rule that matches it may match, no more.
	guess string
}

// spellings lists the ways deny and ask rules see a call: its source
// text, its words with quotes removed (dynamic ones as holes), argv[0] as
// its basename and as the program it stands for (grm is rm), git without its global options, $"…" read as "…".
func spellings(c *facts.Call) []spelling { return appendSpellings(nil, c) }

// appendSpellings appends c's spellings to out.
func appendSpellings(out []spelling, c *facts.Call) []spelling {
	var last string
	lastHoles, any := false, false
	add := func(s string, holes bool) {
		if any && s == last && holes == lastHoles {
			return // the same spellings again (a call's words spell its text)
		}
		last, lastHoles, any = s, holes, true
		n := normalizeBlanks(s)
		out = append(out, spelling{text: n, holes: holes})
		if k := assignmentPrefix(n); k > 0 {
			out = append(out, spelling{text: trimLeftBlanks(n[k:]), holes: holes})
		}
	}
	add(c.Text, false)
	if n := shellcfg.Normalize(c.Text); n != c.Text {
		add(n, false)
	}
	for _, argv := range [][]facts.Word{c.Argv, lenient(c.Argv)} {
		if argv == nil {
			continue
		}
		words, holes := wordsWithHoles(argv)
		add(joinLike(words, c.Text), holes)
		if base := path.Base(words[0]); base != words[0] && words[0] != hole {
			add(strings.Join(append([]string{base}, words[1:]...), " "), holes)
		}
		if c.Prog != nil && words[0] != hole && c.Prog.Name != path.Base(words[0]) {
			// A name that stands for another entry (grm for rm, uu-cp for
			// cp, mkfs.ext4 for mkfs) is that program to a deny rule too.
			add(strings.Join(append([]string{c.Prog.Name}, words[1:]...), " "), holes)
		}
		if c.Prog != nil && c.Prog.Scanner == p.ScanGit {
			if g := gitWithoutGlobals(words[1:]); len(g) != len(words)-1 {
				add(c.Base+" "+strings.Join(g, " "), holes)
			}
		}
	}
	return out
}

// joinLike joins words with blanks, returning like itself when that is
// what the join spells (the usual case: a call's text is its words), so
// that nothing is built.
func joinLike(words []string, like string) string {
	rest := like
	for i, w := range words {
		if i > 0 {
			if !strings.HasPrefix(rest, " ") {
				return strings.Join(words, " ")
			}
			rest = rest[1:]
		}
		if !strings.HasPrefix(rest, w) {
			return strings.Join(words, " ")
		}
		rest = rest[len(w):]
	}
	if rest != "" {
		return strings.Join(words, " ")
	}
	return like
}

// wordsWithHoles spells argv's words: static ones by value, the rest (and
// the words a call receives at run time) as holes.
func wordsWithHoles(argv []facts.Word) ([]string, bool) {
	out := make([]string, len(argv))
	holes := false
	for i, w := range argv {
		switch {
		case w.Static && !w.Hole && !w.Glob:
			out[i] = w.Value
		case w.Static && w.Glob && i > 0:
			out[i] = w.Value // a glob operand: rules see the pattern
		default:
			out[i], holes = hole, true
		}
	}
	return out, holes
}

// lenient re-reads argv with every $"…" word taken as "…": bash
// translates it through the locale catalogue, which in practice returns
// the text itself. Only deny, ask and the blacklist read it (stricter);
// allow rules and the classifier keep $"…" dynamic. nil when no word
// changes.
func lenient(argv []facts.Word) []facts.Word {
	var out []facts.Word
	for i, a := range argv {
		if a.Static || a.Node == nil {
			continue
		}
		v, ok := facts.Lenient(a.Node)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]facts.Word(nil), argv...)
		}
		out[i] = facts.Word{Value: v, Static: true, Raw: a.Raw, Node: facts.StripLocale(a.Node)}
	}
	return out
}

// gitWithoutGlobals drops git's global options before the subcommand, so
// that deny and ask rules on "git push *" also see "git -C dir push".
func gitWithoutGlobals(args []string) []string {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		name, _, hasVal := strings.Cut(args[i], "=")
		if p.GitGlobalValued.Has(name) && !hasVal {
			i++
		}
		i++
	}
	if i > len(args) {
		return nil
	}
	return args[i:]
}

// ruleMatch is how a rule matches a spelling.
type ruleMatch uint8

const (
	noMatch   ruleMatch = iota
	mayMatch            // the rule matches for some values of the holes
	sureMatch           // the rule matches whatever the holes hold
)

// match tests r against one spelling.
func (r *Rule) match(s spelling) ruleMatch {
	if !s.holes {
		if r.Match(s.text) {
			return sureMatch
		}
		return noMatch
	}
	// A hole replaced by a byte no pattern spells can only be absorbed by
	// a `*`: if the pattern still matches, any value would. A hole before
	// the rule's literal prefix ends could stand for any of it.
	if h := strings.IndexByte(s.text, 0); h >= 0 && r.pat != nil &&
		!strings.HasPrefix(s.text[:h], r.prefix[:min(h, len(r.prefix))]) {
		return noMatch
	}
	if r.Match(strings.ReplaceAll(s.text, hole, "\x01")) {
		return sureMatch
	}
	if r.bare() {
		return mayMatch
	}
	if r.pat == nil {
		// A regular expression has no star to meet a hole with: probe a
		// few values a hole could take (a sharp edge: not a proof).
		for _, v := range []string{"", "x", " x ", "-", "/"} {
			if r.Match(strings.ReplaceAll(s.text, hole, v)) {
				return mayMatch
			}
		}
		return noMatch
	}
	if globsMeet(r.pat.text(), s.text) {
		return mayMatch
	}
	return noMatch
}

// globsMeet reports whether a pattern with `*` and a text with holes can
// spell the same string: a hole stands for any text, as `*` does.
func globsMeet(pat, text string) bool {
	n, m := len(pat), len(text)
	memo := make([]int8, (n+1)*(m+1)) // 0 unknown, 1 true, 2 false
	var meet func(i, j int) bool
	meet = func(i, j int) bool {
		k := i*(m+1) + j
		if memo[k] != 0 {
			return memo[k] == 1
		}
		var ok bool
		switch {
		case i == n && j == m:
			ok = true
		case i < n && pat[i] == '*':
			ok = meet(i+1, j) || (j < m && meet(i, j+1))
		case j < m && text[j] == 0:
			ok = meet(i, j+1) || (i < n && meet(i+1, j))
		case i < n && j < m:
			ok = pat[i] == text[j] && meet(i+1, j+1)
		}
		memo[k] = 2
		if ok {
			memo[k] = 1
		}
		return ok
	}
	if n*m > 1<<20 {
		return true // too large to decide: the stricter answer
	}
	return meet(0, 0)
}

// hiddenSubstRe finds a quoted "[…$(…)…]" (or backquote, or ${): bash
// evaluates array subscripts in printf -v, read, declare, test -v, let,
// [[ ]] and (( )) even from single quotes, running the substitution.
var hiddenSubstRe = lazyre.New("\\[[^]]*(\\$\\(|`|\\$\\{)")

// subscriptsNamed reports a name-taking builtin given a subscript: bash
// evaluates it (and a bare name there in turn), so `printf -v 'a[x]' 1`
// runs whatever `a[$(cmd)]` x holds.
func subscriptsNamed(c *facts.Call) bool {
	if c.Prog == nil || !c.Prog.Kind.Has(p.Builtin) || !takesNames(c.Prog) {
		return false
	}
	for _, a := range c.Argv[1:] {
		if strings.Contains(a.Raw, "[") {
			return true
		}
	}
	return false
}

// takesNames reports a builtin whose operands are variable names.
func takesNames(prog *p.Program) bool {
	return prog.Kind.Has(p.StateBuiltin) || prog.Scanner == p.ScanTest || prog.Scanner == p.ScanPrintf
}

// hiddenSubst reports a call no allow rule may cover because bash runs
// code out of a subscript in it.
func hiddenSubst(c *facts.Call) bool {
	// A match needs a '[' and then a '$' or a backquote: most texts have
	// neither, and the regexp costs more than looking.
	if i := strings.IndexByte(c.Text, '['); i >= 0 && strings.ContainsAny(c.Text[i:], "$`") && hiddenSubstRe.MatchString(c.Text) {
		return true
	}
	return subscriptsNamed(c)
}

// unseenByRules returns the first hidden execution deny and ask rules
// cannot look into, as "why (at byte N)": every kind, except project code
// run by name when an exec gate watches the run.
func unseenByRules(t *facts.Tree, execGate bool) (facts.Hidden, bool) {
	for _, h := range t.Hidden {
		if h.Kind == facts.ProjectCode && execGate {
			continue
		}
		return h, true
	}
	return facts.Hidden{}, false
}

func describeHidden(h facts.Hidden) string {
	return h.Why + " (bytes " + strconv.Itoa(h.Span.Start) + "–" + strconv.Itoa(h.Span.End) + ")"
}

// topCalls are the calls the shell itself runs (not started by another
// call): every one must be covered by an allow rule.
func topCalls(t *facts.Tree) []*facts.Call {
	if !slices.ContainsFunc(t.Calls, func(c *facts.Call) bool { return c.Via != nil }) {
		// Nothing started by another call (most texts): the list itself,
		// which no reader changes, sealed against appends.
		return t.Calls[:len(t.Calls):len(t.Calls)]
	}
	var out []*facts.Call
	for _, c := range t.Calls {
		if c.Via == nil {
			out = append(out, c)
		}
	}
	return out
}
