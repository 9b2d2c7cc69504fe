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
	b.defaultValue(pe)
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
	if !ok || wi.Name == nil {
		return
	}
	b.loopValues(c, wi)
	if p.Var(wi.Name.Value) == p.PlainVar {
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
			b.unsureAll()
			b.hide(ShellState, c.Span, c, "`%s` sets a variable whose name is computed at run time, which may be one programs read as a command", c.Base)
			continue
		}
		name, _, _ := strings.Cut(w.Value, "[")
		b.unsureVar(name)
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
	// Every later assignment to the reference is one to a variable the
	// gate may not name.
	b.unsureAll()
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

// A builtin with the Compound fact (declare, typeset, local, readonly)
// reads an argument NAME=(…) as a compound assignment however its
// parenthesis is quoted, and expands the elements: `declare -a 'a=($(cmd))'`
// runs cmd though the text shows one single-quoted word. Given -a or -A,
// or naming an array, a value computed at run time (declare -a a=$x,
// declare -a "$x") is re-read the same way, so what it runs is unseen.

// declArg is one argument of such a builtin: its text when static (an
// assignment's spelled NAME=VALUE), whether it is an option word, and the
// name it assigns.
type declArg struct {
	text   string
	static bool
	option bool
	name   string
	span   Span
}

// declCompound reads a declaration clause's arguments (the parser's form).
func (b *builder) declCompound(c *syntax.DeclClause) {
	variant := "declare"
	if c.Variant != nil {
		variant = c.Variant.Value
	}
	if prog := p.Lookup(variant); prog == nil || !prog.Compound {
		return
	}
	args := make([]declArg, 0, len(c.Args))
	for _, a := range c.Args {
		if a.Name != nil && a.Value == nil && a.Array == nil {
			// A bare NAME: it takes the attributes given (declare -i n).
			args = append(args, declArg{text: a.Name.Value, static: true, name: a.Name.Value, span: b.span(a)})
			continue
		}
		if a.Value == nil || a.Array != nil {
			continue // NAME=(…) unquoted: the parser read it already
		}
		v, ok := Static(a.Value)
		d := declArg{static: ok, span: b.span(a)}
		switch {
		case a.Name != nil:
			op := "="
			if a.Append {
				op = "+="
			}
			d.name, d.text = a.Name.Value, a.Name.Value+op+v
		case ok && strings.HasPrefix(v, "-"):
			d.option, d.text = true, v
		default:
			d.text = v
			d.name, _, _ = strings.Cut(strings.TrimSuffix(v, "+"), "=")
		}
		args = append(args, d)
	}
	b.compoundArgs(nil, variant, args)
}

// compoundCall reads the same arguments of a call (builtin declare …).
func (b *builder) compoundCall(c *Call, args []Word) {
	out := make([]declArg, 0, len(args))
	for _, a := range args {
		d := declArg{text: a.Value, static: a.Static && !a.Hole, span: c.Span}
		d.option = d.static && strings.HasPrefix(a.Value, "-")
		d.name, _, _ = strings.Cut(a.Value, "=")
		d.name = strings.TrimSuffix(d.name, "+")
		out = append(out, d)
	}
	b.compoundArgs(c, c.Base, out)
}

// compoundArgs reads each NAME=(…) argument as the assignment bash reads,
// and hides a computed one that may be re-read. With the integer
// attribute (-i), every value given is arithmetic (its a[$(cmd)]
// subscripts run) and so is every later one given to the names.
func (b *builder) compoundArgs(c *Call, variant string, args []declArg) {
	arrayOpt, intOpt := false, false
	for _, a := range args {
		if a.option && strings.ContainsAny(a.text, "aA") || !a.static && !strings.Contains(a.text, "=") {
			arrayOpt = true // -a, -A, or a word that may be one
		}
		if a.option && strings.Contains(a.text, "i") {
			intOpt = true
		}
	}
	if intOpt {
		for _, a := range args {
			if a.option || !validName(a.name) {
				continue
			}
			if b.t.integers == nil {
				b.t.integers = map[string]bool{}
			}
			b.t.integers[a.name] = true
			if _, val, ok := strings.Cut(a.text, "="); ok && a.static {
				b.t.ArithWords = append(b.t.ArithWords, Word{Value: val, Static: true, Raw: a.text})
			}
		}
	}
	for _, a := range args {
		switch {
		case a.option:
			if strings.ContainsAny(a.text, "aA") {
				continue
			}
		case a.static && compoundText(a.text):
			b.reparse(a.span, c, a.text, "`"+variant+"` reads the compound assignment")
		case !a.static && (arrayOpt || b.t.arrays[a.name]):
			b.hide(ShellState, a.span, c, "`%s` re-reads a value computed at run time as a compound assignment, whose elements may run commands", variant)
		}
	}
	if arrayOpt {
		for _, a := range args {
			if a.static && !a.option && validName(a.name) {
				b.t.arrayName(a.name)
			}
		}
	}
}

