// Package jsonpos reads JSON while keeping where every value is, so that
// policy loaders can name the line of a rule and the line and column of a
// syntax error, and check keys against a schema with the file's own order.
//
// It accepts strict JSON (RFC 8259) and, when asked, the comments that
// Gemini CLI settings and agentexec policies allow (// to the end of the
// line and /* … */), which are blanked to spaces so offsets stay true.
package jsonpos

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is the JSON type of a Value.
type Kind int

// The kinds of JSON values.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// String names the kind in the words error messages use.
func (k Kind) String() string {
	return [...]string{"null", "true or false", "a number", "a string", "a list", "an object"}[k]
}

// Value is one JSON value and where it starts in the data.
type Value struct {
	Kind    Kind
	Offset  int    // byte offset of the value's first byte
	End     int    // byte offset just past the value
	Str     string // String: the decoded text
	Raw     string // Number: the literal; Bool: "true" or "false"
	Members []Member
	Items   []*Value
}

// Member is one key of an object, in file order.
type Member struct {
	Key       string
	KeyOffset int
	Value     *Value
}

// Get returns the member key of an object (nil when absent or v is not an
// object). With duplicate keys the last wins, as encoding/json does.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	var found *Value
	for _, m := range v.Members {
		if m.Key == key {
			found = m.Value
		}
	}
	return found
}

// Bytes is v's canonical JSON, for decoding it with encoding/json.
func (v *Value) Bytes() []byte {
	var b strings.Builder
	v.write(&b)
	return []byte(b.String())
}

func (v *Value) write(b *strings.Builder) {
	switch v.Kind {
	case Null:
		b.WriteString("null")
	case Bool, Number:
		b.WriteString(v.Raw)
	case String:
		q, _ := json.Marshal(v.Str)
		b.Write(q)
	case Array:
		b.WriteByte('[')
		for i, it := range v.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			it.write(b)
		}
		b.WriteByte(']')
	case Object:
		b.WriteByte('{')
		for i, m := range v.Members {
			if i > 0 {
				b.WriteByte(',')
			}
			q, _ := json.Marshal(m.Key)
			b.Write(q)
			b.WriteByte(':')
			m.Value.write(b)
		}
		b.WriteByte('}')
	}
}

// SyntaxError is a JSON syntax error at a line and column (both 1-based,
// the column counted in characters).
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Options say which extensions of JSON a Parse accepts.
type Options struct {
	Comments bool // // and /* */ comments
}

// Parse reads one JSON document.
func Parse(data []byte, opt Options) (*Value, error) {
	p := &parser{data: data, opt: opt}
	p.skip()
	if p.err != nil {
		return nil, p.err
	}
	if p.i >= len(data) {
		return nil, p.fail(p.i, "the file is empty; want a JSON object")
	}
	v := p.value(0)
	if p.err != nil {
		return nil, p.err
	}
	p.skip()
	if p.err == nil && p.i < len(data) {
		p.fail(p.i, "unexpected text after the end of the JSON document")
	}
	if p.err != nil {
		return nil, p.err
	}
	return v, nil
}

// LineCol turns a byte offset into a 1-based line and column.
func LineCol(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	line = 1 + strings.Count(string(data[:off]), "\n")
	start := strings.LastIndexByte(string(data[:off]), '\n') + 1
	return line, 1 + utf8.RuneCount(data[start:off])
}

// Line is LineCol's line alone.
func Line(data []byte, off int) int {
	l, _ := LineCol(data, off)
	return l
}

// maxDepth bounds nesting so that a hostile file cannot exhaust the stack.
const maxDepth = 200

type parser struct {
	data []byte
	i    int
	opt  Options
	err  error
}

func (p *parser) fail(off int, format string, args ...any) error {
	if p.err == nil {
		l, c := LineCol(p.data, off)
		p.err = &SyntaxError{Line: l, Column: c, Msg: fmt.Sprintf(format, args...)}
	}
	return p.err
}

// skip passes blanks and, when allowed, comments.
func (p *parser) skip() {
	for p.i < len(p.data) {
		switch c := p.data[p.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		case c == '/' && p.i+1 < len(p.data) && (p.data[p.i+1] == '/' || p.data[p.i+1] == '*'):
			if !p.opt.Comments {
				p.fail(p.i, "comments are not allowed in this file")
				return
			}
			p.comment()
		default:
			return
		}
	}
}

func (p *parser) comment() {
	if p.data[p.i+1] == '/' {
		end := strings.IndexByte(string(p.data[p.i:]), '\n')
		if end < 0 {
			p.i = len(p.data)
			return
		}
		p.i += end
		return
	}
	end := strings.Index(string(p.data[p.i+2:]), "*/")
	if end < 0 {
		p.fail(p.i, "unterminated /* comment")
		p.i = len(p.data)
		return
	}
	p.i += end + 4
}

