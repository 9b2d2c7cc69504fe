package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentexec/agentexec/internal/atomicfile"
)

// SettingsSpec says where an agent keeps its hooks and how one entry is
// written.
type SettingsSpec struct {
	// Event is the hooks key the entry goes under: PreToolUse, BeforeTool.
	Event string
	// Matcher selects the tools the hook is called for (a regex).
	Matcher string
	// Flat entries are {"name", "matcher", "command"} (Crush); the others
	// are {"matcher", "hooks": [{"type": "command", "command", ...}]}.
	Flat bool
	// Named says the hook object carries "name": "agentexec" (Gemini CLI
	// and Crush show it in their hook lists).
	Named bool
	// Project is the settings file of the project in dir.
	Project func(dir string) string
	// User is the user's settings file, from the environment.
	User func(getenv func(string) string) (string, error)
}

// Change is what an install or uninstall does to one settings file.
type Change struct {
	Path   string
	Before []byte // nil: the file does not exist
	After  []byte // equal to Before: nothing to do (Note says why)
	Note   string
}

// Changed reports whether the file's bytes would change.
func (c Change) Changed() bool {
	return !bytes.Equal(c.Before, c.After) || (c.Before == nil && c.After != nil)
}

type nestedEntry struct {
	Matcher string       `json:"matcher"`
	Hooks   []nestedHook `json:"hooks"`
}

type nestedHook struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Name    string `json:"name,omitempty"`
}

type flatEntry struct {
	Name    string `json:"name"`
	Matcher string `json:"matcher"`
	Command string `json:"command"`
}

func (s SettingsSpec) entry(command string) any {
	if s.Flat {
		return flatEntry{Name: "agentexec", Matcher: s.Matcher, Command: command}
	}
	h := nestedHook{Type: "command", Command: command}
	if s.Named {
		h.Name = "agentexec"
	}
	return nestedEntry{Matcher: s.Matcher, Hooks: []nestedHook{h}}
}

// IsOurs reports whether a hook command is agentexec's hook for agent.
func IsOurs(command, agent string) bool {
	return strings.Contains(command, "agentexec") && strings.Contains(command, " hook --agent "+agent)
}

// Install computes the change that adds the hook entry running command to
// the settings file at path, keeping every other byte. An entry of ours
// already there makes it a no-op.
func Install(path string, s SettingsSpec, agent, command string) (Change, error) {
	before, err := readSettings(path)
	if err != nil {
		return Change{}, err
	}
	ch := Change{Path: path, Before: before, After: before}
	if len(bytes.TrimSpace(before)) == 0 {
		doc := map[string]any{"hooks": map[string]any{s.Event: []any{s.entry(command)}}}
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return Change{}, err
		}
		ch.After = append(b, '\n')
		return ch, nil
	}
	text := string(before)
	root, err := parseJSONText(text)
	if err != nil {
		return Change{}, fmt.Errorf("%s: %w", path, err)
	}
	ed := editor{text: text}
	after, note, err := ed.install(root, s, agent, command)
	if err != nil {
		return Change{}, fmt.Errorf("%s: %w", path, err)
	}
	ch.After, ch.Note = []byte(after), note
	return ch, nil
}

// Uninstall computes the change that removes agentexec's hook entries for
// agent from the settings file at path, and the "hooks" and event keys
// when the entry was all they held: what Install added comes out byte for
// byte.
func Uninstall(path string, s SettingsSpec, agent string) (Change, error) {
	before, err := readSettings(path)
	if err != nil {
		return Change{}, err
	}
	ch := Change{Path: path, Before: before, After: before}
	if before == nil {
		ch.Note = "no settings file"
		return ch, nil
	}
	text := string(before)
	removed := 0
	for {
		root, err := parseJSONText(text)
		if err != nil {
			return Change{}, fmt.Errorf("%s: %w", path, err)
		}
		ed := editor{text: text}
		next, ok := ed.uninstallOne(root, s, agent)
		if !ok {
			break
		}
		text, removed = next, removed+1
	}
	if removed == 0 {
		ch.Note = "agentexec's hook is not installed there"
	}
	ch.After = []byte(text)
	return ch, nil
}

func readSettings(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Write stores the change: the new bytes replace the file atomically,
// keeping its mode (0644 for a new file, its directory created).
func (c Change) Write() error {
	if !c.Changed() {
		return nil
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(c.Path); err == nil {
		mode = fi.Mode().Perm()
	}
	return atomicfile.Write(c.Path, c.After, mode)
}

// Diff shows the change line by line: the lines before and after that
// differ, with the unchanged lines around them left out.
func (c Change) Diff() string {
	a, b := splitLines(string(c.Before)), splitLines(string(c.After))
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n@@ line %d @@\n", c.Path, c.Path, pre+1)
	for _, l := range a[pre : len(a)-suf] {
		out.WriteString("-" + l + "\n")
	}
	for _, l := range b[pre : len(b)-suf] {
		out.WriteString("+" + l + "\n")
	}
	return out.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// homeFile is a User function for a file under $HOME.
func homeFile(elem ...string) func(func(string) string) (string, error) {
	return func(getenv func(string) string) (string, error) {
		h := getenv("HOME")
		if h == "" {
			h = getenv("USERPROFILE")
		}
		if h == "" {
			return "", errors.New("no home directory: HOME is not set")
		}
		return filepath.Join(append([]string{h}, elem...)...), nil
	}
}
