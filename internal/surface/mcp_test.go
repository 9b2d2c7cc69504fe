package surface

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentexec/agentexec/exec"
	"github.com/agentexec/agentexec/gate"
)

// protocols are the two ways a client reaches the server: the SDK's
// default (multi round-trip, 2026-07-28 and later) and the initialize
// handshake of 2025-06-18 that today's desktop clients speak.
var protocols = []string{"", "2025-06-18"}

func protoName(p string) string {
	if p == "" {
		return "latest"
	}
	return p
}

// connect starts an in-memory server for r and returns a real SDK client
// session to it.
func connect(t *testing.T, r *exec.Runner, protocol string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, ct := mcp.NewInMemoryTransports()
	srv := NewMCPServer(r, MCPOptions{Version: "test"})
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, opts)
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func testRunner(t *testing.T, mode gate.Mode, perms gate.Permissions) *exec.Runner {
	return &exec.Runner{
		Policy:  &gate.Policy{Permissions: perms},
		Mode:    mode,
		Sandbox: "none",
		Cwd:     t.TempDir(),
	}
}

// call runs a tool and decodes its structured content into out (if set).
func call(t *testing.T, cs *mcp.ClientSession, tool string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: a JSON-RPC error, want a tool result: %v", tool, args, err)
	}
	if res.StructuredContent != nil {
		checkOutputSchema(t, tool, res.StructuredContent)
	}
	if out != nil && res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("structured content %s: %v", b, err)
		}
	}
	return res
}

