package classify

import (
	"strings"
	"unicode/utf8"

	"github.com/agentexec/agentexec/internal/lazy"
)

// The sed scanner follows GNU sed 4.9 (compile.c) byte for byte where it
// matters for safety: how a script is split into commands, where a regex,
// replacement, label, text or file name ends. It is a single forward pass
// with no regular expressions and no recursion, so its cost is linear in the
// script length whatever the input. Anything it does not model exactly makes
// the result Unknown; only a w/W command, an s///w flag or in-place editing
// makes it Write.

// verdict accumulates a Safety and the reason of its strongest piece of
// evidence. The zero value is ReadOnly with no reason.
type verdict struct {
	safety Safety
	reason string
}

// add merges s into v, keeping the first reason given for the winning class.
func (v *verdict) add(s Safety, reason string) {
	if v.safety == "" || s.rank() > v.safety.rank() {
		v.safety, v.reason = s, reason
	}
}

// result returns v as the (Safety, reason) pair the classifier expects.
func (v *verdict) result(okReason string) (Safety, string) {
	if v.safety == "" || v.safety == ReadOnly {
		return ReadOnly, okReason
	}
	return v.safety, v.reason
}

// sedCall is sed's command line after option parsing.
type sedCall struct {
	v         verdict
	scripts   []string // -e and --expression values, in order
	operands  []string
	scriptOpt bool // a -e, --expression, -f or --file was given
	fromFile  bool // a -f or --file was given
	permuted  bool // a script option came after an operand
}

// classifySed classifies a sed invocation from its static, quote-removed
// arguments (the words after "sed"). The reason names the deciding rule.
//
// Options are parsed as GNU getopt does, including permutation (an option
// after an operand still counts: "sed p f -i" edits f in place) and
// unambiguous long-option abbreviations of --in-place. Scripts from several
// -e options are joined with newlines, as GNU sed concatenates them.
//
// Qwen Code's sed rules (qwenSed) are the reference contract: whenever they
// do not prove the command read-only, their class wins, so the gate is never
// more permissive than the peer and matches its write/unknown split exactly.
// The GNU-exact scan below only decides when the peer says read-only, and
// may then still be stricter.
func classifySed(args []string) (Safety, string) {
	if s, why := qwenSed(args); s != ReadOnly {
		return s, why
	}
	return classifySedGNU(args)
}

// classifySedGNU is the GNU-exact scan of a sed command line.
func classifySedGNU(args []string) (Safety, string) {
	c := &sedCall{}
	c.parse(args)
	if c.v.safety == Write {
		return c.v.result("")
	}
	script, ok := c.script()
	if !ok {
		return c.v.result("")
	}
	s, why := scanSedScript(script)
	c.v.add(s, why)
	return c.v.result("sed script only prints and edits the stream")
}

// script returns the program text sed will compile, or ok=false when there
// is no inline program to scan (the verdict then already says why).
func (c *sedCall) script() (string, bool) {
	if c.permuted {
		// Under POSIXLY_CORRECT the first operand would be the script
		// and the later options file names.
		c.v.add(Unknown, "sed option after an operand depends on POSIXLY_CORRECT")
	}
	if c.scriptOpt {
		return strings.Join(c.scripts, "\n"), true
	}
	if len(c.operands) == 0 {
		c.v.add(Unknown, "sed without a script")
		return "", false
	}
	return c.operands[0], true
}

// parse walks the arguments like getopt_long with permutation.
func (c *sedCall) parse(args []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			c.operands = append(c.operands, args[i+1:]...)
			return
		case strings.HasPrefix(a, "--"):
			i = c.long(args, i)
		case len(a) > 1 && a[0] == '-':
			i = c.short(args, i)
		default:
			c.operands = append(c.operands, a)
		}
	}
}

// optValue returns the argument of an option that requires one: the attached
// text, or else the next word. It returns the index of the last word used.
func optValue(args []string, i int, attached string) (string, int, bool) {
	if attached != "" {
		return attached, i, true
	}
	if i+1 < len(args) {
		return args[i+1], i + 1, true
	}
	return "", i, false
}

// addScript records a -e script.
func (c *sedCall) addScript(s string) {
	if len(c.operands) > 0 {
		c.permuted = true
	}
	c.scriptOpt = true
	c.scripts = append(c.scripts, s)
}

