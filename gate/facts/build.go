package facts

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentexec/agentexec/gate/programs"
	"github.com/agentexec/agentexec/internal/lazy"
	"github.com/agentexec/agentexec/internal/shwalk"
)

// Bounds of one reading. Past them the rest is recorded as hidden, never
// dropped silently.
const (
	// MaxCalls bounds the calls recorded for one text.
	MaxCalls = 4096
	// MaxPayloadDepth bounds how deep payloads (-c scripts, eval, trap,
	// alias values) are parsed in turn.
	MaxPayloadDepth = 6
	// MaxPayloadBytes bounds the total size of payloads parsed.
	MaxPayloadBytes = 256 << 10
	// maxWalkDepth bounds the walk's recursion (the pre-scan keeps real
	// input far below it).
	maxWalkDepth = 4096
)

// Options are the inputs of a reading besides the text.
type Options struct {
	// POSIX parses sh text (LangPOSIX) instead of bash.
	POSIX bool
	// Sub reads the sub-language of a program whose table entry names a
	// scanner (sed scripts, awk programs, sqlite dot commands) for the
	// shell commands it runs: commands are shell texts to read in turn,
	// opaque (when not "") says why some command cannot be read. nil
	// means every such program is opaque when given a script.
	Sub func(scanner programs.Scanner, args []string) (commands []string, opaque string)
	// Env are the variables the request sets, which every command of the
	// text inherits: a program's EnvCommands are read from them as from
	// the text's own assignments (GREP='rm -rf /;' with zgrep).
	Env map[string]string
}

// ErrTooLong and ErrTooDeep say why a text was not parsed.
var (
	ErrTooLong = errors.New("the text is longer than the gate reads")
	ErrTooDeep = errors.New("the text is nested too deeply or has too many operators")
)

// Build parses text once and reads its facts.
func Build(text string, opt Options) *Tree {
	// The tree and its builder are allocated together: one allocation.
	tb := &struct {
		t Tree
		b builder
	}{t: Tree{Src: text}}
	t := &tb.t
	t.Calls = t.callsBuf[:0]
	f, err := Parse(text, opt.POSIX)
	if err != nil {
		t.Err = err
		return t
	}
	t.File, t.Parsed = f, true
	b := &tb.b
	*b = builder{t: t, opt: opt, src: text, scopeEnd: len(text) + 1}
	b.envFuncs()
	b.stmts(f.Stmts)
	if t.keywordLate {
		// A call turned on set -k after calls before it were read
		// without it; a loop may run them again under it: read the
		// whole text again with every NAME=VALUE word an assignment.
		*t = Tree{Src: text, File: f, Parsed: true, keyword: true}
		t.Calls = t.callsBuf[:0]
		*b = builder{t: t, opt: opt, src: text, scopeEnd: len(text) + 1}
		b.envFuncs()
		b.stmts(f.Stmts)
	}
	b.rebind()
	t.finishVars()
	b.finishPrompts()
	t.finishScripts()
	t.finish()
	return t
}

// Parse parses text as bash (or POSIX sh) within the pre-scan's bounds
// (size, nesting depth, operator count). A parser panic is an error.
func Parse(text string, posix bool) (f *syntax.File, err error) {
	if len(text) > MaxBytes {
		return nil, ErrTooLong
	}
	lim := Limits(0, 0)
	if len(text) > lim.Least() && Prescan(text, lim).Over(lim) {
		return nil, ErrTooDeep
	}
	pool := &bashParsers
	if posix {
		pool = &posixParsers
	}
	pp := pool.Get().(*pooledParser)
	defer func() {
		if r := recover(); r != nil {
			// A parser that panicked is dropped: its state may be poisoned.
			f, err = nil, fmt.Errorf("parser panic: %v", r)
			return
		}
		pp.r.Reset("")
		pool.Put(pp)
	}()
	pp.r.Reset(text)
	return pp.p.Parse(&pp.r, "")
}

// Parsers are pooled, each with the reader it reads from: building one
// allocates more than most parses.
var (
	bashParsers  = sync.Pool{New: func() any { return newParser(syntax.LangBash) }}
	posixParsers = sync.Pool{New: func() any { return newParser(syntax.LangPOSIX) }}
)

type pooledParser struct {
	p *syntax.Parser
	r strings.Reader
}

func newParser(lang syntax.LangVariant) *pooledParser {
	return &pooledParser{p: syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(false))}
}

