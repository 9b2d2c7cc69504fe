package classify

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentexec/agentexec/gate/facts"
	"github.com/agentexec/agentexec/gate/programs"
	"github.com/agentexec/agentexec/internal/lazy"
)

// maxWalkDepth bounds the walker's recursion. The pre-scan keeps real input
// far below it; it exists so that no input the pre-scan misjudges can grow
// the stack without bound. Reaching it is Unknown, never a crash.
const maxWalkDepth = 8192

// maxEvidenceText caps the source text copied into one Evidence.
const maxEvidenceText = 160

// walker classifies one parsed text. It recurses per node kind like
// syntax.Walk does, but counts its depth, and walks the left-nested chains
// that `a | b | c` and `a && b && c` produce with a loop.
type walker struct {
	src     string
	opt     Options
	sole    *syntax.Stmt // the text's only statement, if it has exactly one
	vouched map[string]bool

	safety   Safety
	ev       []Evidence
	commands []string // names of the simple commands, for the reason

	depth      int
	funcBody   int // how many function definitions enclose the walk
	tooDeep    bool
	backquotes int  // how many backquoted substitutions enclose the walk
	inParam    int  // how many ${…} operand words enclose the walk
	inDquote   int  // how many double-quoted contexts ("…", a here-document's body) enclose the walk
	sawCd      bool // a cd/pushd/popd ran earlier in the text

	// Room for the usual few commands and evidence, so that a short text
	// allocates neither slice.
	commandsBuf [4]string
	evBuf       [4]Evidence
}

func newWalker(src string, opt Options, f *syntax.File) *walker {
	w := &walker{src: src, opt: opt, safety: ReadOnly}
	w.commands, w.ev = w.commandsBuf[:0], w.evBuf[:0]
	if n := ownCalls(opt.Tree); n > len(w.evBuf) {
		// About one finding per call the walk meets: room for them at once
		// rather than doubling (most of a long chain's evidence bytes).
		w.ev = make([]Evidence, 0, n+len(w.evBuf))
	}
	if len(f.Stmts) == 1 {
		w.sole = f.Stmts[0]
	}
	if len(opt.ReadOnlyCommands) > 0 {
		w.vouched = make(map[string]bool, len(opt.ReadOnlyCommands))
		for _, n := range opt.ReadOnlyCommands {
			w.vouched[n] = true
		}
	}
	return w
}

// ownCalls counts the calls of the text itself, the ones the walk meets
// (not those of a script another call runs, bash -c '…'), when the
// facts are at hand.
func ownCalls(t *facts.Tree) int {
	if t == nil {
		return 0
	}
	n := 0
	for _, c := range t.Calls {
		if c.Via == nil {
			n++
		}
	}
	return n
}

// add records evidence for node and merges its class into the result.
func (w *walker) add(node syntax.Node, s Safety, rule, detail string) {
	if w.funcBody > 0 && s == Write {
		s = Unknown // a definition runs nothing until it is called
	}
	e := Evidence{Safety: s, Rule: rule, Detail: detail}
	if node != nil {
		e.Offset, e.End = spanOf(node, len(w.src))
		e.Text = clip(w.src[e.Offset:e.End])
	}
	w.ev = append(w.ev, e)
	w.safety = Merge(w.safety, s)
}

// spanOf returns node's byte span clamped to the text; positions past what
// mvdan's Pos can encode come back invalid and are clamped to the end.
func spanOf(node syntax.Node, n int) (int, int) {
	off, end := int(node.Pos().Offset()), int(node.End().Offset())
	if off > n || off < 0 {
		off = n
	}
	if end > n || end < off {
		end = n
	}
	return off, end
}

