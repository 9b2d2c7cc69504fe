package classify

import (
	"strings"
	"unicode/utf8"

	"github.com/agentexec/agentexec/internal/lazy"
)

// The awk scanner is a single-pass lexer over the program text with a small
// amount of state: parenthesis nesting, whether a print statement is open,
// and whether the last token lets a "/" start a regex. It never backtracks
// and never recurses, so its cost is linear in the program length.
//
// Choices, where awk itself leaves room:
//   - system() runs a shell command: Write, the strongest class, since the
//     command is arbitrary (awk would be a shell otherwise).
//   - print/printf "> target" or ">> target" writes a file: Write, except a
//     literal "/dev/stdout", "/dev/stderr" or "/dev/null" target that ends
//     the statement.
//   - print/printf "| cmd" pipes into a shell command and "|&" starts a
//     coprocess: Write, like system().
//   - "cmd | getline" runs a command to read from it: Unknown, as the issue
//     asks for reading from a command.
//   - getline with no redirect, or "getline [var] < "literal"" reads input:
//     read-only, unless the literal is a gawk network special file
//     (/inet…). A computed getline source is Unknown.
//   - close() and fflush() only act on streams the program opened itself,
//     whose opening is already classified: read-only.
//   - Anything the lexer cannot place with certainty is Unknown: "@"
//     (gawk indirect calls, @include, @load, @namespace), "::" names, a "/"
//     whose meaning depends on the grammar (after ++, --, $, getline, in),
//     a "/" inside a bracket expression of a regex literal (awks differ),
//     stray backslashes, unbalanced parentheses, unterminated strings.

// awkWriteOptions are gawk long options that write a file (awkprof.out,
// awkvars.out or the named one); any unambiguous prefix selects them.
var awkWriteOptions = []string{"pretty-print", "profile", "dump-variables"}

// classifyAwk classifies an awk invocation from its static, quote-removed
// arguments (the words after "awk", "gawk", "mawk" or "nawk"). The reason
// names the deciding rule.
//
// Only -F, -v and -- are modelled. awk does not permute options: the first
// operand is the program and the rest are files or var=value assignments.
//
// Qwen Code's awk rules (qwenAwk) are the reference contract: whenever they
// do not prove the command read-only, their class wins, so the gate is never
// more permissive than the peer and matches its write/unknown split exactly.
// The scan below only decides when the peer says read-only, and may then
// still be stricter.
func classifyAwk(args []string) (Safety, string) {
	if s, why := qwenAwk(args); s != ReadOnly {
		return s, why
	}
	return classifyAwkScan(args)
}

// classifyAwkScan is this package's own lexer-based classification.
func classifyAwkScan(args []string) (Safety, string) {
	var v verdict
	i, progFile := awkOptions(args, &v)
	if v.safety == Write {
		return v.result("")
	}
	if progFile {
		return v.result("")
	}
	if i >= len(args) {
		v.add(Unknown, "awk without a program")
		return v.result("")
	}
	for _, f := range args[i+1:] {
		if strings.HasPrefix(f, "/inet") {
			v.add(Unknown, "awk operand names a gawk network special file")
		}
	}
	s, why := scanAwkProgram(args[i])
	v.add(s, why)
	return v.result("awk program only reads input and prints")
}

// awkOptions parses the options and returns the index of the program word
// and whether the program comes from a file (-f, -E).
func awkOptions(args []string, v *verdict) (int, bool) {
	progFile := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return i + 1, progFile
		case a == "-" || !strings.HasPrefix(a, "-"):
			return i, progFile
		case strings.HasPrefix(a, "--"):
			awkLong(a[2:], v)
		default:
			var pf bool
			i, pf = awkShort(args, i, v)
			progFile = progFile || pf
		}
	}
	return len(args), progFile
}

