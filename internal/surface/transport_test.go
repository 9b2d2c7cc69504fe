package surface

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentexec/agentexec/exec"
	"github.com/agentexec/agentexec/gate"
)

// rawSession drives an MCP server over a real Transport, line by line, as
// a client process would over stdio.
type rawSession struct {
	t    *testing.T
	in   *io.PipeWriter
	got  chan rawMessage
	done chan error
}

// rawMessage is one line the server wrote.
type rawMessage struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	line string
}

func startRaw(t *testing.T, r *exec.Runner, max int) *rawSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &rawSession{t: t, in: inW, got: make(chan rawMessage, 100), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	srv := NewMCPServer(r, MCPOptions{Version: "test"})
	go func() {
		s.done <- srv.Run(ctx, &Transport{In: inR, Out: outW, MaxLineBytes: max})
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m rawMessage
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("the server wrote a line that is not JSON: %q", sc.Bytes())
				continue
			}
			m.line = sc.Text()
			s.got <- m
		}
		close(s.got)
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
	})
	return s
}

func (s *rawSession) send(line []byte) {
	s.t.Helper()
	if _, err := s.in.Write(append(line, '\n')); err != nil {
		s.t.Fatalf("the server stopped reading: %v", err)
	}
}

// next returns the next message the server wrote, failing after a minute.
func (s *rawSession) next() rawMessage {
	s.t.Helper()
	select {
	case m, ok := <-s.got:
		if !ok {
			s.t.Fatalf("the server closed its output (it ended: %v)", <-s.done)
		}
		return m
	case <-time.After(time.Minute):
		s.t.Fatal("no answer within a minute")
	}
	return rawMessage{}
}

// until reads messages until one has the id, returning it and the rest.
func (s *rawSession) until(id string) (rawMessage, []rawMessage) {
	s.t.Helper()
	var others []rawMessage
	for {
		m := s.next()
		if string(m.ID) == id {
			return m, others
		}
		others = append(others, m)
	}
}

func (s *rawSession) initialize() {
	s.t.Helper()
	s.send([]byte(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`))
	if m, _ := s.until(`"init"`); m.Error != nil {
		s.t.Fatalf("initialize: %s", m.line)
	}
	s.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`))
}

func toolCall(id, command string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "tools/call",
		"params": map[string]any{"name": ToolRunCommand, "arguments": map[string]any{"command": command}}})
	return b
}