// builder walks one text: the decided text, or a payload parsed from it.
type builder struct {
	t   *Tree
	opt Options
	src string // the text being walked
	// For a payload: the span in the decided text that carries it, the
	// call that runs it and how, and the payload depth.
	outer   *Span
	via     *Call
	how     string
	depth   int
	inSubst int
	walk    int // recursion depth of the walk
	// background: the statement being read runs in the background (its
	// assignments are a subshell's); scopeEnd: where an assignment
	// statement read now stops holding (values.go).
	background bool
	scopeEnd   int
	pipe       *[][]*Call
	visit      func(syntax.Node) bool // substs, once
	// quotesVisit is literalQuotesAt, once.
	quotesVisit func(syntax.Node) bool
	// guessing: the text is shell text a program may run (guessText), so
	// its calls are guesses.
	guessing bool
	// stdin is what a standing `exec < F` made the shell's standard
	// input: every call read after it that has none of its own reads it
	// (exec < <(curl …); bash runs the download). An exec in a subshell
	// is read as standing too, the stricter.
	stdin *Input
}

// span returns n's span in the decided text.
func (b *builder) span(n syntax.Node) Span {
	if b.outer != nil {
		return *b.outer
	}
	return nodeSpan(n, len(b.src))
}

// nodeSpan clamps n's byte span to a text of length max.
func nodeSpan(n syntax.Node, max int) Span {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || s > max {
		s = max
	}
	if e > max || e < s {
		e = max
	}
	return Span{s, e}
}

func (b *builder) source(n syntax.Node) string {
	sp := nodeSpan(n, len(b.src))
	return b.src[sp.Start:sp.End]
}

func (b *builder) hide(k HiddenKind, sp Span, c *Call, format string, args ...any) {
	b.t.Hidden = append(b.t.Hidden, Hidden{Kind: k, Span: sp, Why: sprintS(format, args), Call: c})
}

// sprintS is fmt.Sprintf(format, args...) for a format whose every verb
// is %s and args as many plain strings (every format hide is given):
// their text in turn, built without fmt's machinery. Anything else goes
// to fmt.Sprintf.
func sprintS(format string, args []any) string {
	n, verbs := len(format), 0
	for i := 0; ; {
		j := strings.IndexByte(format[i:], '%')
		if j < 0 {
			break
		}
		if i += j + 1; i == len(format) || format[i] != 's' {
			return fmt.Sprintf(format, args...)
		}
		verbs++
		i++
	}
	if verbs != len(args) {
		return fmt.Sprintf(format, args...)
	}
	for _, a := range args {
		s, ok := a.(string) // a named string type may print otherwise
		if !ok {
			return fmt.Sprintf(format, args...)
		}
		n += len(s)
	}
	var out strings.Builder
	out.Grow(n)
	for _, a := range args {
		j := strings.IndexByte(format, '%')
		out.WriteString(format[:j])
		out.WriteString(a.(string))
		format = format[j+2:]
	}
	out.WriteString(format)
	return out.String()
}

func (b *builder) enter() bool {
	b.walk++
	if b.walk > maxWalkDepth {
		if !b.t.Truncated {
			b.t.Truncated = true
			b.hide(Unreadable, Span{0, len(b.t.Src)}, nil, "the text is nested too deeply to read whole")
		}
		return false
	}
	return true
}

func (b *builder) leave() { b.walk-- }

func (b *builder) stmts(list []*syntax.Stmt) {
	if b.walk > 0 && len(list) > 0 {
		// A nested list (a subshell, a body, a branch): its assignments
		// hold to its end.
		saved := b.scopeEnd
		b.scopeEnd = min(saved, int(list[len(list)-1].End().Offset()))
		defer func() { b.scopeEnd = saved }()
	}
	for _, s := range list {
		b.stmt(s)
	}
}

// stmt reads one statement: its command, then its redirections' words.
func (b *builder) stmt(s *syntax.Stmt) {
	if s == nil || !b.enter() {
		return
	}
	defer b.leave()
	savedBg := b.background
	b.background = s.Background || s.Coprocess
	defer func() { b.background = savedBg }()
	first := len(b.t.Calls)
	if s.Cmd != nil {
		b.command(s, s.Cmd)
	}
	redirs := b.redirs(s.Redirs)
	carried := false
	for _, c := range b.t.Calls[first:] {
		if c.Stmt == s {
			c.Redirs = redirs
			c.WriteRedir = writesFile(redirs)
			b.stdinFromRedirs(c, redirs)
			if c.Stdin != nil && c.Base == "exec" && c.Via == nil && len(c.Argv) == 1 {
				b.stdin = c.Stdin // exec < F: the shell's own input from now on
			}
			b.inherit(c, b.stdin)
			b.recordWrites(c)
			carried = true
		}
	}
	if in := inputOf(redirs); !carried && in != nil {
		// { …; } < F, ( … ) < F, while …; done < F: every call inside
		// without an input of its own reads F.
		for _, c := range b.t.Calls[first:] {
			b.inherit(c, in)
		}
	}
	if !carried && len(redirs) > 0 {
		b.unreadStmtWrites(redirs)
		b.t.Redirs = append(b.t.Redirs, StmtRedirs{Redirs: redirs,
			Text: strings.TrimRight(strings.TrimSpace(b.source(s)), " \t;&"), Span: b.span(s)})
	}
}

