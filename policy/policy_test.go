package policy

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/gate"
)

var update = flag.Bool("update", false, "rewrite the golden policy show files")

// fixtures is where the realistic settings files live.
var fixtures = func() string {
	d, err := filepath.Abs("../testdata/policies")
	if err != nil {
		panic(err)
	}
	return d
}()

type fixture struct {
	name      string
	opts      Options
	format    Format
	decisions map[string]gate.Action
}

func fixturesTable() []fixture {
	at := func(rel string) string { return filepath.Join(fixtures, rel) }
	return []fixture{
		{"agentexec", Options{Path: at("agentexec/policy.json")}, Agentexec, map[string]gate.Action{
			"npm run test -- --watch":   gate.Allow,
			"git status":                gate.Allow,
			"npm install left-pad":      gate.Allow,
			"git push origin main":      gate.Ask,
			"git push --force origin x": gate.Deny,
			"rm -rf build":              gate.Deny,
			"psql -h prod1":             gate.Deny,
			"jq . package.json":         gate.Allow,
			"touch x":                   gate.Ask,
		}},
		{"claude", Options{Project: at("claude"), Managed: "-"}, Claude, map[string]gate.Action{
			"npm run test":          gate.Allow,
			"make build":            gate.Allow,
			"make build install":    gate.Ask, // Bash(make build) is exact in Claude's settings
			"git diff HEAD~1":       gate.Allow,
			"git push origin main":  gate.Ask,
			"curl https://x.test":   gate.Deny,
			"ls && curl -s x.test":  gate.Deny,
			"touch notes.txt":       gate.Ask,
			"cat README.md | head":  gate.Allow,
			"npm run testing-stuff": gate.Ask,
		}},
		{"qwen", Options{Path: at("qwen/.qwen/settings.json")}, Qwen, map[string]gate.Action{
			"npm test -- -u":          gate.Allow, // Qwen's Bash(npm test) is a prefix
			"npm tests":               gate.Ask,
			"git push --force origin": gate.Deny,
			"curl https://x.test":     gate.Deny,
			"rg TODO src":             gate.Allow,
		}},
		{"gemini", Options{Project: at("gemini"), Managed: "-"}, Gemini, map[string]gate.Action{
			"npm test":               gate.Allow,
			"npm test -- --watch":    gate.Allow,
			"npm run lint -- --fix":  gate.Allow,
			"rm -rf dist":            gate.Deny,
			"git push origin main":   gate.Deny,
			"docker rm abc":          gate.Ask,
			"docker ps":              gate.Ask,
			"make deploy":            gate.Ask, // the allow is for yolo only
			"git log --oneline -3":   gate.Allow,
			"echo hi && rm -rf dist": gate.Deny,
		}},
		{"gemini-v1", Options{Path: at("gemini-v1/.gemini/settings.json")}, Gemini, map[string]gate.Action{
			"rm x":                 gate.Deny,
			"git status --short":   gate.Allow,
			"npm install left-pad": gate.Ask,
		}},
		{"codex-rules", Options{Path: at("codex/default.rules")}, CodexRules, map[string]gate.Action{
			"git push origin main": gate.Deny,
			"git status":           gate.Allow,
			"git log -3":           gate.Allow,
			"npm publish --dry":    gate.Ask,
			"git commit -m x":      gate.Ask,
		}},
		{"codex-config", Options{Path: at("codex/config.toml")}, Codex, map[string]gate.Action{
			"ls -la":  gate.Allow,
			"touch x": gate.Ask,
		}},
	}
}

// TestFixtureDecisions loads every fixture and decides a table of
// commands, in both directions (a refused form and a near miss).
func TestFixtureDecisions(t *testing.T) {
	for _, f := range fixturesTable() {
		t.Run(f.name, func(t *testing.T) {
			l, err := Load(f.opts)
			if err != nil {
				t.Fatal(err)
			}
			if l.Format != f.format {
				t.Errorf("format %s, want %s", l.Format, f.format)
			}
			cwd := filepath.Dir(firstPath(l.Files))
			for cmd, want := range f.decisions {
				d := gate.Decide(gate.Input{Text: cmd, Policy: l.Policy, Cwd: cwd, ExecGate: true})
				if d.Action != want {
					t.Errorf("%q: %s, want %s (%s)", cmd, d.Action, want, d.Reason)
				}
			}
		})
	}
}

// TestFixtureShowGolden compares `policy show` for every fixture with its
// golden file (go test ./policy -update rewrites them).
func TestFixtureShowGolden(t *testing.T) {
	for _, f := range fixturesTable() {
		t.Run(f.name, func(t *testing.T) {
			l, err := Load(f.opts)
			if err != nil {
				t.Fatal(err)
			}
			s, err := l.Show()
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := s.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(b.String(), fixtures, "$FIXTURES")
			golden := filepath.Join(fixtures, "golden", f.name+".txt")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./policy -update)", err)
			}
			if got != string(want) {
				t.Errorf("policy show differs from %s:\n%s", golden, got)
			}
		})
	}
}

