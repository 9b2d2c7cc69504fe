package facts

import (
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	p "github.com/agentexec/agentexec/gate/programs"
	"github.com/agentexec/agentexec/internal/shwalk"
)

// What a variable holds where it is used. Tree.Vars keeps every static
// value the text gives each variable; a use of $X resolves to them (the
// blacklist's targets, cd's directory) only where they are all X can hold
// there. They are not when:
//   - X is also given a value the text does not show: X=$(cmd), read X,
//     printf -v X, mapfile X, for X in $(…), ((X=…)), an indexed or array
//     assignment, a case or integer attribute (declare -u X), a {X}>F
//     redirection;
//   - a variable the text does not name may be set: read "$v", declare -n,
//     declare "$v=…", ${!v:=…}, source FILE, unset "$v";
//   - bash sets X itself as the text runs (PWD, OLDPWD, _, REPLY, …);
//   - the use may come before a definite assignment — one made by a
//     statement of the decided text's own top-level list (not a subshell,
//     function, loop, branch, background job or a command's prefix) — so
//     X may still hold what the environment gave it;
//   - the use is expanded by another process (bash -c '… $X …'), which
//     sees only what is exported to it;
//   - X's value was derived from a variable that is itself not sure there,
//     or that holds several values.

// varState is what the builder learns of the text's variables besides
// their static values.
type varState struct {
	unsure   map[string]bool
	all      bool               // a variable the text does not name may be set
	definite map[string][]scope // where each definite assignment holds
	derived  []derivedVar
	cdWords  []cdUse
	cdDash   bool // a cd - was read
	prompts  []promptUse
	oldpwd   bool // a cd - before any other cd: to OLDPWD from before the text
}

// scope is the stretch of the decided text [from, to) where a definite
// assignment holds: from the assignment to the end of the list of
// statements it stands in (the rest of an && or || chain, a loop's body
// for its variable).
type scope struct{ from, to int }

// derivedVar is a static value computed from other variables (Y=$X/a).
type derivedVar struct {
	name string
	deps []string
	at   int
}

// cdUse is a cd whose directory was computed from variables.
type cdUse struct {
	w     *syntax.Word
	at    int
	child bool
	idx   int // its place in Tree.Cds
}

// unsureVar records that name takes a value the text does not show.
func (b *builder) unsureVar(name string) {
	name, _, _ = strings.Cut(name, "[")
	if b.t.vs.unsure == nil {
		b.t.vs.unsure = map[string]bool{}
	}
	b.t.vs.unsure[name] = true
}

// unsureAll records that a variable the text does not name may be set.
func (b *builder) unsureAll() { b.t.vs.all = true }

// definiteVar records a definite assignment to name at offset at of the
// decided text, holding to the end of the statement list being read; an
// assignment in a payload, or in a statement run in the background, is
// none.
func (b *builder) definiteVar(name string, at int) {
	b.definiteIn(name, scope{at, b.scopeEnd})
}

func (b *builder) definiteIn(name string, sc scope) {
	if b.depth != 0 || b.outer != nil || b.background || b.guessing {
		return
	}
	if b.t.vs.definite == nil {
		b.t.vs.definite = map[string][]scope{}
	}
	b.t.vs.definite[name] = append(b.t.vs.definite[name], sc)
}

// sureAt reports whether Vars holds every value name can have for a use
// at offset at (child: expanded by another process).
func (t *Tree) sureAt(name string, at int, child bool) bool {
	if child || t.vs.all || t.vs.unsure[name] || p.ShellSets(name) || len(t.Vars[name]) == 0 {
		return false
	}
	for _, sc := range t.vs.definite[name] {
		if sc.from < at && at < sc.to {
			return true
		}
	}
	return false
}

