package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/audit"
	"github.com/agentexec/agentexec/gate"
)

func TestInsertAllowKeepsTheFile(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(make build)\"\n    ]\n  }\n}\n"},
		{"{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(ls *)\"\n    ],\n    \"deny\": []\n  }\n}\n",
			"{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(ls *)\",\n      \"Bash(make build)\"\n    ],\n    \"deny\": []\n  }\n}\n"},
		{`{"permissions": {"allow": []}}`, `{"permissions": {"allow": ["Bash(make build)"]}}`},
		{`{"permissions": {"deny": ["Bash(rm *)"]}}`, `{"permissions": {"deny": ["Bash(rm *)"], "allow": ["Bash(make build)"]}}`},
		{"{\n  \"env\": {\"A\": \"1\"}\n}\n", "{\n  \"env\": {\"A\": \"1\"},\n  \"permissions\": {\"allow\": [\"Bash(make build)\"]}\n}\n"},
		{`{}`, `{"permissions": {"allow": ["Bash(make build)"]}}`},
		{`{"permissions": {"allow": ["Bash(make build)"]}}`, `{"permissions": {"allow": ["Bash(make build)"]}}`},
	} {
		got, err := insertAllow([]byte(tt.in), []string{"Bash(make build)"})
		if err != nil || string(got) != tt.want {
			t.Errorf("insertAllow(%q) =\n%s\n%v, want\n%s", tt.in, got, err, tt.want)
		}
	}
	if _, err := insertAllow([]byte(`{"permissions": []}`), []string{"Bash(x)"}); err == nil {
		t.Error("a permissions list was taken for an object")
	}
}