// TestNothingDroppedSilently: every rule and setting the issue named as
// silently dropped is now applied or listed.
func TestNothingDroppedSilently(t *testing.T) {
	l, err := Load(Options{Project: filepath.Join(fixtures, "claude"), Managed: "-"})
	if err != nil {
		t.Fatal(err)
	}
	p := l.Policy
	listed := func(notes []Note, item string) bool {
		for _, n := range notes {
			if strings.Contains(n.Item, item) {
				return true
			}
		}
		return false
	}
	for _, item := range []string{"Read(./src/**)", "Read(./.env)", "Edit(./secrets/**)", "mcp__github__get_issue", "sandbox.excludedCommands: docker"} {
		if !listed(l.Ignored, item) && !listed(l.Mapped, item) {
			t.Errorf("%s is neither applied nor listed as ignored", item)
		}
	}
	if len(p.Files) != 3 || p.Files[1].Text != "Read(./.env)" || p.Files[1].Pattern != filepath.Join(fixtures, "claude", ".env") || p.Files[1].Action != gate.Deny {
		t.Errorf("file rules: %+v", p.Files)
	}
	if p.Env.Set["FOO"] != "bar" || p.Env.Set["NODE_ENV"] != "test" || !listed(l.Mapped, "env.FOO") {
		t.Errorf("env block: %v", p.Env.Set)
	}
	n := p.Sandbox.Network
	if !n.Proxied() || !slices.Contains(n.Allow, "docs.python.org") || !slices.Contains(n.Allow, "registry.npmjs.org") || !slices.Equal(n.Deny, []string{"evil.example"}) {
		t.Errorf("network: %+v", n)
	}
	if want := filepath.Join(fixtures, "shared-lib"); !slices.Contains(p.Sandbox.WritableRoots, want) {
		t.Errorf("additionalDirectories: writable roots %v, want %s", p.Sandbox.WritableRoots, want)
	}
	if !listed(l.Unrelated, "hooks") || !listed(l.Unrelated, "model") {
		t.Errorf("unrelated keys not listed: %+v", l.Unrelated)
	}
	if l.Clean() {
		t.Error("a policy with ignored rules reports clean")
	}
	if l.LocalFile != filepath.Join(fixtures, "claude", ".claude", "settings.local.json") || l.LocalFormat != Claude {
		t.Errorf("local file %s (%s)", l.LocalFile, l.LocalFormat)
	}

	q, err := Load(Options{Path: filepath.Join(fixtures, "qwen/.qwen/settings.json")})
	if err != nil {
		t.Fatal(err)
	}
	if !listed(q.Refused, "bash") || !slices.Contains(q.Policy.ReadOnlyCommands, "rg") || slices.Contains(q.Policy.ReadOnlyCommands, "bash") {
		t.Errorf("qwen extraReadOnlyCommands: refused %+v, vouched %v", q.Refused, q.Policy.ReadOnlyCommands)
	}
	if !listed(q.Ignored, "web_fetch") {
		t.Errorf("qwen tools.exclude web_fetch not listed: %+v", q.Ignored)
	}
	g, err := Load(Options{Path: filepath.Join(fixtures, "gemini-v1/.gemini/settings.json")})
	if err != nil {
		t.Fatal(err)
	}
	if !listed(g.Mapped, "coreTools: run_shell_command(git)") {
		t.Errorf("gemini coreTools allowlist not mapped: %+v", g.Mapped)
	}
	for cmd, want := range map[string]gate.Action{"git status": gate.Allow, "npm test": gate.Ask, "curl x": gate.Deny, "ls && curl x": gate.Deny} {
		if d := gate.Decide(gate.Input{Text: cmd, Policy: g.Policy, ExecGate: true}); d.Action != want {
			t.Errorf("gemini coreTools: %q: %s, want %s: %s", cmd, d.Action, want, d.Reason)
		}
	}
	a, err := Load(Options{Path: filepath.Join(fixtures, "agentexec/policy.json")})
	if err != nil {
		t.Fatal(err)
	}
	if !listed(a.Refused, "python3") {
		t.Errorf("agentexec read_only_commands python3 not refused: %+v", a.Refused)
	}
}

