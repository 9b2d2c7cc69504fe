package hook

import (
	"os/exec"
	"testing"

	"github.com/agentexec/agentexec/gate"
)

// BenchmarkHookPath is the in-process part of one hook call for git
// status: parse, decide (with the rewrite and its ticket), answer.
func BenchmarkHookPath(b *testing.B) {
	ws := b.TempDir()
	exec.Command("git", "-C", ws, "init", "-q").Run()
	payload := []byte(`{"session_id":"s","cwd":"` + ws + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status"},"tool_use_id":"t"}`)
	_, key := testKeys(b)
	rw := &TicketRewriter{Exe: "/usr/bin/agentexec", Key: key, Nonce: "AAAAAAAAAAAAAAAAAAAAAA"}
	for _, tc := range []struct {
		name string
		rw   Rewriter
	}{{"answer", nil}, {"rewrite", rw}} {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				ans := Judge(claude{}, payload, func(Call) (Config, error) { return Config{Workspace: ws, Rewrite: tc.rw}, nil }, nil)
				if ans.Exit != 0 {
					b.Fatal(ans.Stderr)
				}
			}
		})
	}
	b.Run("gate", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			gate.Decide(gate.Input{Text: "git status", Cwd: ws})
		}
	})
}
