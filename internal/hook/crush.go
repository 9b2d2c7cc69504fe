package hook

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/agentexec/agentexec/internal/lazy"
)

// Crush's PreToolUse hook, as charmbracelet/crush documents it
// (docs/hooks/README.md, "Stdin payload — PreToolUse" and "Output envelope
// — PreToolUse"; internal/hooks/input.go): the payload is {"event",
// "session_id", "cwd", "tool_name", "tool_input"}, event names compare
// case-insensitively and snake-cased. The answer is JSON on stdout with
// exit 0: "decision" "allow" (pre-approves, skipping the permission
// prompt), "deny", or null/omitted (no opinion: the normal permission
// flow), "reason" (shown when denying), and "updated_input", a patch
// shallow-merged into the tool input. Exit 2 blocks with stderr as the
// reason, exit 49 halts the turn. Crush has no "ask": an agentexec ask is
// answered with no decision, which sends the call to Crush's own
// permission prompt.
type crush struct{}

var crushEnvelope = &lazy.Value[envelope]{Build: func() envelope {
	return envelope{
		agent:    "crush",
		eventKey: "event",
		event:    "PreToolUse",
		foldCase: true,
		tools: map[string]toolSpec{
			"bash":      {kind: Shell, command: "command", dir: "working_dir", background: "run_in_background"},
			"view":      {kind: Read, paths: []string{"file_path"}},
			"ls":        {kind: Read, paths: []string{"path"}, optional: true},
			"grep":      {kind: Read, paths: []string{"path"}, optional: true},
			"glob":      {kind: Read, paths: []string{"path"}, optional: true},
			"edit":      {kind: Write, paths: []string{"file_path"}},
			"multiedit": {kind: Write, paths: []string{"file_path"}},
			"write":     {kind: Write, paths: []string{"file_path"}},
			"download":  {kind: Write, paths: []string{"file_path"}},
		},
	}
}}

func (crush) Name() string                    { return "crush" }
func (crush) Parse(data []byte) (Call, error) { return crushEnvelope.Get().parse(data) }
func (crush) CanRewrite() bool                { return true }
func (crush) Ask() AskStyle                   { return AskByNoDecision }

type crushOutput struct {
	Decision     string                     `json:"decision,omitempty"`
	Reason       string                     `json:"reason,omitempty"`
	UpdatedInput map[string]json.RawMessage `json:"updated_input,omitempty"`
}

func (crush) Answer(c Call, v Verdict) Answer {
	if v.Action == None {
		return Answer{}
	}
	out := crushOutput{Reason: v.Reason}
	switch v.Action {
	case Allow, Deny:
		out.Decision = string(v.Action)
	case Ask:
		out.Reason = "" // no decision: Crush's permission prompt asks the person
	}
	if v.Command != "" && v.Action != Deny {
		b, _ := marshalNoEscape(v.Command)
		out.UpdatedInput = map[string]json.RawMessage{c.CommandKey: b} // a patch: only the command changes
	}
	return jsonAnswer(out)
}

// Settings: the project's crush.json (or an existing .crush.json), and
// $XDG_CONFIG_HOME/crush/crush.json for the user.
func (crush) Settings() SettingsSpec {
	return SettingsSpec{
		Event:   "PreToolUse",
		Matcher: "^(bash|view|ls|grep|glob|edit|multiedit|write|download)$",
		Flat:    true,
		Project: func(dir string) string {
			for _, name := range []string{"crush.json", ".crush.json"} {
				if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
					return filepath.Join(dir, name)
				}
			}
			return filepath.Join(dir, "crush.json")
		},
		User: func(getenv func(string) string) (string, error) {
			if d := getenv("XDG_CONFIG_HOME"); d != "" {
				return filepath.Join(d, "crush", "crush.json"), nil
			}
			return homeFile(".config", "crush", "crush.json")(getenv)
		},
	}
}
