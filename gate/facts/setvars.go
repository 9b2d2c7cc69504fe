package facts

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	p "github.com/agentexec/agentexec/gate/programs"
)

// A variable that carries or loads code (p.Var: GIT_EXTERNAL_DIFF, PAGER,
// PATH, TAR_OPTIONS, …) is read by commandVar wherever an assignment word
// gives it a value. Bash has other ways to set a variable, and each is
// read here the same way:
//
//   - ${V:=w} and ${V=w} assign w where they expand;
//   - for V in …, select V in … assign each item;
//   - builtins set the variables their words name (read V, printf -v V,
//     mapfile V, getopts OPTS V, wait -p V: Program.Names), to values the
//     text does not show;
//   - declare -n R=V makes every later assignment to R one to V.
//
// With `export V` (or an already exported V: PATH), the value reaches the
// programs run later.

// defaultAssign reads a ${V:=w} or ${V=w} expansion of a code-carrying V
// as the assignment it is.
func (b *builder) defaultAssign(pe *syntax.ParamExp) {
	if pe.Exp == nil || pe.Param == nil || pe.Exp.Op != syntax.AssignUnset && pe.Exp.Op != syntax.AssignUnsetOrNull {
		return
	}
	if p.Var(pe.Param.Value) == p.PlainVar {
		return
	}
	a := Assign{Name: pe.Param.Value, Raw: b.source(pe)}
	if pe.Exp.Word != nil {
		a.Value = b.wordOf(pe.Exp.Word)
	} else {
		a.Value = Word{Static: true}
	}
	b.commandVar(nil, a)
}

// loopVar reads for/select V in ITEMS: V takes each item's value.
func (b *builder) loopVar(c *syntax.ForClause) {
	wi, ok := c.Loop.(*syntax.WordIter)
	if !ok || wi.Name == nil || p.Var(wi.Name.Value) == p.PlainVar {
		return
	}
	if !wi.InPos.IsValid() || len(wi.Items) == 0 {
		// for V; do …: V takes the positional parameters.
		b.hide(ShellState, b.span(c), nil, "the loop sets %s, which programs read as a command, options or code to load, to values the text does not show", wi.Name.Value)
		return
	}
	for _, w := range wi.Items {
		b.commandVar(nil, Assign{Name: wi.Name.Value, Value: b.wordOf(w), Raw: b.source(w)})
	}
}

// names reads the variables a builtin sets from its words (Program.Names).
func (b *builder) names(c *Call, prog *p.Program, args []Word) {
	n := prog.Names
	if n.Grammar == nil {
		return
	}
	parsed := n.Grammar.Parse(toArgs(args))
	var set []Word
	for _, f := range parsed.Found {
		if !f.Long && f.HasValue && strings.Contains(n.NameOpts, f.Name) {
			set = append(set, Word{Value: f.Value, Static: f.ValueStatic})
		}
	}
	for k, i := range parsed.Operands {
		if n.Operand == -1 || k+1 == n.Operand {
			set = append(set, args[i])
		}
	}
	for _, w := range set {
		if !w.Static || w.Hole {
			b.hide(ShellState, c.Span, c, "`%s` sets a variable whose name is computed at run time, which may be one programs read as a command", c.Base)
			continue
		}
		name, _, _ := strings.Cut(w.Value, "[")
		if p.Var(name) != p.PlainVar {
			b.hide(ShellState, c.Span, c, "`%s` sets %s, which programs read as a command, options or code to load, to a value the text does not show", c.Base, name)
		}
	}
}

// nameref reads declare -n R=V (and typeset, local): R becomes another
// name for V, so a code-carrying V, or one the gate cannot name, is set
// by every later assignment to R.
func (b *builder) nameref(c *syntax.DeclClause) {
	ref := false
	for _, a := range c.Args {
		if a.Name != nil || !a.Naked || a.Value == nil {
			continue
		}
		if v, ok := Static(a.Value); ok && strings.HasPrefix(v, "-") && strings.Contains(v, "n") {
			ref = true
		}
	}
	if !ref {
		return
	}
	for _, a := range c.Args {
		ref, target := "", ""
		switch {
		case a.Name != nil:
			ref = a.Name.Value
			if a.Value != nil {
				target, _ = Static(a.Value)
			}
		case a.Naked && a.Value != nil:
			// A quoted 'R=V' is one word to the parser, an assignment to
			// declare.
			v, ok := Static(a.Value)
			if !ok {
				b.hide(ShellState, b.span(a), nil, "`%s -n` is given a reference computed at run time", c.Variant.Value)
				continue
			}
			var isRef bool
			if ref, target, isRef = strings.Cut(v, "="); !isRef || strings.HasPrefix(v, "-") {
				continue
			}
		default:
			continue
		}
		name, sub, _ := strings.Cut(target, "[")
		if target == "" || p.Var(name) != p.PlainVar || strings.ContainsAny(sub, "$`") {
			// A subscript with an expansion is evaluated, its command
			// substitutions run, each time the reference is used.
			b.hide(ShellState, b.span(a), nil, "`%s -n %s` makes %s another name for a variable that programs may read as a command, options or code to load, or for an element whose subscript runs commands", c.Variant.Value, ref, ref)
		}
	}
}