// short handles one cluster of short options such as -ne or -i.bak.
func (c *sedCall) short(args []string, i int) int {
	a := args[i]
	for j := 1; j < len(a); j++ {
		switch a[j] {
		case 'n', 's', 'u', 'z', 'E', 'r', 'b':
		case 'i', 'I':
			c.v.add(Write, "sed -i edits files in place")
			return i
		case 'e':
			v, k, ok := optValue(args, i, a[j+1:])
			if !ok {
				c.v.add(Unknown, "sed -e without a script")
				return k
			}
			c.addScript(v)
			return k
		case 'f':
			c.v.add(Unknown, "sed -f reads its script from a file")
			c.fromFile = true
			c.scriptOpt = true
			_, k, _ := optValue(args, i, a[j+1:])
			return k
		case 'l':
			v, k, ok := optValue(args, i, a[j+1:])
			if !ok || !allDigits(v) {
				c.v.add(Unknown, "sed -l without a number")
			}
			return k
		default:
			c.v.add(Unknown, "unrecognised sed option -"+a[j:j+1])
			return i
		}
	}
	return i
}

// sedFlagLongs are the GNU sed long options that take no argument and do
// not change what the script may do.
var sedFlagLongs = lazy.NewSet(
	"quiet", "silent", "regexp-extended", "posix",
	"separate", "unbuffered", "null-data",
	"zero-terminated", "binary", "debug", "sandbox",
	"follow-symlinks",
)

// sedLongName resolves a unique prefix of one of GNU sed's long options
// (getopt_long accepts --expr for --expression), else returns name.
func sedLongName(name string) string {
	if name == "" || sedFlagLongs.Has(name) {
		return name
	}
	hit := ""
	for _, n := range append([]string{"expression", "file", "line-length", "in-place", "help", "version"}, sedFlagLongs.Words()...) {
		switch {
		case n == name:
			return n
		case strings.HasPrefix(n, name) && hit == "":
			hit = n
		case strings.HasPrefix(n, name):
			return name // ambiguous: getopt_long refuses it
		}
	}
	if hit == "" {
		return name
	}
	return hit
}

// long handles one --option word. Only exact names are accepted, except
// that any unambiguous abbreviation of --in-place counts as in-place editing.
func (c *sedCall) long(args []string, i int) int {
	name, val, hasVal := strings.Cut(args[i][2:], "=")
	name = sedLongName(name)
	switch {
	case len(name) >= 1 && strings.HasPrefix("in-place", name):
		c.v.add(Write, "sed --in-place edits files in place")
	case name == "expression":
		v, k, ok := longValue(args, i, val, hasVal)
		if !ok {
			c.v.add(Unknown, "sed --expression without a script")
			return k
		}
		c.addScript(v)
		return k
	case name == "file":
		c.v.add(Unknown, "sed --file reads its script from a file")
		c.fromFile = true
		c.scriptOpt = true
		_, k, _ := longValue(args, i, val, hasVal)
		return k
	case name == "line-length":
		v, k, ok := longValue(args, i, val, hasVal)
		if !ok || !allDigits(v) {
			c.v.add(Unknown, "sed --line-length without a number")
		}
		return k
	case sedFlagLongs.Has(name) && !hasVal:
	case name == "help" || name == "version":
		c.v.add(Unknown, "sed --"+name+" is not a filter")
	default:
		c.v.add(Unknown, "unrecognised sed option --"+name)
	}
	return i
}