// command dispatches on the command's node kind.
func (b *builder) command(s *syntax.Stmt, cmd syntax.Command) {
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		b.callExpr(s, c)
	case *syntax.BinaryCmd:
		b.binary(c)
	case *syntax.Subshell:
		b.stmts(c.Stmts)
	case *syntax.Block:
		b.stmts(c.Stmts)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			b.stmts(ic.Cond)
			b.stmts(ic.Then)
		}
	case *syntax.WhileClause:
		b.stmts(c.Cond)
		b.stmts(c.Do)
		if endlessCond(c.Cond, c.Until) && spawnsUnwaited(c.Do) {
			b.t.Floods = append(b.t.Floods, b.span(s))
		}
	case *syntax.ForClause:
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			for _, w := range l.Items {
				b.word(w)
			}
		case *syntax.CStyleLoop:
			// for ((i=$(cmd); …; …)): the header's substitutions run.
			b.walkSubsts(l)
		}
		b.loopVar(c)
		b.stmts(c.Do)
		if cl, ok := c.Loop.(*syntax.CStyleLoop); ok && cl.Cond == nil && spawnsUnwaited(c.Do) {
			b.t.Floods = append(b.t.Floods, b.span(s))
		}
	case *syntax.CaseClause:
		b.word(c.Word)
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				b.word(p)
			}
			b.stmts(it.Stmts)
		}
	case *syntax.FuncDecl:
		if c.Name != nil {
			if b.t.Funcs == nil {
				b.t.Funcs = map[string][]*syntax.FuncDecl{}
			}
			b.t.Funcs[c.Name.Value] = append(b.t.Funcs[c.Name.Value], c)
		}
		if c.Body != nil {
			b.stmt(c.Body)
		}
	case *syntax.DeclClause:
		b.declClause(s, c)
	case *syntax.TimeClause:
		b.stmt(c.Stmt)
	case *syntax.CoprocClause:
		// coproc NAME sets the array NAME and NAME_PID (COPROC by default).
		if c.Name != nil {
			if v, ok := Static(c.Name); ok {
				b.unsureVar(v)
				b.unsureVar(v + "_PID")
			} else {
				b.unsureAll()
			}
		}
		b.stmt(c.Stmt)
	case *syntax.TestClause:
		b.testExpr(c.X)
	case *syntax.LetClause:
		b.walkSubsts(c)
		for _, x := range c.Exprs {
			if w, ok := x.(*syntax.Word); ok {
				// let 'a[$(cmd)]': the quoted word is evaluated as
				// arithmetic, and its subscript's substitutions run.
				b.arithWord(b.wordOf(w))
			}
		}
	case *syntax.ArithmCmd:
		b.walkSubsts(c)
	default:
		b.walkSubsts(c)
	}
}

// binary reads && || | |& chains with an explicit stack, in source order,
// and records each pipeline's elements.
func (b *builder) binary(c *syntax.BinaryCmd) {
	if isPipe(c) {
		b.pipeline(c)
		return
	}
	todo := []*syntax.Stmt{c.Y, c.X}
	saved, leftmost := b.scopeEnd, true
	defer func() { b.scopeEnd = saved }()
	for len(todo) > 0 {
		s := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && !isPipe(bc) && len(s.Redirs) == 0 && !s.Coprocess && !s.Disown {
			todo = append(todo, bc.Y, bc.X)
			continue
		}
		if !leftmost {
			// Run or not by what came before: it holds for the rest of
			// the chain only.
			b.scopeEnd = min(saved, int(c.End().Offset()))
		}
		leftmost = false
		b.stmt(s)
	}
}

func isPipe(c *syntax.BinaryCmd) bool { return c.Op == syntax.Pipe || c.Op == syntax.PipeAll }

// pipeline reads a | b | c: each element's calls, and each element's
// first call fed by the last call of the element before.
func (b *builder) pipeline(c *syntax.BinaryCmd) {
	var elems []*syntax.Stmt
	var flat func(s *syntax.Stmt)
	flat = func(s *syntax.Stmt) {
		if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && isPipe(bc) && len(s.Redirs) == 0 {
			flat(bc.X)
			flat(bc.Y)
			return
		}
		elems = append(elems, s)
	}
	flat(c.X)
	flat(c.Y)
	var pipe [][]*Call
	var prev *Call
	saved := b.scopeEnd
	defer func() { b.scopeEnd = saved }()
	for _, e := range elems {
		first := len(b.t.Calls)
		b.scopeEnd = min(saved, int(e.End().Offset())) // a subshell each
		b.stmt(e)
		calls := append([]*Call(nil), b.t.Calls[first:]...)
		pipe = append(pipe, calls)
		if head := firstDirect(calls); head != nil && prev != nil && head.Stdin == nil {
			head.Stdin = &Input{Kind: FromPipe, From: prev}
			b.fedFromPipe(head)
		}
		prev = lastDirect(calls)
	}
	b.t.Pipes = append(b.t.Pipes, pipe)
}

