package gate

import (
	"slices"
	"strings"

	"github.com/agentexec/agentexec/shellcfg"
)

// MaxSegments is the number of segments above which rules can no longer
// allow a command: the decision becomes at most ask, while deny rules are
// still checked on every segment. A cap that stopped checking instead
// would fail open (50 no-ops followed by curl).
const MaxSegments = 256

// maxSplitDepth bounds the splitter's recursion into substitutions; deeper
// input is marked unbalanced, so it can never be allowed by a rule.
const maxSplitDepth = 64

// Segmentation is a command text cut into the pieces permission rules are
// matched against.
type Segmentation struct {
	// Segments are the pieces, blank-trimmed, in the order they were
	// found; command and process substitutions, backquotes and here-doc
	// body lines are segments of their own besides being part of the
	// segment around them.
	Segments []string
	// Total counts the segments before duplicates were dropped, here-doc
	// body lines excepted; the MaxSegments cap applies to it.
	Total int
	// FastPath is true when the bash comment fast path kept the whole line
	// as one segment.
	FastPath bool
	// Unbalanced is true when a quote, substitution or backquote never
	// closed, or nesting went deeper than the splitter follows: the split
	// may disagree with the shell, so no rule may allow the command.
	Unbalanced bool
	// Data are the segments found only as here-doc body lines: text a
	// command reads, which bash never runs. Deny and ask rules still see
	// them (a split that errs on the side of more segments); an allow
	// rule need not cover them when the parse agrees, that is when every
	// call the parse finds is covered (see allowAll).
	Data []string
}

// Split segments text for the given shell.
//
// bash and sh get the conservative, shell-agnostic splitter of
// safe-bash-comment-splitting.txt: quote-aware ('…' literal, $'…' and "…"
// with backslash escapes), splitting on ; && || | |& & and unquoted LF, CR
// and CRLF, never on the & of a redirect (2>&1, &>, >&, <&) or on the | of
// >|; command and process substitutions, backquotes and arithmetic holding
// operators add segments of their own; here-doc body lines are segments.
// It is comment-blind. bash alone may take the comment fast path (see
// commentFastPath). cmd and PowerShell split on their own operators first,
// and then every piece again with the conservative splitter, so text that
// any of the readings separates stays separate.
func Split(text string, shell shellcfg.ShellType) Segmentation {
	switch shell {
	case shellcfg.Cmd, shellcfg.PowerShell:
		return splitForeign(text, shell)
	case "", shellcfg.Bash:
		if commentFastPath(text) {
			one := trimmedOne(text)
			return Segmentation{Segments: one, Total: len(one), FastPath: true}
		}
	}
	return splitPOSIX(text)
}

func trimmedOne(text string) []string {
	if t := trimBlanks(text); t != "" {
		return []string{t}
	}
	return nil
}

// commentFastPath reports whether bash text is one simple command followed
// by a comment, so that the whole line is one segment: every condition of
// the seed holds — one physical line (no LF or CR at all), the first
// non-blank character is not '#', an unquoted '#' starts a word after a
// space or tab, and the code before it holds no operator, escape,
// expansion, substitution, grouping or redirection character.
func commentFastPath(text string) bool {
	if strings.IndexByte(text, '\n') >= 0 || strings.IndexByte(text, '\r') >= 0 {
		return false // (two searches: ContainsAny of two bytes loops over the text)
	}
	if strings.HasPrefix(trimLeftBlanks(text), "#") {
		return false
	}
	hash := commentStart(text)
	if hash < 0 {
		return false
	}
	prefix := text[:hash]
	return trimBlanks(prefix) != "" && !strings.ContainsAny(prefix, ";&|(){}<>\\$`")
}

// commentStart returns the offset of the first '#' outside quotes that
// follows a space or tab, or -1. Backslashes are not interpreted: the
// fast path refuses any prefix holding one.
func commentStart(s string) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && i > 0 && (s[i-1] == ' ' || s[i-1] == '\t'):
			return i
		}
	}
	return -1
}

// splitPOSIX runs the conservative splitter.
func splitPOSIX(text string) Segmentation {
	p := &splitter{s: text}
	p.list(0, 0)
	n := len(p.segs) - p.bodyLines
	data := p.data()
	return Segmentation{Segments: dedupeSegs(p.segs), Total: n, Unbalanced: p.bad, Data: data}
}