// longValue returns the argument of a long option: after "=", or the next
// word.
func longValue(args []string, i int, val string, hasVal bool) (string, int, bool) {
	if hasVal {
		return val, i, true
	}
	if i+1 < len(args) {
		return args[i+1], i + 1, true
	}
	return "", i, false
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// sedScanner walks one sed program. eof is reported by peek as -1.
type sedScanner struct {
	s     string
	i     int
	depth int
	v     verdict
	stop  bool // the program is malformed; v already holds Unknown
	// cmds are the texts of e commands; opaque says how the script runs
	// a command no text spells (s///e, e alone).
	cmds   []string
	opaque string
	// files are the files its w, W and s///w open for writing.
	files []string
}

// scanSedScript classifies a sed program text.
func scanSedScript(s string) (Safety, string) {
	return sedScan(s).v.result("sed script only prints and edits the stream")
}

func sedScan(s string) *sedScanner {
	p := &sedScanner{s: s}
	for !p.stop && p.command() {
	}
	if !p.stop && p.depth != 0 {
		p.fail("sed script has an unmatched {")
	}
	return p
}

// sedRuns reads a sed command line for the commands its script runs:
// the texts of e commands, and why some command cannot be read (s///e, a
// script from a file, a script the scanner cannot read whole) — the facts
// tree's reading of sed.
func sedRuns(args []string) ([]string, string) {
	c := &sedCall{}
	c.parse(args)
	script, ok := c.script()
	switch {
	case c.fromFile:
		return nil, "runs a script from a file, which may hold e commands"
	case !ok:
		return nil, ""
	}
	p := sedScan(script)
	if p.stop && p.opaque == "" {
		return p.cmds, "has a script the gate cannot read whole"
	}
	return p.cmds, p.opaque
}

func (p *sedScanner) peek() int {
	if p.i < len(p.s) {
		return int(p.s[p.i])
	}
	return -1
}

func (p *sedScanner) next() int {
	c := p.peek()
	if c >= 0 {
		p.i++
	}
	return c
}

// nonblank skips spaces and tabs (GNU's in_nonblank) and returns the next
// byte, consumed.
func (p *sedScanner) nonblank() int {
	for {
		c := p.next()
		if c != ' ' && c != '\t' {
			return c
		}
	}
}

// fail records a construct the scanner does not model; scanning stops.
func (p *sedScanner) fail(why string) {
	p.v.add(Unknown, why)
	p.stop = true
}

func isSpaceByte(c int) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// command scans one command with its addresses. It returns false at the
// end of the program.
func (p *sedScanner) command() bool {
	c := p.next()
	for c == ';' || isSpaceByte(c) {
		c = p.next()
	}
	if c < 0 {
		return false
	}
	c, hasAddr := p.addresses(c)
	if p.stop {
		return false
	}
	if c == '!' {
		if c = p.nonblank(); c == '!' {
			p.fail("sed script has a doubled !")
			return false
		}
	}
	p.dispatch(c, hasAddr)
	return !p.stop
}

// addresses reads zero, one or two addresses starting at c and returns the
// byte after them (blanks skipped) and whether an address was present.
func (p *sedScanner) addresses(c int) (int, bool) {
	if !p.address(c) {
		return c, false
	}
	c = p.nonblank()
	if c == ',' {
		if !p.address(p.nonblank()) {
			p.fail("sed address range without a second address")
			return c, true
		}
		c = p.nonblank()
	}
	return c, true
}

// address reads one address whose first byte c is already consumed. It
// returns false (consuming nothing more) when c does not start an address.
func (p *sedScanner) address(c int) bool {
	switch {
	case c == '/' || c == '\\':
		if c == '\\' {
			c = p.next()
		}
		if !p.delimited(c, true) {
			return true
		}
		for p.nonblankPeek() == 'I' || p.nonblankPeek() == 'M' {
			p.nonblank()
		}
	case c >= '0' && c <= '9':
		p.digits()
		if p.nonblankPeek() == '~' {
			p.nonblank()
			p.nonblankPeek()
			p.digits()
		}
	case c == '+' || c == '~':
		p.nonblankPeek()
		p.digits()
	case c == '$':
	default:
		return false
	}
	return true
}

// nonblankPeek skips blanks and returns the next byte without consuming it.
func (p *sedScanner) nonblankPeek() int {
	for p.peek() == ' ' || p.peek() == '\t' {
		p.i++
	}
	return p.peek()
}

func (p *sedScanner) digits() {
	for c := p.peek(); c >= '0' && c <= '9'; c = p.peek() {
		p.i++
	}
}

// delimited consumes a regex or replacement up to the unescaped delimiter d
// (GNU's match_slash). In a regex, a bracket expression may contain d.
func (p *sedScanner) delimited(d int, regex bool) bool {
	if d < 0 || d == '\n' || d == '\\' || d >= 0x80 {
		p.fail("sed delimiter is missing, a newline, a backslash or not ASCII")
		return false
	}
	for {
		c := p.next()
		switch {
		case c < 0 || c == '\n':
			p.fail("sed regex or replacement is unterminated")
			return false
		case c == d:
			return true
		case c == '\\':
			if p.next() < 0 {
				p.fail("sed regex or replacement is unterminated")
				return false
			}
		case c == '[' && regex:
			if p.bracket() != ']' {
				p.fail("sed bracket expression is unterminated")
				return false
			}
		}
	}
}

// bracket consumes a bracket expression after its "[" and returns the byte
// that ended it: "]" normally, or -1/newline when unterminated. It mirrors
// GNU's snarf_char_class, including [:class:], [=equiv=] and [.coll.].
func (p *sedScanner) bracket() int {
	c := p.next()
	if c == '^' {
		c = p.next()
	}
	if c == ']' {
		c = p.next()
	}
	state, delim := 0, 0
	for ; ; c = p.next() {
		switch c {
		case -1, '\n':
			return c
		case '.', ':', '=':
			if state == 1 {
				delim, state = c, 2
				continue
			} else if state == 2 && c == delim {
				state = 3
				continue
			}
		case '[':
			if state == 0 {
				state = 1
			}
			continue
		case ']':
			if state == 0 || state == 1 {
				return c
			} else if state == 3 {
				state = 0
			}
		}
		state &^= 1
	}
}

// endOfCommand checks what follows a command (GNU's read_end_of_cmd).
func (p *sedScanner) endOfCommand() {
	switch c := p.nonblankPeek(); c {
	case '}', '#':
	case -1, '\n', ';':
		p.next()
	default:
		p.fail("sed command followed by extra characters")
	}
}

// dispatch scans the command c and its arguments.
func (p *sedScanner) dispatch(c int, hasAddr bool) {
	switch c {
	case '{':
		p.depth++
	case '}':
		p.closeBlock(hasAddr)
	case '#':
		p.comment(hasAddr)
	case '=', 'd', 'D', 'F', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'z', 'x':
		p.endOfCommand()
	case 'l', 'L', 'q', 'Q':
		p.nonblankPeek()
		p.digits()
		p.endOfCommand()
	case ':':
		p.colon(hasAddr)
	case 'b', 't', 'T', 'v':
		p.label()
	case 'a', 'i', 'c':
		p.text(p.nonblank())
	case 's':
		p.substitute()
	case 'y':
		p.transliterate()
	case 'w', 'W':
		p.writeFile("sed " + string(rune(c)) + " command writes a file")
	case 'r', 'R':
		p.v.add(Unknown, "sed "+string(rune(c))+" command reads an arbitrary file")
		p.filename()
	case 'e':
		p.v.add(Unknown, "sed e command runs a shell command")
		if c := p.nonblank(); c >= 0 && c != '\n' {
			start := p.i - 1
			p.text(c)
			p.cmds = append(p.cmds, strings.TrimSuffix(p.s[start:p.i], "\n"))
		} else {
			p.opaque = "runs its pattern space as a command (the e command without text)"
		}
	case -1:
		p.fail("sed address without a command")
	default:
		p.fail("unknown sed command " + string(rune(c)))
	}
}

func (p *sedScanner) closeBlock(hasAddr bool) {
	if p.depth == 0 || hasAddr {
		p.fail("sed script has an unmatched or addressed }")
		return
	}
	p.depth--
	p.endOfCommand()
}

func (p *sedScanner) comment(hasAddr bool) {
	if hasAddr {
		p.fail("sed comment after an address")
		return
	}
	p.skipLine()
}

func (p *sedScanner) colon(hasAddr bool) {
	if hasAddr {
		p.fail("sed label with an address")
		return
	}
	if p.label() == 0 {
		p.fail("sed : without a label")
	}
}

// label reads a label (GNU's read_label) and returns its length.
func (p *sedScanner) label() int {
	p.nonblankPeek()
	start := p.i
	for c := p.peek(); c >= 0 && c != '\n' && c != ' ' && c != '\t' &&
		c != ';' && c != '}' && c != '#'; c = p.peek() {
		p.i++
	}
	return p.i - start
}

func (p *sedScanner) skipLine() {
	for c := p.next(); c >= 0 && c != '\n'; c = p.next() {
	}
}

// text reads the text of a, i, c (and e) whose first non-blank byte c is
// consumed: GNU's one-liner and backslash-newline forms, up to the first
// unescaped newline. Nothing in it is a command.
func (p *sedScanner) text(c int) {
	if c < 0 {
		p.fail("sed a, i or c without text")
		return
	}
	if c == '\\' {
		p.next() // the lead-in byte, taken literally
	} else {
		p.i-- // GNU's savchar: c is the first text byte
	}
	for c := p.next(); c >= 0 && c != '\n'; c = p.next() {
		if c == '\\' {
			p.next()
		}
	}
}

// filename consumes a file name, which runs to the end of the line, and
// returns it.
func (p *sedScanner) filename() string {
	p.nonblankPeek()
	start := p.i
	for c := p.peek(); c >= 0 && c != '\n'; c = p.peek() {
		p.i++
	}
	name := p.s[start:p.i]
	p.next()
	return name
}

// writeFile handles the file operand of w, W and s///w.
func (p *sedScanner) writeFile(why string) {
	name := p.filename()
	if name != "" {
		p.files = append(p.files, name)
	}
	switch name {
	case "":
		p.v.add(Unknown, "sed w without a file name")
	case "/dev/stdout", "/dev/stderr":
	default:
		p.v.add(Write, why)
	}
}

func (p *sedScanner) substitute() {
	d := p.next()
	if !p.delimited(d, true) || !p.delimited(d, false) {
		return
	}
	p.substFlags()
}

// substFlags reads the flags of s (GNU's mark_subst_opts).
func (p *sedScanner) substFlags() {
	for {
		c := p.nonblank()
		switch {
		case c == 'i' || c == 'I' || c == 'm' || c == 'M' || c == 'p' || c == 'g':
		case c >= '0' && c <= '9':
			p.digits()
		case c == 'e':
			p.v.add(Unknown, "sed s///e runs the pattern space as a command")
			p.opaque = "runs the pattern space as a command (s///e)"
		case c == 'w':
			p.writeFile("sed s///w flag writes a file")
			return
		case c == '}' || c == '#':
			p.i--
			return
		case c < 0 || c == '\n' || c == ';':
			return
		default:
			p.fail("unknown sed s flag")
			return
		}
	}
}

func (p *sedScanner) transliterate() {
	d := p.next()
	if p.delimited(d, false) && p.delimited(d, false) {
		p.endOfCommand()
	}
}

// Qwen Code's sed rules, ported from shell-safety-rules.ts
// (classifySedCommandSafety and its helpers) so that every verdict matches
// the peer's. The peer's JavaScript regular expressions are matched by
// hand, in linear time: each matcher below names the expression it stands
// for, in RE2 syntax with \s for JavaScript's whitespace class (isJSSpace),
// and qwen_match_test.go checks it against that expression compiled. A
// regular expression cost thousands of instructions per word here, the
// most of a sed or awk command's decision.

// qwenSedAddressLen is the length of ^\s*(?:(?:[0-9]+|\$)(?:\s*,\s*(?:[0-9]+|\$))?|/(?:\\(?s:.)|[^/\\])*/)?\s*
// at the start of s (leftmost-first, as regexp's FindString).
func qwenSedAddressLen(s string) int {
	i := skipJSSpace(s, 0)
	if j, ok := sedAddrNumber(s, i); ok {
		i = j
		if k := skipJSSpace(s, i); k < len(s) && s[k] == ',' {
			if m, ok := sedAddrNumber(s, skipJSSpace(s, k+1)); ok {
				i = m
			}
		}
	} else if i < len(s) && s[i] == '/' {
		// Any rune but / and \, or \ and any rune, up to the closing /.
		// / and \ are never inside a multi-byte rune: bytes will do.
	scan:
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				if j+1 == len(s) {
					break scan
				}
				j++
			case '/':
				i = j + 1
				break scan
			}
		}
	}
	return skipJSSpace(s, i)
}