func write(t *testing.T, dir, rel, body string) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadErrors: typos, syntax errors and failing Codex examples are
// refused at load, naming what is wrong; near misses load.
func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ rel, body, want string }{
		{"a.json", `{"mdoe": "plan", "permissions": {"allow": ["Bash(ls *)"]}}`, `unknown key "mdoe" at top level; did you mean "mode"?`},
		{"b.json", `{"_comment": "x", "mode": "plan"}`, `unknown key "_comment"`},
		{"c.json", `{"mode": "plan", "permissions": {"alow": ["Bash(ls)"]}}`, `unknown key "alow" in permissions; did you mean "allow"?`},
		{"d.json", "{\n  \"mode\": \"plan\",\n  \"permissions\": {\"allow\": [\"Bash(ls)\"],}\n}\n", "line 3, column 41"},
		{"e/.claude/settings.json", `{"permissions": {"allow": [], "defaultMode": "plan", "dney": []}}`, `unknown key "dney" in permissions; did you mean "deny"?`},
		{"f/.claude/settings.json", `{"permisions": {"allow": ["Bash(ls)"]}, "model": "x"}`, `did you mean "permissions"?`},
		{"g/.claude/settings.json", `{"model": "x", "permissions": {"allow": ["bash(rm *)"]}}`, "tool names are case-sensitive"},
		{"h/default.rules", "prefix_rule(pattern = [\"git\", \"push\"], decision = \"forbidden\", match = [\"git fetch origin\"])\n", `the match example "git fetch origin" does not match`},
		{"i/default.rules", "prefix_rule(pattern = [\"git\", \"push\"], not_match = [\"git push -f\"])\n", `the not_match example "git push -f" matches`},
		{"j/default.rules", "prefix_rule(pattern = [\"git\"], decision = \"maybe\")\n", `decision: "maybe" is not allow, prompt or forbidden`},
		{"k/default.rules", "load(\"x.star\", \"y\")\n", "load() is not supported"},
		{"l/p.toml", "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"git\"\ndecision = \"permit\"\n", `line 1: [[rule]] 1: decision: "permit"`},
		{"m/p.toml", "[[rule]\n", "line 2, column 7"},
		{"n/.gemini/settings.json", `{"tools": {"exlude": ["run_shell_command(rm)"]}}`, `unknown key "exlude" in tools; did you mean "exclude"?`},
		{"o/config.toml", "sandbox_mod = \"read-only\"\n", `unknown key "sandbox_mod"; did you mean "sandbox_mode"?`},
	} {
		path := write(t, dir, tt.rel, tt.body)
		_, err := Load(Options{Path: path})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want an error naming the file and %q", tt.rel, err, tt.want)
		}
	}
	// Near misses that load.
	for rel, body := range map[string]string{
		"ok1.json":                    `{"mode": "plan", "permissions": {"allow": ["Bash(ls *)"]}}`,
		"ok2/.claude/settings.json":   `{"permissions": {"allow": ["Bash(ls)"]}, "theme": "dark"}`,
		"ok3/default.rules":           "prefix_rule(pattern = [\"git\", \"push\"], decision = \"forbidden\", match = [\"git push\"])\n",
		"ok4/.gemini/settings.json":   `{"tools": {"useRipgrep": true}}`,
		"ok5/config.toml":             "model = \"gpt\"\n",
		"ok6/.claude/settings.json":   `{"permissions": {"allow": ["Bash(ls)"]}}`,
		"ok7/.gemini/policies/x.toml": "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"git\"\ndecision = \"allow\"\n",
	} {
		if _, err := Load(Options{Path: write(t, dir, rel, body)}); err != nil {
			t.Errorf("%s: %v", rel, err)
		}
	}
}

// TestDetectByContent: the format follows the content, never the name, and
// never the failure of another parse.
func TestDetectByContent(t *testing.T) {
	dir := t.TempDir()
	for body, want := range map[string]Format{
		`{"mode": "plan"}`:                                                      Agentexec,
		`{"permissions": {"allow": ["Bash(ls)"]}}`:                              Agentexec,
		`{"permissions": {"allow": ["Read(./x)"]}}`:                             Claude,
		`{"permissions": {"defaultMode": "plan"}}`:                              Claude,
		`{"env": {"FOO": "bar"}}`:                                               Claude,
		`{"env": {"set": {"FOO": "bar"}}}`:                                      Agentexec,
		`{"hooks": {}}`:                                                         Claude,
		`{"sandbox": {"excludedCommands": []}}`:                                 Claude,
		`{"sandbox": {"profile": "read-only"}}`:                                 Agentexec,
		`{"tools": {"exclude": []}}`:                                            Gemini,
		`{"tools": {"exclude": []}, "permissions": {"allow": []}}`:              Qwen,
		`{"excludeTools": []}`:                                                  Gemini,
		`{"$schema": "https://json.schemastore.org/claude-code-settings.json"}`: Claude,
	} {
		path := write(t, dir, "settings.json", body)
		got, err := detect(path, []byte(body), "")
		if err != nil || got != want {
			t.Errorf("%s: %s, %v; want %s", body, got, err, want)
		}
	}
	// The same file in an agent's directory: named by it only when the
	// content says nothing either way.
	if got, _ := detect(filepath.Join(dir, ".claude", "settings.json"), []byte(`{"permissions": {"allow": ["Bash(ls)"]}}`), ""); got != Claude {
		t.Errorf("ambiguous file under .claude: %s", got)
	}
	if got, _ := detect(filepath.Join(dir, ".claude", "settings.json"), []byte(`{"mode": "plan"}`), ""); got != Agentexec {
		t.Errorf("agentexec file under .claude: %s", got)
	}
}

