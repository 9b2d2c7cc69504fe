package surface

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentexec/agentexec/exec"
)

// Transport is the stdio transport of agentexec's MCP server: the SDK's
// newline-delimited JSON transport ([mcp.IOTransport]) behind a filter that
// answers, itself, every line the SDK would end the session over. One bad
// message costs that message, never the calls in flight:
//
//   - a line over MaxLineBytes is read to its end without being kept and
//     answered "message too large" (JSON-RPC -32600);
//   - text that is not valid Unicode is answered with the byte offset
//     (-32700), since decoding would run other bytes than were sent;
//   - a line that is not JSON is answered as a parse error (-32700);
//   - JSON that is not a JSON-RPC 2.0 message, or a batch (which MCP
//     dropped in 2025-06-18), is answered as an invalid request (-32600).
//
// An answer carries the message's id when it can be read (also from an
// over-size line), else null, as JSON-RPC asks; a bad notification (a
// "method" and no "id") is logged and dropped, since a notification is
// never answered. Blank lines are skipped. Everything else reaches the
// SDK unchanged.
type Transport struct {
	In  io.Reader
	Out io.Writer // not closed when the session ends
	// MaxLineBytes bounds one message (<= 0: MaxLineBytes).
	MaxLineBytes int
	// Logger receives what was refused; nil discards it.
	Logger *slog.Logger
}

// Connect starts the filter and returns the SDK's connection reading from
// it. It implements [mcp.Transport]; a Transport is connected once.
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	pr, pw := io.Pipe()
	out := &lockedWriter{w: t.Out}
	f := &filter{lines: NewLineReader(t.In, t.MaxLineBytes), to: pw, out: out, log: t.Logger}
	if f.log == nil {
		f.log = slog.New(slog.DiscardHandler)
	}
	go f.run()
	inner := &mcp.IOTransport{Reader: pr, Writer: out, MaxLineLength: -1} // lines are bounded here
	return inner.Connect(ctx)
}

// lockedWriter writes one message at a time: the SDK's answers and the
// filter's never interleave. Close does not close the stream beneath.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// filter passes good lines to the SDK and answers bad ones.
type filter struct {
	lines *LineReader
	to    *io.PipeWriter
	out   io.Writer
	log   *slog.Logger
}

// run filters until the input ends (the SDK then sees EOF), fails, or the
// SDK closes its end.
func (f *filter) run() {
	for {
		l, err := f.lines.Next()
		if errors.Is(err, io.EOF) {
			f.to.Close()
			return
		}
		if err != nil {
			f.to.CloseWithError(err)
			return
		}
		if err := f.line(l); err != nil {
			f.to.CloseWithError(err)
			return
		}
	}
}

// line forwards one line or answers it.
func (f *filter) line(l Line) error {
	if l.Blank() {
		return nil
	}
	bad := checkMessage(l, f.lines.Max())
	if bad == nil {
		_, err := f.to.Write(append(l.Text, '\n'))
		return err
	}
	if bad.notification {
		f.log.Warn("dropped a malformed notification", "line", l.N, "error", bad.message)
		return nil
	}
	f.log.Warn("refused a message", "line", l.N, "id", string(bad.id), "error", bad.message)
	_, err := f.out.Write(errorResponse(bad))
	return err
}

// badMessage is why a line does not reach the SDK, and how it is answered.
type badMessage struct {
	id           json.RawMessage // nil: null
	code         int64
	message      string
	notification bool // a notification: never answered
}

// checkMessage returns why l must not reach the SDK, or nil.
func checkMessage(l Line, max int) *badMessage {
	if l.TooLong {
		return &badMessage{id: l.ID, code: jsonrpc.CodeInvalidRequest,
			message: fmt.Sprintf("message too large: line %d has %d bytes, over the limit of %d (--max-line-bytes); not processed", l.N, l.Size, max)}
	}
	var ids idScanner
	ids.feed(l.Text)
	b := &badMessage{id: ids.found(), notification: ids.found() == nil && isNotification(l.Text)}
	switch err := exec.CheckJSONText(l.Text); {
	case err != nil:
		b.code, b.message = jsonrpc.CodeParseError, fmt.Sprintf("line %d: %v; not processed", l.N, err)
	case !json.Valid(l.Text):
		b.code, b.message = jsonrpc.CodeParseError, fmt.Sprintf("line %d: not JSON: %s", l.N, syntaxText(l.Text))
	case bytes.HasPrefix(bytes.TrimSpace(l.Text), []byte("[")):
		b.code, b.message = jsonrpc.CodeInvalidRequest, fmt.Sprintf("line %d: a batch (JSON array) of messages is not supported; send one message per line", l.N)
	default:
		if _, err := jsonrpc.DecodeMessage(l.Text); err != nil {
			b.code, b.message = jsonrpc.CodeInvalidRequest, fmt.Sprintf(`line %d: not a JSON-RPC 2.0 message (want an object with "jsonrpc": "2.0", a "method" or a "result" or "error", and a string or number "id")`, l.N)
			return b
		}
		return nil
	}
	return b
}

// syntaxText is the decoder's complaint about text, with its offset.
func syntaxText(text []byte) string {
	var v any
	err := json.Unmarshal(text, &v)
	if err == nil {
		return "more than one JSON value"
	}
	return exec.JSONErrorText(err)
}

// isNotification reports whether text is an object with a "method" and no
// "id" key, read leniently: it may be otherwise broken.
func isNotification(text []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(text, &m) != nil {
		return false
	}
	_, hasMethod := m["method"]
	_, hasID := m["id"]
	return hasMethod && !hasID
}

// errorResponse is a JSON-RPC error response line for b.
func errorResponse(b *badMessage) []byte {
	id := b.id
	if id == nil {
		id = json.RawMessage("null")
	}
	line, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: b.code, Message: b.message}})
	return append(line, '\n')
}

// ServeMCPError answers every request read from in with a JSON-RPC error
// carrying err, until in ends: how `agentexec mcp` reports a server it
// could not build (a malformed policy, say) to a client that shows
// initialization errors, rather than as a closed connection with the cause
// on stderr only. Notifications are not answered.
func ServeMCPError(in io.Reader, out io.Writer, err error) error {
	lines := NewLineReader(in, 0)
	msg := fmt.Sprintf("agentexec cannot serve: %v; fix it and restart the server", err)
	for {
		l, rerr := lines.Next()
		if errors.Is(rerr, io.EOF) {
			return nil
		}
		if rerr != nil {
			return rerr
		}
		var ids idScanner
		ids.feed(l.Text)
		if l.Blank() || (ids.found() == nil && isNotification(l.Text)) {
			continue
		}
		b := &badMessage{id: ids.found(), code: jsonrpc.CodeInternalError, message: msg}
		if l.TooLong {
			b.id = l.ID
		}
		if _, werr := out.Write(errorResponse(b)); werr != nil {
			return werr
		}
	}
}