// sedAddrNumber reads [0-9]+|\$ at s[i:], returning where it ends.
func sedAddrNumber(s string, i int) (int, bool) {
	if i < len(s) && s[i] == '$' {
		return i + 1, true
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return j, j > i
}

// qwenSedCompat is the peer's compatibility rule, (?:^|[^\\])[ewr]\s: an
// e, w or r followed by whitespace anywhere (not after a backslash) might
// be a command.
func qwenSedCompat(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c == 'e' || c == 'w' || c == 'r') && (i == 0 || s[i-1] != '\\') && jsSpaceAt(s, i+1) {
			return true
		}
	}
	return false
}

// qwenSedSafeOption is ^(?:-[nElrsuz]|--(?:quiet|silent|line-length(?:=.*)?))$.
func qwenSedSafeOption(a string) bool {
	switch {
	case len(a) == 2 && a[0] == '-':
		return strings.IndexByte("nElrsuz", a[1]) >= 0
	case a == "--quiet" || a == "--silent" || a == "--line-length":
		return true
	}
	v, ok := strings.CutPrefix(a, "--line-length=")
	return ok && strings.IndexByte(v, '\n') < 0 // . is any rune but a newline
}

// qwenSedAttachedE is ^-[nErsuz]*e.+ (e is not in the class).
func qwenSedAttachedE(a string) bool {
	i := sedFlagRun(a)
	return i > 0 && i+1 < len(a) && a[i] == 'e' && a[i+1] != '\n'
}