func (p *parser) value(depth int) *Value {
	v := p.value0(depth)
	if v != nil {
		v.End = p.i
	}
	return v
}

func (p *parser) value0(depth int) *Value {
	if depth > maxDepth {
		p.fail(p.i, "nested more than %d levels deep", maxDepth)
		return nil
	}
	if p.i >= len(p.data) {
		p.fail(p.i, "unexpected end of the file; want a value")
		return nil
	}
	start := p.i
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s := p.str()
		return &Value{Kind: String, Offset: start, Str: s}
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	for _, lit := range []struct {
		word string
		kind Kind
	}{{"true", Bool}, {"false", Bool}, {"null", Null}} {
		if strings.HasPrefix(string(p.data[p.i:]), lit.word) {
			p.i += len(lit.word)
			return &Value{Kind: lit.kind, Offset: start, Raw: lit.word}
		}
	}
	p.fail(p.i, "unexpected %s; want a value", p.describe())
	return nil
}

// describe names the character at the cursor for an error message.
func (p *parser) describe() string {
	if p.i >= len(p.data) {
		return "end of the file"
	}
	r, _ := utf8.DecodeRune(p.data[p.i:])
	return strconv.QuoteRune(r)
}

func (p *parser) object(depth int) *Value {
	v := &Value{Kind: Object, Offset: p.i}
	p.i++
	p.skip()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return v
	}
	for p.err == nil {
		p.skip()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			if p.i < len(p.data) && p.data[p.i] == '}' {
				p.fail(p.i, "a comma before the closing brace: remove the trailing comma")
			} else {
				p.fail(p.i, "unexpected %s; want a quoted key", p.describe())
			}
			return nil
		}
		koff := p.i
		key := p.str()
		p.skip()
		if p.err != nil {
			return nil
		}
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			p.fail(p.i, "unexpected %s after the key %q; want ':'", p.describe(), key)
			return nil
		}
		p.i++
		p.skip()
		val := p.value(depth + 1)
		if p.err != nil {
			return nil
		}
		v.Members = append(v.Members, Member{Key: key, KeyOffset: koff, Value: val})
		p.skip()
		if p.err != nil {
			return nil
		}
		if p.i < len(p.data) && p.data[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.data) && p.data[p.i] == '}' {
			p.i++
			return v
		}
		p.fail(p.i, "unexpected %s; want ',' or '}'", p.describe())
	}
	return nil
}

func (p *parser) array(depth int) *Value {
	v := &Value{Kind: Array, Offset: p.i}
	p.i++
	p.skip()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return v
	}
	for p.err == nil {
		p.skip()
		if p.i < len(p.data) && p.data[p.i] == ']' {
			p.fail(p.i, "a comma before the closing bracket: remove the trailing comma")
			return nil
		}
		it := p.value(depth + 1)
		if p.err != nil {
			return nil
		}
		v.Items = append(v.Items, it)
		p.skip()
		if p.err != nil {
			return nil
		}
		if p.i < len(p.data) && p.data[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.data) && p.data[p.i] == ']' {
			p.i++
			return v
		}
		p.fail(p.i, "unexpected %s; want ',' or ']'", p.describe())
	}
	return nil
}

// str reads a quoted string, using encoding/json for the escapes.
func (p *parser) str() string {
	start := p.i
	p.i++
	for p.i < len(p.data) {
		switch c := p.data[p.i]; {
		case c == '\\':
			p.i += 2
		case c == '"':
			p.i++
			var s string
			if err := json.Unmarshal(p.data[start:p.i], &s); err != nil {
				p.fail(start, "bad string: %v", strings.TrimPrefix(err.Error(), "invalid character "))
			}
			return s
		case c < 0x20:
			p.fail(p.i, "a control character (a line break?) inside a string")
			return ""
		default:
			p.i++
		}
	}
	p.fail(start, "unterminated string")
	return ""
}

func (p *parser) number() *Value {
	start := p.i
	for p.i < len(p.data) && strings.IndexByte("+-0123456789.eE", p.data[p.i]) >= 0 {
		p.i++
	}
	raw := string(p.data[start:p.i])
	if !json.Valid([]byte(raw)) {
		p.fail(start, "bad number %q", raw)
	}
	return &Value{Kind: Number, Offset: start, Raw: raw}
}

// ItemsOrNil returns an array's items, nil for anything else (or nil v).
func (v *Value) ItemsOrNil() []*Value {
	if v == nil || v.Kind != Array {
		return nil
	}
	return v.Items
}
