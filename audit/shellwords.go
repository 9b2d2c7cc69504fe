package audit

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentexec/agentexec/gate/facts"
)

// span is a byte range [start, end) of a text.
type span struct{ start, end int }

// opaque stands in a word's value for a part whose value is only known
// when the command runs ($x, $(cmd), $((1+2))): rules see that something
// is there, and a secret range reaching over it replaces it too.
const opaque = 0

// word is one shell word as the shell reads it: its value (quotes removed,
// escapes resolved, an expansion as one opaque byte) and, for each byte of
// the value, the bytes of the text it came from. A secret found in the
// value is replaced in the text with the quoting around it kept, however
// the word was spelled: 'a b', "a b", a\ b.
type word struct {
	value string
	src   []span // per byte of value; nil when the word is plain
	part  []int  // per byte of value: the index of its part in parts
	parts []wordPart
	// plain: the value is the text at byte at, byte for byte (no escape;
	// a word of one literal, or of one single-quoted string), so src, part
	// and parts are implied, not stored: most words are plain, and a map
	// per byte costs 24 bytes per byte.
	plain bool
	at    int
}

// wordPart is one top-level part of a word: where it is and whether it is
// quoted (a range must not cut its quotes apart).
type wordPart struct {
	span
	quoted bool
}

// literalWord is a word whose text is its value: an argv element, or a
// word of text that did not parse.
func literalWord(s string, at int) word {
	return word{value: s, plain: true, at: at}
}

// wordOf reads a parsed word of text.
func wordOf(text string, sw *syntax.Word) word {
	if len(sw.Parts) == 1 {
		if x, ok := sw.Parts[0].(*syntax.Lit); ok && strings.IndexByte(x.Value, '\\') < 0 {
			if at := int(x.Pos().Offset()); at >= 0 && at+len(x.Value) <= len(text) && text[at:at+len(x.Value)] == x.Value {
				return literalWord(x.Value, at)
			}
		}
		if x, ok := sw.Parts[0].(*syntax.SglQuoted); ok && !x.Dollar {
			// 'v': the value is the text inside the quotes.
			at := int(x.Pos().Offset()) + 1
			if end := int(x.End().Offset()); at > 0 && at+len(x.Value) == end-1 && end <= len(text) && text[at:at+len(x.Value)] == x.Value {
				return word{value: x.Value, plain: true, at: at}
			}
		}
	}
	var w word
	var b strings.Builder
	// Not presized by the word's span: a word that is one substitution
	// spans all the text inside it but has a one-byte value, and sizing
	// every level of a deep nest by its span is quadratic.
	for _, p := range sw.Parts {
		ps := span{int(p.Pos().Offset()), int(p.End().Offset())}
		idx := len(w.parts)
		emit := func(c byte, s span) {
			b.WriteByte(c)
			w.src = append(w.src, s)
			w.part = append(w.part, idx)
		}
		switch x := p.(type) {
		case *syntax.Lit:
			w.parts = append(w.parts, wordPart{span: ps})
			rawLit(text, ps.start, x.Value, ps, false, emit)
		case *syntax.SglQuoted:
			w.parts = append(w.parts, wordPart{span: ps, quoted: true})
			if x.Dollar {
				ansiC(text, ps.start+2, x.Value, ps, emit)
			} else {
				verbatim(text, ps.start+1, x.Value, ps, emit)
			}
		case *syntax.DblQuoted:
			w.parts = append(w.parts, wordPart{span: ps, quoted: true})
			dblQuoted(text, x, ps, emit)
		default:
			w.parts = append(w.parts, wordPart{span: ps})
			emit(opaque, ps)
		}
	}
	w.value = b.String()
	return w
}

// dblQuoted reads the parts inside double quotes.
func dblQuoted(text string, x *syntax.DblQuoted, whole span, emit func(byte, span)) {
	for _, p := range x.Parts {
		ps := span{int(p.Pos().Offset()), int(p.End().Offset())}
		if l, ok := p.(*syntax.Lit); ok {
			rawLit(text, ps.start, l.Value, ps, true, emit)
		} else {
			emit(opaque, ps)
		}
	}
}

// rawLit emits the value of a literal whose source starts at at, resolving
// backslashes as the shell does (inside double quotes only before $ ` " \).
// When the text at at is not the literal's value (the parser dropped a
// line continuation) every byte maps to the whole part: a secret there is
// replaced with the part, never half of it.
func rawLit(text string, at int, v string, part span, dquoted bool, emit func(byte, span)) {
	if at < 0 || at+len(v) > len(text) || text[at:at+len(v)] != v {
		for i := 0; i < len(v); i++ {
			emit(v[i], part)
		}
		return
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) && (!dquoted || strings.IndexByte("$`\"\\\n", v[i+1]) >= 0) {
			if v[i+1] != '\n' {
				emit(v[i+1], span{at + i, at + i + 2})
			}
			i++
			continue
		}
		emit(c, span{at + i, at + i + 1})
	}
}

