package classify

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentexec/agentexec/gate/facts"
)

// word scans a word for what runs or evaluates inside it: command and
// process substitutions (an Unknown floor, with their statements walked),
// arithmetic, prompt expansion and literal backquotes.
func (w *walker) word(wd *syntax.Word) {
	if wd == nil || !w.enter() {
		return
	}
	defer w.leave()
	w.parts(wd.Parts)
}

func (w *walker) parts(parts []syntax.WordPart) {
	for _, p := range parts {
		w.part(p)
	}
}

func (w *walker) part(p syntax.WordPart) {
	switch p := p.(type) {
	case *syntax.Lit:
		if strings.Contains(p.Value, "`") {
			w.add(p, Unknown, "backquote-literal", "a backquote survives parsing as a literal; bash may read it as a command substitution (parser differential)")
		}
		// The parser keeps `<(…)` in a ${x%%<(…)} operand as a literal;
		// the peer refuses it (Qwen shellAstParser `echo ${HOME%%<(rm -rf
		// build)}`) and bash versions differ on expanding it.
		if w.inParam > 0 && (strings.Contains(p.Value, "<(") || strings.Contains(p.Value, ">(")) {
			w.add(p, Unknown, "param-process-substitution", "a `<(…)`/`>(…)` inside a ${…} operand may run a command")
		}
	case *syntax.SglQuoted:
		if w.inParam > 0 && w.inDquote > 0 && strings.ContainsAny(p.Value, "$`") {
			// "${x:-'$(cmd)'}": inside double quotes bash reads these
			// quotes as plain characters and expands what is between.
			w.add(p, Unknown, "literal-quotes", "single quotes inside a double-quoted ${…} are plain characters to bash, so the expansion between them runs")
		}
	case *syntax.DblQuoted:
		if p.Dollar {
			w.add(p, Unknown, "locale-quote", "`$\"…\"` is translated through the locale catalogue at run time")
		}
		w.inDquote++
		w.parts(p.Parts)
		w.inDquote--
	case *syntax.ParamExp:
		w.param(p)
	case *syntax.CmdSubst:
		w.cmdSubst(p)
	case *syntax.ProcSubst:
		// Like a pipe: what runs inside is classified where it stands, so
		// `sort -rn <(wc -l f)` is read-only when everything inside is (a
		// shell or source given the file it names is the outer command's
		// own rule).
		w.stmts(p.Stmts)
	case *syntax.ArithmExp:
		w.arith(p.X)
	case *syntax.ExtGlob:
	default:
		w.add(p, Unknown, "unsupported-syntax", unsupported("word part"))
	}
}

func (w *walker) cmdSubst(p *syntax.CmdSubst) {
	w.add(p, Unknown, "command-substitution", "a command substitution runs a command whose output becomes part of another")
	// Its statements are quoted anew.
	savedQ, savedP := w.inDquote, w.inParam
	w.inDquote, w.inParam = 0, 0
	defer func() { w.inDquote, w.inParam = savedQ, savedP }()
	if p.Backquotes {
		if w.backquotes > 0 {
			w.add(p, Unknown, "nested-backquotes", "nested backquotes are parsed differently by bash and by the classifier")
		}
		w.backquotes++
		defer func() { w.backquotes-- }()
	}
	w.stmts(p.Stmts)
}

// safeParamOps are the ${x@op} transformations that only reformat a value;
// @P expands the value as a prompt, which runs command substitutions.
const safeParamOps = "QEAaKkUuL"

func (w *walker) param(p *syntax.ParamExp) {
	switch {
	case p.Excl && p.Names == 0:
		w.add(p, Unknown, "indirect-expansion", "`${!x}` reads the variable named by x's value, which may evaluate a subscript running a command")
	case p.NestedParam != nil || p.Flags != nil || len(p.Modifiers) > 0:
		w.add(p, Unknown, "unsupported-syntax", "zsh parameter expansion is not modelled")
	}
	if p.Index != nil && !isArrayAll(p.Index) {
		w.arith(p.Index)
	}
	if p.Slice != nil {
		w.arithOpt(p.Slice.Offset)
		w.arithOpt(p.Slice.Length)
	}
	w.inParam++
	defer func() { w.inParam-- }()
	if p.Repl != nil {
		w.word(p.Repl.Orig)
		w.word(p.Repl.With)
	}
	if p.Exp != nil {
		w.expansion(p)
	}
}