// firstDirect is the first call the element's shell runs itself (not one
// nested in a substitution or started by another call).
func firstDirect(calls []*Call) *Call {
	for _, c := range calls {
		if c.Via == nil && !c.InSubst {
			return c
		}
	}
	return nil
}

func lastDirect(calls []*Call) *Call {
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Via == nil && !calls[i].InSubst {
			return calls[i]
		}
	}
	return nil
}

// callExpr records a simple command and reads what it runs.
func (b *builder) callExpr(s *syntax.Stmt, ce *syntax.CallExpr) {
	if !b.t.keyword && keywordCall(ce) {
		b.t.keyword, b.t.keywordLate = true, true
	}
	assigns := b.assigns(ce.Assigns, len(ce.Args) == 0)
	for _, w := range ce.Args {
		b.word(w)
	}
	if len(ce.Args) == 0 {
		return
	}
	args := ce.Args
	if b.t.keyword {
		// Under set -k every NAME=VALUE word is an assignment to the
		// command's environment, wherever it stands.
		var kw []*syntax.Word
		args, kw = keywordArgs(ce.Args)
		assigns = append(assigns, b.keywordAssigns(kw)...)
	}
	c := &Call{Argv: b.words(args), Assigns: assigns, Text: strings.TrimRight(strings.TrimSpace(b.source(s)), " \t;&"),
		Span: b.span(s), Via: b.via, How: b.how, Depth: b.depth, InSubst: b.inSubst > 0, Stmt: s, Node: ce, Guess: b.guessing}
	if !b.add(c) {
		return
	}
	for _, a := range assigns {
		b.commandVar(c, a)
	}
	b.runs(c)
	b.guessAssigns(c, assigns)
}

// add records c, unless the bound on calls is reached.
func (b *builder) add(c *Call) bool {
	if len(b.t.Calls) >= MaxCalls {
		if !b.t.Truncated {
			b.t.Truncated = true
			b.hide(Unreadable, c.Span, c, "the text runs more than %d commands; the rest is not read", MaxCalls)
		}
		return false
	}
	if c.Argv[0].Static && !c.Argv[0].Glob {
		c.Name = c.Argv[0].Value
		c.Base = path.Base(c.Name)
		if c.Name == "" {
			c.Base = ""
		}
	}
	b.t.Calls = append(b.t.Calls, c)
	return true
}

// words reads a command's words.
func (b *builder) words(ws []*syntax.Word) []Word {
	out := make([]Word, len(ws))
	for i, w := range ws {
		out[i] = b.wordOf(w)
	}
	return out
}

func (b *builder) wordOf(w *syntax.Word) Word {
	v, ok := Static(w)
	return Word{Value: v, Static: ok, Glob: HasGlob(w), Raw: b.source(w), Node: w}
}

// assigns reads VAR=value words and records static values.
func (b *builder) assigns(as []*syntax.Assign, alone bool) []Assign {
	var out []Assign
	for _, a := range as {
		if a.Name == nil {
			continue
		}
		b.walkSubsts(a)
		x := Assign{Name: a.Name.Value, Raw: b.source(a)}
		if a.Array != nil {
			b.t.arrayName(x.Name)
		}
		if a.Value != nil && b.t.integers[x.Name] {
			// n='a[$(cmd)]' for an integer n is evaluated as arithmetic.
			b.arithWord(b.wordOf(a.Value))
		}
		if a.Value != nil {
			x.Value = b.wordOf(a.Value)
			if fields, ok := Resolve(a.Value, b.knownVars()); ok && len(fields) == 1 {
				b.setVar(x.Name, fields[0])
			}
		} else if a.Array == nil && !a.Append {
			x.Value = Word{Static: true}
			b.setVar(x.Name, "")
		}
		b.trackAssign(a, alone)
		out = append(out, x)
		if alone {
			b.commandVar(nil, x)
		}
	}
	return out
}

// setVar records a static value of a variable.
func (b *builder) setVar(name, value string) {
	if b.t.Vars == nil {
		b.t.Vars = map[string][]string{}
	}
	b.t.Vars[name] = appendUniq(b.t.Vars[name], value)
}

// knownVars maps each variable to the first value the text gives it, for
// resolving later assignments (X=/; Y=$X).
func (b *builder) knownVars() map[string]string {
	if len(b.t.Vars) == 0 {
		return nil
	}
	m := make(map[string]string, len(b.t.Vars))
	for k, v := range b.t.Vars {
		m[k] = v[len(v)-1]
	}
	return m
}