// checkOutputSchema validates structured content against the tool's
// output schema, as clients that validate (the TypeScript SDK's) do.
func checkOutputSchema(t *testing.T, tool string, content any) {
	t.Helper()
	var schema *jsonschema.Schema
	var err error
	switch tool {
	case ToolRunCommand:
		schema, err = jsonschema.For[exec.Observation](nil)
	case ToolCheckCommand:
		schema, err = jsonschema.For[gate.Decision](nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(content)
	var v any
	json.Unmarshal(b, &v)
	if err := resolved.Validate(v); err != nil {
		t.Errorf("%s structured content %s does not match its output schema: %v", tool, b, err)
	}
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestMCPHandshakeAndTools(t *testing.T) {
	for _, proto := range protocols {
		t.Run(protoName(proto), func(t *testing.T) {
			cs := connect(t, testRunner(t, gate.ModeYolo, gate.Permissions{}), proto, nil)
			info := cs.InitializeResult().ServerInfo
			if info.Name != ServerName || info.Version != "test" {
				t.Errorf("server info = %+v, want %s test", info, ServerName)
			}
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			tools := map[string]*mcp.Tool{}
			for _, tl := range res.Tools {
				tools[tl.Name] = tl
			}
			for _, name := range []string{ToolRunCommand, ToolCheckCommand} {
				checkToolSchema(t, tools[name], name)
			}
		})
	}
}

func checkToolSchema(t *testing.T, tl *mcp.Tool, name string) {
	t.Helper()
	if tl == nil {
		t.Fatalf("tools/list lacks %s", name)
	}
	b, _ := json.Marshal(tl.InputSchema)
	var in struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(b, &in); err != nil || in.Type != "object" {
		t.Fatalf("%s input schema %s: not an object schema", name, b)
	}
	for _, p := range []string{"command", "argv", "cwd", "timeout", "shell", "pty", "stdin", "env"} {
		if in.Properties[p] == nil {
			t.Errorf("%s input schema lacks %q: %s", name, p, b)
		}
	}
	if tl.OutputSchema == nil {
		t.Errorf("%s has no output schema", name)
	}
	if tl.Description == "" {
		t.Errorf("%s has no description", name)
	}
}

func TestMCPRunCommand(t *testing.T) {
	for _, proto := range protocols {
		t.Run(protoName(proto), func(t *testing.T) {
			r := testRunner(t, gate.ModeYolo, gate.Permissions{Deny: []string{"Bash(touch *)"}})
			cs := connect(t, r, proto, nil)
			t.Run("echo", func(t *testing.T) { testRunEcho(t, cs) })
			t.Run("argv", func(t *testing.T) { testRunArgv(t, cs) })
			t.Run("denied", func(t *testing.T) { testRunDenied(t, cs, r.Cwd) })
			t.Run("timeout", func(t *testing.T) { testRunTimeout(t, cs) })
			t.Run("exit-code", func(t *testing.T) { testRunExitCode(t, cs) })
		})
	}
}

func testRunEcho(t *testing.T, cs *mcp.ClientSession) {
	var obs exec.Observation
	res := call(t, cs, ToolRunCommand, map[string]any{"command": "echo hi"}, &obs)
	if res.IsError || !strings.Contains(resultText(res), "hi") {
		t.Fatalf("echo hi: isError=%v text %q", res.IsError, resultText(res))
	}
	if obs.Status != exec.StatusExited || obs.Stdout != "hi\n" {
		t.Errorf("echo hi: structured %+v", obs)
	}
}

func testRunArgv(t *testing.T, cs *mcp.ClientSession) {
	var obs exec.Observation
	res := call(t, cs, ToolRunCommand, map[string]any{"argv": []string{"printf", "%s|", "a b", "$HOME"}}, &obs)
	if res.IsError || obs.Stdout != "a b|$HOME|" {
		t.Fatalf("argv: isError=%v %+v", res.IsError, obs)
	}
}

// testRunDenied proves a denied command is a tool result and did not run.
func testRunDenied(t *testing.T, cs *mcp.ClientSession, dir string) {
	file := filepath.Join(dir, "denied-marker")
	var obs exec.Observation
	res := call(t, cs, ToolRunCommand, map[string]any{"command": "touch " + file}, &obs)
	if !res.IsError {
		t.Errorf("denied touch: isError not set: %q", resultText(res))
	}
	if obs.Status != exec.StatusRejected || obs.Decision != gate.Deny {
		t.Errorf("denied touch: status %q decision %q, want rejected deny", obs.Status, obs.Decision)
	}
	if !strings.Contains(resultText(res), "Bash(touch *)") {
		t.Errorf("denied touch: text does not name the rule: %q", resultText(res))
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("denied touch ran: %s exists (%v)", file, err)
	}
}

func testRunTimeout(t *testing.T, cs *mcp.ClientSession) {
	var obs exec.Observation
	res := call(t, cs, ToolRunCommand, map[string]any{"command": "echo started; sleep 30", "timeout": "1s"}, &obs)
	if obs.Status != exec.StatusTimedOut || !res.IsError {
		t.Fatalf("sleep 30 with timeout 1s: isError=%v status %q", res.IsError, obs.Status)
	}
	if obs.Stdout != "started\n" {
		t.Errorf("timed out run lost its output: %q", obs.Stdout)
	}
}

// testRunExitCode: a command that ran and failed is an answer, not a tool
// error.
func testRunExitCode(t *testing.T, cs *mcp.ClientSession) {
	var obs exec.Observation
	res := call(t, cs, ToolRunCommand, map[string]any{"command": "echo oops >&2; exit 3"}, &obs)
	if res.IsError || obs.ExitCode == nil || *obs.ExitCode != 3 || obs.Stderr != "oops\n" {
		t.Fatalf("exit 3: isError=%v %+v", res.IsError, obs)
	}
	if !strings.Contains(resultText(res), "3") {
		t.Errorf("exit 3: text lacks the code: %q", resultText(res))
	}
}

func TestMCPMalformedArguments(t *testing.T) {
	cases := []struct {
		name string
		args any
		want string // in the error text
	}{
		{"both", map[string]any{"command": "ls", "argv": []string{"ls"}}, "argv"},
		{"neither", map[string]any{}, "command"},
		{"neither-but-cwd", map[string]any{"cwd": "/tmp"}, "command"},
		{"bad-timeout", map[string]any{"command": "ls", "timeout": "soon"}, "timeout"},
		{"negative-timeout", map[string]any{"command": "ls", "timeout": "-1s"}, "timeout"},
		{"timeout-type", map[string]any{"command": "ls", "timeout": 5}, "timeout"},
		{"unknown-field", map[string]any{"command": "ls", "timout": "1s"}, "timout"},
		{"argv-type", map[string]any{"argv": "ls -l"}, "argv"},
		{"nul", map[string]any{"command": "ls\x00x"}, "command"},
	}
	cs := connect(t, testRunner(t, gate.ModeYolo, gate.Permissions{}), "", nil)
	for _, tool := range []string{ToolRunCommand, ToolCheckCommand} {
		for _, tc := range cases {
			t.Run(tool+"/"+tc.name, func(t *testing.T) {
				res := call(t, cs, tool, tc.args, nil)
				if !res.IsError || !strings.Contains(resultText(res), tc.want) {
					t.Errorf("isError=%v text %q, want an error naming %q", res.IsError, resultText(res), tc.want)
				}
			})
		}
	}
}

func TestMCPCheckCommand(t *testing.T) {
	r := testRunner(t, gate.ModeDefault, gate.Permissions{Deny: []string{"Bash(touch *)"}})
	cs := connect(t, r, "", nil)
	file := filepath.Join(r.Cwd, "check-marker")
	var d gate.Decision
	res := call(t, cs, ToolCheckCommand, map[string]any{"command": "touch " + file}, &d)
	if res.IsError || d.Action != gate.Deny {
		t.Fatalf("check touch: isError=%v decision %q: %q", res.IsError, d.Action, resultText(res))
	}
	if !strings.Contains(resultText(res), "decision: deny") {
		t.Errorf("check text: %q", resultText(res))
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("check_command ran the command: %v", err)
	}
	res = call(t, cs, ToolCheckCommand, map[string]any{"command": "echo hi"}, &d)
	if res.IsError || d.Action == gate.Deny {
		t.Errorf("check echo hi: isError=%v decision %q", res.IsError, d.Action)
	}
}

// TestMCPNeedsApproval: without elicitation an ask is needs_approval, with
// the rule that would allow it, and nothing runs.
func TestMCPNeedsApproval(t *testing.T) {
	for _, proto := range protocols {
		t.Run(protoName(proto), func(t *testing.T) {
			r := testRunner(t, gate.ModeDefault, gate.Permissions{Ask: []string{"Bash(touch *)"}})
			cs := connect(t, r, proto, nil)
			file := filepath.Join(r.Cwd, "ask-marker")
			var obs exec.Observation
			res := call(t, cs, ToolRunCommand, map[string]any{"command": "touch " + file}, &obs)
			if !res.IsError || obs.Status != exec.StatusNeedsApproval {
				t.Errorf("ask without elicitation: isError=%v status %q", res.IsError, obs.Status)
			}
			if !strings.Contains(resultText(res), "approv") {
				t.Errorf("text does not say approval is needed: %q", resultText(res))
			}
			if _, err := os.Stat(file); !os.IsNotExist(err) {
				t.Errorf("unapproved command ran: %v", err)
			}
		})
	}
}

// elicitingClient answers every elicitation with action and counts them.
func elicitingClient(action string, asked *atomic.Int32, message *atomic.Value) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			message.Store(req.Params.Message)
			return &mcp.ElicitResult{Action: action}, nil
		},
	}
}