// TestTransportBadMessages: every bad message is answered under its id
// (null when it cannot be read) with the JSON-RPC code for what is wrong,
// nothing of it runs, and the session goes on serving.
func TestTransportBadMessages(t *testing.T) {
	r := testRunner(t, gate.ModeYolo, gate.Permissions{})
	s := startRaw(t, r, 1<<10)
	s.initialize()
	tests := []struct {
		line    []byte
		id      string // "" for no answer
		code    int64
		message string
	}{
		{[]byte(`not json`), "null", -32700, "line 3: not JSON: invalid JSON at byte 2"},
		{[]byte("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"run_command\",\"arguments\":{\"command\":\"echo \xff > made\"}}}"), "5", -32700, "line 4: byte 106: invalid UTF-8 (send text as UTF-8); not processed"},
		{toolCall(`"big"`, "echo "+strings.Repeat("a", 2<<10)), `"big"`, -32600, "message too large: line 5 has 2162 bytes, over the limit of 1024"},
		{[]byte(strings.Repeat("x", 3<<10)), "null", -32600, "message too large"},
		{[]byte(`[{"jsonrpc":"2.0","id":7,"method":"ping"}]`), "null", -32600, "a batch (JSON array) of messages is not supported"},
		{[]byte(`{"id":8,"method":"ping"}`), "8", -32600, "not a JSON-RPC 2.0 message"},
		{[]byte(`{"jsonrpc":"2.0","id":9,"method":"ping"`), "9", -32700, "the text ends before the value does"},
		{[]byte(`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`), "null", -32600, "not a JSON-RPC 2.0 message"},
		{[]byte(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"echo \udc00 > made"}}}`), "10", -32700, `a \u escape names half of a UTF-16 surrogate pair`},
		{[]byte("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"params\":{\"a\":\"\xc0\"}}"), "", 0, ""},
		{[]byte("  \t"), "", 0, ""},
	}
	for _, tt := range tests {
		s.send(tt.line)
	}
	// Everything the filter refused was answered in order, before the
	// next good message.
	s.send(toolCall("99", "echo ok"))
	last, refused := s.until("99")
	if !strings.Contains(string(last.Result), `ok\n`) {
		t.Errorf("echo ok after the bad messages: %s", last.line)
	}
	var want []string
	for _, tt := range tests {
		if tt.id != "" {
			want = append(want, tt.id)
		}
	}
	if len(refused) != len(want) {
		t.Fatalf("%d answers to the bad messages, want %d: %v", len(refused), len(want), refused)
	}
	i := 0
	for _, tt := range tests {
		if tt.id == "" {
			continue
		}
		m := refused[i]
		i++
		if string(m.ID) != tt.id || m.Error == nil || m.Error.Code != tt.code || !strings.Contains(m.Error.Message, tt.message) {
			t.Errorf("%.60q answered %s, want id %s, code %d and %q", tt.line, m.line, tt.id, tt.code, tt.message)
		}
	}
	if _, err := os.Stat(filepath.Join(r.Cwd, "made")); err == nil {
		t.Error("a refused message ran its command")
	}
}

// TestTransportLargeFrameDefault: with the default limit a 20 MiB frame is
// answered as too large, and a call after it still runs.
func TestTransportLargeFrameDefault(t *testing.T) {
	s := startRaw(t, testRunner(t, gate.ModeYolo, gate.Permissions{}), 0)
	s.initialize()
	s.send(toolCall("1", "echo "+strings.Repeat("a", 20<<20)))
	s.send(toolCall("2", "echo ok"))
	big, _ := s.until("1")
	if big.Error == nil || !strings.Contains(big.Error.Message, "over the limit of 4194304") {
		t.Errorf("the 20 MiB frame: %.200s", big.line)
	}
	if ok, _ := s.until("2"); !strings.Contains(string(ok.Result), `ok\n`) {
		t.Errorf("echo ok after it: %.300s", ok.line)
	}
}

// TestServeMCPError: a server that could not be built answers every
// request with the cause, and no notification.
func TestServeMCPError(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		``,
		`{"jsonrpc":"2.0","id":"p","method":"ping"}`,
	}, "\n")
	var out bytes.Buffer
	cause := errors.New("policy p.json: line 3: unknown field \"alow\"")
	if err := ServeMCPError(strings.NewReader(in), &out, cause); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d answers, want 2:\n%s", len(lines), out.String())
	}
	for i, id := range []string{"1", `"p"`} {
		var m rawMessage
		if err := json.Unmarshal([]byte(lines[i]), &m); err != nil || string(m.ID) != id || m.Error == nil ||
			!strings.Contains(m.Error.Message, `agentexec cannot serve: policy p.json: line 3: unknown field \"alow\"`[:40]) {
			t.Errorf("answer %d: %s (%v)", i, lines[i], err)
		}
	}
}

// FuzzMCPTransport: whatever a client sends, the server neither crashes
// nor stops serving: a ping after the input is answered. A message the
// filter passes on is one the SDK can decode (so it cannot end the
// session); one it refuses gets an answer unless it is a notification.
func FuzzMCPTransport(f *testing.F) {
	addLines(f, func(l []byte) { f.Add(l) }, filepath.Join("testdata", "mcp_lines.jsonl"))
	// Nothing the fuzzer writes may run: every command is denied.
	r := &exec.Runner{Policy: &gate.Policy{Permissions: gate.Permissions{Deny: []string{"Bash"}}}, Sandbox: "none", Cwd: f.TempDir()}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, line := range bytes.Split(data, []byte("\n")) {
			l := Line{N: 1, Text: line, Size: int64(len(line))}
			if bad := checkMessage(l, MaxLineBytes); bad != nil && !bad.notification {
				var m rawMessage
				if err := json.Unmarshal(errorResponse(bad), &m); err != nil || m.Error == nil {
					t.Fatalf("answer to %q is not a JSON-RPC error: %s", line, errorResponse(bad))
				}
			}
		}
		s := startRaw(t, r, 1<<16)
		s.send(data)
		s.send([]byte(`{"jsonrpc":"2.0","id":"probe","method":"ping"}`))
		s.until(`"probe"`)
	})
}