func appendUniq(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

// declClause reads declare/export/local/readonly/typeset: their
// assignments, which may plant shell state.
func (b *builder) declClause(s *syntax.Stmt, c *syntax.DeclClause) {
	b.nameref(c)
	b.declCompound(c)
	var words []declWord
	var named []string
	for _, a := range c.Args {
		if a.Name == nil {
			b.walkSubsts(a)
			if a.Naked && a.Value != nil {
				v, ok := Static(a.Value)
				words = append(words, declWord{text: v, static: ok, span: b.span(a), node: a.Value})
			}
			continue
		}
		for _, x := range b.assigns([]*syntax.Assign{a}, false) {
			b.commandVar(nil, x)
		}
		named = append(named, a.Name.Value)
		if a.Value != nil && a.Array == nil && a.Index == nil && !a.Append {
			b.definiteVar(a.Name.Value, b.span(a).Start)
		}
	}
	variant := "declare"
	if c.Variant != nil {
		variant = c.Variant.Value
	}
	b.declWords(nil, variant, words, named)
}

// redirs reads a statement's redirections, their words' substitutions
// included.
func (b *builder) redirs(rs []*syntax.Redirect) []Redir {
	out := make([]Redir, 0, len(rs))
	for _, r := range rs {
		if r.Word != nil {
			b.word(r.Word)
		}
		if r.Hdoc != nil && !quotedDelim(r.Word) {
			b.word(r.Hdoc)
			b.joinedDollar(r.Hdoc.Parts)
			// A here-document's body is read as double-quoted text.
			for _, part := range r.Hdoc.Parts {
				if pe, ok := part.(*syntax.ParamExp); ok {
					b.quotesAsText(pe)
				}
			}
		}
		x := Redir{Op: r.Op, Node: r}
		if r.N != nil {
			x.N = r.N.Value
			if name, ok := strings.CutPrefix(x.N, "{"); ok {
				// {X}>F stores the descriptor's number in X.
				b.unsureVar(strings.TrimSuffix(name, "}"))
			}
		}
		if r.Word != nil {
			x.Target = b.wordOf(r.Word)
		}
		out = append(out, x)
	}
	return out
}

// quotedDelim reports a here-document delimiter with quotes or a
// backslash: bash then expands nothing in the body.
func quotedDelim(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.Contains(p.Value, `\`) {
				return true
			}
		}
	}
	return false
}

// harmlessTargets are redirection targets that write no file.
var harmlessTargets = lazy.NewSet("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty")

// writesFile reports an output redirection into a file.
func writesFile(rs []Redir) bool {
	for _, r := range rs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.ClbOut, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
			if !r.Target.Static || !harmlessTargets.Has(r.Target.Value) {
				return true
			}
		case syntax.DplOut:
			// `>&word` with a word that is not a descriptor number or '-'
			// opens the file word for writing (as &>word).
			if !r.Target.Static || !IsFdWord(r.Target.Value) {
				return true
			}
		}
	}
	return false
}

// IsFdWord reports whether v names a descriptor for `>&` (digits, or '-'
// to close, optionally after digits: `>&3-` moves a descriptor).
func IsFdWord(v string) bool {
	v = strings.TrimSuffix(v, "-")
	if v == "" {
		return true
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// word reads the substitutions inside a word: each one's statements run.
func (b *builder) word(w *syntax.Word) {
	if w == nil || plainWord(w) {
		return
	}
	b.walkSubsts(w)
}

// plainWord reports whether w is only literal text, which has nothing to
// walk (most words are).
func plainWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		default:
			return false
		}
	}
	return true
}

// walkSubsts walks n with substs, the visitor made once per builder (a
// method value allocates each time it is taken).
func (b *builder) walkSubsts(n syntax.Node) {
	if b.visit == nil {
		b.visit = b.substs
	}
	shwalk.Walk(n, b.visit)
	b.literalQuotes(n)
}

// substs is a syntax.Walk visitor that reads command and process
// substitutions (and stops there: their statements are read by stmts).
func (b *builder) substs(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.CmdSubst:
		if n.Backquotes {
			b.nestedBackquotes(n)
		}
		b.inSubst++
		b.stmts(n.Stmts)
		b.inSubst--
		return false
	case *syntax.ProcSubst:
		b.inSubst++
		b.stmts(n.Stmts)
		b.inSubst--
		return false
	case *syntax.ParamExp:
		b.defaultAssign(n)
		b.promptExp(n)
	case *syntax.BinaryArithm, *syntax.UnaryArithm:
		b.arithAssign(n)
	}
	return true
}

func (b *builder) testExpr(x syntax.TestExpr) {
	if x == nil {
		return
	}
	b.walkSubsts(x)
	// [[ W -eq N ]] evaluates both sides as arithmetic and [[ -v W ]] its
	// subscript: a quoted 'a[$(cmd)]' there runs cmd, as let's does.
	shwalk.Walk(x, func(n syntax.Node) bool {
		switch t := n.(type) {
		case *syntax.BinaryTest:
			switch t.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				for _, side := range []syntax.TestExpr{t.X, t.Y} {
					if w, ok := side.(*syntax.Word); ok {
						b.arithWord(b.wordOf(w))
					}
				}
			}
		case *syntax.UnaryTest:
			if w, ok := t.X.(*syntax.Word); ok && (t.Op == syntax.TsVarSet || t.Op == syntax.TsRefVar) {
				b.arithWord(b.wordOf(w))
			}
		}
		return true
	})
}

// payload parses text run by c (a -c script, eval's words, a trap) and
// reads its calls as started by c.
func (b *builder) payload(c *Call, text, how string) {
	if b.depth+1 > MaxPayloadDepth || b.t.payloadBytes()+len(text) > MaxPayloadBytes {
		b.t.Truncated = true
		b.hide(Unreadable, c.Span, c, "%s is nested too deeply (or too large) to read", how)
		return
	}
	f, err := Parse(text, b.opt.POSIX)
	if err != nil {
		b.hide(Unreadable, c.Span, c, "%s is text the gate cannot parse (%v)", how, err)
		return
	}
	b.t.nestedBytes += len(text)
	sp := c.Span
	nb := &builder{t: b.t, opt: b.opt, src: text, outer: &sp, via: c, how: how, depth: b.depth + 1, walk: b.walk}
	nb.stmts(f.Stmts)
}

// envFuncs reads the functions the request exports (BASH_FUNC_NAME%%=()
// { BODY; }), which bash defines before the text runs: a call of NAME
// runs BODY (`ls` with BASH_FUNC_ls%%='() { rm -rf /; }' ran rm), so
// BODY's commands are the text's; and the prompts it sets, as the text's
// own assignments are read.
func (b *builder) envFuncs() {
	names := make([]string, 0, len(b.opt.Env))
	for k := range b.opt.Env {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		v := b.opt.Env[k]
		if programs.Var(k) == programs.PromptVar {
			// A prompt the request sets (PS4 with xtrace) is expanded as
			// one the text assigns is.
			b.commandVar(nil, Assign{Name: k, Value: Word{Value: v, Static: true, Raw: v}, Raw: k + "=" + v})
			continue
		}
		if !strings.HasPrefix(k, "BASH_FUNC_") || !strings.HasSuffix(k, "%%") {
			continue
		}
		if !strings.HasPrefix(v, "() {") {
			continue // bash imports only a value that starts so
		}
		name := strings.TrimSuffix(strings.TrimPrefix(k, "BASH_FUNC_"), "%%")
		b.reparse(Span{}, nil, name+" "+v, fmt.Sprintf("the function %s the request's environment exports", name))
	}
}

// reparse reads text that bash itself parses again where sp stands (a
// quoted compound assignment declare reads): its substitutions run as the
// decided text's do, started by c when a call carries the text, else as
// the surrounding text's calls are.
func (b *builder) reparse(sp Span, c *Call, text, how string) {
	if b.depth+1 > MaxPayloadDepth || b.t.payloadBytes()+len(text) > MaxPayloadBytes {
		b.t.Truncated = true
		b.hide(Unreadable, sp, c, "%s %q, which is nested too deeply (or too large) to read", how, clip(text))
		return
	}
	f, err := Parse(text, b.opt.POSIX)
	if err != nil {
		b.hide(Unreadable, sp, c, "%s %q, which the gate cannot parse (%v)", how, clip(text), err)
		return
	}
	b.t.nestedBytes += len(text)
	nb := &builder{t: b.t, opt: b.opt, src: text, outer: &sp, via: b.via, how: b.how, depth: b.depth + 1, walk: b.walk, inSubst: b.inSubst, guessing: b.guessing}
	if c != nil {
		nb.via, nb.how = c, how
	}
	nb.stmts(f.Stmts)
}

// argvCall records an argv c runs directly (a launcher's operand, find
// -exec's command) and reads what it runs in turn.
func (b *builder) argvCall(c *Call, argv []Word, how string, tail bool) *Call {
	if len(argv) == 0 {
		return nil
	}
	if b.depth+1 > MaxPayloadDepth*4 {
		b.t.Truncated = true
		b.hide(Unreadable, c.Span, c, "%s is nested too deeply to read", how)
		return nil
	}
	n := &Call{Argv: argv, Text: joinRaw(argv), Span: c.Span, Via: c, How: how, Depth: c.Depth + 1, Tail: tail, InSubst: c.InSubst}
	if !b.add(n) {
		return nil
	}
	saved := b.depth
	b.depth = n.Depth
	b.runs(n)
	b.depth = saved
	return n
}

// joinRaw spells argv with static words as their values and the others as
// written.
func joinRaw(argv []Word) string {
	parts := make([]string, len(argv))
	for i, w := range argv {
		parts[i] = w.Raw
		if w.Static && !w.Hole {
			parts[i] = w.Value
		}
	}
	return strings.Join(parts, " ")
}

func (t *Tree) payloadBytes() int { return t.nestedBytes }

// cdCall records the target of cd, pushd and popd for the blacklist.
func (b *builder) cdCall(c *Call) {
	args := c.Argv[1:]
	for len(args) > 0 && args[0].Static && strings.HasPrefix(args[0].Value, "-") && args[0].Value != "-" {
		args = args[1:]
	}
	if len(args) == 0 {
		b.cd(Home, true)
		return
	}
	a := args[0]
	switch {
	case a.Static && a.Value == "-" && c.Base == "cd":
		// cd - goes back to $OLDPWD: a directory the text was in, once it
		// has changed directory itself and not set OLDPWD.
		b.t.vs.cdDash = true
		b.t.vs.oldpwd = b.t.vs.oldpwd || len(b.t.Cds) == 0 && !b.t.CdUnknown
		return
	case a.Node != nil && len(paramNames(a.Node)) > 0:
		// Resolved once every value is known (finishVars), in place.
		b.t.vs.cdWords = append(b.t.vs.cdWords, cdUse{w: a.Node, at: c.Span.Start, child: c.ExpandedElsewhere(), idx: len(b.t.Cds)})
		b.t.Cds = append(b.t.Cds, "")
		return
	}
	vals, ok := Resolve(a.Node, b.knownVars())
	if !ok || len(vals) != 1 || a.Node == nil {
		b.cd("", false)
		return
	}
	if d := vals[0]; !strings.HasPrefix(d, "/") && d != "." && d != ".." && !strings.HasPrefix(d, "./") && !strings.HasPrefix(d, "../") {
		// CDPATH and cdable_vars may send a name elsewhere.
		b.t.RelativeCd = true
	}
	b.cd(vals[0], true)
}

// endlessCond reports a loop condition that never ends the loop: `true`
// or `:` for while, `false` for until (with no other statement).
func endlessCond(cond []*syntax.Stmt, until bool) bool {
	if len(cond) != 1 || cond[0].Negated || cond[0].Background {
		return false
	}
	ce, ok := cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) != 1 {
		return false
	}
	v, ok := Static(ce.Args[0])
	if !ok {
		return false
	}
	if until {
		return v == "false"
	}
	return v == "true" || v == ":"
}

// spawnsUnwaited reports a loop body that starts a command in the
// background (directly, or in a subshell or group) and neither waits for
// it nor leaves the loop (wait, break, exit, return).
func spawnsUnwaited(body []*syntax.Stmt) bool {
	spawns, leaves := false, false
	for _, s := range body {
		shwalk.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.Stmt:
				if n.Background || n.Coprocess {
					spawns = true
				}
			case *syntax.CallExpr:
				if len(n.Args) > 0 {
					switch v, _ := Static(n.Args[0]); v {
					case "wait", "break", "exit", "return":
						leaves = true
					}
				}
			}
			return true
		})
	}
	return spawns && !leaves
}

// trackAssign records what an assignment word does to what its variable
// is sure to hold (see values.go); shell: it sets the shell's own
// variable (a statement of assignments alone).
func (b *builder) trackAssign(a *syntax.Assign, shell bool) {
	name, at := a.Name.Value, b.span(a).Start
	if a.Array != nil || a.Index != nil {
		b.unsureVar(name)
		return
	}
	if a.Value == nil {
		if shell && !a.Append {
			b.definiteVar(name, at)
		}
		return
	}
	fields, ok := Resolve(a.Value, b.knownVars())
	if !ok || len(fields) != 1 {
		b.unsureVar(name)
		return
	}
	deps := paramNames(a.Value)
	if a.Append {
		// X+=v appends to every value X may hold; it is no definite value
		// of its own.
		for _, v := range append([]string(nil), b.t.Vars[name]...) {
			b.setVar(name, v+fields[0])
		}
		deps = append(deps, name)
	}
	if len(deps) > 0 {
		b.t.vs.derived = append(b.t.vs.derived, derivedVar{name: name, deps: deps, at: at})
	}
	if shell && !a.Append {
		b.definiteVar(name, at)
	}
}

// arithWord records a word bash evaluates as arithmetic.
func (b *builder) arithWord(w Word) {
	b.t.ArithWords = append(b.t.ArithWords, w)
	b.arithText(w)
}

// literalQuotes finds single-quoted text bash reads as plain characters:
// in the word of a ${…} inside double quotes ("${x:-'$(cmd)'}"), and in
// arithmetic ($(( '$(cmd)' )), ${a['$(cmd)']}), where the parser sees a
// quoted string, bash expands what is in it and cmd runs.
func (b *builder) literalQuotes(n syntax.Node) {
	if b.quotesVisit == nil {
		b.quotesVisit = b.literalQuotesAt
	}
	shwalk.Walk(n, b.quotesVisit)
}

// literalQuotesAt is literalQuotes' visitor (made once per builder: a
// method value allocates each time it is taken).
func (b *builder) literalQuotesAt(x syntax.Node) bool {
	{
		switch x := x.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false // their statements are read on their own
		case *syntax.DblQuoted:
			for _, part := range x.Parts {
				if pe, ok := part.(*syntax.ParamExp); ok {
					b.quotesAsText(pe)
				}
			}
			b.joinedDollar(x.Parts)
		case *syntax.Word:
			b.joinedDollar(x.Parts)
		case *syntax.ArithmExp:
			b.quotesAsText(x)
		case *syntax.ParamExp:
			if x.Index != nil {
				b.quotesAsText(x.Index)
			}
			if x.Slice != nil {
				b.quotesAsText(x.Slice.Offset)
				b.quotesAsText(x.Slice.Length)
			}
		}
		return true
	}
}

// quotesAsText reads each single-quoted string under n that holds an
// expansion as the double-quoted text bash makes of it.
func (b *builder) quotesAsText(n syntax.Node) {
	if n == nil {
		return
	}
	shwalk.Walk(n, func(x syntax.Node) bool {
		switch x := x.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		case *syntax.SglQuoted:
			if strings.ContainsAny(x.Value, "$`") {
				b.reparse(b.span(x), nil, "_=\""+x.Value+"\"", "bash reads the quotes of `'"+clip(x.Value)+"'` as plain characters there, and")
			}
		}
		return true
	})
}