// awkLong handles a --option word: the file-writing ones are Write, every
// other long option is Unknown.
func awkLong(opt string, v *verdict) {
	name, _, _ := strings.Cut(opt, "=")
	for _, w := range awkWriteOptions {
		if name != "" && strings.HasPrefix(w, name) {
			v.add(Write, "awk --"+w+" writes a file")
			return
		}
	}
	v.add(Unknown, "unrecognised awk option --"+name)
}

// awkShort handles one cluster of short options and returns the index of
// the last word it used and whether it names a program file.
func awkShort(args []string, i int, v *verdict) (int, bool) {
	a := args[i]
	for j := 1; j < len(a); j++ {
		switch c := a[j]; c {
		case 'F', 'v':
			_, k, ok := optValue(args, i, a[j+1:])
			if !ok {
				v.add(Unknown, "awk -"+string(c)+" without a value")
			}
			return k, false
		case 'f', 'E':
			v.add(Unknown, "awk -"+string(c)+" reads the program from a file")
			_, k, _ := optValue(args, i, a[j+1:])
			return k, true
		case 'e', 'i', 'l':
			v.add(Unknown, "awk -"+string(c)+" loads program text or an extension")
			_, k, _ := optValue(args, i, a[j+1:])
			return k, false
		case 'W':
			val, k, _ := optValue(args, i, a[j+1:])
			awkLong(val, v)
			return k, false
		case 'o', 'p', 'd':
			v.add(Write, "awk -"+string(c)+" writes a file")
			return i, false
		default:
			v.add(Unknown, "unrecognised awk option -"+string(c))
		}
	}
	return i, false
}

// Token kinds of the awk lexer.
const (
	akEOF = iota
	akNewline
	akName
	akNumber
	akString
	akRegex
	akPunct
)

type awkToken struct {
	kind int
	text string // the name, punctuation or the string's raw contents
}

// awkKeywords are reserved words; after most of them a "/" starts a regex.
var awkKeywords = lazy.NewSet(
	"BEGIN", "END", "BEGINFILE", "ENDFILE",
	"function", "func", "if", "else", "while",
	"for", "do", "break", "continue", "next",
	"nextfile", "exit", "return", "delete",
	"getline", "print", "printf", "in",
	"switch", "case", "default",
)

// awkScanner holds the lexer position and the little grammar state needed
// to find writes.
type awkScanner struct {
	s    string
	i    int
	v    verdict
	stop bool

	back    *awkToken // one token of push-back
	prev    awkToken  // last token, newlines included, for regex-vs-division
	sig     awkToken  // last token other than a newline
	parens  []bool    // open "(": true when it is an if/while/for/switch condition
	depth   int       // open ( and [
	ctrl    bool      // the next "(" opens a control condition
	ctrlEnd bool      // the last ")" closed a control condition
	print   int       // depth of the open print statement, or -1
	getline int       // 1 right after getline, 2 after its variable; 0 otherwise
	glDepth int       // depth at which the getline was seen
	runs    string    // how the program runs shell commands, "" when it does not
	files   []string  // the files print > and printf > name as strings
	dynOut  bool      // an output target that is not a string
	failed  bool      // the scanner stopped before the end
}

// scanAwkProgram classifies an awk program text.
func scanAwkProgram(s string) (Safety, string) {
	p := awkScan(s)
	return p.v.result("awk program only reads input and prints")
}

// awkRuns says how an awk command line runs shell commands ("" when it
// does not, as far as the scanner can tell): the facts tree's reading of
// awk. A program the scanner cannot read whole, one from a file (-f, -E,
// gawk's --exec, mawk's -W exec), an include or an extension (-i, -l),
// or an option this reading does not know runs what the gate cannot see;
// gawk's -e/--source texts are the program, read like an operand's.
func awkRuns(args []string) string {
	texts, i, why := awkProgramArgs(args)
	if why != "" {
		return why
	}
	if len(texts) == 0 {
		if i >= len(args) {
			return ""
		}
		texts = []string{args[i]}
	}
	for _, t := range texts {
		p := awkScan(t)
		if p.runs != "" {
			return p.runs
		}
		if p.failed {
			return "has a program the gate cannot read whole"
		}
	}
	return ""
}

