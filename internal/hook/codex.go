package hook

import (
	"path/filepath"

	"errors"
	"strings"

	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/internal/lazy"
)

// Codex CLI's PreToolUse hook, as openai/codex documents and implements it
// (https://developers.openai.com/codex/hooks; codex-rs/hooks/schema/
// generated/pre-tool-use.command.input.schema.json and
// codex-rs/hooks/src/engine/output_parser.rs): the payload is Claude Code's
// layout (session_id, turn_id, transcript_path, cwd, hook_event_name,
// model, permission_mode, tool_name, tool_input, tool_use_id); shell tools
// arrive as tool_name "Bash" with tool_input {"command": "..."}, file edits
// as "apply_patch" with the patch text in tool_input.command. The answer:
//   - deny: hookSpecificOutput.permissionDecision "deny" with a non-empty
//     permissionDecisionReason (or exit 2 with the reason on stderr);
//   - a rewrite: permissionDecision "allow" with updatedInput;
//   - "allow" without updatedInput and "ask" are unsupported: Codex reports
//     the hook as failed and goes on with the tool. So agentexec answers an
//     allow it does not rewrite with no output at all, and an ask with a
//     deny (nothing would ask the person).
type codex struct{}

var codexEnvelope = &lazy.Value[envelope]{Build: func() envelope {
	return envelope{
		agent:    "codex",
		eventKey: "hook_event_name",
		event:    "PreToolUse",
		modeKey:  "permission_mode",
		modes: map[string]gate.Mode{
			"default":           gate.ModeDefault,
			"acceptEdits":       gate.ModeDefault,
			"dontAsk":           gate.ModeDefault,
			"plan":              gate.ModePlan,
			"bypassPermissions": gate.ModeYolo,
		},
		tools: map[string]toolSpec{
			"Bash":        {kind: Shell, command: "command"},
			"apply_patch": {kind: Write, command: "command", patch: true},
		},
	}
}}

func (codex) Name() string                    { return "codex" }
func (codex) Parse(data []byte) (Call, error) { return codexEnvelope.Get().parse(data) }
func (codex) CanRewrite() bool                { return true }
func (codex) Ask() AskStyle                   { return AskUnsupported }

func (codex) Answer(c Call, v Verdict) Answer {
	return preToolUseAnswer(c, v, false)
}

// patchPaths lists the files a Codex apply_patch text adds, updates,
// deletes or moves to. A text with none of those headers is an error: it
// is not a patch agentexec can judge.
func patchPaths(text string) ([]string, error) {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if p, ok := strings.CutPrefix(line, h); ok && strings.TrimSpace(p) != "" {
				out = append(out, strings.TrimSpace(p))
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no *** Add/Update/Delete File header: not an apply_patch text")
	}
	return out, nil
}

// Settings: hooks.json in the project's .codex folder or in ~/.codex
// ($CODEX_HOME); Codex asks the person to trust a new hook before it runs
// (/hooks).
func (codex) Settings() SettingsSpec {
	return SettingsSpec{
		Event:   "PreToolUse",
		Matcher: "Bash|apply_patch",
		Project: func(dir string) string { return filepath.Join(dir, ".codex", "hooks.json") },
		User: func(getenv func(string) string) (string, error) {
			if d := getenv("CODEX_HOME"); d != "" {
				return filepath.Join(d, "hooks.json"), nil
			}
			return homeFile(".codex", "hooks.json")(getenv)
		},
	}
}