// nestedBackquotes reads a backquoted substitution the parser left part
// of as literal text: a backquote escaped for the next level, three
// levels deep, which bash runs as a substitution of its own. Its text is
// unescaped one level, as bash does inside backquotes (a backslash
// before a backslash, a backquote or a dollar sign is dropped), and read
// again as the script bash runs; what cannot be read is hidden.
func (b *builder) nestedBackquotes(cs *syntax.CmdSubst) {
	start, end := int(cs.Left.Offset())+1, int(cs.Right.Offset())
	if start > end || end > len(b.src) || strings.IndexByte(b.src[start:end], '`') < 0 {
		return // a literal's text is the source's: without a backquote there, none holds one
	}
	nested := false
	shwalk.Walk(cs, func(x syntax.Node) bool {
		if l, ok := x.(*syntax.Lit); ok && strings.Contains(l.Value, "`") {
			nested = true
		}
		return !nested
	})
	if !nested {
		return
	}
	text := strings.NewReplacer("\\\\", "\\", "\\`", "`", "\\$", "$").Replace(b.src[start:end])
	how := "a backquote nested in backquotes, which bash runs as a substitution,"
	if _, err := Parse(text, b.opt.POSIX); err != nil {
		b.hide(Unreadable, b.span(cs), nil, "%s holds text the gate cannot parse (%v)", how, err)
		return
	}
	b.reparse(b.span(cs), nil, text, how)
}