// data lists the segments every occurrence of which is a body line: a
// body line that also appears as a command is a command.
func (p *splitter) data() []string {
	if p.bodyLines == 0 {
		return nil
	}
	cmd := map[string]bool{}
	for i, s := range p.segs {
		if !p.body[i] {
			cmd[s] = true
		}
	}
	var out []string
	for i, s := range p.segs {
		if p.body[i] && !cmd[s] {
			cmd[s] = true // once each
			out = append(out, s)
		}
	}
	return out
}

// isData reports whether seg is one of s's data segments.
func (s Segmentation) isData(seg string) bool {
	for _, d := range s.Data {
		if d == seg {
			return true
		}
	}
	return false
}

func dedupeSegs(segs []string) []string {
	out := segs[:0]
	if len(segs) <= 16 {
		// A few segments (the usual case) are compared one by one:
		// cheaper than building a map of them.
		for _, s := range segs {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		return out
	}
	seen := make(map[string]bool, len(segs))
	for _, s := range segs {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// splitter is the conservative POSIX-family splitter's state.
type splitter struct {
	s     string
	segs  []string
	bad   bool
	depth int
	hdocs []hdoc // here-documents whose bodies start at the next newline
	// bodyLines counts here-doc body lines among segs: they are data, so
	// the MaxSegments cap, which counts commands, leaves them out.
	bodyLines int
	// body marks, in step with segs, the segments that are body lines;
	// nil until the first body line.
	body []bool
}

type hdoc struct {
	delim  string
	quoted bool // quoted delimiter: the body is inert text
	dash   bool // <<- strips leading tabs
}

func (p *splitter) emit(start, end int) { p.emitAt(len(p.segs), start, end) }

// emitAt inserts the segment s[start:end] at index slot, so a command
// comes before the substitutions found inside it.
func (p *splitter) emitAt(slot, start, end int) {
	if end > len(p.s) {
		end = len(p.s)
	}
	if start >= end {
		return
	}
	if seg := trimBlanks(p.s[start:end]); seg != "" {
		p.segs = append(p.segs, "")
		copy(p.segs[slot+1:], p.segs[slot:])
		p.segs[slot] = seg
		if p.body != nil {
			p.body = append(p.body, false)
			copy(p.body[slot+1:], p.body[slot:])
			p.body[slot] = false
		}
	}
}

// list scans a command list from i up to closer (0: end of text, ')': a
// $( or <( substitution) and returns the offset just past the closer.
// This is a grammar switch, kept flat on purpose.
func (p *splitter) list(i int, closer byte) int {
	start, parens, comment := i, 0, false
	slot := len(p.segs)
	for i < len(p.s) {
		c := p.s[i]
		switch c {
		case '\'', '"':
			// Inside a comment bash ignores quotes; ignoring them too can
			// only split more, never less.
			switch {
			case comment:
				i++
			case c == '\'':
				i = p.squote(i + 1)
			default:
				i = p.dquote(i+1, false)
			}
		case '`':
			i = p.backtick(i + 1)
		case '\\':
			if p.at(i+1) == '\n' && comment {
				// A backslash does not continue a comment line: split.
				p.emitAt(slot, start, i+1)
				i = p.newline(i + 1)
				start, comment, slot = i, false, len(p.segs)
				continue
			}
			i += 2
		case '$':
			i = p.dollar(i, false)
		case '<', '>':
			i = p.angle(i, comment)
		case '(':
			if j := skipCont(p.s, i+1); p.at(j) == '(' {
				i = p.arith(j + 1)
				continue
			}
			parens++
			i++
		case ')':
			if closer == ')' && parens == 0 {
				p.emitAt(slot, start, i)
				return i + 1
			}
			parens = max(parens-1, 0)
			i++
		case ';', '|', '&':
			if isRedirAmp(p.s, i) || (c == '|' && i > 0 && p.s[i-1] == '>') {
				i++
				continue
			}
			p.emitAt(slot, start, i)
			i = skipOps(p.s, i)
			start, slot = i, len(p.segs)
		case '\n', '\r':
			p.emitAt(slot, start, i)
			i = p.newline(i)
			start, comment, slot = i, false, len(p.segs)
		case '#':
			comment = comment || commentWordStart(p.s, i)
			i++
		default:
			i++
		}
	}
	if closer != 0 {
		p.bad = true
	}
	p.emitAt(slot, start, i)
	return i
}

func (p *splitter) at(i int) byte {
	if i < len(p.s) {
		return p.s[i]
	}
	return 0
}

// skipCont skips line continuations (backslash-newline) starting at i:
// bash removes them before it tokenizes, so "$\<LF>(" is "$(".
func skipCont(s string, i int) int {
	for i+1 < len(s) && s[i] == '\\' && s[i+1] == '\n' {
		i += 2
	}
	return i
}

// wordStart reports whether s[i] begins a word for bash's comment rule.
func commentWordStart(s string, i int) bool {
	return i == 0 || strings.IndexByte(" \t\n;&|()<>", s[i-1]) >= 0
}

// isRedirAmp reports whether the '&' at s[i] belongs to a redirection
// (>&, <&, &>, &>>) rather than being an operator.
func isRedirAmp(s string, i int) bool {
	if s[i] != '&' {
		return false
	}
	if i > 0 && (s[i-1] == '>' || s[i-1] == '<') {
		return true
	}
	return i+1 < len(s) && s[i+1] == '>'
}

// skipOps consumes a run of operator characters (&&, ||, |&, ;;, ;&).
func skipOps(s string, i int) int {
	for i < len(s) && strings.IndexByte(";|&", s[i]) >= 0 && !isRedirAmp(s, i) {
		i++
	}
	return i
}

func (p *splitter) squote(i int) int {
	j := strings.IndexByte(p.s[i:], '\'')
	if j < 0 {
		p.bad = true
		return len(p.s)
	}
	return i + j + 1
}

// ansiC scans $'…', where a backslash escapes the next byte.
func (p *splitter) ansiC(i int) int {
	for i < len(p.s) {
		switch p.s[i] {
		case '\\':
			i += 2
			continue
		case '\'':
			return i + 1
		}
		i++
	}
	p.bad = true
	return len(p.s)
}

// dquote scans "…" from just past the opening quote; substitutions inside
// add segments. With hdocLine it scans one unquoted here-doc body line up
// to its end instead, where '"' is an ordinary byte.
func (p *splitter) dquote(i int, hdocLine bool) int {
	for i < len(p.s) {
		switch p.s[i] {
		case '\\':
			i += 2
			continue
		case '$':
			i = p.dollar(i, true)
			continue
		case '`':
			i = p.backtick(i + 1)
			continue
		case '"':
			if !hdocLine {
				return i + 1
			}
		case '\n':
			if hdocLine {
				return i
			}
		}
		i++
	}
	if !hdocLine {
		p.bad = true
	}
	return len(p.s)
}

// dollar handles the byte after '$': $( substitution, $(( arithmetic,
// $'…' (not inside double quotes).
func (p *splitter) dollar(i int, inDQ bool) int {
	j := skipCont(p.s, i+1)
	switch p.at(j) {
	case '(':
		if k := skipCont(p.s, j+1); p.at(k) == '(' {
			return p.arith(k + 1)
		}
		return p.subst(j + 1)
	case '\'':
		if !inDQ {
			return p.ansiC(j + 1)
		}
	case '$':
		// $$ is the shell's PID: a quote right after it opens a plain
		// '…', not $'…' (Qwen splitCompoundCommand `echo $$'a\' ; touch`).
		return j + 1
	}
	return i + 1
}

// angle handles '<' and '>': process substitution <( >(, here-documents.
func (p *splitter) angle(i int, comment bool) int {
	j := skipCont(p.s, i+1)
	if p.at(j) == '(' {
		return p.subst(j + 1)
	}
	if p.s[i] == '<' && p.at(i+1) == '<' && p.at(i+2) != '<' && !comment {
		return p.heredocOp(i + 2)
	}
	if p.s[i] == '<' && p.at(i+1) == '<' {
		return i + 3 // <<< here-string: its word is scanned normally
	}
	return i + 1
}

// subst splits a $( … ) or <( … ) body; its segments are added.
func (p *splitter) subst(i int) int {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxSplitDepth {
		p.bad = true
		return len(p.s)
	}
	return p.list(i, ')')
}

// arith scans $(( … )) or (( … )) to its closing "))". Its operators are
// arithmetic, but if it holds any list operator or newline its text is
// also split on its own: bash may re-read it as nested subshells.
func (p *splitter) arith(i int) int {
	start, depth := i, 0
	for i < len(p.s) {
		switch p.s[i] {
		case '\'':
			i = p.squote(i + 1)
			continue
		case '"':
			i = p.dquote(i+1, false)
			continue
		case '`':
			i = p.backtick(i + 1)
			continue
		case '$':
			i = p.dollar(i, false)
			continue
		case '(':
			depth++
		case ')':
			if depth == 0 && p.at(i+1) == ')' {
				p.arithBody(p.s[start:i])
				return i + 2
			}
			depth = max(depth-1, 0)
		}
		i++
	}
	p.bad = true
	return len(p.s)
}

// arithBody re-splits an arithmetic body only on ';' and newlines: '&' and
// '|' are arithmetic operators there, and bash decides arithmetic versus
// subshell when it parses "((", so they never end a command (Qwen
// splitCompoundCommand `(( a & b ))`, `VAR=$(( FLAGS & MASK ))` → one
// segment).
func (p *splitter) arithBody(body string) {
	if !strings.ContainsAny(body, ";\n\r") {
		return
	}
	p.sub(body)
}

// sub splits text (a backquote or arithmetic body) on its own and adds its
// segments.
func (p *splitter) sub(text string) {
	if p.depth >= maxSplitDepth {
		p.bad = true
		return
	}
	q := &splitter{s: text, depth: p.depth + 1}
	q.list(0, 0)
	if q.body != nil && p.body == nil {
		p.body = make([]bool, len(p.segs), len(p.segs)+len(q.segs))
	}
	p.segs = append(p.segs, q.segs...)
	if p.body != nil {
		if q.body == nil {
			q.body = make([]bool, len(q.segs))
		}
		p.body = append(p.body, q.body...)
	}
	p.bad = p.bad || q.bad
}

// backtick scans `…` from just past the opening backquote and splits its
// unescaped body.
func (p *splitter) backtick(i int) int {
	var body strings.Builder
	for i < len(p.s) {
		c := p.s[i]
		if c == '\\' && i+1 < len(p.s) {
			if n := p.s[i+1]; n == '`' || n == '\\' || n == '$' {
				body.WriteByte(n)
			} else {
				body.WriteString(p.s[i : i+2])
			}
			i += 2
			continue
		}
		if c == '`' {
			p.sub(body.String())
			return i + 1
		}
		body.WriteByte(c)
		i++
	}
	p.bad = true
	return len(p.s)
}

// heredocOp reads the delimiter after << or <<- and queues the body.
func (p *splitter) heredocOp(i int) int {
	h := hdoc{}
	if p.at(i) == '-' {
		h.dash = true
		i++
	}
	for i < len(p.s) && (p.s[i] == ' ' || p.s[i] == '\t') {
		i++
	}
	w := delimLen(p.s[i:])
	raw := p.s[i : i+w]
	h.quoted = strings.ContainsAny(raw, `'"\`)
	h.delim = strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(raw)
	if w > 0 {
		p.hdocs = append(p.hdocs, h)
	}
	return i + w
}

// delimLen is the length of a here-doc delimiter word: up to an unquoted
// blank or metacharacter.
func delimLen(s string) int {
	var quote byte
	for i := 0; i < len(s); {
		if quote == 0 && strings.IndexByte(" \t\n\r;&|()<>", s[i]) >= 0 {
			return i
		}
		var n int
		quote, n = quoteStep(s, i, quote)
		i += n
	}
	return len(s)
}

// newline consumes the line break at i (LF, CR or CRLF) and then the
// bodies of the here-documents opened on the line just ended, each body
// line a segment of its own. It returns where scanning resumes.
func (p *splitter) newline(i int) int {
	if p.s[i] == '\r' && p.at(i+1) == '\n' {
		i++
	}
	if p.s[i] == '\r' {
		return i + 1 // a lone CR splits but ends no line for here-docs
	}
	i++
	pending := p.hdocs
	p.hdocs = nil
	for _, h := range pending {
		i = p.hdocBody(i, h)
	}
	return i
}

// hdocBody reads one here-doc body from i and returns the offset after its
// delimiter line (or the end of the text).
func (p *splitter) hdocBody(i int, h hdoc) int {
	for i < len(p.s) {
		end := strings.IndexByte(p.s[i:], '\n')
		if end < 0 {
			end = len(p.s)
		} else {
			end += i
		}
		line := p.s[i:end]
		if h.dash {
			line = strings.TrimLeft(line, "\t")
		}
		if line == h.delim {
			return min(end+1, len(p.s))
		}
		n := len(p.segs)
		if p.body == nil {
			p.body = make([]bool, n, n+8) // marked from the first body line on
		}
		p.emit(i, end)
		p.bodyLines += len(p.segs) - n
		if len(p.segs) > n {
			p.body[n] = true
		}
		if !h.quoted {
			p.dquote(i, true)
		}
		i = end + 1
	}
	return len(p.s)
}

// splitForeign splits cmd or PowerShell text on that shell's operators
// and then each piece with the conservative POSIX splitter.
func splitForeign(text string, shell shellcfg.ShellType) Segmentation {
	var pieces []string
	var out Segmentation
	if shell == shellcfg.Cmd {
		pieces = splitCmd(text)
	} else {
		ps := &psSplitter{}
		pieces = ps.split(text, 0)
		out.Unbalanced = ps.bad
	}
	for _, piece := range pieces {
		s := splitPOSIX(piece)
		out.Segments = append(out.Segments, s.Segments...)
		out.Total += s.Total
		out.Unbalanced = out.Unbalanced || s.Unbalanced
	}
	out.Segments = dedupeSegs(out.Segments)
	return out
}

// splitCmd splits cmd.exe text on & && || | and line breaks; "…" quotes
// (up to the end of the line) and ^ escapes the next byte.
func splitCmd(s string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n' || c == '\r':
			// cmd reads line by line: a line break ends any quote.
			out = append(out, s[start:i])
			start, quoted = i+1, false
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '^':
			i++
		case c == '&' && isRedirAmp(s, i):
		case c == '&' || c == '|':
			out = append(out, s[start:i])
			for i+1 < len(s) && strings.IndexByte("&|", s[i+1]) >= 0 {
				i++
			}
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// psSplitter splits PowerShell text on ; | & && || and line breaks;
// '…' (with ” inside), "…" (with backquote escapes) and the here-strings
// @'…'@ and @"…"@ quote; $( … ) and @( … ) bodies are split again as pieces
// of their own. A quote that never closes marks the split unbalanced.
type psSplitter struct{ bad bool }

func (p *psSplitter) split(s string, depth int) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '@' && i+2 < len(s) && (s[i+1] == '\'' || s[i+1] == '"') && (s[i+2] == '\n' || s[i+2] == '\r'):
			i = p.hereString(s, i+1)
		case c == '\'' || c == '"':
			i = p.quoteEnd(s, i+1, c)
		case c == '`':
			i++
		case (c == '$' || c == '@') && i+1 < len(s) && s[i+1] == '(':
			end := psParenEnd(s, i+2)
			p.bad = p.bad || end >= len(s)
			if depth < maxSplitDepth {
				out = append(out, p.split(s[i+2:end], depth+1)...)
			} else {
				p.bad = true
			}
			i = end
		case c == '&' && isRedirAmp(s, i):
		case strings.IndexByte(";|&\r\n", c) >= 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// hereString returns the offset of the '@' closing a here-string whose
// quote is at s[i]: a line starting with the quote and '@'.
func (p *psSplitter) hereString(s string, i int) int {
	end := strings.Index(s[i:], "\n"+string(s[i])+"@")
	if end < 0 {
		p.bad = true
		return len(s) - 1
	}
	return i + end + 2
}

// quoteEnd returns the offset of the closing quote.
func (p *psSplitter) quoteEnd(s string, i int, q byte) int {
	end := psQuoteEnd(s, i, q)
	if end >= len(s) || s[end] != q || end < i {
		p.bad = true
	}
	return end
}

// psQuoteEnd returns the offset of the closing quote (or the last byte).
func psQuoteEnd(s string, i int, q byte) int {
	for ; i < len(s); i++ {
		if q == '"' && s[i] == '`' {
			i++
			continue
		}
		if s[i] == q {
			return i
		}
	}
	return len(s) - 1
}

// psParenEnd returns the offset of the ')' closing a $( or @( body.
func psParenEnd(s string, i int) int {
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '\'', '"':
			i = psQuoteEnd(s, i+1, s[i])
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return len(s)
}

// trimBlanks is strings.Trim(s, " \t"), and trimLeftBlanks
// strings.TrimLeft: byte loops, where Trim builds a byte set per call (a
// blank is one byte, never part of a multi-byte rune).
func trimBlanks(s string) string {
	s = trimLeftBlanks(s)
	j := len(s)
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	return s[:j]
}

func trimLeftBlanks(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[i:]
}