// IntegerAt reports whether every value the variable name can hold where
// it is used, at offset at of the decided text, is known and an integer:
// what bash's arithmetic reads as a number without evaluating anything in
// it (a value x='y' is evaluated as y in turn, x='a[$(cmd)]' runs cmd).
func (t *Tree) IntegerAt(name string, at int) bool {
	if t == nil || !t.sureAt(name, at, false) {
		return false
	}
	for _, v := range t.Vars[name] {
		// A digit first: bash reads the whole as a number, never a name.
		if v = strings.TrimSpace(v); v == "" || v[0] < '0' || v[0] > '9' {
			return false
		}
		if _, err := strconv.ParseInt(v, 0, 64); err != nil {
			return false
		}
	}
	return true
}

// Expand resolves w, used at offset at of the decided text (child: by
// another process), with every combination of the values the text gives
// its variables (bounded), HOME as Home. complete is false when a
// variable may also hold a value the text does not show there (the
// values found are still returned: each is one the word may take), or w
// needs what Resolve cannot do (then none is returned).
func (t *Tree) Expand(w *syntax.Word, at int, child bool) (vals []string, complete bool) {
	if runsSubst(w) {
		return nil, false // Resolve runs nothing
	}
	names := paramNames(w)
	for _, name := range arithNames(w) {
		// $((x)): x's value is evaluated in turn; only integers are read
		// here (x='y' would read y).
		for _, v := range t.Vars[name] {
			if _, err := strconv.ParseInt(strings.TrimSpace(v), 0, 64); err != nil {
				return nil, false
			}
		}
		names = append(names, name)
	}
	if len(t.Vars["IFS"]) > 0 || t.vs.unsure["IFS"] || t.vs.all {
		// Unquoted expansions are split at the text's IFS.
		names = append(names, "IFS")
	}
	if !t.sureAt("HOME", at, child) && homeTransformed(w) {
		// Home stands for HOME's value whole; a part of it (${HOME%/*}
		// is /home) is a path the gate cannot spell.
		return nil, false
	}
	combos := []map[string]string{{}}
	complete = true
	for _, name := range names {
		if name == "HOME" && !t.sureAt(name, at, child) {
			continue // Resolve reads it as Home
		}
		if !t.sureAt(name, at, child) {
			complete = false
			if len(t.Vars[name]) == 0 {
				return nil, false
			}
		}
		var next []map[string]string
		for _, m := range combos {
			for _, v := range t.Vars[name] {
				c := map[string]string{name: v}
				for k, x := range m {
					c[k] = x
				}
				next = append(next, c)
				if len(next) > 16 {
					return nil, false
				}
			}
		}
		combos = next
	}
	var out []string
	for _, m := range combos {
		f, ok := Resolve(w, m)
		if !ok {
			return nil, false
		}
		out = append(out, f...)
	}
	return out, complete
}

// runsSubst reports a word whose expansion always runs a command or
// process substitution (one of its parts, or of a double-quoted part):
// Resolve fails on it whatever the variables hold, so Expand is spared
// its walks (on a word of hundreds of substitutions, several each).
func runsSubst(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return true
		case *syntax.DblQuoted:
			for _, in := range x.Parts {
				if _, ok := in.(*syntax.CmdSubst); ok {
					return true
				}
			}
		}
	}
	return false
}

// paramNames lists the variables a word expands (the special parameters
// and positional ones included, which the text never gives static values).
func paramNames(n syntax.Node) []string {
	var out []string
	shwalk.Walk(n, func(x syntax.Node) bool {
		if pe, ok := x.(*syntax.ParamExp); ok && pe.Param != nil {
			out = append(out, pe.Param.Value)
		}
		return true
	})
	return out
}

// ExpandedElsewhere reports a call whose words another process expands:
// one parsed from a script that a program other than a shell builtin runs
// (bash -c '…', ssh host '…'), which sees only what is exported to it.
func (c *Call) ExpandedElsewhere() bool {
	for x := c; x != nil && x.Via != nil; x = x.Via {
		if x.Stmt != nil && (x.Via.Prog == nil || !x.Via.Prog.Kind.Has(p.Builtin)) {
			return true
		}
	}
	return false
}