// awkLongRun are gawk's long options and what each does for awkRuns: "v"
// takes a value, "t" a program text, "f" a program file, include or
// extension; "" is a flag (some take an optional =value).
var awkLongRun = &lazy.Value[map[string]string]{Build: func() map[string]string {
	return map[string]string{
		"assign": "v", "field-separator": "v", "source": "t", "file": "f", "exec": "f", "include": "f", "load": "f",
		"characters-as-bytes": "", "traditional": "", "copyright": "", "debug": "", "dump-variables": "",
		"gen-pot": "", "help": "", "lint": "", "bignum": "", "use-lc-numeric": "", "non-decimal-data": "",
		"no-optimize": "", "optimize": "", "pretty-print": "", "profile": "", "posix": "", "re-interval": "",
		"sandbox": "", "version": "", "csv": "",
	}
}}

// awkProgramArgs walks awk's options: the program texts given by -e and
// --source, the index of the first operand, or why what runs is unseen.
func awkProgramArgs(args []string) (texts []string, i int, why string) {
	for i = 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return texts, i + 1, ""
		case a == "-" || !strings.HasPrefix(a, "-"):
			return texts, i, ""
		case strings.HasPrefix(a, "--"):
			name, val, has := strings.Cut(a[2:], "=")
			kind, ok := awkLongKind(name)
			if !ok {
				return nil, i, "is given the option --" + name + ", which the gate does not know"
			}
			if (kind == "v" || kind == "t" || kind == "f") && !has {
				i++
				if i < len(args) {
					val = args[i]
				}
			}
			switch kind {
			case "t":
				texts = append(texts, val)
			case "f":
				return nil, i, "runs a program, an include or an extension from a file (--" + name + ")"
			}
		default:
			var w string
			texts, i, w = awkShortRun(args, i, texts)
			if w != "" {
				return nil, i, w
			}
		}
	}
	return texts, i, ""
}

// awkLongKind resolves a long option or its unique prefix.
func awkLongKind(name string) (string, bool) {
	if k, ok := awkLongRun.Get()[name]; ok {
		return k, true
	}
	found, kind := 0, ""
	for n, k := range awkLongRun.Get() {
		if name != "" && strings.HasPrefix(n, name) {
			found, kind = found+1, k
		}
	}
	return kind, found == 1
}

// awkShortRun reads one cluster of short options for awkRuns.
func awkShortRun(args []string, i int, texts []string) ([]string, int, string) {
	a := args[i]
	for j := 1; j < len(a); j++ {
		c := a[j]
		switch c {
		case 'F', 'v':
			_, k, _ := optValue(args, i, a[j+1:])
			return texts, k, ""
		case 'e':
			val, k, _ := optValue(args, i, a[j+1:])
			return append(texts, val), k, ""
		case 'f', 'E', 'i', 'l':
			_, k, _ := optValue(args, i, a[j+1:])
			return nil, k, "runs a program, an include or an extension from a file (-" + string(c) + ")"
		case 'W':
			// mawk's -W name[=value]; -W exec FILE reads the program.
			val, k, _ := optValue(args, i, a[j+1:])
			name, v, has := strings.Cut(val, "=")
			switch {
			case strings.HasPrefix("exec", name) && name != "":
				if !has {
					k++
				}
				return nil, k, "runs a program from a file (-W exec)"
			case strings.HasPrefix("source", name) && name != "" && has:
				return append(texts, v), k, ""
			}
			if kind, ok := awkLongKind(name); ok && kind == "f" {
				return nil, k, "runs a program, an include or an extension from a file (-W " + name + ")"
			}
			return texts, k, ""
		case 'b', 'c', 'C', 'g', 'h', 'L', 'M', 'n', 'N', 'O', 'P', 'r', 's', 'S', 't', 'V', 'D', 'o', 'p', 'd':
			if c == 'o' || c == 'p' || c == 'd' || c == 'D' || c == 'L' {
				return texts, i, "" // an optional attached value: the rest of the cluster
			}
		default:
			return nil, i, "is given the option -" + string(c) + ", which the gate does not know"
		}
	}
	return texts, i, ""
}