func (w *walker) expansion(p *syntax.ParamExp) {
	if p.Exp.Op == syntax.OtherParamOps {
		op, _ := facts.Static(p.Exp.Word)
		if len(op) != 1 || !strings.Contains(safeParamOps, op) {
			w.add(p, Unknown, "prompt-expansion", "`${x@P}` expands a value as a prompt, which runs the command substitutions in it")
		}
		return
	}
	w.word(p.Exp.Word)
}

// isArrayAll reports whether a subscript is the `@` or `*` of ${a[@]}.
func isArrayAll(x syntax.ArithmExpr) bool {
	wd, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	v := wd.Lit()
	return v == "@" || v == "*"
}

func (w *walker) arithOpt(x syntax.ArithmExpr) {
	if x != nil {
		w.arith(x)
	}
}

// arith scans an arithmetic expression. Only integer literals are proved
// inert: bash evaluates a variable's value as an expression in turn, so
// `x` holding `a[$(cmd)]` runs cmd, and so does a quoted operand.
func (w *walker) arith(x syntax.ArithmExpr) {
	if x == nil || !w.enter() {
		return
	}
	defer w.leave()
	switch x := x.(type) {
	case *syntax.Word:
		if !w.inertOperand(x) {
			w.add(x, Unknown, "arithmetic-operand", fmt.Sprintf("the arithmetic operand `%s` is evaluated as an expression, and a value such as a[$(cmd)] runs a command", clip(w.src[spanStart(x, len(w.src)):spanEnd(x, len(w.src))])))
			w.word(x)
		}
	case *syntax.BinaryArithm:
		w.arith(x.X)
		w.arith(x.Y)
	case *syntax.UnaryArithm:
		w.arith(x.X)
	case *syntax.ParenArithm:
		w.arith(x.X)
	default:
		w.add(x, Unknown, "unsupported-syntax", unsupported("arithmetic"))
	}
}

func spanStart(n syntax.Node, max int) int { s, _ := spanOf(n, max); return s }
func spanEnd(n syntax.Node, max int) int   { _, e := spanOf(n, max); return e }

// inertOperand reports whether bash's arithmetic reads wd as a number
// without evaluating anything: an integer literal, a special parameter
// that only holds one ($? $# $$ $!), or a variable (x, $x, ${x}) whose
// every value at that point the text fixes to an integer (for i in 1 2,
// n=3). Only in the text the facts were built from, and outside
// backquotes, whose contents are parsed again at other offsets.
func (w *walker) inertOperand(wd *syntax.Word) bool {
	if isIntLiteral(wd) {
		return true
	}
	if len(wd.Parts) != 1 {
		return false
	}
	var name string
	switch part := wd.Parts[0].(type) {
	case *syntax.Lit:
		name = part.Value
	case *syntax.ParamExp:
		if !simpleParam(part) {
			return false
		}
		name = part.Param.Value
		switch name {
		case "?", "#", "$", "!":
			return true
		}
	default:
		return false
	}
	t := w.opt.Tree
	return isName(name) && w.backquotes == 0 && t != nil && t.Src == w.src &&
		t.IntegerAt(name, int(wd.Pos().Offset()))
}

// simpleParam reports a bare $x or ${x}: no operator, index, length or
// indirection.
func simpleParam(pe *syntax.ParamExp) bool {
	return pe.Param != nil && !pe.Excl && !pe.Length && !pe.Width && !pe.IsSet && pe.Index == nil &&
		pe.Slice == nil && pe.Repl == nil && pe.Exp == nil && pe.Names == 0
}

// isIntLiteral reports whether wd is an unquoted decimal, octal, hex or
// base#digits integer literal.
func isIntLiteral(wd *syntax.Word) bool {
	if len(wd.Parts) != 1 {
		return false
	}
	lit, ok := wd.Parts[0].(*syntax.Lit)
	if !ok || lit.Value == "" {
		return false
	}
	for _, c := range lit.Value {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '#' || c == '_' || c == '@') {
			return false
		}
	}
	c := lit.Value[0]
	return c >= '0' && c <= '9'
}

// unsupported says which kind of construct the classifier has no rule
// for (a new node type from a newer parser lands here and is unknown), in
// words: the evidence's text shows the construct itself.
func unsupported(kind string) string {
	return "the classifier has no rule for this kind of " + kind + ", so it cannot tell what it runs"
}