// arithAssign records the variables an arithmetic expression assigns
// (X=1, X+=1, X++, --X).
func (b *builder) arithAssign(n syntax.Node) {
	var x syntax.ArithmExpr
	switch a := n.(type) {
	case *syntax.BinaryArithm:
		switch a.Op {
		case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn,
			syntax.RemAssgn, syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
			x = a.X
		}
	case *syntax.UnaryArithm:
		if a.Op == syntax.Inc || a.Op == syntax.Dec {
			x = a.X
		}
	}
	if w, ok := x.(*syntax.Word); ok {
		if name, ok := Static(w); ok && name != "" {
			b.unsureVar(name)
			return
		}
		b.unsureAll()
	}
}

// arithText records a string bash evaluates as arithmetic (let 'X=1',
// [[ 'X=1' -eq 1 ]], an integer's value): one that may assign sets a
// variable the gate does not name.
func (b *builder) arithText(w Word) {
	v := w.Value
	if !w.Static {
		b.unsureAll()
		return
	}
	v = strings.NewReplacer("==", "", "!=", "", "<=", "", ">=", "").Replace(v)
	if strings.ContainsAny(v, "=") || strings.Contains(v, "++") || strings.Contains(v, "--") {
		b.unsureAll()
	}
}

// finishVars settles what the build could not know in order: a value
// derived from a variable not sure where it was derived is not sure, and
// a cd whose directory came from such a variable goes where the gate
// cannot follow.
func (t *Tree) finishVars() {
	for changed, n := true, 0; changed && n < 8; n++ {
		changed = false
		for _, d := range t.vs.derived {
			if t.vs.unsure[d.name] {
				continue
			}
			for _, dep := range d.deps {
				if dep == "HOME" && !t.sureAt(dep, d.at, false) {
					continue
				}
				if !t.sureAt(dep, d.at, false) || len(t.Vars[dep]) > 1 {
					if t.vs.unsure == nil {
						t.vs.unsure = map[string]bool{}
					}
					t.vs.unsure[d.name], changed = true, true
					break
				}
			}
		}
	}
	t.finishCds()
}

// finishCds puts each computed cd's directories in its place in Cds, and
// reads what else may send a cd where the text does not show: cd - with
// OLDPWD from before the text (or set by it), a relative name under a
// CDPATH or cdable_vars the text sets.
func (t *Tree) finishCds() {
	if len(t.vs.cdWords) > 0 {
		cds := make([]string, 0, len(t.Cds))
		k := 0
		for i, d := range t.Cds {
			if k < len(t.vs.cdWords) && t.vs.cdWords[k].idx == i {
				cd := t.vs.cdWords[k]
				k++
				vals, ok := t.Expand(cd.w, cd.at, cd.child)
				if !ok {
					t.CdUnknown = true
				}
				for _, v := range vals {
					if !strings.HasPrefix(v, "/") {
						t.RelativeCd = true
					}
				}
				cds = append(cds, vals...)
				continue
			}
			cds = append(cds, d)
		}
		t.Cds = cds
	}
	if t.vs.oldpwd || t.vs.cdDash && (len(t.Vars["OLDPWD"]) > 0 || t.vs.unsure["OLDPWD"] || t.vs.all) {
		t.CdUnknown = true
	}
	if t.RelativeCd && (t.CdSearch || len(t.Vars["CDPATH"]) > 0 || t.vs.unsure["CDPATH"] || t.vs.all) {
		t.CdUnknown = true
	}
}

// promptUse is a ${X@P}: X's value is expanded as a prompt string, whose
// command substitutions run (bash's promptvars, on by default).
type promptUse struct {
	name  string
	sp    Span
	at    int
	plain bool // ${X@P} itself, not ${!X@P} or ${X[i]@P}, in the decided text
}