// qwenSedInPlace is ^(?:-[nErsuz]*[iI]|--in-place(?:=|$)).
func qwenSedInPlace(a string) bool {
	if rest, ok := strings.CutPrefix(a, "--in-place"); ok && (rest == "" || rest[0] == '=') {
		return true
	}
	i := sedFlagRun(a)
	return i > 0 && i < len(a) && (a[i] == 'i' || a[i] == 'I')
}

// sedFlagRun is the length of ^-[nErsuz]* in a, 0 when a does not start
// with '-'.
func sedFlagRun(a string) int {
	if a == "" || a[0] != '-' {
		return 0
	}
	i := 1
	for i < len(a) && strings.IndexByte("nErsuz", a[i]) >= 0 {
		i++
	}
	return i
}

// qwenSedHelp is (?i)^(?:--help|--version)$: RE2's case folding is
// Unicode's simple folding, as EqualFold's (ſ is s).
func qwenSedHelp(a string) bool {
	return strings.EqualFold(a, "--help") || strings.EqualFold(a, "--version")
}

// qwenSedLineLength is ^(?:-l|--line-length)$.
func qwenSedLineLength(a string) bool { return a == "-l" || a == "--line-length" }

// qwenSedFile is ^(?:-f|--file(?:=|$)).
func qwenSedFile(a string) bool {
	return strings.HasPrefix(a, "-f") || a == "--file" || strings.HasPrefix(a, "--file=")
}

