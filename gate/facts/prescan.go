package facts

import "strings"

// The pre-scan bounds what reaches mvdan's parser, which recurses once per
// nesting level (about 10 KB of stack and heap each) and dies with an
// unrecoverable "stack overflow" near 200,000 levels. It is one linear pass
// over the bytes with a bounded amount of state, so it cannot itself be made
// slow or deep.
//
// It measures two things. depth is the nesting a reader would see: a stack
// of openers popped only by the matching closer, so a stray `}` or `)` in a
// case pattern cannot cancel a real `(`. openers is the total count of
// nesting tokens outside single quotes, which bounds the parser's recursion
// no matter how the closers are read: the parser cannot nest deeper than
// the number of tokens that open a level. A prescanner that disagrees with bash
// about quoting can therefore only over-count.

// Default bounds (the classifier's options may lower or raise them within
// the hard caps).
const (
	// MaxBytes is the longest text the gate parses.
	MaxBytes            = 64 << 10
	defaultMaxDepth     = 256
	defaultMaxOperators = 4096
	openersPerDepth     = 16 // total openers allowed per unit of MaxDepth

	// Hard caps that configuration cannot raise: past them mvdan's parser
	// needs hundreds of megabytes of stack (about 5 KB per level), and
	// near 200,000 levels it dies with an unrecoverable stack overflow.
	hardMaxDepth     = 10000
	hardMaxOpeners   = 20000
	hardMaxOperators = 1 << 16
)

// Bounds is what the pre-scan measured, or the limits it enforces.
type Bounds struct {
	Depth     int // maximum nesting depth seen
	Openers   int // nesting tokens outside single quotes
	Operators int // | & ; and newlines outside quotes
}

// Over reports whether b exceeds the limit in any measure.
func (b Bounds) Over(limit Bounds) bool {
	return b.Depth > limit.Depth || b.Openers > limit.Openers || b.Operators > limit.Operators
}

// Least is the smallest of the bounds. Prescan's counts grow by at most
// one per byte (every opener and operator is at least a byte long), so a
// text no longer than this is within the bounds without a scan — most
// commands are.
func (b Bounds) Least() int { return min(b.Depth, b.Openers, b.Operators) }

type scanState uint8

const (
	scanPlain  scanState = iota
	scanSingle           // '…'
	scanANSI             // $'…' with backslash escapes
	scanDouble           // "…"
)

// prescanner holds the pre-scan's state: the quoting state, the opener stack
// and the here-documents whose bodies start at the next newline.
type prescanner struct {
	text    string
	st      scanState
	stack   []byte
	pending []heredocDelim
	r       Bounds
	limit   Bounds
}

type heredocDelim struct {
	word   string
	quoted bool
	dash   bool
}

// Limits turns configured bounds (0 for the default) into the limits
// Prescan enforces, clamped to the hard caps.
func Limits(maxDepth, maxOps int) Bounds {
	d := min(orDefault(maxDepth, defaultMaxDepth), hardMaxDepth)
	return Bounds{
		Depth:     d,
		Openers:   min(d*openersPerDepth, hardMaxOpeners),
		Operators: min(orDefault(maxOps, defaultMaxOperators), hardMaxOperators),
	}
}

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// Prescan measures text. It stops as soon as a bound is exceeded, so its
// cost is linear and its stack never grows past maxDepth+1 bytes.
func Prescan(text string, limit Bounds) Bounds {
	s := &prescanner{text: text, limit: limit}
	for i := 0; i < len(text) && !s.over(); i++ {
		i = s.step(i)
	}
	return s.r
}

func (s *prescanner) over() bool {
	return s.r.Over(s.limit)
}

// step consumes the token at i and returns the index of its last byte.
func (s *prescanner) step(i int) int {
	c := s.text[i]
	switch s.st {
	case scanSingle:
		if c == '\'' {
			s.st = scanPlain
		}
		return i
	case scanANSI:
		if c == '\\' {
			return i + 1
		}
		if c == '\'' {
			s.st = scanPlain
		}
		return i
	}
	if c == '\\' {
		return i + 1
	}
	if w := s.open(i); w > 0 {
		return i + w - 1
	}
	if w := s.close(i); w > 0 {
		return i + w - 1
	}
	if s.st == scanDouble {
		if c == '"' {
			s.st = scanPlain
		}
		return i
	}
	return s.plain(i)
}

// plain handles quotes, operators, here-documents and keywords outside
// any quote.
func (s *prescanner) plain(i int) int {
	switch c := s.text[i]; c {
	case '\'':
		s.st = scanSingle
		if i > 0 && s.text[i-1] == '$' {
			s.st = scanANSI
		}
	case '"':
		s.st = scanDouble
	case '|', '&', ';':
		s.r.Operators++
	case '\n':
		s.r.Operators++
		return s.bodies(i)
	case '<':
		return s.heredoc(i)
	default:
		return s.keyword(i)
	}
	return i
}