// awkScan runs the scanner over a program text.
func awkScan(s string) *awkScanner {
	p := &awkScanner{s: s, print: -1}
	for !p.stop {
		t := p.token()
		if t.kind == akEOF {
			break
		}
		p.handle(t)
	}
	if !p.stop && len(p.parens) != 0 {
		p.fail("awk program has an unclosed (")
	}
	return p
}

func (p *awkScanner) fail(why string) {
	p.v.add(Unknown, why)
	p.stop, p.failed = true, true
}

// token returns the next token, honouring push-back.
func (p *awkScanner) token() awkToken {
	if p.back != nil {
		t := *p.back
		p.back = nil
		return t
	}
	t := p.lex()
	if t.kind != akEOF {
		p.prev = t
	}
	if t.kind != akNewline && t.kind != akEOF {
		p.sig = t
	}
	return t
}

func (p *awkScanner) unread(t awkToken) { p.back = &t }

// handle applies one token to the grammar state.
func (p *awkScanner) handle(t awkToken) {
	p.trackGetline(t)
	switch t.kind {
	case akNewline:
		if p.print >= 0 && !p.continues() {
			p.print = -1
		}
	case akName:
		p.name(t.text)
	case akPunct:
		p.punct(t.text)
	}
}

// continues reports whether a newline after the last token continues the
// statement (awk allows a newline after a comma, && and ||).
func (p *awkScanner) continues() bool {
	if p.sig.kind != akPunct {
		return false
	}
	switch p.sig.text {
	case ",", "&&", "||", "{":
		return true
	}
	return false
}

func (p *awkScanner) name(n string) {
	switch n {
	case "system":
		p.v.add(Write, "awk system() runs a shell command")
		p.runs = "runs shell commands through system()"
	case "print", "printf":
		p.print = p.depth
	case "if", "while", "for", "switch":
		p.ctrl = true
	case "getline":
		p.getline, p.glDepth = 1, p.depth
	}
}

// trackGetline follows "getline [lvalue] < target" so the input redirect
// can be told from a comparison. The lvalue is a name with an optional
// subscript, or a $ field.
func (p *awkScanner) trackGetline(t awkToken) {
	if p.getline == 0 || p.depth > p.glDepth {
		return // nothing pending, or inside the lvalue's subscript
	}
	punct := t.kind == akPunct
	switch {
	case p.getline == 1 && t.kind == akName && !awkKeywords.Has(t.text):
		p.getline = 2
	case p.getline == 1 && punct && t.text == "$":
		p.getline = 3
	case p.getline == 3 && (t.kind == akName || t.kind == akNumber):
		p.getline = 2
	case p.getline == 2 && punct && (t.text == "[" || t.text == "]"):
	case punct && t.text == "<":
		p.getline = 0
		p.inputTarget()
	default:
		p.getline = 0
	}
}