func clip(s string) string {
	if len(s) <= maxEvidenceText {
		return s
	}
	cut := maxEvidenceText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// enter counts one level of recursion; false means the bound was hit and
// the caller must not descend.
func (w *walker) enter() bool {
	w.depth++
	if w.depth <= maxWalkDepth {
		return true
	}
	if !w.tooDeep {
		w.tooDeep = true
		w.add(nil, Unknown, "too-deep", fmt.Sprintf("the syntax tree is nested more than %d levels deep", maxWalkDepth))
	}
	return false
}

func (w *walker) leave() { w.depth-- }

// result turns the walk into a Result with a one-sentence reason.
func (w *walker) result() Result {
	byOffset := func(a, b Evidence) int { return cmp.Compare(a.Offset, b.Offset) }
	if !slices.IsSortedFunc(w.ev, byOffset) { // usually found in order
		slices.SortStableFunc(w.ev, byOffset)
	}
	r := Result{Safety: w.safety, Evidence: w.ev}
	if len(r.Evidence) == 0 {
		r.Evidence = nil // as before the walker kept room for it
	}
	if w.safety != ReadOnly {
		for _, e := range w.ev {
			if e.Safety == w.safety {
				r.Reason = e.Detail + " (rule: " + e.Rule + ")"
				return r
			}
		}
	}
	r.Reason = readOnlyReason(w.commands)
	return r
}

func readOnlyReason(names []string) string {
	if len(names) == 0 {
		return "nothing in the text runs a command or writes a file (rule: no-command)"
	}
	const head, tail = "every command is proven read-only: ", " (rule: read-only-command)"
	if len(names) == 1 {
		return head + "`" + names[0] + "`" + tail
	}
	var b strings.Builder
	b.WriteString(head)
	shown := 0
	for i, n := range names {
		if slices.Contains(names[:i], n) {
			continue
		}
		if shown == 6 {
			b.WriteString(", …")
			break
		}
		if shown > 0 {
			b.WriteString(", ")
		}
		b.WriteString("`" + n + "`")
		shown++
	}
	b.WriteString(tail)
	return b.String()
}

func (w *walker) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		w.stmt(s)
	}
}

// stmt classifies one statement: its redirects, then its command.
func (w *walker) stmt(s *syntax.Stmt) {
	if !w.enter() {
		return
	}
	defer w.leave()
	if s.Coprocess || s.Disown {
		w.add(s, Unknown, "coprocess", "a coprocess runs a command in the background with pipes the text does not show")
	}
	for _, r := range s.Redirs {
		w.redirect(r)
	}
	if s.Cmd != nil {
		w.command(s, s.Cmd)
	}
}

// command dispatches on the command's node kind.
func (w *walker) command(s *syntax.Stmt, cmd syntax.Command) {
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		w.call(s, c)
	case *syntax.BinaryCmd:
		w.binary(c)
	case *syntax.Subshell:
		w.stmts(c.Stmts)
	case *syntax.Block:
		w.stmts(c.Stmts)
	case *syntax.IfClause:
		w.ifClause(c)
	case *syntax.WhileClause:
		w.add(c, Unknown, "control-flow", "a loop runs its body a number of times the text does not fix")
		w.stmts(c.Cond)
		w.stmts(c.Do)
	case *syntax.ForClause:
		w.forClause(c)
	case *syntax.CaseClause:
		w.caseClause(c)
	case *syntax.FuncDecl:
		w.add(c, Unknown, "function-definition", "a function definition runs nothing itself but can shadow any later command name")
		if c.Body != nil {
			// The body runs whenever the name is called: code it runs
			// out of a value is the text's too (its writes count as
			// unknown: the definition alone runs nothing).
			w.funcBody++
			w.stmt(c.Body)
			w.funcBody--
		}
	case *syntax.ArithmCmd:
		w.add(c, Unknown, "arithmetic-command", "`(( … ))` assigns shell variables and evaluates subscripts")
		w.arith(c.X)
	case *syntax.TestClause:
		w.testClause(c)
	case *syntax.DeclClause:
		w.declClause(c)
	case *syntax.LetClause:
		w.add(c, Unknown, "let", "`let` assigns shell variables and evaluates subscripts")
		for _, x := range c.Exprs {
			w.arith(x)
		}
	case *syntax.TimeClause:
		w.add(c, Unknown, "wrapper", "`time` runs another command; wrappers are not unwrapped")
		if c.Stmt != nil {
			w.stmt(c.Stmt)
		}
	case *syntax.CoprocClause:
		w.add(c, Unknown, "coprocess", "a coprocess runs a command in the background with pipes the text does not show")
		if c.Stmt != nil {
			w.stmt(c.Stmt)
		}
	default:
		w.add(cmd, Unknown, "unsupported-syntax", unsupported("command"))
	}
}