// qwenSedExprValue is ^(?:-e.+|--expression=).
func qwenSedExprValue(a string) bool {
	return len(a) > 2 && a[:2] == "-e" && a[2] != '\n' || strings.HasPrefix(a, "--expression=")
}

// qwenSedLongLine is ^--line-length(?:=|$).
func qwenSedLongLine(a string) bool {
	return a == "--line-length" || strings.HasPrefix(a, "--line-length=")
}

// qwenSedSafeFlags is ^[0-9gIpM]*$.
func qwenSedSafeFlags(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c == 'g' || c == 'I' || c == 'p' || c == 'M') {
			return false
		}
	}
	return true
}

// qwenSedValueOptions take the next word as their value.
var qwenSedValueOptions = lazy.NewSet(
	"-f", "--file", "-e", "--expression", "-l", "--line-length",
)

// isJSSpace reports whether r is in JavaScript's \s class.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

func jsTrim(s string) string { return strings.TrimFunc(s, isJSSpace) }

// skipJSSpace returns where the run of JavaScript whitespace at s[i:] ends.
func skipJSSpace(s string, i int) int {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if c != ' ' && (c < '\t' || c > '\r') {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isJSSpace(r) {
			return i
		}
		i += n
	}
	return i
}

// jsSpaceAt reports whether the rune at s[i] is JavaScript whitespace.
func jsSpaceAt(s string, i int) bool { return i < len(s) && skipJSSpace(s, i) > i }

const qwenSedWhy = "the peer's (Qwen Code) sed rules: "