// open pushes a bracket-like opener at i and returns its width, or 0.
func (s *prescanner) open(i int) int {
	t := s.text
	c := t[i]
	next := byte(0)
	if i+1 < len(t) {
		next = t[i+1]
	}
	switch {
	case c == '$' && next == '(':
		s.push(')')
		return 2
	case c == '$' && next == '{':
		s.push('}')
		return 2
	case c == '`':
		if s.top()&0x7f == '`' {
			s.pop()
			return 1
		}
		s.push('`')
		return 1
	case s.st == scanDouble:
		return 0
	case c == '(':
		s.push(')')
		return 1
	case c == '{':
		s.push('}')
		return 1
	case c == '[' && next == '[':
		s.push(']')
		return 2
	}
	return 0
}

// close pops the stack when the closer at i matches its top.
func (s *prescanner) close(i int) int {
	c := s.text[i]
	if c != ')' && c != '}' && c != ']' {
		return 0
	}
	if s.st == scanDouble && c != ')' && c != '}' {
		return 0
	}
	if c == ']' {
		if i+1 >= len(s.text) || s.text[i+1] != ']' {
			return 0
		}
		if s.top() == s.mark(']') {
			s.pop()
		}
		return 2
	}
	if s.top() == s.mark(c) {
		s.pop()
	}
	return 1
}

// mark tags a closer with the quoting state it was opened in, so a `)`
// inside "…" closes only a `$(` opened inside the same quotes.
func (s *prescanner) mark(closer byte) byte {
	if s.st == scanDouble {
		return closer | 0x80
	}
	return closer
}

func (s *prescanner) push(closer byte) {
	s.r.Openers++
	s.stack = append(s.stack, s.mark(closer))
	if len(s.stack) > s.r.Depth {
		s.r.Depth = len(s.stack)
	}
}

func (s *prescanner) top() byte {
	if len(s.stack) == 0 {
		return 0
	}
	return s.stack[len(s.stack)-1]
}

func (s *prescanner) pop() { s.stack = s.stack[:len(s.stack)-1] }

// keyword counts compound-command keywords, which nest without brackets
// (`if if if …`). They push a 'k' popped by fi, done or esac.
// keywordEdge reports a byte that may stand next to a reserved word: a
// blank or an operator.
func keywordEdge(c byte) bool {
	switch c {
	case ' ', '\t', '\n', ';', '|', '&', '(', ')':
		return true
	}
	return false
}

func (s *prescanner) keyword(i int) int {
	t := s.text
	if i > 0 && !keywordEdge(t[i-1]) {
		return i
	}
	j := i
	for j < len(t) && t[j] >= 'a' && t[j] <= 'z' {
		j++
	}
	if j == i {
		return i
	}
	if j < len(t) && !keywordEdge(t[j]) {
		return j - 1
	}
	switch t[i:j] {
	case "if", "while", "until", "case", "for", "select":
		s.push('k')
	case "time", "coproc": // each nests the next pipeline but closes with it
		s.r.Openers++
	case "fi", "done", "esac":
		if s.top() == 'k' {
			s.pop()
		}
	}
	return j - 1
}

// heredoc records a here-document delimiter starting at the `<<` at i.
func (s *prescanner) heredoc(i int) int {
	t := s.text
	if i+1 >= len(t) || t[i+1] != '<' {
		return i
	}
	j := i + 2
	if j < len(t) && t[j] == '<' { // here-string
		return j
	}
	d := heredocDelim{}
	if j < len(t) && t[j] == '-' {
		d.dash = true
		j++
	}
	for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
		j++
	}
	var b strings.Builder
	for ; j < len(t) && !strings.ContainsRune(" \t\n;|&<>()", rune(t[j])); j++ {
		switch t[j] {
		case '\'', '"', '\\':
			d.quoted = true
		default:
			b.WriteByte(t[j])
		}
	}
	d.word = b.String()
	s.pending = append(s.pending, d)
	return j - 1
}

// bodies skips the pending here-document bodies after the newline at i.
// A body with an unquoted delimiter is live: its `$(`, `${` and backquotes
// count as openers, but its brackets never close anything outside it.
func (s *prescanner) bodies(i int) int {
	for len(s.pending) > 0 && !s.over() {
		d := s.pending[0]
		s.pending = s.pending[1:]
		i = s.body(i, d)
	}
	return i
}

// body consumes lines after i up to and including the delimiter line, and
// returns the index of that line's newline (or the last byte).
func (s *prescanner) body(i int, d heredocDelim) int {
	t := s.text
	for start := i + 1; start < len(t); {
		end := strings.IndexByte(t[start:], '\n')
		if end < 0 {
			end = len(t)
		} else {
			end += start
		}
		line := t[start:end]
		if d.dash {
			line = strings.TrimLeft(line, "\t")
		}
		if line == d.word {
			return end
		}
		if !d.quoted {
			s.r.Openers += strings.Count(line, "$(") + strings.Count(line, "${") +
				strings.Count(line, "`")
		}
		start = end + 1
	}
	return len(t) - 1
}