// binary walks a tree of && || | |& with an explicit stack, in source
// order, because mvdan nests `a|a|…` one level per operator.
func (w *walker) binary(c *syntax.BinaryCmd) {
	todo := []*syntax.Stmt{c.Y, c.X}
	for len(todo) > 0 {
		s := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && len(s.Redirs) == 0 && !s.Coprocess && !s.Disown {
			todo = append(todo, b.Y, b.X)
			continue
		}
		w.stmt(s)
	}
}

func (w *walker) ifClause(c *syntax.IfClause) {
	w.add(c, Unknown, "control-flow", "`if` runs a branch chosen at run time")
	for ic := c; ic != nil; ic = ic.Else {
		w.stmts(ic.Cond)
		w.stmts(ic.Then)
	}
}

func (w *walker) forClause(c *syntax.ForClause) {
	w.add(c, Unknown, "control-flow", "a loop runs its body a number of times the text does not fix")
	switch l := c.Loop.(type) {
	case *syntax.WordIter:
		for _, wd := range l.Items {
			w.word(wd)
		}
	case *syntax.CStyleLoop:
		for _, x := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
			if x != nil {
				w.arith(x)
			}
		}
	}
	w.stmts(c.Do)
}

func (w *walker) caseClause(c *syntax.CaseClause) {
	w.add(c, Unknown, "control-flow", "`case` runs a branch chosen at run time")
	w.word(c.Word)
	for _, it := range c.Items {
		for _, p := range it.Patterns {
			w.word(p)
		}
		w.stmts(it.Stmts)
	}
}

func (w *walker) declClause(c *syntax.DeclClause) {
	name := "declare"
	if c.Variant != nil {
		name = c.Variant.Value
	}
	w.add(c, Unknown, "state-builtin", fmt.Sprintf("`%s` sets variables or attributes that later commands inherit", name))
	for _, a := range c.Args {
		if integerAttr(a) {
			// Every later value assigned to the name is evaluated as an
			// arithmetic expression, and `b[$(cmd)]` in it runs cmd.
			w.add(a, Unknown, "arithmetic-operand", fmt.Sprintf("`%s -i` makes each value assigned to its names an arithmetic expression, and a value such as a[$(cmd)] runs a command", name))
		}
		w.assign(a)
	}
}

// integerAttr reports an option word of declare, typeset or local that
// gives the integer attribute (-i, in any cluster) or may (computed).
func integerAttr(a *syntax.Assign) bool {
	if !a.Naked || a.Name != nil || a.Value == nil {
		return false
	}
	v, ok := facts.Static(a.Value)
	if !ok {
		return true
	}
	return len(v) > 1 && v[0] == '-' && strings.Contains(v[1:], "i")
}