// promptExp records a ${X@P} expansion.
func (b *builder) promptExp(pe *syntax.ParamExp) {
	if pe.Exp == nil || pe.Exp.Op != syntax.OtherParamOps || pe.Exp.Word == nil || pe.Exp.Word.Lit() != "P" || pe.Param == nil {
		return
	}
	sp := b.span(pe)
	b.t.vs.prompts = append(b.t.vs.prompts, promptUse{name: pe.Param.Value, sp: sp, at: sp.Start,
		plain: !pe.Excl && pe.Index == nil && b.depth == 0 && b.outer == nil})
}

// finishPrompts reads the commands each ${X@P} runs: every value the text
// gives X holding an expansion is read as a double-quoted string's text,
// and a value the text does not show (or an indirect or indexed X) hides
// what it runs.
func (b *builder) finishPrompts() {
	for _, pu := range b.t.vs.prompts {
		if !pu.plain || !b.t.sureAt(pu.name, pu.at, false) {
			b.hide(Unreadable, pu.sp, nil, "`${%s@P}` expands a value the text does not show as a prompt, which runs the commands in it", pu.name)
		}
		for _, v := range b.t.Vars[pu.name] {
			if strings.ContainsAny(v, "$`") {
				b.reparse(pu.sp, nil, "_=\""+v+"\"", fmt.Sprintf("`${%s@P}` expands the prompt %q, which", pu.name, clip(v)))
			}
		}
	}
}

// Fields returns the fields bash makes of w used at offset at (child: by
// another process), when it is made by brace expansion, or computed from
// variables that each hold one value the text shows there: rm {-rf,/}
// and X='-rf /'; rm $X pass rm two words.
// ok is false for a static word, or one whose fields the text does not
// show.
func (t *Tree) Fields(w Word, at int, child bool) ([]Word, bool) {
	if w.Static || w.Hole || w.Node == nil || runsSubst(w.Node) {
		return nil, false
	}
	// Brace expansion, and variables that each hold one value.
	for _, name := range paramNames(w.Node) {
		if len(t.Vars[name]) != 1 || !t.sureAt(name, at, child) {
			return nil, false
		}
	}
	vals, complete := t.Expand(w.Node, at, child)
	if !complete {
		return nil, false
	}
	out := make([]Word, len(vals)) // none: an empty unquoted expansion vanishes
	for i, v := range vals {
		out[i] = Word{Value: v, Static: true, Raw: w.Raw}
	}
	return out, true
}

// homeTransformed reports a word that expands HOME other than whole: a
// suffix or prefix removed, a replacement, a slice, a case change, its
// length or an indirection.
func homeTransformed(w *syntax.Word) bool {
	found := false
	shwalk.Walk(w, func(n syntax.Node) bool {
		pe, ok := n.(*syntax.ParamExp)
		if !ok || pe.Param == nil || pe.Param.Value != "HOME" {
			return !found
		}
		if pe.Repl != nil || pe.Slice != nil || pe.Length || pe.Width || pe.Excl || pe.Index != nil {
			found = true
		}
		if pe.Exp != nil {
			switch pe.Exp.Op {
			case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull,
				syntax.ErrorUnset, syntax.ErrorUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
			default:
				found = true
			}
		}
		return !found
	})
	return found
}

// arithNames lists the variables an arithmetic expansion in w names bare
// ($((x)), ${a[i]}, ${s:n}): bash reads their values as numbers.
func arithNames(w *syntax.Word) []string {
	var out []string
	var inArith func(n syntax.Node)
	inArith = func(n syntax.Node) {
		if n == nil {
			return
		}
		shwalk.Walk(n, func(x syntax.Node) bool {
			if wd, ok := x.(*syntax.Word); ok {
				if name := wd.Lit(); validName(name) {
					out = append(out, name)
				}
			}
			return true
		})
	}
	shwalk.Walk(w, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ArithmExp:
			inArith(x.X)
			return false
		case *syntax.ParamExp:
			if x.Index != nil {
				inArith(x.Index)
			}
			if x.Slice != nil {
				if x.Slice.Offset != nil {
					inArith(x.Slice.Offset)
				}
				if x.Slice.Length != nil {
					inArith(x.Slice.Length)
				}
			}
		}
		return true
	})
	return out
}
