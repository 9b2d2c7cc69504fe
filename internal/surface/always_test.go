package surface

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentexec/agentexec/audit"
	"github.com/agentexec/agentexec/exec"
	"github.com/agentexec/agentexec/policy"
)

// TestMCPAlways: over the official SDK client, the approval form offers
// once / always / no with the preview of past commands from a real audit
// log; "always" runs the command, writes the rule and the next call runs
// without asking.
func TestMCPAlways(t *testing.T) {
	for _, proto := range protocols {
		t.Run(protoName(proto), func(t *testing.T) {
			ws := t.TempDir()
			logPath := filepath.Join(t.TempDir(), "audit.jsonl")
			log, err := audit.Open(audit.Options{Path: logPath, NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			defer log.Close()
			o := policy.Options{Workspace: ws}
			l, err := policy.Load(o)
			if err != nil {
				t.Fatal(err)
			}
			w := policy.NewWatcher(o, l, nil)
			r := &exec.Runner{PolicyFunc: w.Policy, Sandbox: "none", Cwd: ws, Audit: log}
			// History: an earlier init this workspace was asked about.
			if obs := r.RunCommand(context.Background(), exec.Request{Command: "git init -q old"}); obs.Status != exec.StatusNeedsApproval {
				t.Fatalf("history: %s", obs.Status)
			}
			var asked atomic.Int32
			var message, schema atomic.Value
			opts := &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked.Add(1)
				message.Store(req.Params.Message)
				schema.Store(req.Params.RequestedSchema)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"choice": "always"}}, nil
			}}
			cs := connectWith(t, r, proto, opts, MCPOptions{Version: "test", Approvals: &policy.Approvals{Watcher: w, AuditPath: logPath, Workspace: ws}})
			var obs exec.Observation
			call(t, cs, ToolRunCommand, map[string]any{"command": "git init -q first"}, &obs)
			if obs.Status != exec.StatusExited || asked.Load() != 1 {
				t.Fatalf("always: status %s, asked %d times", obs.Status, asked.Load())
			}
			m, _ := message.Load().(string)
			for _, want := range []string{"Bash(git init *)", "git init -q old   (ask)"} {
				if !strings.Contains(m, want) {
					t.Errorf("the form lacks %q:\n%s", want, m)
				}
			}
			if s, ok := schema.Load().(map[string]any); !ok || !strings.Contains(strings.Join(enum(s), " "), "once always always-exact no") {
				t.Errorf("the form's choices: %v", schema.Load())
			}
			if b, _ := os.ReadFile(filepath.Join(ws, ".agentexec", "local.json")); !strings.Contains(string(b), "Bash(git init *)") {
				t.Errorf("local.json: %s", b)
			}
			call(t, cs, ToolRunCommand, map[string]any{"command": "git init -q second"}, &obs)
			if obs.Status != exec.StatusExited || obs.Decision != "allow" || asked.Load() != 1 {
				t.Errorf("the next call: %s %s, asked %d times", obs.Status, obs.Decision, asked.Load())
			}
		})
	}
}

func enum(schema map[string]any) []string {
	props, _ := schema["properties"].(map[string]any)
	choice, _ := props["choice"].(map[string]any)
	var out []string
	switch e := choice["enum"].(type) {
	case []any:
		for _, x := range e {
			s, _ := x.(string)
			out = append(out, s)
		}
	case []string:
		out = e
	}
	return out
}

func connectWith(t *testing.T, r *exec.Runner, protocol string, opts *mcp.ClientOptions, sopts MCPOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := NewMCPServer(r, sopts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, opts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
