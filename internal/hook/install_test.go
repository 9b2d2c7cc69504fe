package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallRoundTrip: for every agent and every fixture settings file,
// install adds exactly one entry of ours under hooks.<event> and leaves
// every other value's bytes alone, a second install changes nothing, and
// uninstall gives back the original file byte for byte.
func TestInstallRoundTrip(t *testing.T) {
	fixtures, _ := filepath.Glob(filepath.Join(testdata, "settings", "*"))
	if len(fixtures) < 5 {
		t.Fatalf("only %d fixtures", len(fixtures))
	}
	for _, name := range Names() {
		a, _ := Lookup(name)
		spec := a.Settings()
		cmd := "agentexec hook --agent " + name
		for _, fx := range append(fixtures, "") {
			label := name + "/" + filepath.Base(fx)
			orig := []byte(nil)
			if fx != "" {
				b, err := os.ReadFile(fx)
				if err != nil {
					t.Fatal(err)
				}
				orig = b
			} else {
				label = name + "/missing"
			}
			path := filepath.Join(t.TempDir(), "settings.json")
			if orig != nil {
				if err := os.WriteFile(path, orig, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			ch, err := Install(path, spec, name, cmd)
			if err != nil {
				t.Fatalf("%s: install: %v", label, err)
			}
			if !ch.Changed() {
				t.Fatalf("%s: install changed nothing: %s", label, ch.Note)
			}
			checkInstalled(t, label, spec, name, cmd, orig, ch.After)
			if err := ch.Write(); err != nil {
				t.Fatal(err)
			}
			if fi, _ := os.Stat(path); orig != nil && fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: install changed the file mode to %v", label, fi.Mode().Perm())
			}
			again, err := Install(path, spec, name, cmd)
			if err != nil || again.Changed() || !strings.Contains(again.Note, "already installed") {
				t.Errorf("%s: a second install: changed=%v note=%q err=%v", label, again.Changed(), again.Note, err)
			}
			un, err := Uninstall(path, spec, name)
			if err != nil {
				t.Fatalf("%s: uninstall: %v", label, err)
			}
			want := orig
			if want == nil {
				want = []byte("{}\n")
			}
			if !bytes.Equal(un.After, want) {
				t.Errorf("%s: uninstall did not restore the file:\n--- want\n%s\n--- got\n%s", label, want, un.After)
			}
		}
	}
}

func checkInstalled(t *testing.T, label string, spec SettingsSpec, agent, cmd string, orig, after []byte) {
	t.Helper()
	root, err := parseJSONText(string(after))
	if err != nil {
		t.Fatalf("%s: installed file does not parse: %v\n%s", label, err, after)
	}
	if json.Valid(orig) && !json.Valid(after) {
		t.Errorf("%s: a JSON file became something else:\n%s", label, after)
	}
	hooks, _ := root.member("hooks")
	if hooks == nil {
		t.Fatalf("%s: no hooks key:\n%s", label, after)
	}
	event, _ := hooks.val.member(spec.Event)
	if event == nil || event.val.kind != '[' {
		t.Fatalf("%s: no hooks.%s array:\n%s", label, spec.Event, after)
	}
	ours := 0
	for _, g := range event.val.elems {
		for _, c := range groupCommands(g, spec) {
			if IsOurs(c.str, agent) {
				ours++
				if c.str != cmd {
					t.Errorf("%s: command %q, want %q", label, c.str, cmd)
				}
				if m, _ := g.member("matcher"); m == nil || m.val.str != spec.Matcher {
					t.Errorf("%s: the entry's matcher is not %q", label, spec.Matcher)
				}
			}
		}
	}
	if ours != 1 {
		t.Errorf("%s: %d entries of ours, want 1:\n%s", label, ours, after)
	}
	if orig == nil || len(bytes.TrimSpace(orig)) == 0 {
		return
	}
	before, err := parseJSONText(string(orig))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range before.members {
		if m.key == "hooks" {
			continue
		}
		got, _ := root.member(m.key)
		if got == nil || string(after[got.val.start:got.val.end]) != string(orig[m.val.start:m.val.end]) {
			t.Errorf("%s: install changed the bytes of %q", label, m.key)
		}
	}
}

// TestUninstallKeepsOthers: uninstall takes out only agentexec's entries:
// another tool's hook in the same group, or another agent's agentexec
// entry, stays.
func TestUninstallKeepsOthers(t *testing.T) {
	spec := claude{}.Settings()
	text := `{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit-log"}, {"type": "command", "command": "agentexec hook --agent claude"}]},
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/agentexec hook --agent qwen"}]}
]}}`
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ch, err := Uninstall(path, spec, "claude")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Hooks map[string][]nestedEntry `json:"hooks"`
	}
	if err := json.Unmarshal(ch.After, &v); err != nil {
		t.Fatalf("%v\n%s", err, ch.After)
	}
	g := v.Hooks["PreToolUse"]
	if len(g) != 2 || len(g[0].Hooks) != 1 || g[0].Hooks[0].Command != "audit-log" || g[1].Hooks[0].Command != "/opt/agentexec hook --agent qwen" {
		t.Errorf("uninstall took out more than agentexec's claude entry:\n%s", ch.After)
	}
}

// TestInstallRefusesBadShapes: settings whose hooks key is not an object
// are reported, not overwritten.
func TestInstallRefusesBadShapes(t *testing.T) {
	for _, text := range []string{`[]`, `{"hooks": []}`, `{"hooks": {"PreToolUse": {}}}`, `{"a": 1,,}`, `{"a": "unterminated}`} {
		path := filepath.Join(t.TempDir(), "settings.json")
		os.WriteFile(path, []byte(text), 0o644)
		if _, err := Install(path, claude{}.Settings(), "claude", "agentexec hook --agent claude"); err == nil {
			t.Errorf("%s: installed into it", text)
		}
	}
}
