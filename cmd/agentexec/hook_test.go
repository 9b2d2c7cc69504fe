package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/audit"
)

// hookEnv is a sandbox-able workspace, a place outside it, private HOME
// and XDG state, and a PATH on which plain `agentexec` is the built binary
// (as a model would write it).
type hookEnv struct {
	bin, ws, outside, state string
	env                     []string
}

func newHookEnv(t *testing.T) *hookEnv {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox and the exec gate are Linux's")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	h := &hookEnv{bin: buildAgentexec(t), ws: t.TempDir(), outside: t.TempDir(), state: t.TempDir()}
	pathDir := t.TempDir()
	if err := os.Symlink(h.bin, filepath.Join(pathDir, "agentexec")); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AGENTEXEC_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "CLAUDE_") {
			h.env = append(h.env, kv)
		}
	}
	h.env = append(h.env, "HOME="+home, "XDG_STATE_HOME="+h.state, "PATH="+pathDir+":"+os.Getenv("PATH"), "CLAUDE_PROJECT_DIR="+h.ws)
	h.write(t, ".claude/settings.json", `{"permissions":{"deny":["Bash(rm *)"]}}`)
	return h
}

func (h *hookEnv) write(t *testing.T, rel, text string) {
	t.Helper()
	p := filepath.Join(h.ws, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

// run starts argv in the workspace; it returns the exit status, stdout and
// stderr.
func (h *hookEnv) run(t *testing.T, stdin []byte, argv ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = h.ws, h.env, bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%q: %v", argv, err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// claudeAnswer is the part of Claude Code's hook answer the tests read.
type claudeAnswer struct {
	HookSpecificOutput struct {
		PermissionDecision       string         `json:"permissionDecision"`
		PermissionDecisionReason string         `json:"permissionDecisionReason"`
		UpdatedInput             map[string]any `json:"updatedInput"`
	} `json:"hookSpecificOutput"`
}

// hook asks the hook about a Bash command and returns its decision and
// the rewritten command.
func (h *hookEnv) hook(t *testing.T, command, mode string) (string, string) {
	t.Helper()
	return h.hookIn(t, h.ws, command, mode)
}

// hookIn is hook with the agent's shell in dir.
func (h *hookEnv) hookIn(t *testing.T, dir, command, mode string) (string, string) {
	t.Helper()
	payload, _ := json.Marshal(map[string]any{
		"session_id": "s", "cwd": dir, "permission_mode": mode, "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": command, "description": "d"}, "tool_use_id": "t",
	})
	code, out, errs := h.run(t, payload, h.bin, "hook", "--agent", "claude")
	if code != 0 {
		t.Fatalf("hook %q: exit %d %s", command, code, errs)
	}
	var a claudeAnswer
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("hook %q: %v: %q", command, err, out)
	}
	rewritten, _ := a.HookSpecificOutput.UpdatedInput["command"].(string)
	return a.HookSpecificOutput.PermissionDecision, rewritten
}

// bash runs text as the agent's Bash tool would.
func (h *hookEnv) bash(t *testing.T, text string) (int, string) {
	t.Helper()
	code, out, errs := h.run(t, nil, "bash", "-c", text)
	return code, out + errs
}

func (h *hookEnv) records(t *testing.T) []audit.Record {
	t.Helper()
	f, err := os.Open(filepath.Join(h.state, "agentexec", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []audit.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r audit.Record
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestHookRewriteEndToEnd: a command the hook allows runs, through the
// rewrite, inside the sandbox (a write outside the workspace fails), the
// audit log joins the hook's decision and the run, and the ticket is
// good for one run only.
func TestHookRewriteEndToEnd(t *testing.T) {
	h := newHookEnv(t)
	outside := filepath.Join(h.outside, "escaped.txt")
	cmd := "echo in > inside.txt; echo out > " + outside + "; echo done"
	decision, rewritten := h.hook(t, cmd, "bypassPermissions")
	if decision != "allow" || !strings.Contains(rewritten, "agentexec") || !strings.Contains(rewritten, "--from-hook") {
		t.Fatalf("got %s %q, want allow with a rewrite", decision, rewritten)
	}
	code, out := h.bash(t, rewritten)
	if !exists(filepath.Join(h.ws, "inside.txt")) {
		t.Fatalf("the command did not run (exit %d): %s", code, out)
	}
	if exists(outside) {
		t.Errorf("the rewritten command wrote outside the workspace: not sandboxed (exit %d)", code)
	}
	if !strings.Contains(out, "done") || code != 0 {
		t.Errorf("exit %d, output %q: want the command's own status and output", code, out)
	}

	// The log: the hook's decision, then the run's decision and run
	// records carrying its ID.
	var hookID string
	var joined []string
	for _, r := range h.records(t) {
		switch {
		case r.Kind == "hook" && r.Command == cmd:
			hookID = r.RunID
			if r.Agent != "claude" || r.Tool != "Bash" || r.Decision != "allow" || r.Mode != "yolo" {
				t.Errorf("hook record %+v", r)
			}
		case hookID != "" && r.HookID == hookID:
			if r.Command != cmd {
				t.Errorf("joined record for %q, want the original command", r.Command)
			}
			joined = append(joined, r.Kind)
		}
	}
	if hookID == "" || !slices.Equal(joined, []string{"decision", "run"}) {
		t.Errorf("audit log: hook id %q joined to %q, want a hook record joined to decision and run", hookID, joined)
	}

	// The same rewritten text again: the ticket is used.
	os.Remove(filepath.Join(h.ws, "inside.txt"))
	code, out = h.bash(t, rewritten)
	if code != exitRejected || exists(filepath.Join(h.ws, "inside.txt")) || !strings.Contains(out, "used already") {
		t.Errorf("a replayed rewrite: exit %d, ran=%v, %q", code, exists(filepath.Join(h.ws, "inside.txt")), out)
	}
}

// TestHookAskApprovedByAgent: a command the gate would ask about is
// answered ask with a rewrite; when the agent runs it (the person said
// yes), agentexec run takes that as the approval, once.
func TestHookAskApprovedByAgent(t *testing.T) {
	h := newHookEnv(t)
	decision, rewritten := h.hook(t, "touch made.txt", "default")
	if decision != "ask" || rewritten == "" {
		t.Fatalf("got %s %q, want ask with a rewrite", decision, rewritten)
	}
	if code, out := h.bash(t, rewritten); code != 0 || !exists(filepath.Join(h.ws, "made.txt")) {
		t.Fatalf("the approved command did not run: exit %d %s", code, out)
	}
	// Without the ticket, the same run asks, and with no one to ask refuses.
	code, out := h.bash(t, "agentexec run --shell bash --cwd . -c 'touch other.txt'")
	if code != exitRejected || exists(filepath.Join(h.ws, "other.txt")) {
		t.Errorf("an ungated write ran without approval: exit %d %s", code, out)
	}
	for _, r := range h.records(t) {
		if r.Kind == "run" && r.Command == "touch made.txt" && r.Approved != "agent" {
			t.Errorf("run record approved=%q, want agent", r.Approved)
		}
	}
}

// TestHookModelWrittenToken: a model that writes agentexec run --from-hook
// itself gets nothing: its token names no ticket and the run is refused,
// whether the agent runs it directly or through the hook's own rewrite.
func TestHookModelWrittenToken(t *testing.T) {
	h := newHookEnv(t)
	keep := filepath.Join(h.ws, "keep.txt")
	models := []string{
		"agentexec run --from-hook FAKE -- rm -f keep.txt",
		"agentexec run --from-hook FAKE --sandbox none -- rm -f keep.txt",
		"agentexec run --from-hook tAAAAAAAAAAAAAAAAAAAAAA --sandbox none -c 'rm -f keep.txt'",
		"agentexec run --from-hook=tAAAAAAAAAAAAAAAAAAAAAA --sandbox none -- rm -f keep.txt",
	}
	for _, m := range models {
		os.WriteFile(keep, []byte("keep\n"), 0o644)
		if code, out := h.bash(t, m); code != exitRejected || !exists(keep) {
			t.Errorf("%q run directly: exit %d, keep.txt there=%v: %s", m, code, exists(keep), out)
		}
		for _, mode := range []string{"default", "bypassPermissions"} {
			decision, rewritten := h.hook(t, m, mode)
			if decision == "allow" || decision == "ask" {
				text := m
				if rewritten != "" {
					text = rewritten
				}
				h.bash(t, text)
			}
			if !exists(keep) {
				t.Errorf("%q in %s mode: the hook answered %s and keep.txt is gone", m, mode, decision)
			}
		}
	}
}

// TestHookExecGate: a program the command starts is judged at run time by
// the deny rules, which the hook's text decision cannot see (a script).
func TestHookExecGate(t *testing.T) {
	h := newHookEnv(t)
	code, out, _ := h.run(t, nil, h.bin, "run", "--json", "--audit", "off", "--", "true")
	var obs struct {
		Sandbox struct {
			Layers []string `json:"layers"`
		} `json:"sandbox"`
	}
	if json.Unmarshal([]byte(out), &obs) != nil || code != 0 {
		t.Fatalf("agentexec run --json: exit %d %q", code, out)
	}
	if !slices.Contains(obs.Sandbox.Layers, "exec-gate") {
		t.Skipf("agentexec run reports no exec-gate layer on this host (layers %v)", obs.Sandbox.Layers)
	}
	h.write(t, "cleanup.sh", "#!/bin/sh\nrm -f keep.txt\n")
	keep := filepath.Join(h.ws, "keep.txt")
	os.WriteFile(keep, []byte("keep\n"), 0o644)
	decision, rewritten := h.hook(t, "./cleanup.sh", "bypassPermissions")
	if decision != "allow" || rewritten == "" {
		t.Fatalf("got %s %q, want allow with a rewrite", decision, rewritten)
	}
	code, text := h.bash(t, rewritten)
	if !exists(keep) {
		t.Errorf("the script's rm ran: the exec gate did not apply Bash(rm *) (exit %d %s)", code, text)
	}
}

// TestHookNoSettings: a project with no agent settings at all is decided
// with no rules (not refused), and the rewrite runs.
func TestHookNoSettings(t *testing.T) {
	h := newHookEnv(t)
	os.RemoveAll(filepath.Join(h.ws, ".claude"))
	payload, _ := json.Marshal(map[string]any{"event": "PreToolUse", "session_id": "s", "cwd": h.ws, "tool_name": "bash", "tool_input": map[string]any{"command": "echo hello"}})
	code, out, errs := h.run(t, payload, h.bin, "hook", "--agent", "crush")
	var a struct {
		Decision     string         `json:"decision"`
		UpdatedInput map[string]any `json:"updated_input"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &a) != nil || a.Decision != "allow" {
		t.Fatalf("exit %d %q %s", code, out, errs)
	}
	rewritten, _ := a.UpdatedInput["command"].(string)
	if code, text := h.bash(t, rewritten); code != 0 || !strings.Contains(text, "hello") {
		t.Errorf("the rewrite: exit %d %q", code, text)
	}
}

// TestHookSubdirectory: with the agent's shell in a subdirectory of the
// project, the rewritten command starts there and may write anywhere in
// the project (the workspace is the project, not the subdirectory).
func TestHookSubdirectory(t *testing.T) {
	h := newHookEnv(t)
	sub := filepath.Join(h.ws, "sub")
	os.Mkdir(sub, 0o755)
	decision, rewritten := h.hookIn(t, sub, "pwd; echo x > ../top.txt", "bypassPermissions")
	if decision != "allow" {
		t.Fatalf("got %s", decision)
	}
	code, out := h.bash(t, rewritten)
	if code != 0 || !strings.HasPrefix(out, sub) || !exists(filepath.Join(h.ws, "top.txt")) {
		t.Errorf("exit %d %q, top.txt written=%v", code, out, exists(filepath.Join(h.ws, "top.txt")))
	}
}