// TestAlwaysEndToEnd: the preview replays a real audit log of this
// workspace, offers the exact rule when the proposal covers what was
// denied before, and the written rule decides the next call.
func TestAlwaysEndToEnd(t *testing.T) {
	ws := t.TempDir()
	other := t.TempDir()
	pol := write(t, ws, "policy.json", `{"permissions": {"deny": ["Bash(git push --force *)"]}}`)
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := audit.Open(audit.Options{Path: logPath, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []audit.Record{
		{Kind: "decision", Command: "git push origin main", Cwd: ws, Decision: "ask", Approved: "once"},
		{Kind: "decision", Command: "git push --force origin main", Cwd: ws, Decision: "deny"},
		{Kind: "decision", Command: "git push origin dev", Cwd: other, Decision: "ask"},
		{Kind: "run", Command: "git push origin feature", Cwd: ws, Decision: "allow"},
		{Kind: "decision", Command: "ls", Cwd: ws, Decision: "allow"},
	} {
		rec := r
		if err := log.Append(&rec); err != nil {
			t.Fatal(err)
		}
	}
	log.Close()
	o := Options{Path: pol, Workspace: ws}
	l, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWatcher(o, l, nil)
	a := &Approvals{Watcher: w, AuditPath: logPath, Workspace: ws}
	text := "git push origin main"
	d := gate.Decide(gate.Input{Text: text, Cwd: ws, Policy: w.Policy()})
	p, ok := a.Propose(text, ws, d)
	if !ok {
		t.Fatalf("no proposal for %s (%s, %q)", text, d.Action, d.Suggestions)
	}
	if strings.Join(p.Rules, " ") != "Bash(git push *)" {
		t.Errorf("rules %q", p.Rules)
	}
	var cmds []string
	for _, c := range p.Covers {
		cmds = append(cmds, c.Command)
	}
	if strings.Join(cmds, "|") != "git push origin main|git push --force origin main" {
		t.Errorf("covers %q (the other workspace and run records must not count)", cmds)
	}
	if p.Narrower != "Bash(git push origin main)" || len(p.NarrowerCovers) != 1 {
		t.Errorf("narrower %q covers %+v", p.Narrower, p.NarrowerCovers)
	}
	if pv := p.Preview(); !strings.Contains(pv, "git push --force origin main   (deny)") || !strings.Contains(pv, p.Narrower) {
		t.Errorf("preview:\n%s", pv)
	}
	if err := a.Persist([]string{p.Narrower}); err != nil {
		t.Fatal(err)
	}
	if d := gate.Decide(gate.Input{Text: text, Cwd: ws, Policy: w.Policy()}); d.Action != gate.Allow || !strings.Contains(d.Reason, "local.json") {
		t.Errorf("after always: %s (%s)", d.Action, d.Reason)
	}
	if d := gate.Decide(gate.Input{Text: "git push origin dev", Cwd: ws, Policy: w.Policy()}); d.Action != gate.Ask {
		t.Errorf("the exact rule allowed more: %s", d.Action)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".agentexec", "local.json")); !strings.Contains(string(b), `"Bash(git push origin main)"`) {
		t.Errorf("local.json:\n%s", b)
	}
	// Never offered: hidden executions, interpreters, one-off plan asks.
	for _, cmd := range []string{"bash -c 'make'", "python3 x.py", "$(echo make) build", "eval make"} {
		d := gate.Decide(gate.Input{Text: cmd, Cwd: ws, Policy: w.Policy()})
		if _, ok := a.Propose(cmd, ws, d); ok {
			t.Errorf("%q: always offered (%q)", cmd, d.Suggestions)
		}
	}
	d = gate.Decide(gate.Input{Text: "touch x", Cwd: ws, Policy: w.Policy(), Mode: gate.ModePlan})
	if _, ok := a.Propose("touch x", ws, d); ok {
		t.Error("always offered in plan mode")
	}
}

// TestAlwaysWritesClaudeLocalSettings: a policy from a project's Claude
// settings writes to .claude/settings.local.json, keeping its content.
func TestAlwaysWritesClaudeLocalSettings(t *testing.T) {
	proj := t.TempDir()
	write(t, proj, ".claude/settings.json", `{"permissions": {"allow": ["Bash(ls *)"]}, "model": "opus"}`)
	local := write(t, proj, ".claude/settings.local.json", "{\n  \"env\": {\"A\": \"1\"},\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(make lint)\"\n    ]\n  }\n}\n")
	o := Options{Project: proj, Managed: "-", Workspace: proj}
	l, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWatcher(o, l, nil)
	a := &Approvals{Watcher: w, Workspace: proj}
	if err := a.Persist([]string{"Bash(make build)"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(local)
	want := "{\n  \"env\": {\"A\": \"1\"},\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(make lint)\",\n      \"Bash(make build)\"\n    ]\n  }\n}\n"
	if string(b) != want {
		t.Errorf("settings.local.json:\n%s", b)
	}
	if d := gate.Decide(gate.Input{Text: "make build", Policy: w.Policy()}); d.Action != gate.Allow {
		t.Errorf("make build after always: %s", d.Action)
	}
}

// TestWatcherReload: an edit is picked up; a broken edit keeps the old
// policy and is reported once.
func TestWatcherReload(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "p.json", `{"permissions": {"allow": ["Bash(echo *)"]}}`)
	o := Options{Path: path}
	l, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	var logged []string
	w := NewWatcher(o, l, func(f string, args ...any) { logged = append(logged, f) })
	replace := func(body string) {
		tmp := path + ".new"
		os.WriteFile(tmp, []byte(body), 0o644)
		os.Rename(tmp, path)
	}
	decide := func(cmd string) gate.Action {
		w.Reload()
		return gate.Decide(gate.Input{Text: cmd, Policy: w.Policy()}).Action
	}
	replace(`{"permissions": {"allow": ["Bash(mkdir *)"]}}`)
	if got := decide("mkdir d"); got != gate.Allow {
		t.Errorf("after the edit: %s", got)
	}
	replace(`{"permissions": {"allow": [`)
	for range 3 {
		if got := decide("mkdir d"); got != gate.Allow {
			t.Errorf("after a broken edit: %s, want the old policy's allow", got)
		}
	}
	broken := 0
	for _, m := range logged {
		if strings.Contains(m, "unchanged") {
			broken++
		}
	}
	if broken != 1 {
		t.Errorf("broken edit reported %d times: %q", broken, logged)
	}
}