// call classifies a simple command: its assignments, its words, and then
// the rule for its name.
func (w *walker) call(s *syntax.Stmt, c *syntax.CallExpr) {
	for _, a := range c.Assigns {
		w.assign(a)
	}
	for _, wd := range c.Args {
		w.word(wd)
	}
	if len(c.Args) == 0 {
		w.assignOnly(s, c)
		return
	}
	if len(c.Assigns) > 0 {
		w.add(c, Unknown, "env-prefix", fmt.Sprintf("the assignment `%s=` changes how the command behaves (PATH, LD_PRELOAD, PAGER, GIT_* …)", assignName(c.Assigns[0])))
	}
	name, ok := facts.Static(c.Args[0])
	if !ok {
		w.add(c.Args[0], Unknown, "dynamic-command-name", "the command name is computed at run time")
		return
	}
	if base, ok := systemProgram(name); ok {
		name = base // /usr/bin/cat reads as cat (sysdir.go)
	}
	if v, bad := checkName(name); bad {
		w.add(c.Args[0], v.s, v.rule, v.why)
		return
	}
	w.commands = append(w.commands, name)
	a := newArgv(name, len(c.Args)-1)
	for _, wd := range c.Args[1:] {
		val, ok := facts.Static(wd)
		if !ok && procSubstOnly(wd) {
			// bash hands the command a pipe's path, never an option.
			val, ok = procSubstPath, true
		}
		dyn := !ok || facts.HasGlob(wd)
		a.vals = append(a.vals, val)
		a.dyn = append(a.dyn, dyn)
		a.pre = append(a.pre, facts.LiteralPrefix(wd, dyn))
		a.multi = append(a.multi, dyn && mayMultiField(wd))
	}
	p := programs.Lookup(a.name)
	v := w.dispatchProg(a, p)
	if v.s == ReadOnly && (p == nil || !p.OnlyPrints()) {
		if dev := deviceOperand(a.vals); dev != "" {
			v = finding{Unknown, "device-file", deviceWhy(dev)}
		}
	}
	w.add(c, v.s, v.rule, v.why)
}

// harmlessDevices are the device files whose opening and reading change
// nothing and reach nothing (the rest are drivers': opening /dev/watchdog
// arms a timer that reboots the machine, reading /dev/input/* takes
// another's keystrokes).
var harmlessDevices = lazy.NewSet("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/stdin", "/dev/stdout", "/dev/stderr")

// deviceOperand returns the first word of vals (or the value after an
// option's '=') that names a device file other than the harmless ones,
// or "". A program that only lists or stats it is refused too: the model
// does not know which programs open their operands.
func deviceOperand(vals []string) string {
	for _, v := range vals {
		for _, s := range []string{v, v[strings.IndexByte(v, '=')+1:]} {
			if isDevicePath(s) {
				return s
			}
		}
	}
	return ""
}

func isDevicePath(s string) bool {
	if !strings.HasPrefix(s, "/") {
		return false
	}
	c := path.Clean(s)
	rest, ok := strings.CutPrefix(c, "/dev/")
	if !ok || rest == "" || harmlessDevices.Has(c) {
		return false
	}
	// Descriptors and shared memory are files, not drivers.
	return !strings.HasPrefix(rest, "fd/") && !strings.HasPrefix(rest, "shm/")
}

func deviceWhy(dev string) string {
	return "`" + dev + "` is a device file: opening or reading one runs its driver, which may change the device (a watchdog arms on open)"
}

// assignOnly classifies a statement that only assigns variables.
func (w *walker) assignOnly(s *syntax.Stmt, c *syntax.CallExpr) {
	if s == w.sole {
		w.add(c, ReadOnly, "assignment", "a standalone assignment changes only this shell's variables")
		return
	}
	w.add(c, Unknown, "shared-assignment", fmt.Sprintf("the assignment `%s=` persists for the other commands in the text, which may read it (PATH, LD_PRELOAD, GIT_* …)", assignName(c.Assigns[0])))
}

func assignName(a *syntax.Assign) string {
	if a.Name == nil {
		return "?"
	}
	return a.Name.Value
}

// checkName rejects command names that must not be matched to a known
// command: a path (`/bin/rm`, `./cat`), a glob, or an empty word.
func checkName(name string) (finding, bool) {
	switch {
	case name == "":
		return finding{Unknown, "dynamic-command-name", "the command name is empty"}, true
	case strings.Contains(name, "/"):
		return finding{Unknown, "path-command", fmt.Sprintf("`%s` is a path outside the system directories (or one not plainly spelled); commands match only by their literal name there", name)}, true
	case hasGlobByte(name) && name != "[" && name != "[[":
		return finding{Unknown, "glob-command-name", fmt.Sprintf("the command name `%s` is a glob pattern", name)}, true
	}
	return finding{}, false
}

