package hook

import (
	"encoding/json"
	"path/filepath"

	"github.com/agentexec/agentexec/internal/lazy"
)

// Gemini CLI's BeforeTool hook, as google-gemini/gemini-cli documents and
// implements it (docs/hooks/reference.md "BeforeTool";
// packages/core/src/hooks/types.ts BeforeToolInput/BeforeToolOutput;
// packages/core/src/scheduler/hook-utils.ts): the payload carries
// session_id, transcript_path, cwd, hook_event_name "BeforeTool",
// timestamp, tool_name and tool_input, and no permission mode. The answer
// is JSON on stdout with exit 0: "decision" "allow", "deny" (or "block")
// or "ask" (which forces the confirmation prompt, with systemMessage shown
// to the user), "reason" (sent to the agent when denied), and
// hookSpecificOutput.tool_input, which replaces the tool's arguments
// before they are validated and run. Exit 2 blocks with stderr as the
// reason. Stdout must hold nothing but the JSON.
type gemini struct{}

var geminiEnvelope = &lazy.Value[envelope]{Build: func() envelope {
	return envelope{
		agent:    "gemini",
		eventKey: "hook_event_name",
		event:    "BeforeTool",
		tools: map[string]toolSpec{
			"run_shell_command": {kind: Shell, command: "command", dir: "dir_path", background: "is_background"},
			"read_file":         {kind: Read, paths: []string{"file_path"}},
			"read_many_files":   {kind: Read, paths: []string{"include"}},
			"list_directory":    {kind: Read, paths: []string{"dir_path"}},
			"glob":              {kind: Read, paths: []string{"dir_path"}, optional: true},
			"grep_search":       {kind: Read, paths: []string{"dir_path"}, optional: true},
			"write_file":        {kind: Write, paths: []string{"file_path"}},
			"replace":           {kind: Write, paths: []string{"file_path"}},
		},
	}
}}

func (gemini) Name() string                    { return "gemini" }
func (gemini) Parse(data []byte) (Call, error) { return geminiEnvelope.Get().parse(data) }
func (gemini) CanRewrite() bool                { return true }
func (gemini) Ask() AskStyle                   { return AskNative }

type geminiOutput struct {
	Decision           string          `json:"decision,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	SystemMessage      string          `json:"systemMessage,omitempty"`
	HookSpecificOutput *geminiSpecific `json:"hookSpecificOutput,omitempty"`
}

type geminiSpecific struct {
	HookEventName string                     `json:"hookEventName"`
	ToolInput     map[string]json.RawMessage `json:"tool_input,omitempty"`
}

func (gemini) Answer(c Call, v Verdict) Answer {
	out := geminiOutput{Decision: string(v.Action), Reason: v.Reason}
	if v.Action == Ask {
		out.SystemMessage = v.Reason // the person reads systemMessage
	}
	if v.Command != "" && v.Action != Deny {
		out.HookSpecificOutput = &geminiSpecific{HookEventName: "BeforeTool", ToolInput: updatedInput(c, v.Command)}
	}
	return jsonAnswer(out) // None is "{}": no opinion
}

// Settings: .gemini/settings.json in the project, ~/.gemini/settings.json
// for the user (docs/hooks/index.md "Configuration").
func (gemini) Settings() SettingsSpec {
	return SettingsSpec{
		Event:   "BeforeTool",
		Matcher: "run_shell_command|read_file|read_many_files|list_directory|glob|grep_search|write_file|replace",
		Named:   true,
		Project: func(dir string) string { return filepath.Join(dir, ".gemini", "settings.json") },
		User:    homeFile(".gemini", "settings.json"),
	}
}