// compoundText reports NAME=(…) or NAME+=(…).
func compoundText(v string) bool {
	name, val, ok := strings.Cut(v, "=")
	name = strings.TrimSuffix(name, "+")
	return ok && validName(name) && strings.HasPrefix(val, "(") && strings.HasSuffix(val, ")")
}

// validName reports a shell variable name.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// A declaration builtin (Program.Declares) reads each operand, after
// expansion and quote removal, as NAME=VALUE. The parser sees an
// assignment only where the word is spelled as one, so a quoted or partly
// quoted operand (export 'BASH_ENV=f', export "BASH_ENV"=f) and the
// operands of the call form (builtin export BASH_ENV=f) are read here as
// the assignments they are; an operand computed at run time may assign
// any variable, a code-carrying one included.

// declWord is one operand word of a declaration builtin: its value when
// static.
type declWord struct {
	text   string
	static bool
	span   Span
	node   *syntax.Word
}

// declCall reads the operands of a declaration builtin's call form.
func (b *builder) declCall(c *Call, args []Word) {
	ws := make([]declWord, len(args))
	for i, a := range args {
		ws[i] = declWord{text: a.Value, static: a.Static && !a.Hole, span: c.Span, node: a.Node}
	}
	b.declWords(c, c.Base, ws, nil)
}

// declWords reads each NAME=VALUE operand as an assignment to NAME, and
// hides an operand computed at run time unless the options make the
// builtin only print or act on functions (declare -p, -f, -F). named are
// the names the parser read as assignments: with a case or integer
// attribute (-l, -u, -c, -i), what they are later given is converted, so
// the text's values are not theirs.
func (b *builder) declWords(c *Call, variant string, ws []declWord, named []string) {
	inert, convert := false, false
	for _, w := range ws {
		if !w.static || w.text == "--" || !strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "+") {
			break
		}
		inert = inert || strings.ContainsAny(w.text, "fF") || variant != "export" && strings.Contains(w.text, "p")
		convert = convert || strings.ContainsAny(w.text, "lucin")
	}
	if convert && !inert {
		for _, name := range named {
			b.unsureVar(name)
		}
	}
	ended := false
	for _, w := range ws {
		switch {
		case !w.static && !inert:
			if name, ok := assignedName(w.node); ok {
				// "NAME=$x": the name is spelled, the value computed.
				b.commandVar(nil, Assign{Name: name, Value: Word{Node: w.node}, Raw: w.text})
				b.unsureVar(name)
			} else {
				b.unsureAll()
				b.hide(ShellState, w.span, c, "`%s` is given a word computed at run time, which it reads as an assignment to a variable the text does not name (it may be one programs read as a command)", variant)
			}
		case !w.static:
		case !ended && w.text == "--":
			ended = true
		case !ended && (strings.HasPrefix(w.text, "-") || strings.HasPrefix(w.text, "+")):
		default:
			name, val, ok := strings.Cut(w.text, "=")
			name, _, _ = strings.Cut(strings.TrimSuffix(name, "+"), "[")
			switch {
			case inert:
			case ok && validName(name):
				b.commandVar(nil, Assign{Name: name, Value: Word{Value: val, Static: true, Raw: w.text}, Raw: w.text})
				b.setVar(name, val)
				if convert || strings.Contains(w.text, "+=") || strings.Contains(w.text, "[") {
					b.unsureVar(name)
				} else {
					b.definiteVar(name, w.span.Start)
				}
			case !ok && validName(name) && variant != "export" && variant != "readonly":
				// declare X, local X: a new variable, empty.
				b.setVar(name, "")
				if convert {
					b.unsureVar(name)
				}
			}
		}
	}
}

// assignedName returns the NAME of a computed NAME=VALUE word whose name
// and = are spelled out before the first expansion ("PATH=$HOME/bin").
func assignedName(w *syntax.Word) (string, bool) {
	var pre strings.Builder
	for _, part := range litParts(w) {
		pre.WriteString(part)
		if name, _, ok := strings.Cut(pre.String(), "="); ok {
			name, _, _ = strings.Cut(strings.TrimSuffix(name, "+"), "[")
			return name, validName(name)
		}
	}
	return "", false
}

// litParts lists the literal texts a word starts with, up to its first
// part that needs expansion (a backslash or tilde ends it too).
func litParts(w *syntax.Word) []string {
	if w == nil {
		return nil
	}
	var out []string
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(x.Value, "\\~") {
				return out
			}
			out = append(out, x.Value)
		case *syntax.SglQuoted:
			if x.Dollar {
				return out
			}
			out = append(out, x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				return out
			}
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.Contains(l.Value, "\\") {
					return out
				}
				out = append(out, l.Value)
			}
		default:
			return out
		}
	}
	return out
}