// assign scans an assignment's subscript and value.
func (w *walker) assign(a *syntax.Assign) {
	if a.Index != nil {
		w.arith(a.Index)
	}
	if a.Value != nil {
		w.word(a.Value)
	}
	if a.Array != nil {
		for _, e := range a.Array.Elems {
			if e.Index != nil {
				w.arith(e.Index)
			}
			if e.Value != nil {
				w.word(e.Value)
			}
		}
	}
}

// redirect classifies one redirection. It owns the substitutions in its
// target, which the command's own scan never sees.
func (w *walker) redirect(r *syntax.Redirect) {
	if r.N != nil && !digitsOnly(r.N.Value) {
		w.add(r, Unknown, "fd-variable", fmt.Sprintf("`%s` allocates a descriptor and assigns it to a variable", r.N.Value))
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
		w.outputTarget(r)
	case syntax.RdrIn:
		w.inputTarget(r)
	case syntax.DplOut, syntax.DplIn:
		w.dupTarget(r)
	case syntax.Hdoc, syntax.DashHdoc:
		w.heredoc(r)
	case syntax.WordHdoc:
		w.word(r.Word)
	default:
		w.add(r, Unknown, "redirect", fmt.Sprintf("the redirect `%s` is not modelled", r.Op))
	}
}

// inertTargets are files a write to which changes nothing.
var inertTargets = lazy.NewSet("/dev/null", "/dev/stdout", "/dev/stderr", procSubstPath)

// procSubstPath stands for the path bash gives a command for a process
// substitution: a pipe to or from commands classified where they stand.
const procSubstPath = "/dev/fd/63"

// procSubstOnly reports a word that is one process substitution.
func procSubstOnly(wd *syntax.Word) bool {
	if len(wd.Parts) != 1 {
		return false
	}
	_, ok := wd.Parts[0].(*syntax.ProcSubst)
	return ok
}

func (w *walker) outputTarget(r *syntax.Redirect) {
	t, ok := facts.Static(r.Word)
	switch {
	case !ok && tildePath(r.Word):
		w.add(r, Write, "redirect-write", fmt.Sprintf("`%s` writes a file under a home directory", r.Op))
	case !ok:
		w.word(r.Word)
		w.add(r, Unknown, "dynamic-redirect", fmt.Sprintf("the target of `%s` is computed at run time", r.Op))
	case inertTargets.Has(t):
	case isNetworkPath(t):
		w.add(r, Write, "network-redirect", fmt.Sprintf("`%s %s` opens a network connection", r.Op, t))
	default:
		w.add(r, Write, "redirect-write", fmt.Sprintf("`%s %s` writes a file", r.Op, t))
	}
}

func (w *walker) inputTarget(r *syntax.Redirect) {
	t, ok := facts.Static(r.Word)
	switch {
	case !ok:
		w.word(r.Word)
		w.add(r, Unknown, "dynamic-redirect", "the input file of `<` is computed at run time and may be a network path")
	case isNetworkPath(t):
		w.add(r, Write, "network-redirect", fmt.Sprintf("`< %s` opens a network connection", t))
	case isDevicePath(t):
		w.add(r, Unknown, "device-file", deviceWhy(t))
	}
}

// dupTarget handles `>&N`, `<&N` and `>&-`; `>& file` is `&> file`.
func (w *walker) dupTarget(r *syntax.Redirect) {
	t, ok := facts.Static(r.Word)
	switch {
	case !ok:
		w.word(r.Word)
		w.add(r, Unknown, "dynamic-redirect", fmt.Sprintf("the target of `%s` is computed at run time", r.Op))
	case t == "-" || digitsOnly(strings.TrimSuffix(t, "-")):
	case r.Op == syntax.DplOut:
		w.outputTarget(&syntax.Redirect{OpPos: r.OpPos, Op: syntax.RdrAll, N: r.N, Word: r.Word})
	default:
		w.add(r, Unknown, "redirect", fmt.Sprintf("`<& %s` is not a descriptor", t))
	}
}