// TestClaudeLayers: managed > local > project > user, as Claude Code
// layers them; deny from any layer holds, the highest defaultMode wins,
// env values of a higher layer win.
func TestClaudeLayers(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	proj := filepath.Join(dir, "proj")
	managed := write(t, dir, "managed/managed-settings.json", `{"permissions": {"deny": ["Bash(curl:*)"], "defaultMode": "plan"}, "env": {"LEVEL": "managed"}}`)
	write(t, proj, ".claude/settings.local.json", `{"permissions": {"allow": ["Bash(make build)"], "defaultMode": "default"}, "env": {"LEVEL": "local", "LOCAL": "1"}}`)
	write(t, proj, ".claude/settings.json", `{"permissions": {"allow": ["Bash(curl:*)", "Bash(npm test)"]}, "env": {"LEVEL": "project"}}`)
	write(t, home, ".claude/settings.json", `{"permissions": {"ask": ["Bash(npm test)"]}, "env": {"USERV": "u"}}`)
	l, err := Load(Options{Project: proj, Home: home, Managed: managed})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Files) != 4 || l.Files[0].Scope != "managed" || l.Files[3].Scope != "user" {
		t.Fatalf("files %+v", l.Files)
	}
	p := l.Policy
	if p.Mode != gate.ModePlan {
		t.Errorf("mode %s, want managed's plan", p.Mode)
	}
	if p.Env.Set["LEVEL"] != "managed" || p.Env.Set["LOCAL"] != "1" || p.Env.Set["USERV"] != "u" {
		t.Errorf("env %v", p.Env.Set)
	}
	for cmd, want := range map[string]gate.Action{"curl x.test": gate.Deny, "npm test": gate.Ask} {
		if d := gate.Decide(gate.Input{Text: cmd, Policy: p, Mode: gate.ModeDefault, ExecGate: true}); d.Action != want {
			t.Errorf("%s: %s, want %s (%s)", cmd, d.Action, want, d.Reason)
		}
	}
	if d := gate.Decide(gate.Input{Text: "make build", Policy: p, Mode: gate.ModeDefault, ExecGate: true}); d.Action != gate.Allow || !strings.Contains(d.Reason, "settings.local.json:1") {
		t.Errorf("make build: %s (%s)", d.Action, d.Reason)
	}
}

// TestLocalRulesLayered: .agentexec/local.json in the workspace is read on
// top of any format, strictly.
func TestLocalRulesLayered(t *testing.T) {
	dir := t.TempDir()
	pol := write(t, dir, "p.json", `{"permissions": {"allow": ["Bash(ls *)"]}}`)
	write(t, dir, ".agentexec/local.json", "{\n  \"permissions\": {\"allow\": [\n    \"Bash(make build)\"]}}\n")
	l, err := Load(Options{Path: pol, Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	d := gate.Decide(gate.Input{Text: "make build", Policy: l.Policy, ExecGate: true})
	if d.Action != gate.Allow || !strings.Contains(d.Reason, "local.json:3") {
		t.Errorf("make build: %s (%s)", d.Action, d.Reason)
	}
	if l.LocalFile != filepath.Join(dir, ".agentexec", "local.json") {
		t.Errorf("local file %s", l.LocalFile)
	}
	write(t, dir, ".agentexec/local.json", `{"permissions": {"allow": ["Bash(make build)"]}, "mode": "yolo"}`)
	if _, err := Load(Options{Path: pol, Workspace: dir}); err == nil || !strings.Contains(err.Error(), `"mode"`) {
		t.Errorf("a local file with more than rules: %v", err)
	}
}

// TestCodexJustificationIsTheReason and the rule's line.
func TestCodexJustificationIsTheReason(t *testing.T) {
	l, err := Load(Options{Path: filepath.Join(fixtures, "codex/default.rules")})
	if err != nil {
		t.Fatal(err)
	}
	d := gate.Decide(gate.Input{Text: "git push origin main", Policy: l.Policy})
	if d.Action != gate.Deny || !strings.Contains(d.Reason, "no pushes from the agent") || !strings.Contains(d.Reason, "default.rules:2") {
		t.Errorf("%s: %s", d.Action, d.Reason)
	}
}