// loopValues gives a for or select variable each item's value; an item
// the gate cannot resolve, or the positional parameters, are values the
// text does not show. A loop may run no turn, so none is definite.
func (b *builder) loopValues(loop *syntax.ForClause, wi *syntax.WordIter) {
	name := wi.Name.Value
	if !wi.InPos.IsValid() {
		b.unsureVar(name)
		return
	}
	for _, w := range wi.Items {
		fields, ok := Resolve(w, b.knownVars())
		if !ok || len(paramNames(w)) > 0 {
			b.unsureVar(name)
			return
		}
		for _, f := range fields {
			b.setVar(name, f)
		}
	}
	if loop.Select {
		// An answer that is no item's number leaves it empty.
		b.setVar(name, "")
	}
	if c := loop; c != nil && c.DoPos.IsValid() && c.DonePos.IsValid() {
		// Each turn's body runs with one of the items.
		b.definiteIn(name, scope{int(c.DoPos.Offset()), min(b.scopeEnd, int(c.DonePos.Offset()))})
	}
}

// defaultValue reads ${X:=w} and ${X=w} as X=w where X was unset (or
// empty); ${!X:=w} assigns the variable X names.
func (b *builder) defaultValue(pe *syntax.ParamExp) {
	if pe.Excl {
		b.unsureAll()
		return
	}
	name := pe.Param.Value
	if pe.Exp.Word == nil {
		b.setVar(name, "")
		return
	}
	fields, ok := Resolve(pe.Exp.Word, b.knownVars())
	if !ok || len(fields) != 1 || len(paramNames(pe.Exp.Word)) > 0 {
		b.unsureVar(name)
		return
	}
	b.setVar(name, fields[0])
}

// unsetCall reads unset NAME…: each name is then empty (unset -f names
// functions); a computed operand may unset any variable.
func (b *builder) unsetCall(args []Word) {
	for _, a := range args {
		switch {
		case !a.Static || a.Hole:
			b.unsureAll()
		case a.Value == "-f":
			return
		case strings.HasPrefix(a.Value, "-"):
		default:
			name, _, _ := strings.Cut(a.Value, "[")
			b.setVar(name, "")
		}
	}
}

// shoptCall reads shopt -s NAME…: the options that change where later
// words lead — cdable_vars (cd NAME goes to $NAME), nocaseglob (patterns
// match in any case). An option computed at run time may be either.
func (b *builder) shoptCall(args []Word) {
	set := false
	for _, a := range args {
		switch {
		case !a.Static || a.Hole:
			b.t.CdSearch, b.t.NoCaseGlob = true, true
		case strings.HasPrefix(a.Value, "-"):
			set = set || strings.Contains(a.Value, "s")
		case !set:
		case a.Value == "cdable_vars":
			b.t.CdSearch = true
		case a.Value == "nocaseglob":
			b.t.NoCaseGlob = true
		}
	}
}

// keywordCall reports a call that turns on bash's keyword option: set
// -k, set -o keyword, shopt -o -s keyword, or set given a word computed at
// run time (it may be -k). The builder asks it of every call it reads, in
// the text and in every payload it parses.
func keywordCall(ce *syntax.CallExpr) bool {
	args := ce.Args
	if len(args) == 0 {
		return false
	}
	if v, ok := Static(args[0]); ok && (v == "builtin" || v == "command") {
		args = args[1:]
	}
	if len(args) == 0 {
		return false
	}
	name, _ := Static(args[0])
	if name != "set" && name != "shopt" {
		return false
	}
	for _, w := range args[1:] {
		v, ok := Static(w)
		switch {
		case !ok, v == "keyword":
			return true
		case name == "set" && strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "k"):
			return true
		}
	}
	return false
}

// keywordArgs splits a command's words into its argv and the NAME=VALUE
// words set -k makes assignments (a name spelled unquoted before =).
func keywordArgs(ws []*syntax.Word) (argv, assigns []*syntax.Word) {
	argv = append(argv, ws[0])
	for _, w := range ws[1:] {
		if l, ok := w.Parts[0].(*syntax.Lit); ok {
			if name, _, found := strings.Cut(l.Value, "="); found && validName(name) {
				assigns = append(assigns, w)
				continue
			}
		}
		argv = append(argv, w)
	}
	return argv, assigns
}

// keywordAssigns reads the NAME=VALUE words of keywordArgs.
func (b *builder) keywordAssigns(ws []*syntax.Word) []Assign {
	out := make([]Assign, 0, len(ws))
	for _, w := range ws {
		l := w.Parts[0].(*syntax.Lit)
		name, _, _ := strings.Cut(l.Value, "=")
		a := Assign{Name: name, Raw: b.source(w)}
		if v, ok := Static(w); ok {
			_, val, _ := strings.Cut(v, "=")
			a.Value = Word{Value: val, Static: true, Raw: a.Raw}
		} else {
			a.Value = Word{Raw: a.Raw, Node: w}
		}
		out = append(out, a)
	}
	return out
}