// heredoc scans a here-document body when its delimiter is unquoted, the
// only case in which bash expands it.
func (w *walker) heredoc(r *syntax.Redirect) {
	quoted := false
	for _, p := range r.Word.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quoted = true
		case *syntax.Lit:
			if strings.Contains(p.Value, `\`) {
				quoted = true
			}
		default:
			w.word(r.Word)
			w.add(r, Unknown, "heredoc-delimiter", "the here-document delimiter contains an expansion")
			return
		}
	}
	if !quoted && r.Hdoc != nil {
		w.inDquote++
		w.word(r.Hdoc)
		w.inDquote--
	}
}

// tildePath reports a word such as ~/.bashrc: static but for its leading
// tilde, so it names a file under a home directory, never a device.
func tildePath(wd *syntax.Word) bool {
	if len(wd.Parts) == 0 {
		return false
	}
	lit, ok := wd.Parts[0].(*syntax.Lit)
	if !ok || !strings.HasPrefix(lit.Value, "~") || !strings.Contains(lit.Value, "/") {
		return false
	}
	rest := &syntax.Word{Parts: append([]syntax.WordPart{&syntax.Lit{Value: "x" + lit.Value[1:]}}, wd.Parts[1:]...)}
	_, static := facts.Static(rest)
	return static
}

func isNetworkPath(p string) bool {
	return strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/")
}

func digitsOnly(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// testClause classifies `[[ … ]]`: it only tests, except where bash
// evaluates an operand as arithmetic or as a variable name with a subscript.
func (w *walker) testClause(c *syntax.TestClause) {
	w.commands = append(w.commands, "[[")
	before := len(w.ev)
	w.testExpr(c.X)
	if len(w.ev) == before {
		w.add(c, ReadOnly, "test", "`[[ … ]]` only tests files and strings")
	}
}

func (w *walker) testExpr(x syntax.TestExpr) {
	if x == nil || !w.enter() {
		return
	}
	defer w.leave()
	switch x := x.(type) {
	case *syntax.Word:
		w.word(x)
	case *syntax.ParenTest:
		w.testExpr(x.X)
	case *syntax.UnaryTest:
		w.unaryTest(x)
	case *syntax.BinaryTest:
		w.binaryTest(x)
	default:
		w.add(x, Unknown, "unsupported-syntax", unsupported("test expression"))
	}
}

func (w *walker) unaryTest(x *syntax.UnaryTest) {
	if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
		if wd, ok := x.X.(*syntax.Word); !ok || !isName(staticOr(wd)) {
			w.add(x, Unknown, "arithmetic-test", "`-v` evaluates the subscript of its operand, which may run a command")
		}
	}
	w.testExpr(x.X)
}

func (w *walker) binaryTest(x *syntax.BinaryTest) {
	switch x.Op {
	case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
		for _, side := range []syntax.TestExpr{x.X, x.Y} {
			if wd, ok := side.(*syntax.Word); !ok || !w.inertOperand(wd) {
				w.add(x, Unknown, "arithmetic-test", fmt.Sprintf("`%s` evaluates its operands as arithmetic, and a value such as a[$(cmd)] runs a command", x.Op))
				break
			}
		}
	}
	w.testExpr(x.X)
	w.testExpr(x.Y)
}

func staticOr(wd *syntax.Word) string {
	v, _ := facts.Static(wd)
	return v
}

// isName reports whether s is a shell variable name without a subscript.
func isName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// hasGlobByte reports a glob character (*, ?, [) in name: a byte loop,
// as ContainsAny on a short word calls IndexRune per byte.
func hasGlobByte(name string) bool {
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case '*', '?', '[':
			return true
		}
	}
	return false
}
