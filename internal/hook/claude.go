package hook

import (
	"path/filepath"

	"encoding/json"

	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/internal/lazy"
)

// Claude Code's PreToolUse hook, as its hooks reference documents it
// (https://code.claude.com/docs/en/hooks, "PreToolUse" and "PreToolUse
// decision control"): the payload carries session_id, transcript_path, cwd,
// permission_mode, hook_event_name, tool_name, tool_input and tool_use_id;
// the answer is JSON on stdout with exit 0,
//
//	{"hookSpecificOutput": {"hookEventName": "PreToolUse",
//	  "permissionDecision": "allow"|"deny"|"ask",
//	  "permissionDecisionReason": "...", "updatedInput": {...}}}
//
// where the reason of a deny is shown to Claude and that of an ask to the
// user, and updatedInput replaces the tool's input. Exit 2 blocks with
// stderr as the reason; any other exit lets the tool run.
type claude struct{}

var claudeEnvelope = &lazy.Value[envelope]{Build: func() envelope {
	return envelope{
		agent:    "claude",
		eventKey: "hook_event_name",
		event:    "PreToolUse",
		modeKey:  "permission_mode",
		modes: map[string]gate.Mode{
			"default":           gate.ModeDefault,
			"acceptEdits":       gate.ModeDefault, // edits of files, not commands
			"dontAsk":           gate.ModeDefault,
			"auto":              gate.ModeDefault,
			"plan":              gate.ModePlan,
			"bypassPermissions": gate.ModeYolo,
		},
		tools: map[string]toolSpec{
			"Bash":         {kind: Shell, command: "command", timeoutMS: "timeout", background: "run_in_background"},
			"Read":         {kind: Read, paths: []string{"file_path"}},
			"NotebookRead": {kind: Read, paths: []string{"notebook_path"}},
			"Grep":         {kind: Read, paths: []string{"path"}, optional: true},
			"Glob":         {kind: Read, paths: []string{"path"}, optional: true},
			"LS":           {kind: Read, paths: []string{"path"}},
			"Edit":         {kind: Write, paths: []string{"file_path"}},
			"MultiEdit":    {kind: Write, paths: []string{"file_path"}},
			"Write":        {kind: Write, paths: []string{"file_path"}},
			"NotebookEdit": {kind: Write, paths: []string{"notebook_path"}},
		},
	}
}}

func (claude) Name() string                    { return "claude" }
func (claude) Parse(data []byte) (Call, error) { return claudeEnvelope.Get().parse(data) }
func (claude) CanRewrite() bool                { return true }
func (claude) Ask() AskStyle                   { return AskNative }

func (claude) Answer(c Call, v Verdict) Answer {
	return preToolUseAnswer(c, v, true)
}

// preToolUseOutput is the answer shape Claude Code defined and Codex and
// Qwen Code adopted.
type preToolUseOutput struct {
	HookSpecificOutput preToolUseSpecific `json:"hookSpecificOutput"`
}

type preToolUseSpecific struct {
	HookEventName            string                     `json:"hookEventName"`
	PermissionDecision       string                     `json:"permissionDecision"`
	PermissionDecisionReason string                     `json:"permissionDecisionReason,omitempty"`
	UpdatedInput             map[string]json.RawMessage `json:"updatedInput,omitempty"`
}

// preToolUseAnswer renders v in the PreToolUse shape. plainAllow says the
// agent accepts an allow without updatedInput (Codex does not: there it
// is answered with no opinion).
func preToolUseAnswer(c Call, v Verdict, plainAllow bool) Answer {
	if v.Action == None || (v.Action == Allow && v.Command == "" && !plainAllow) {
		return Answer{}
	}
	out := preToolUseSpecific{HookEventName: "PreToolUse", PermissionDecision: string(v.Action), PermissionDecisionReason: v.Reason}
	if v.Command != "" && v.Action != Deny {
		out.UpdatedInput = updatedInput(c, v.Command)
	}
	return jsonAnswer(preToolUseOutput{out})
}

// Settings: .claude/settings.json in the project, ~/.claude/settings.json
// for the user ("Hooks are configured in your settings files").
func (claude) Settings() SettingsSpec {
	return SettingsSpec{
		Event:   "PreToolUse",
		Matcher: "Bash|Read|NotebookRead|Grep|Glob|LS|Edit|MultiEdit|Write|NotebookEdit",
		Project: func(dir string) string { return filepath.Join(dir, ".claude", "settings.json") },
		User:    homeFile(".claude", "settings.json"),
	}
}