// verbatim emits a single-quoted value byte for byte.
func verbatim(text string, at int, v string, part span, emit func(byte, span)) {
	if at < 0 || at+len(v) > len(text) || text[at:at+len(v)] != v {
		for i := 0; i < len(v); i++ {
			emit(v[i], part)
		}
		return
	}
	for i := 0; i < len(v); i++ {
		emit(v[i], span{at + i, at + i + 1})
	}
}

// ansiC emits the value of $'...', resolving its escapes as bash does
// (\n, \t, \xHH, \nnn, \uHHHH, \cX ...); each byte maps to its whole
// escape.
func ansiC(text string, at int, v string, part span, emit func(byte, span)) {
	if at < 0 || at+len(v) > len(text) || text[at:at+len(v)] != v {
		verbatim(text, -1, v, part, emit)
		return
	}
	for i := 0; i < len(v); {
		out, n := ansiEscape(v[i:])
		for _, c := range []byte(out) {
			emit(c, span{at + i, at + i + n})
		}
		i += n
	}
}

// ansiEscape decodes the escape (or plain byte) at the start of s and
// returns its value and length.
func ansiEscape(s string) (string, int) {
	if s[0] != '\\' || len(s) == 1 {
		return s[:1], 1
	}
	if c := ansiSimple[s[1]]; c != 0 {
		return string(c), 2
	}
	switch c := s[1]; {
	case c >= '0' && c <= '7':
		return numEscape(s, 1, 3, 8)
	case c == 'x':
		return numEscape(s, 2, 2, 16)
	case c == 'u':
		return numEscape(s, 2, 4, 16)
	case c == 'U':
		return numEscape(s, 2, 8, 16)
	case c == 'c' && len(s) > 2:
		return string(s[2] & 0x1f), 3
	}
	return s[:2], 2
}

// ansiSimple are the one-letter escapes of $'...' by letter (0: none). An
// array literal is static data.
var ansiSimple = [256]byte{'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'n': 10, 'r': 13, 't': 9, 'v': 11, '\\': '\\', '\'': '\'', '"': '"', '?': '?'}

// numEscape reads up to max digits of base from s[from:]: \nnn and \xHH
// are a byte, \u and \U a character.
func numEscape(s string, from, max, base int) (string, int) {
	n, r := from, rune(0)
	for ; n < len(s) && n < from+max; n++ {
		d := strings.IndexByte("0123456789abcdef"[:base], s[n]|0x20)
		if s[n] >= '0' && s[n] <= '9' {
			d = int(s[n] - '0')
		}
		if d < 0 || d >= base {
			break
		}
		r = r*rune(base) + rune(d)
	}
	if n == from {
		return s[:from], from
	}
	if s[1] == 'u' || s[1] == 'U' {
		return string(r), n
	}
	return string([]byte{byte(r)}), n
}

// source is the text to replace for the value bytes [from, to): from the
// first byte's source to the last's, widened to whole quoted parts when it
// spans several parts, so the quoting stays balanced.
func (w word) source(from, to int) span {
	if w.plain {
		return span{w.at + from, w.at + to}
	}
	s := span{w.src[from].start, w.src[to-1].end}
	if first, last := w.part[from], w.part[to-1]; first != last {
		if w.parts[first].quoted {
			s.start = w.parts[first].start
		}
		if w.parts[last].quoted {
			s.end = w.parts[last].end
		}
	}
	return s
}

// parsers reuses shell parsers, which are not safe for concurrent use.
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.KeepComments(true)) }}

// parse reads text as bash, the shell whose grammar the gate reads,
// within the gate's bounds: longer or deeper text (whose parse would cost
// hundreds of megabytes of stack) is an error, so it is read word by word.
func parse(text string) (f *syntax.File, err error) {
	if len(text) > facts.MaxBytes {
		return nil, facts.ErrTooLong
	}
	if lim := facts.Limits(0, 0); facts.Prescan(text, lim).Over(lim) {
		return nil, facts.ErrTooDeep
	}
	p := parsers.Get().(*syntax.Parser)
	defer func() {
		if r := recover(); r != nil {
			// A parser that panicked may hold broken state: not reused.
			f, err = nil, fmt.Errorf("parser panic: %v", r)
			return
		}
		parsers.Put(p)
	}()
	return p.Parse(strings.NewReader(text), "")
}

// splice replaces each span of text with Redacted. Overlapping spans
// merge: a secret inside a substitution inside a secret goes with it.
func splice(text string, spans []span) string {
	if len(spans) == 0 {
		return text
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	last := 0
	for i := 0; i < len(spans); i++ {
		s := spans[i]
		for i+1 < len(spans) && spans[i+1].start < s.end {
			i++
			s.end = max(s.end, spans[i].end)
		}
		if s.start < last || s.start >= s.end {
			continue
		}
		b.WriteString(text[last:s.start])
		b.WriteString(Redacted)
		last = s.end
	}
	b.WriteString(text[last:])
	return b.String()
}
