package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/policy"
)

func loadPolicy(t *testing.T, dir, text string) *gate.Policy {
	t.Helper()
	p := filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := policy.Load(policy.Options{Path: p, Managed: "-"})
	if err != nil {
		t.Fatal(err)
	}
	return l.Policy
}

// TestDecideShell: the gate decides, the agent's ability to ask and to run
// a rewrite shape the verdict.
func TestDecideShell(t *testing.T) {
	ws := t.TempDir()
	pol := loadPolicy(t, ws, `{"permissions":{"deny":["Bash(git push *)"],"ask":["Bash(npm publish *)"]}}`)
	cases := []struct {
		agent, cmd string
		mode       gate.Mode
		rewrite    bool
		want       Action
		rewritten  bool
	}{
		{"claude", "git push origin main", "", true, Deny, false},
		{"claude", "git pushx origin", "", true, Ask, true}, // near miss: not the rule, an unknown program
		{"claude", "git status", "", true, Allow, true},
		{"claude", "git status", "", false, Allow, false},
		{"claude", "npm publish --tag x", gate.ModeYolo, true, Ask, true},
		{"codex", "npm publish --tag x", gate.ModeYolo, true, Deny, false}, // Codex cannot ask
		{"codex", "touch x", "", true, Deny, false},
		{"codex", "touch x", gate.ModeYolo, true, Allow, true},
		{"crush", "touch x", "", true, Ask, true}, // rendered as no decision + rewrite
		{"claude", "touch x", gate.ModePlan, true, Deny, false},
		{"gemini", "rm -rf /", gate.ModeYolo, true, Deny, false},
		{"claude", "rm -rf ~", gate.ModeYolo, true, Deny, false},
		{"claude", "rm -rf ./build", gate.ModeYolo, true, Allow, true},
	}
	for _, tc := range cases {
		a, _ := Lookup(tc.agent)
		cfg := Config{Policy: pol, Workspace: ws, Env: []string{"HOME=" + t.TempDir()}}
		if tc.rewrite {
			cfg.Rewrite = fakeRewriter{}
		}
		c := Call{Agent: tc.agent, Kind: Shell, Command: tc.cmd, Cwd: ws, Dir: ws, Mode: tc.mode}
		v, err := Decide(a, c, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if v.Action != tc.want || (v.Command != "") != tc.rewritten {
			t.Errorf("%s %q (%s): got %s rewritten=%v, want %s rewritten=%v (%s)", tc.agent, tc.cmd, tc.mode, v.Action, v.Command != "", tc.want, tc.rewritten, v.Reason)
		}
		if !strings.HasPrefix(v.Reason, "agentexec: ") {
			t.Errorf("%q: reason %q does not say who decided", tc.cmd, v.Reason)
		}
	}
}

// TestModeOverride: --mode wins over the agent's permission mode.
func TestModeOverride(t *testing.T) {
	ws := t.TempDir()
	a, _ := Lookup("claude")
	c := Call{Agent: "claude", Kind: Shell, Command: "touch x", Cwd: ws, Dir: ws, Mode: gate.ModeYolo}
	v, _ := Decide(a, c, Config{Mode: gate.ModePlan})
	if v.Action != Deny {
		t.Errorf("--mode plan over bypassPermissions: got %s", v.Action)
	}
}

// TestUnknownModeIsPlan: a permission mode agentexec does not know maps to
// the strictest.
func TestUnknownModeIsPlan(t *testing.T) {
	c, err := claude{}.Parse([]byte(`{"hook_event_name":"PreToolUse","cwd":"/","permission_mode":"brandNew","tool_name":"Bash","tool_input":{"command":"touch x"}}`))
	if err != nil || c.Mode != gate.ModePlan || c.ModeName != "brandNew" {
		t.Errorf("got %v %q %q", err, c.Mode, c.ModeName)
	}
}

// TestFileRules: Claude Code's path forms, both directions.
func TestFileRules(t *testing.T) {
	ws := t.TempDir()
	home := t.TempDir()
	pol := loadPolicy(t, ws, `{"permissions":{
		"deny":["Read(./.env)","Read(*.pem)","Edit(./secrets/**)","Read(//etc/shadow)","Read(~/.ssh/**)","Edit(/config/prod.yaml)","Write(./dist)"],
		"ask":["Read(./private)"]}}`)
	cases := []struct {
		kind Kind
		path string
		want Action
	}{
		{Read, ".env", Deny},
		{Read, ".envrc", None},
		{Read, "sub/.env", None}, // ./ anchors the pattern at the cwd
		{Read, "a/b/key.pem", Deny},
		{Read, "a/b/key.pem.txt", None},
		{Write, "secrets/x/y.txt", Deny},
		{Write, "secretsx/y.txt", None},
		{Read, "secrets/x/y.txt", None}, // an Edit rule does not bind reads
		{Read, "/etc/shadow", Deny},
		{Read, "/etc/passwd", None},
		{Read, home + "/.ssh/id_ed25519", Deny},
		{Read, home + "/.sshx", None},
		{Write, "config/prod.yaml", Deny}, // /p: under the project root of .claude/settings.json
		{Write, "config/dev.yaml", None},
		{Write, "dist/app.js", Deny}, // a rule on a directory covers what is inside
		{Read, "private/notes", Ask},
		{Read, "privately", None},
	}
	a, _ := Lookup("claude")
	for _, tc := range cases {
		p := tc.path
		if !filepath.IsAbs(p) {
			p = filepath.Join(ws, p)
		}
		c := Call{Agent: "claude", Tool: "T", Kind: tc.kind, Cwd: ws, Dir: ws, Paths: []string{p}}
		v, _ := Decide(a, c, Config{Policy: pol, Home: home, Workspace: ws})
		got := v.Action
		if tc.kind == Write && got == Ask && tc.want == None && !strings.HasPrefix(p, ws) {
			got = None // outside the workspace: the boundary, not a rule
		}
		if got != tc.want {
			t.Errorf("%v %s: got %q, want %q (%s)", tc.kind, tc.path, got, tc.want, v.Reason)
		}
	}
}

// TestWriteBoundary: file tools may write inside the workspace, not
// outside it, not through a symlink leading out, not into .git or the
// hook's own settings without asking, and not at all in plan mode.
func TestWriteBoundary(t *testing.T) {
	ws := t.TempDir()
	out := t.TempDir()
	extra := t.TempDir()
	if err := os.Symlink(out, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(ws, ".claude", "settings.json")
	pol := &gate.Policy{Sandbox: gate.SandboxPolicy{WritableRoots: []string{extra}}}
	cases := []struct {
		path string
		mode gate.Mode
		want Action
	}{
		{filepath.Join(ws, "src/main.go"), "", None},
		{filepath.Join(ws, "new/dir/file"), "", None},
		{filepath.Join(out, "x"), "", Ask},
		{filepath.Join(ws, "link", "x"), "", Ask},
		{filepath.Join(ws, "..", filepath.Base(out), "x"), "", Ask},
		{filepath.Join(extra, "x"), "", None},
		{filepath.Join(ws, ".git", "hooks", "pre-commit"), "", Ask},
		{filepath.Join(ws, ".github", "workflows", "ci.yml"), "", None},
		{settings, "", Ask},
		{filepath.Join(ws, "src/main.go"), gate.ModePlan, Deny},
		{filepath.Join(ws, "src/main.go"), gate.ModeYolo, None},
		{filepath.Join(out, "x"), gate.ModeYolo, Ask},
	}
	for _, agent := range []string{"claude", "codex"} {
		a, _ := Lookup(agent)
		for _, tc := range cases {
			c := Call{Agent: agent, Tool: "Write", Kind: Write, Cwd: ws, Dir: ws, Paths: []string{filepath.Clean(tc.path)}, Mode: tc.mode}
			v, _ := Decide(a, c, Config{Policy: pol, Workspace: ws, Protected: []string{settings}})
			want := tc.want
			if want == Ask && agent == "codex" {
				want = Deny
			}
			if v.Action != want {
				t.Errorf("%s %s (%s): got %q, want %q (%s)", agent, tc.path, tc.mode, v.Action, want, v.Reason)
			}
		}
	}
}

func TestPatchPaths(t *testing.T) {
	got, err := patchPaths("*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** Move to: b.go\n*** Add File: /etc/x\n+z\n*** Delete File: c.go\n*** End Patch")
	if err != nil || strings.Join(got, ",") != "a.go,b.go,/etc/x,c.go" {
		t.Errorf("got %q %v", got, err)
	}
	if _, err := patchPaths("echo not a patch"); err == nil {
		t.Errorf("a text without file headers was taken as a patch")
	}
}

// TestPayloadShapes: a shell tool's input of the wrong shape fails closed;
// unknown tools and other events are no opinion.
func TestPayloadShapes(t *testing.T) {
	bad := map[string]string{
		"claude no cwd":         `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		"claude relative cwd":   `{"hook_event_name":"PreToolUse","cwd":"ws","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		"claude no input":       `{"hook_event_name":"PreToolUse","cwd":"/","tool_name":"Bash"}`,
		"claude input array":    `{"hook_event_name":"PreToolUse","cwd":"/","tool_name":"Bash","tool_input":["ls"]}`,
		"claude no command":     `{"hook_event_name":"PreToolUse","cwd":"/","tool_name":"Bash","tool_input":{"cmd":"ls"}}`,
		"claude bad timeout":    `{"hook_event_name":"PreToolUse","cwd":"/","tool_name":"Bash","tool_input":{"command":"ls","timeout":"soon"}}`,
		"claude read no path":   `{"hook_event_name":"PreToolUse","cwd":"/","tool_name":"Read","tool_input":{}}`,
		"claude trailing":       `{"hook_event_name":"PreToolUse","cwd":"/","tool_name":"Bash","tool_input":{"command":"ls"}} {}`,
		"codex bad patch":       `{"hook_event_name":"PreToolUse","cwd":"/","tool_name":"apply_patch","tool_input":{"command":"rm -rf /"}}`,
		"gemini dir number":     `{"hook_event_name":"BeforeTool","cwd":"/","tool_name":"run_shell_command","tool_input":{"command":"ls","dir_path":3}}`,
		"crush no event":        `{"cwd":"/","tool_name":"bash","tool_input":{"command":"ls"}}`,
		"claude invalid utf-8":  "{\"hook_event_name\":\"PreToolUse\",\"cwd\":\"/\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"echo \xff\"}}",
		"claude lone surrogate": `{"hook_event_name":"PreToolUse","cwd":"/","tool_name":"Bash","tool_input":{"command":"echo \udc00"}}`,
		"empty":                 ``,
	}
	for name, payload := range bad {
		a, _ := Lookup(strings.Fields(name)[0])
		if a == nil {
			a = claude{}
		}
		ans := Judge(a, []byte(payload), func(Call) (Config, error) { return Config{}, nil }, nil)
		if ans.Exit != 2 || !strings.Contains(ans.Stderr, "denied") {
			t.Errorf("%s: got exit %d %q, want a block", name, ans.Exit, ans.Stderr)
		}
	}
	none := map[string]string{
		"claude": `{"hook_event_name":"PostToolUse","cwd":"/","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`,
		"gemini": `{"hook_event_name":"BeforeTool","cwd":"/","tool_name":"web_fetch","tool_input":{"prompt":"x"}}`,
		"crush":  `{"event":"pre_tool_use","cwd":"/","tool_name":"fetch","tool_input":{}}`,
		"codex":  `{"hook_event_name":"PreToolUse","cwd":"/","tool_name":"mcp__x__y","tool_input":"anything"}`,
		"qwen":   `{"hook_event_name":"PreToolUse","cwd":"/","tool_name":"todo_write","tool_input":{}}`,
	}
	for name, payload := range none {
		a, _ := Lookup(name)
		ans := Judge(a, []byte(payload), func(Call) (Config, error) {
			t.Fatalf("%s: prepared a call with no opinion", name)
			return Config{}, nil
		}, nil)
		if ans.Exit != 0 || (len(ans.Stdout) > 0 && string(ans.Stdout) != "{}\n") {
			t.Errorf("%s: got %d %q, want no opinion", name, ans.Exit, ans.Stdout)
		}
	}
	// Crush's event names fold case and underscores.
	c, err := crush{}.Parse([]byte(`{"event":"PRE_TOOL_USE","cwd":"/w","tool_name":"bash","tool_input":{"command":"ls","working_dir":"sub"}}`))
	if err != nil || c.Kind != Shell || c.Dir != "/w/sub" {
		t.Errorf("crush: got %+v %v", c, err)
	}
}

// TestDontAsk: Claude Code's dontAsk settings turn asks into denials.
func TestDontAsk(t *testing.T) {
	ws := t.TempDir()
	a, _ := Lookup("claude")
	c := Call{Agent: "claude", Kind: Shell, Command: "touch x", Cwd: ws, Dir: ws}
	if v, _ := Decide(a, c, Config{}); v.Action != Ask {
		t.Fatalf("without dontAsk: %s", v.Action)
	}
	if v, _ := Decide(a, c, Config{DontAsk: true}); v.Action != Deny || !strings.Contains(v.Reason, "dontAsk") {
		t.Errorf("with dontAsk: %s %q", v.Action, v.Reason)
	}
}