// joinedDollar reads a $ the parser left as a literal before a
// backslash-newline: bash removes the continuation first, so "$\<NL>(cmd)"
// (in double quotes or a here-document) is $(cmd), and cmd runs. The
// parser gives the $ and what follows as two literals.
func (b *builder) joinedDollar(parts []syntax.WordPart) {
	for i := 0; i+1 < len(parts); i++ {
		l, ok := parts[i].(*syntax.Lit)
		if _, ok2 := parts[i+1].(*syntax.Lit); !ok || !ok2 || !strings.HasSuffix(l.Value, "$") {
			continue
		}
		if at := int(l.Pos().Offset()) + len(l.Value) - 1; at < 0 || !strings.HasPrefix(b.src[min(at, len(b.src)):], "$\\\n") {
			continue // two literals for another reason (a line of a here-document)
		}
		var rest strings.Builder
		for _, part := range parts[i+1:] {
			next, ok := part.(*syntax.Lit)
			if !ok {
				break
			}
			rest.WriteString(next.Value)
		}
		text := "_=\"$" + strings.TrimSuffix(rest.String(), "\n") + "\""
		how := "a `$` joined to the next line by a backslash-newline, which bash reads as an expansion,"
		if _, err := Parse(text, b.opt.POSIX); err != nil {
			b.hide(Unreadable, b.span(l), nil, "%s holds text the gate cannot parse (%v)", how, err)
			continue
		}
		b.reparse(b.span(l), nil, text, how)
	}
}