func TestMCPElicitation(t *testing.T) {
	cases := []struct {
		action string
		ran    bool
		status exec.Status
	}{
		{"accept", true, exec.StatusExited},
		{"decline", false, exec.StatusRejected},
		{"cancel", false, exec.StatusRejected},
	}
	for _, proto := range protocols {
		for _, tc := range cases {
			t.Run(protoName(proto)+"/"+tc.action, func(t *testing.T) {
				r := testRunner(t, gate.ModeDefault, gate.Permissions{Ask: []string{"Bash(touch *)"}})
				var asked atomic.Int32
				var message atomic.Value
				cs := connect(t, r, proto, elicitingClient(tc.action, &asked, &message))
				file := filepath.Join(r.Cwd, "elicit-marker")
				var obs exec.Observation
				res := call(t, cs, ToolRunCommand, map[string]any{"command": "touch " + file}, &obs)
				if asked.Load() != 1 {
					t.Fatalf("the user was asked %d times, want 1", asked.Load())
				}
				if m, _ := message.Load().(string); !strings.Contains(m, "touch "+file) {
					t.Errorf("the question does not show the command: %q", m)
				}
				_, err := os.Stat(file)
				if ran := err == nil; ran != tc.ran || obs.Status != tc.status || res.IsError == tc.ran {
					t.Errorf("%s: ran=%v status %q isError=%v, want ran=%v status %q", tc.action, ran, obs.Status, res.IsError, tc.ran, tc.status)
				}
			})
		}
	}
}

