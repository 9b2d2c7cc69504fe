package surface

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/agentexec/agentexec/exec"
)

// MaxLineBytes is the longest input line [Serve] and the MCP transport
// ([Transport]) accept by default: a longer line is consumed to its end,
// answered with an error and skipped, and the stream goes on.
const MaxLineBytes = 4 << 20

// Line is one newline-delimited input line: a serve request, a check
// --batch request or an MCP message.
type Line struct {
	N       int    // 1-based line number
	Text    []byte // without "\n" (and a CR before it); nil when TooLong
	TooLong bool   // longer than the limit: consumed, not kept
	Size    int64  // the line's length, "\n" excluded, also when TooLong
	// ID is the top-level "id" of an over-size line, when the line is an
	// object whose id is a string or number: the line is not kept, but its
	// answer can still name the request.
	ID json.RawMessage
}

// Blank reports whether a line holds only white space: serve and check
// --batch skip it without an answer.
func (l Line) Blank() bool {
	return !l.TooLong && len(bytes.TrimSpace(l.Text)) == 0
}

// LineReader reads lines of at most a limit each. An over-size line costs
// no more memory than one at the limit: it is read to its end and dropped.
type LineReader struct {
	br  *bufio.Reader
	max int
	n   int
}

// NewLineReader reads lines of at most max bytes from in (max <= 0:
// MaxLineBytes).
func NewLineReader(in io.Reader, max int) *LineReader {
	if max <= 0 {
		max = MaxLineBytes
	}
	return &LineReader{br: bufio.NewReaderSize(in, 64<<10), max: max}
}

// Max is the limit lines are read with.
func (r *LineReader) Max() int { return r.max }

// Next reads one line. A last line without a newline is a line; err is
// io.EOF only when no line is left.
func (r *LineReader) Next() (Line, error) {
	r.n++
	l := Line{N: r.n}
	var ids idScanner
	read := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		read = read || len(chunk) > 0
		body := bytes.TrimSuffix(chunk, []byte("\n"))
		l.Size += int64(len(body))
		switch {
		case l.TooLong:
			ids.feed(body)
		case l.Size > int64(r.max):
			l.TooLong = true
			ids.feed(l.Text)
			ids.feed(body)
			l.Text = nil
		default:
			l.Text = append(l.Text, body...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) && read {
			err = nil
		}
		if l.TooLong {
			l.ID = ids.found()
		} else if bytes.HasSuffix(l.Text, []byte("\r")) {
			l.Text = l.Text[:len(l.Text)-1]
			l.Size--
		}
		return l, err
	}
}

// maxIDBytes bounds the id an over-size line's answer echoes.
const maxIDBytes = 256

// idScanner finds the top-level "id" of a JSON object fed to it in pieces,
// keeping only that value: what an over-size line's answer needs, without
// holding the line. It tracks string and nesting state only; a value it
// cannot vouch for (not a string or number, or too long) is not found.
type idScanner struct {
	depth     int
	inString  bool
	escaped   bool
	inKey     bool // reading a depth-1 key
	expectKey bool // the next depth-1 string is a key
	key       []byte
	capture   bool // reading the value of the depth-1 "id" key
	value     []byte
	overflow  bool
	id        json.RawMessage
}

func (s *idScanner) feed(b []byte) {
	for _, c := range b {
		s.byte(c)
	}
}

func (s *idScanner) byte(c byte) {
	if s.capture && s.depth >= 1 && !(s.depth == 1 && !s.inString && (c == ',' || c == '}')) {
		s.keep(c)
	}
	if s.inString {
		s.stringByte(c)
		return
	}
	switch c {
	case '"':
		s.inString = true
		if s.depth == 1 && s.expectKey {
			s.inKey, s.expectKey, s.key = true, false, s.key[:0]
		}
	case '{', '[':
		s.depth++
		if s.depth == 1 {
			s.expectKey = c == '{'
		}
	case '}', ']':
		if s.depth == 1 {
			s.endValue()
		}
		s.depth--
	case ',':
		if s.depth == 1 {
			s.endValue()
			s.expectKey = true
		}
	case ':':
		if s.depth == 1 && string(s.key) == "id" && !s.capture {
			s.capture, s.value, s.overflow = true, s.value[:0], false
		}
		s.key = s.key[:0]
	}
}

func (s *idScanner) stringByte(c byte) {
	switch {
	case s.escaped:
		s.escaped = false
	case c == '\\':
		s.escaped = true
	case c == '"':
		s.inString, s.inKey = false, false
		return
	}
	if s.inKey && len(s.key) < 8 {
		s.key = append(s.key, c)
	}
}

func (s *idScanner) keep(c byte) {
	if len(s.value) >= maxIDBytes {
		s.overflow = true
		return
	}
	s.value = append(s.value, c)
}

// endValue ends the depth-1 value that was being read.
func (s *idScanner) endValue() {
	if !s.capture {
		return
	}
	s.capture = false
	v := bytes.TrimSpace(s.value)
	if !s.overflow && scalarID(v) {
		s.id = append(json.RawMessage(nil), v...)
	}
}

// found is the id read, or nil.
func (s *idScanner) found() json.RawMessage { return s.id }

// scalarID reports whether v is a JSON string or number: what a JSON-RPC or
// serve id may be echoed as.
func scalarID(v []byte) bool {
	if len(v) == 0 || !json.Valid(v) || exec.CheckJSONText(v) != nil {
		return false
	}
	return v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9')
}