// inputTarget checks the source of "getline < target": a literal file name
// is a read; a computed one or a gawk network special file is Unknown.
func (p *awkScanner) inputTarget() {
	t := p.token()
	p.unread(t)
	if t.kind != akString || strings.Contains(t.text, `\`) {
		p.v.add(Unknown, "awk getline reads from a computed file name")
	} else if strings.HasPrefix(t.text, "/inet") {
		p.v.add(Unknown, "awk getline opens a network connection")
	}
}

func (p *awkScanner) punct(op string) {
	atPrint := p.print >= 0 && p.depth == p.print
	switch op {
	case "(":
		p.parens = append(p.parens, p.ctrl)
		p.ctrl = false
		p.depth++
	case ")":
		p.closeParen()
	case "[":
		p.depth++
	case "]":
		p.depth--
	case "{", "}":
		p.print = -1
	case ";":
		if p.print >= p.depth {
			p.print = -1
		}
	case ">", ">>":
		if atPrint {
			p.outputTarget()
		} else if op == ">>" {
			p.fail("awk >> outside print")
		}
	case "|":
		p.pipe(atPrint)
	case "|&":
		p.v.add(Write, "awk |& starts a coprocess")
		p.runs = "starts a command as a coprocess (|&)"
	}
	if p.depth < 0 {
		p.fail("awk program has an unmatched ) or ]")
	}
}

func (p *awkScanner) closeParen() {
	if len(p.parens) == 0 {
		p.fail("awk program has an unmatched )")
		return
	}
	p.ctrlEnd = p.parens[len(p.parens)-1]
	p.parens = p.parens[:len(p.parens)-1]
	p.depth--
}

// pipe handles a single "|": into getline (reading a command's output) or
// out of print (writing to a command).
func (p *awkScanner) pipe(atPrint bool) {
	t := p.token()
	p.unread(t)
	switch {
	case t.kind == akName && t.text == "getline":
		p.v.add(Unknown, "awk cmd | getline runs a shell command")
		p.runs = "runs a shell command to read from it (cmd | getline)"
	case atPrint:
		p.v.add(Write, "awk print | pipes into a shell command")
		p.runs = "pipes its output into a shell command (print | cmd)"
	default:
		p.v.add(Unknown, "awk | outside print and getline")
		p.runs = "has a | the gate cannot place"
	}
}

// outputTarget checks the target of print's > or >>: only a literal
// standard stream that ends the statement is harmless.
func (p *awkScanner) outputTarget() {
	t := p.token()
	if t.kind == akString && awkStdStream(t.text) {
		end := p.token()
		p.unread(end)
		if end.kind == akEOF || end.kind == akNewline ||
			(end.kind == akPunct && (end.text == ";" || end.text == "}")) {
			return
		}
	} else {
		p.unread(t)
	}
	if t.kind == akString {
		p.files = append(p.files, t.text)
	} else {
		p.dynOut = true
	}
	p.v.add(Write, "awk print > writes a file")
}

func awkStdStream(s string) bool {
	return s == "/dev/stdout" || s == "/dev/stderr" || s == "/dev/null"
}

// regexAllowed reports whether a "/" after the previous token starts a
// regex (true), is division (false), or cannot be told without the full
// grammar (ambiguous).
func (p *awkScanner) regexAllowed() (regex, ambiguous bool) {
	t := p.prev
	switch t.kind {
	case akNumber, akString, akRegex:
		return false, false
	case akName:
		switch t.text {
		case "getline", "in":
			return false, true
		}
		return awkKeywords.Has(t.text), false
	case akPunct:
		switch t.text {
		case "]":
			return false, false
		case ")":
			return p.ctrlEnd, false
		case "++", "--", "$":
			return false, true
		}
	}
	return true, false
}

// lex reads one token.
func (p *awkScanner) lex() awkToken {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '\\':
			if !p.continuation() {
				p.fail("awk program has a stray backslash")
				return awkToken{kind: akEOF}
			}
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		case c == '\n':
			p.i++
			return awkToken{kind: akNewline}
		default:
			return p.lexToken(c)
		}
	}
	return awkToken{kind: akEOF}
}

// continuation consumes a backslash-newline, which awk treats as a blank.
func (p *awkScanner) continuation() bool {
	rest := p.s[p.i+1:]
	switch {
	case strings.HasPrefix(rest, "\n"):
		p.i += 2
	case strings.HasPrefix(rest, "\r\n"):
		p.i += 3
	default:
		return false
	}
	return true
}

func (p *awkScanner) lexToken(c byte) awkToken {
	switch {
	case c == '"':
		return p.lexString()
	case c == '/':
		return p.lexSlash()
	case isAwkNameStart(c):
		return p.lexName()
	case c >= '0' && c <= '9' || c == '.' && p.i+1 < len(p.s) && isDigit(p.s[p.i+1]):
		return p.lexNumber()
	case c == '@':
		p.fail("awk @ (gawk indirect call, @include, @load or @namespace)")
		return awkToken{kind: akEOF}
	}
	return p.lexPunct(c)
}

func isAwkNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *awkScanner) lexName() awkToken {
	start := p.i
	for p.i < len(p.s) && (isAwkNameStart(p.s[p.i]) || isDigit(p.s[p.i])) {
		p.i++
	}
	if strings.HasPrefix(p.s[p.i:], "::") {
		p.fail("awk qualified name (gawk namespace)")
		return awkToken{kind: akEOF}
	}
	return awkToken{kind: akName, text: p.s[start:p.i]}
}

func (p *awkScanner) lexNumber() awkToken {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if !(isDigit(c) || c == '.' || isAwkNameStart(c)) {
			break
		}
		if (c == 'e' || c == 'E') && p.i+1 < len(p.s) && (p.s[p.i+1] == '+' || p.s[p.i+1] == '-') {
			p.i++
		}
		p.i++
	}
	return awkToken{kind: akNumber, text: p.s[start:p.i]}
}

// lexString reads a "…" literal; its raw contents are the token text.
func (p *awkScanner) lexString() awkToken {
	start := p.i + 1
	for p.i++; p.i < len(p.s); p.i++ {
		switch p.s[p.i] {
		case '\\':
			p.i++
		case '\n':
			p.fail("awk string has a newline")
			return awkToken{kind: akEOF}
		case '"':
			p.i++
			return awkToken{kind: akString, text: p.s[start : p.i-1]}
		}
	}
	p.fail("awk string is unterminated")
	return awkToken{kind: akEOF}
}

// lexSlash reads a regex literal or the division operator.
func (p *awkScanner) lexSlash() awkToken {
	regex, ambiguous := p.regexAllowed()
	switch {
	case ambiguous:
		p.fail("awk / is ambiguous between regex and division here")
		return awkToken{kind: akEOF}
	case !regex:
		p.i++
		if p.i < len(p.s) && p.s[p.i] == '=' {
			p.i++
			return awkToken{kind: akPunct, text: "/="}
		}
		return awkToken{kind: akPunct, text: "/"}
	}
	return p.lexRegex()
}

// lexRegex reads /…/. A "/" inside a bracket expression ends the regex in
// some awks and not in others, so it is Unknown.
func (p *awkScanner) lexRegex() awkToken {
	inBracket := false
	for p.i++; p.i < len(p.s); p.i++ {
		c := p.s[p.i]
		switch {
		case c == '\\':
			p.i++
			if p.i < len(p.s) && p.s[p.i] == '\n' {
				p.fail("awk regex has a continuation line")
				return awkToken{kind: akEOF}
			}
		case c == '\n':
			p.fail("awk regex has a newline")
			return awkToken{kind: akEOF}
		case c == '[' && !inBracket:
			inBracket = true
			if strings.HasPrefix(p.s[p.i+1:], "^") {
				p.i++
			}
			if strings.HasPrefix(p.s[p.i+1:], "]") {
				p.i++
			}
		case c == ']' && inBracket:
			inBracket = false
		case c == '/' && inBracket:
			p.fail("awk regex has / inside a bracket expression")
			return awkToken{kind: akEOF}
		case c == '/':
			p.i++
			return awkToken{kind: akRegex}
		}
	}
	p.fail("awk regex is unterminated")
	return awkToken{kind: akEOF}
}

// lexPunct reads an operator: the two-byte ones, "**=", or one byte.
func (p *awkScanner) lexPunct(c byte) awkToken {
	rest := p.s[p.i:]
	n := 1
	if len(rest) >= 2 {
		switch rest[:2] {
		case "&&", "||", "|&", ">>", ">=", "<=", "==", "!=", "!~", "++", "--",
			"+=", "-=", "*=", "%=", "^=":
			n = 2
		case "**":
			n = 2
			if len(rest) >= 3 && rest[2] == '=' {
				n = 3
			}
		}
	}
	if n == 1 && strings.IndexByte("{}()[];,+-*%^!><|?:~$=", c) < 0 {
		p.fail("awk program has an unexpected character")
		return awkToken{kind: akEOF}
	}
	p.i += n
	return awkToken{kind: akPunct, text: rest[:n]}
}

// Qwen Code's awk rules, ported from shell-safety-rules.ts
// (classifyAwkCommandSafety and its helpers) so that every verdict matches
// the peer's. Its regular expressions are matched by hand, as the sed
// rules' are (see qwenSedAddressLen); its static-write pattern uses a
// lookahead, which qwenAwkStaticWrite checks around qwenAwkWriteTail.

// qwenAwkWriteTail is ^(?:"(?:\\(?s:.)|[^"\\])*"|[^">|])*>>?\s*"[^"]*"\s*$,
// what follows print/printf in a statement the peer calls a write:
// anything but quotes and > | outside strings, then > or >> and a string
// literal ending the statement. Each step has one way to go (a quote
// opens a string, which ends at its first unescaped quote; the first > or
// | outside strings ends the prefix), so one pass decides; the bytes it
// looks for are never inside a multi-byte rune.
func qwenAwkWriteTail(s string) bool {
	i := 0
	for i < len(s) && s[i] != '>' {
		switch s[i] {
		case '|':
			return false
		case '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' {
					j++ // \ and the rune after it (a lone \ at the end matches nothing)
				}
			}
			if j >= len(s) {
				return false // an unterminated string
			}
			i = j
		}
		i++
	}
	if i == len(s) {
		return false
	}
	i++
	if i < len(s) && s[i] == '>' {
		i++ // >? then \s* and a quote: taking the second > is the only way
	}
	i = skipJSSpace(s, i)
	if i == len(s) || s[i] != '"' {
		return false
	}
	end := strings.IndexByte(s[i+1:], '"')
	return end >= 0 && skipJSSpace(s, i+1+end+1) == len(s)
}

// qwenAwkUnknownOp is (?:system|close)\s*\(|getline\b, anywhere in s.
func qwenAwkUnknownOp(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 's':
			if strings.HasPrefix(s[i:], "system") && parenAfter(s, i+len("system")) {
				return true
			}
		case 'c':
			if strings.HasPrefix(s[i:], "close") && parenAfter(s, i+len("close")) {
				return true
			}
		case 'g':
			if strings.HasPrefix(s[i:], "getline") && !wordByteAt(s, i+len("getline")) {
				return true
			}
		}
	}
	return false
}

// parenAfter reports \s*\( at s[i:].
func parenAfter(s string, i int) bool {
	j := skipJSSpace(s, i)
	return j < len(s) && s[j] == '('
}

// qwenAwkPrint is \b(?:print|printf)\b, anywhere in s. RE2's \b is
// ASCII's: a byte of a multi-byte rune is not a word character.
func qwenAwkPrint(s string) bool {
	for off := 0; ; {
		k := strings.Index(s[off:], "print")
		if k < 0 {
			return false
		}
		i, end := off+k, off+k+len("print")
		if (i == 0 || !isWordByte(s[i-1])) &&
			(!wordByteAt(s, end) || s[end] == 'f' && !wordByteAt(s, end+1)) {
			return true
		}
		off = i + 1
	}
}

// wordByteAt reports a word character (\w) at s[i].
func wordByteAt(s string, i int) bool { return i < len(s) && isWordByte(s[i]) }

// qwenAwkAttached is ^-[Fv].+ (. is any rune but a newline).
func qwenAwkAttached(a string) bool {
	return len(a) > 2 && a[0] == '-' && (a[1] == 'F' || a[1] == 'v') && a[2] != '\n'
}

const qwenAwkWhy = "the peer's (Qwen Code) awk rules: "

// qwenAwk is the peer's classifyAwkCommandSafety.
func qwenAwk(args []string) (Safety, string) {
	prog := -1
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			prog = i + 1
			break
		}
		if a == "-F" || a == "-v" {
			i++
			if i >= len(args) || args[i] == "" {
				return Unknown, qwenAwkWhy + "awk " + a + " without a value"
			}
			continue
		}
		if qwenAwkAttached(a) {
			continue
		}
		if strings.HasPrefix(a, "-") {
			return Unknown, qwenAwkWhy + "awk option " + a + " is not on its list"
		}
		prog = i
		break
	}
	if prog < 0 {
		return ReadOnly, ""
	}
	if prog >= len(args) {
		return Unknown, qwenAwkWhy + "awk -- without a program"
	}
	if s, why := qwenAwkScript(args[prog]); s != ReadOnly {
		return s, why
	}
	if s, _ := qwenAwkScript(strings.Join(args, " ")); s != ReadOnly {
		return Unknown, qwenAwkWhy + "the words after the program, read as awk text, are not read-only"
	}
	return ReadOnly, ""
}

// qwenAwkScript is the peer's classifyAwkScriptSafety.
func qwenAwkScript(script string) (Safety, string) {
	write := false
	ambiguousSlash, at := qwenAwkSplit(script, func(st string) { write = write || qwenAwkStaticWrite(st) })
	if write && !ambiguousSlash {
		return Write, "awk print > \"file\" writes a file"
	}
	if at {
		return Unknown, qwenAwkWhy + "@ (gawk indirect calls, @include, @load)"
	}
	if qwenAwkUnknownOp(script) {
		return Unknown, qwenAwkWhy + "system(), close() or getline"
	}
	if qwenAwkPrint(script) && strings.ContainsAny(script, ">|") {
		return Unknown, qwenAwkWhy + "print with a > or | it cannot prove harmless"
	}
	return ReadOnly, ""
}

// qwenAwkStaticWrite is the peer's AWK_STATIC_WRITE:
// ^\s*(?:print|printf)\b(?!\s*\()TAIL.
func qwenAwkStaticWrite(st string) bool {
	rest := strings.TrimLeftFunc(st, isJSSpace)
	kw := 0
	for _, w := range []string{"printf", "print"} {
		if strings.HasPrefix(rest, w) && (len(rest) == len(w) || !isWordByte(rest[len(w)])) {
			kw = len(w)
			break
		}
	}
	if kw == 0 {
		return false
	}
	rest = rest[kw:]
	if strings.HasPrefix(strings.TrimLeftFunc(rest, isJSSpace), "(") {
		return false
	}
	return qwenAwkWriteTail(rest)
}

// isWordByte is JavaScript's \w.
func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// qwenAwkSplit is the peer's splitAwkStatements: it cuts the program at
// ";", braces and newlines outside strings, regex literals and comments,
// handing each statement to each in turn, and reports a "/" it could not
// place and any "@".
func qwenAwkSplit(script string, each func(string)) (ambiguousSlash, at bool) {
	start := 0
	escaped, inString, inRegex := false, false, false
	prev := rune(-1) // none yet
	for i := 0; i < len(script); {
		r, size := rune(script[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(script[i:])
		}
		next := i + size
		switch {
		case escaped:
			escaped = false
		case (inString || inRegex) && r == '\\':
			escaped = true
		case inString:
			inString = r != '"'
		case inRegex:
			inRegex = r != '/'
		case r == '"':
			inString = true
		case r == '/' && (prev < 0 || strings.ContainsRune("({[=,:;!~?&|", prev)):
			inRegex = true
		case r == '#':
			each(script[start:i])
			nl := strings.IndexByte(script[next:], '\n')
			if nl < 0 {
				return ambiguousSlash, at
			}
			start = next + nl + 1
			next = start
			prev = '\n'
		case r == ';' || r == '{' || r == '}' || r == '\n':
			each(script[start:i])
			start = next
			prev = r
		default:
			if r == '/' {
				ambiguousSlash = true
			}
			if r == '@' {
				at = true
			}
			if !isJSSpace(r) {
				prev = r
			}
		}
		i = next
	}
	each(script[start:])
	return ambiguousSlash, at
}