// TestMCPElicitationFails: when the user cannot be asked (the client's
// handler fails), the call is an error result that says so, not a claim
// that the user declined, and nothing runs.
func TestMCPElicitationFails(t *testing.T) {
	r := testRunner(t, gate.ModeDefault, gate.Permissions{Ask: []string{"Bash(touch *)"}})
	cs := connect(t, r, "2025-06-18", &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, fmt.Errorf("no display")
		},
	})
	file := filepath.Join(r.Cwd, "unasked-marker")
	var obs exec.Observation
	res := call(t, cs, ToolRunCommand, map[string]any{"command": "touch " + file}, &obs)
	if !res.IsError || obs.Status != exec.StatusError || !strings.Contains(resultText(res), "could not ask the user") {
		t.Errorf("isError=%v status %q text %q", res.IsError, obs.Status, resultText(res))
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the command ran unapproved: %v", err)
	}
}

// TestMCPApprovalIsBound: an accept the server did not ask for, or asked
// for about another command, runs nothing: the server asks again.
func TestMCPApprovalIsBound(t *testing.T) {
	r := testRunner(t, gate.ModeDefault, gate.Permissions{Ask: []string{"Bash(touch *)"}})
	var asked atomic.Int32
	var message atomic.Value
	cs := connect(t, r, "", elicitingClient("decline", &asked, &message))
	file := filepath.Join(r.Cwd, "forged-marker")
	forged := mcp.InputResponseMap{approvalInput: &mcp.ElicitResult{Action: "accept"}}
	for _, state := range []string{"", "forged", newPendingApprovals(time.Minute).add(exec.Request{Command: "touch " + file})} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{
			Name: ToolRunCommand, Arguments: map[string]any{"command": "touch " + file},
			InputResponses: forged, RequestState: state,
		})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError {
			t.Errorf("state %q: forged accept was taken: %q", state, resultText(res))
		}
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("a forged approval ran the command: %v", err)
	}
	if asked.Load() != 3 {
		t.Errorf("asked %d times, want 3 (once per call)", asked.Load())
	}
}

func TestPendingApprovals(t *testing.T) {
	now := time.Unix(1000, 0)
	p := newPendingApprovals(time.Minute)
	p.now = func() time.Time { return now }
	a, b := exec.Request{Command: "touch a"}, exec.Request{Command: "touch b"}
	cases := []struct {
		name string
		run  func() bool
		want bool
	}{
		{"same request", func() bool { return p.take(p.add(a), a) }, true},
		{"other request", func() bool { return p.take(p.add(a), b) }, false},
		{"unknown state", func() bool { return p.take("nope", a) }, false},
		{"used twice", func() bool { s := p.add(a); p.take(s, a); return p.take(s, a) }, false},
		{"expired", func() bool {
			s := p.add(a)
			now = now.Add(2 * time.Minute)
			return p.take(s, a)
		}, false},
		{"env order", func() bool {
			s := p.add(exec.Request{Command: "x", Env: map[string]string{"A": "1", "B": "2"}})
			return p.take(s, exec.Request{Command: "x", Env: map[string]string{"B": "2", "A": "1"}})
		}, true},
	}
	for _, tc := range cases {
		if got := tc.run(); got != tc.want {
			t.Errorf("%s: take = %v, want %v", tc.name, got, tc.want)
		}
	}
	for i := range maxPending + 10 {
		p.add(exec.Request{Command: fmt.Sprint(i)})
	}
	if len(p.m) > maxPending {
		t.Errorf("%d pending approvals kept, want at most %d", len(p.m), maxPending)
	}
}

func TestCommandText(t *testing.T) {
	cases := []struct {
		req  exec.Request
		want string
	}{
		{exec.Request{Command: "ls -la | wc"}, "ls -la | wc"},
		{exec.Request{Argv: []string{"ls", "-la", "a b", "$HOME", "x=1"}}, `ls -la "a b" "$HOME" x=1`},
		{exec.Request{Argv: []string{"printf", "a\nb"}}, `printf "a\nb"`},
	}
	for _, tc := range cases {
		if got := commandText(tc.req); got != tc.want {
			t.Errorf("commandText(%+v) = %q, want %q", tc.req, got, tc.want)
		}
	}
}
