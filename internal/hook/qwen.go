package hook

import (
	"path/filepath"

	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/internal/lazy"
)

// Qwen Code's PreToolUse hook, as QwenLM/qwen-code documents it
// (docs/users/features/hooks.md, "PreToolUse"): Claude Code's layout with
// Qwen's tool ids (run_shell_command, read_file, write_file, edit, …) and
// permission_mode "default", "plan", "auto_edit" or "yolo". The answer is
// hookSpecificOutput.permissionDecision "allow", "deny" or "ask" with a
// permissionDecisionReason (both required) and an optional updatedInput
// used instead of the original input; "ask" prompts in the TUI and falls
// back to deny where nothing can prompt. Exit 2 blocks with stderr fed to
// the model.
type qwen struct{}

var qwenEnvelope = &lazy.Value[envelope]{Build: func() envelope {
	return envelope{
		agent:    "qwen",
		eventKey: "hook_event_name",
		event:    "PreToolUse",
		modeKey:  "permission_mode",
		modes: map[string]gate.Mode{
			"default":   gate.ModeDefault,
			"auto_edit": gate.ModeDefault,
			"plan":      gate.ModePlan,
			"yolo":      gate.ModeYolo,
		},
		tools: map[string]toolSpec{
			"run_shell_command": {kind: Shell, command: "command", dir: "directory", timeoutMS: "timeout", background: "is_background"},
			"read_file":         {kind: Read, paths: []string{"file_path"}},
			"read_many_files":   {kind: Read, paths: []string{"paths"}},
			"list_directory":    {kind: Read, paths: []string{"path"}},
			"glob":              {kind: Read, paths: []string{"path"}, optional: true},
			"grep_search":       {kind: Read, paths: []string{"path"}, optional: true},
			"write_file":        {kind: Write, paths: []string{"file_path"}},
			"edit":              {kind: Write, paths: []string{"file_path"}},
		},
	}
}}

func (qwen) Name() string                    { return "qwen" }
func (qwen) Parse(data []byte) (Call, error) { return qwenEnvelope.Get().parse(data) }
func (qwen) CanRewrite() bool                { return true }
func (qwen) Ask() AskStyle                   { return AskNative }

func (qwen) Answer(c Call, v Verdict) Answer {
	if v.Action != None && v.Reason == "" {
		v.Reason = "agentexec: " + string(v.Action) // Qwen requires a reason
	}
	return preToolUseAnswer(c, v, true)
}

// Settings: .qwen/settings.json in the project, ~/.qwen/settings.json for
// the user.
func (qwen) Settings() SettingsSpec {
	return SettingsSpec{
		Event:   "PreToolUse",
		Matcher: "run_shell_command|read_file|read_many_files|list_directory|glob|grep_search|write_file|edit",
		Named:   true,
		Project: func(dir string) string { return filepath.Join(dir, ".qwen", "settings.json") },
		User:    homeFile(".qwen", "settings.json"),
	}
}
