package hook

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A settings file is edited as text, so that everything hook install does
// not touch — key order, indentation, comments (Crush and Gemini read
// JSON with comments), trailing commas — stays byte for byte. jnode is one
// parsed value with its byte span.
type jnode struct {
	kind       byte // '{', '[', '"', or 'v' for any other scalar
	start, end int  // the value's bytes are text[start:end]
	members    []jmember
	elems      []*jnode
	str        string // the decoded value of a string
}

type jmember struct {
	key      string
	keyStart int // offset of the key's opening quote
	val      *jnode
}

type jparser struct {
	text string
	pos  int
}

// parseJSONText parses one JSON value (comments and trailing commas
// allowed) filling the whole text but for blanks and comments.
func parseJSONText(text string) (*jnode, error) {
	p := &jparser{text: text}
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.blank(); err != nil {
		return nil, err
	}
	if p.pos != len(p.text) {
		return nil, p.errorf("unexpected %q after the JSON value", p.text[p.pos])
	}
	return n, nil
}

func (p *jparser) errorf(format string, a ...any) error {
	line := 1 + strings.Count(p.text[:min(p.pos, len(p.text))], "\n")
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, a...))
}

// blank skips white space and // and /* */ comments.
func (p *jparser) blank() error {
	for p.pos < len(p.text) {
		switch c := p.text[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case strings.HasPrefix(p.text[p.pos:], "//"):
			if i := strings.IndexByte(p.text[p.pos:], '\n'); i >= 0 {
				p.pos += i + 1
			} else {
				p.pos = len(p.text)
			}
		case strings.HasPrefix(p.text[p.pos:], "/*"):
			i := strings.Index(p.text[p.pos+2:], "*/")
			if i < 0 {
				return p.errorf("unterminated /* comment")
			}
			p.pos += i + 4
		default:
			return nil
		}
	}
	return nil
}

const maxDepth = 200

func (p *jparser) value(depth int) (*jnode, error) {
	if depth > maxDepth {
		return nil, p.errorf("nested too deeply")
	}
	if err := p.blank(); err != nil {
		return nil, err
	}
	if p.pos >= len(p.text) {
		return nil, p.errorf("unexpected end of the file")
	}
	switch p.text[p.pos] {
	case '{':
		return p.object(depth)
	case '[':
		return p.array(depth)
	case '"':
		return p.string()
	}
	return p.scalar()
}

func (p *jparser) object(depth int) (*jnode, error) {
	n := &jnode{kind: '{', start: p.pos}
	p.pos++
	for {
		if err := p.blank(); err != nil {
			return nil, err
		}
		if p.pos < len(p.text) && p.text[p.pos] == '}' {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		if p.pos >= len(p.text) || p.text[p.pos] != '"' {
			return nil, p.errorf("want a key or }")
		}
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		if err := p.blank(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.text) || p.text[p.pos] != ':' {
			return nil, p.errorf("want : after the key %q", k.str)
		}
		p.pos++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, jmember{key: k.str, keyStart: k.start, val: v})
		if err := p.comma('}'); err != nil {
			return nil, err
		}
	}
}

func (p *jparser) array(depth int) (*jnode, error) {
	n := &jnode{kind: '[', start: p.pos}
	p.pos++
	for {
		if err := p.blank(); err != nil {
			return nil, err
		}
		if p.pos < len(p.text) && p.text[p.pos] == ']' {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		if err := p.comma(']'); err != nil {
			return nil, err
		}
	}
}

// comma consumes the "," after a member or element, or leaves the closer.
func (p *jparser) comma(closer byte) error {
	if err := p.blank(); err != nil {
		return err
	}
	if p.pos < len(p.text) && p.text[p.pos] == ',' {
		p.pos++
		return nil
	}
	if p.pos < len(p.text) && p.text[p.pos] == closer {
		return nil
	}
	return p.errorf("want , or %c", closer)
}

func (p *jparser) string() (*jnode, error) {
	n := &jnode{kind: '"', start: p.pos}
	i := p.pos + 1
	for i < len(p.text) && p.text[i] != '"' {
		if p.text[i] == '\\' {
			i++
		}
		i++
	}
	if i >= len(p.text) {
		return nil, p.errorf("unterminated string")
	}
	p.pos = i + 1
	n.end = p.pos
	if err := json.Unmarshal([]byte(p.text[n.start:n.end]), &n.str); err != nil {
		return nil, p.errorf("bad string: %v", err)
	}
	return n, nil
}

func (p *jparser) scalar() (*jnode, error) {
	n := &jnode{kind: 'v', start: p.pos}
	for p.pos < len(p.text) && strings.IndexByte(" \t\r\n,]}/", p.text[p.pos]) < 0 {
		p.pos++
	}
	n.end = p.pos
	var v any
	if n.end == n.start || json.Unmarshal([]byte(p.text[n.start:n.end]), &v) != nil {
		return nil, p.errorf("bad value %q", p.text[n.start:n.end])
	}
	return n, nil
}

// member returns the value of key in an object node, or nil.
func (n *jnode) member(key string) (*jmember, int) {
	if n == nil || n.kind != '{' {
		return nil, -1
	}
	for i := range n.members {
		if n.members[i].key == key {
			return &n.members[i], i
		}
	}
	return nil, -1
}