// qwenSed is the peer's classifySedCommandSafety.
func qwenSed(args []string) (Safety, string) {
	if s, why := qwenSedOptions(args); s != ReadOnly {
		return s, why
	}
	scripts, used, s, why := qwenSedScripts(args)
	if s != ReadOnly {
		return s, why
	}
	res, resWhy := ReadOnly, "sed script only prints and edits the stream"
	for _, sc := range scripts {
		switch s, why := qwenSedScript(sc); s {
		case Write:
			return Write, why
		case Unknown:
			res, resWhy = Unknown, why
		}
	}
	var rest []string
	for i, a := range args {
		if !used[i] {
			rest = append(rest, a)
		}
	}
	if qwenSedCompat(strings.Join(rest, " ")) {
		return Unknown, qwenSedWhy + "an operand has e, w or r before a blank and might be a script"
	}
	return res, resWhy
}

// qwenSedOptions is the peer's first pass: help/version anywhere before
// "--" (not as an option value) is Unknown, in-place editing is Write.
func qwenSedOptions(args []string) (Safety, string) {
	opts := args
	for i, a := range args {
		if a == "--" {
			opts = args[:i]
			break
		}
	}
	for i, a := range opts {
		if qwenSedHelp(a) && (i == 0 || !qwenSedValueOptions.Has(opts[i-1])) {
			return Unknown, qwenSedWhy + "sed " + a + " is not a filter"
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return ReadOnly, ""
		case qwenSedValueOptions.Has(a):
			i++
		case qwenSedAttachedE(a):
		case qwenSedInPlace(a):
			return Write, "sed -i edits files in place"
		}
	}
	return ReadOnly, ""
}

// qwenSedScripts is the peer's second pass: it collects the scripts (and
// the indexes of the words they came from) and rejects every option it
// does not know.
func qwenSedScripts(args []string) ([]string, map[int]bool, Safety, string) {
	var scripts []string
	used := map[int]bool{}
	add := func(i int, s string) {
		scripts = append(scripts, s)
		used[i] = true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if len(scripts) == 0 {
				if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
					return nil, nil, Unknown, qwenSedWhy + "the script after -- is missing or starts with -"
				}
				add(i+1, args[i+1])
			}
			break
		}
		if qwenSedLineLength(a) {
			i++
			if i >= len(args) || args[i] == "" {
				return nil, nil, Unknown, qwenSedWhy + "sed " + a + " without a value"
			}
		}
		switch {
		case qwenSedFile(a):
			return nil, nil, Unknown, "sed -f reads its script from a file"
		case a == "-e" || a == "--expression":
			i++
			if i >= len(args) || args[i] == "" || strings.HasPrefix(args[i], "-") {
				return nil, nil, Unknown, qwenSedWhy + "sed " + a + " without a script, or one starting with -"
			}
			add(i, args[i])
		case qwenSedExprValue(a):
			s := a[2:]
			if !strings.HasPrefix(a, "-e") {
				s = a[len("--expression="):]
			}
			if strings.HasPrefix(s, "-") {
				return nil, nil, Unknown, qwenSedWhy + "sed script starts with -"
			}
			add(i, s)
		case strings.HasPrefix(a, "--") && !qwenSedLongLine(a):
			return nil, nil, Unknown, qwenSedWhy + "sed option " + a + " is not on its list"
		case strings.HasPrefix(a, "-") && !qwenSedSafeOption(a):
			return nil, nil, Unknown, qwenSedWhy + "sed option " + a + " is not on its list"
		case !strings.HasPrefix(a, "-") && len(scripts) == 0:
			add(i, a)
		}
	}
	return scripts, used, ReadOnly, ""
}

// qwenSedScript is the peer's classifySedScriptSafety: it walks the
// commands separated by ";" or newline (a separator inside a regex or
// replacement of s is skipped; one inside an address is not).
func qwenSedScript(script string) (Safety, string) {
	res, resWhy := ReadOnly, ""
	for start := 0; start < len(script); {
		off := start + qwenSedAddressLen(script[start:])
		if off == len(script) {
			break
		}
		cmd := script[off]
		switch {
		case cmd == 'w' || cmd == 'W':
			if s, why := qwenSedSingle(script[start:]); s == Write {
				return Write, why
			}
			return Unknown, qwenSedWhy + "sed w without a file name"
		case strings.IndexByte("eErR", cmd) >= 0:
			return Unknown, qwenSedWhy + "sed e, r or R command"
		case cmd != 's' && !qwenSafeSedCommand(cmd):
			return Unknown, qwenSedWhy + "sed command " + string(rune(cmd)) + " is not on its list"
		}
		from := off + 1
		if cmd == 's' {
			f, ok := qwenSedSubstEnd(script, off)
			if !ok {
				return Unknown, qwenSedWhy + "sed s command it cannot delimit"
			}
			from = f
		}
		sep := qwenSedSeparator(script, from)
		switch s, why := qwenSedSingle(script[start:sep]); s {
		case Write:
			return Write, why
		case Unknown:
			res, resWhy = Unknown, why
		}
		if sep == len(script) {
			break
		}
		start = sep + 1
	}
	if res == ReadOnly {
		resWhy = "sed script only prints and edits the stream"
	}
	return res, resWhy
}

