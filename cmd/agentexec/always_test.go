//go:build linux || darwin

package main

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/agentexec/agentexec/audit"
	"github.com/agentexec/agentexec/exec"
	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/policy"
)

// TestTerminalAlways answers "a" on a real pseudo-terminal: the prompt
// shows the past commands of this workspace the rule would have allowed
// (from a real audit log), the rule is written to .agentexec/local.json,
// and the next call runs without asking.
func TestTerminalAlways(t *testing.T) {
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
	a := &policy.Approvals{Watcher: w, AuditPath: logPath, Workspace: ws}
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	r := &exec.Runner{PolicyFunc: w.Policy, Cwd: ws, Sandbox: "none", Audit: log,
		Approver: func(ctx context.Context, req exec.Request, d gate.Decision) (bool, error) {
			return askTTY(ctx, tty, a, ws, req, d)
		}}
	ctx := context.Background()
	// History: a first touch, asked and refused (no approver).
	noAsk := *r
	noAsk.Approver = nil
	if obs := noAsk.RunCommand(ctx, exec.Request{Command: "git init -q old"}); obs.Status != exec.StatusNeedsApproval {
		t.Fatalf("history: %s", obs.Status)
	}
	screen := make(chan string, 1)
	go func() {
		var b strings.Builder
		rd := bufio.NewReader(ptmx)
		for {
			line, err := rd.ReadString(' ')
			b.WriteString(line)
			if strings.Contains(b.String(), "[N]o ") {
				ptmx.WriteString("a\n")
				screen <- b.String()
				return
			}
			if err != nil {
				screen <- b.String()
				return
			}
		}
	}()
	obs := r.RunCommand(ctx, exec.Request{Command: "git init -q new"})
	var shown string
	select {
	case shown = <-screen:
	case <-time.After(10 * time.Second):
		t.Fatal("no prompt on the terminal")
	}
	if obs.Status != exec.StatusExited {
		t.Fatalf("approved always: %s %s", obs.Status, obs.Error)
	}
	for _, want := range []string{"[a]lways", "Bash(git init *)", "git init -q old   (ask)"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, shown)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".agentexec", "local.json")); !strings.Contains(string(b), "Bash(git init *)") {
		t.Errorf("local.json: %s", b)
	}
	next := noAsk.RunCommand(ctx, exec.Request{Command: "git init -q third"})
	if next.Status != exec.StatusExited || next.Decision != gate.Allow {
		t.Errorf("the next call: %s %s (%s)", next.Status, next.Decision, next.Reason)
	}
}