func qwenSafeSedCommand(c byte) bool { return strings.IndexByte("dDgGhHlnNpPqQxz=", c) >= 0 }

func qwenSedSeparator(s string, from int) int {
	if i := strings.IndexAny(s[from:], ";\n"); i >= 0 {
		return from + i
	}
	return len(s)
}

// qwenSedSubstEnd returns where the flags of the s command at off start.
func qwenSedSubstEnd(script string, off int) (int, bool) {
	if off+1 >= len(script) {
		return 0, false
	}
	d := script[off+1]
	if d == '\\' || d >= 0x80 || isJSSpace(rune(d)) {
		// A non-ASCII delimiter is one UTF-16 unit to the peer but
		// several bytes here: refuse it rather than guess.
		return 0, false
	}
	repl := qwenScanDelimited(script, off+2, d)
	if repl < 0 {
		return 0, false
	}
	flags := qwenScanDelimited(script, repl, d)
	return flags, flags >= 0
}

// qwenScanDelimited returns the index after the unescaped delimiter d at or
// after start, or -1.
func qwenScanDelimited(s string, start int, d byte) int {
	for i := start; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case d:
			return i + 1
		}
	}
	return -1
}

// qwenSedSingle is the peer's classifySingleSedCommandSafety on one
// command's text.
func qwenSedSingle(script string) (Safety, string) {
	compat := qwenSedCompat(script)
	off := qwenSedAddressLen(script)
	if off == len(script) {
		return ReadOnly, ""
	}
	cmd := script[off]
	switch {
	case cmd == 'w' || cmd == 'W':
		if jsTrim(script[off+1:]) != "" {
			return Write, "sed w command writes a file"
		}
		return Unknown, qwenSedWhy + "sed w without a file name"
	case strings.IndexByte("eErR", cmd) >= 0:
		return Unknown, qwenSedWhy + "sed e, r or R command"
	case cmd == 's':
		return qwenSedSubst(script, off, compat)
	case strings.ContainsAny(script[off+1:], ";\n{}"):
		return Unknown, qwenSedWhy + "sed command with ; newline or braces after it"
	case !qwenSafeSedCommand(cmd):
		return Unknown, qwenSedWhy + "sed command " + string(rune(cmd)) + " is not on its list"
	}
	return qwenSedCompatResult(compat)
}

// qwenSedSubst classifies an s command by its flags.
func qwenSedSubst(script string, off int, compat bool) (Safety, string) {
	start, ok := qwenSedSubstEnd(script, off)
	if !ok {
		return Unknown, qwenSedWhy + "sed s command it cannot delimit"
	}
	flags := jsTrim(script[start:])
	if strings.ContainsAny(flags, ";\n{}") {
		return Unknown, qwenSedWhy + "sed s flags with ; newline or braces"
	}
	if w := strings.IndexByte(flags, 'w'); w >= 0 {
		if jsTrim(flags[w+1:]) != "" {
			return Write, "sed s///w flag writes a file"
		}
		return Unknown, qwenSedWhy + "sed s///w without a file name"
	}
	if strings.ContainsAny(flags, "eErRwW") || !qwenSedSafeFlags(flags) {
		return Unknown, qwenSedWhy + "sed s flag is not on its list"
	}
	return qwenSedCompatResult(compat)
}

func qwenSedCompatResult(compat bool) (Safety, string) {
	if compat {
		return Unknown, qwenSedWhy + "e, w or r before a blank might be a command (compatibility rule)"
	}
	return ReadOnly, ""
}
