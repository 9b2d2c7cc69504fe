package hook

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/agentexec/agentexec/gate"
)

// Kind is what a tool call does, as far as agentexec judges it.
type Kind int

// The kinds. Other is every tool agentexec has no opinion on (web fetches,
// todo lists, MCP tools, …): the agent's own rules decide those.
const (
	Other Kind = iota
	Shell      // runs Command with a shell
	Read       // reads Paths
	Write      // creates or changes Paths
)

// Call is one tool call, read from any agent's payload.
type Call struct {
	Agent string // the agent's name, e.g. "claude"
	Tool  string // the tool as the agent named it, e.g. "Bash"
	Kind  Kind

	// Command is the shell text of a Shell call.
	Command string
	// Cwd is the agent's working directory (absolute, from the payload).
	Cwd string
	// Dir is where the tool runs: Cwd, or the tool's own directory
	// argument resolved against Cwd.
	Dir string
	// Paths are the files a Read or Write call touches, absolute and clean.
	Paths []string

	// Mode is the agent's permission mode mapped to agentexec's; "" when
	// the payload carries none. ModeName is the agent's own name for it.
	Mode     gate.Mode
	ModeName string

	// Timeout is the tool's own timeout, when its input names one; a
	// rewritten run is given at least that long. Background says the
	// agent runs the command in the background.
	Timeout    time.Duration
	Background bool

	// Input is the tool input as the agent sent it, key by key, so that a
	// rewrite changes the command and keeps every other field.
	Input map[string]json.RawMessage
	// CommandKey is the Input key holding Command ("command").
	CommandKey string

	SessionID string
	ToolUseID string
}

// Action is a hook's answer.
type Action string

// The answers. None is "no opinion": the agent goes on with its own rules.
const (
	None  Action = ""
	Allow Action = "allow"
	Ask   Action = "ask"
	Deny  Action = "deny"
)

// Verdict is what the hook answers for one call.
type Verdict struct {
	Action Action
	// Reason is written for the model (deny) or the person (ask).
	Reason string
	// Command, when not empty, replaces the shell command: the original
	// rewritten to run through agentexec.
	Command string
	// Decision is the gate's decision for a Shell call.
	Decision *gate.Decision
}

// PayloadError is a payload agentexec cannot read. The hook answers it
// with [FailClosed].
type PayloadError struct {
	Agent  string
	Field  string // the payload field at fault, "" for the whole payload
	Reason string
}

func (e *PayloadError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s hook payload: %s", e.Agent, e.Reason)
	}
	return fmt.Sprintf("%s hook payload: field %s: %s", e.Agent, e.Field, e.Reason)
}

// badField makes a *PayloadError for one field.
func badField(agent, field, format string, a ...any) error {
	return &PayloadError{Agent: agent, Field: field, Reason: fmt.Sprintf(format, a...)}
}

// resolveDir resolves a tool's directory argument against the payload's cwd.
func resolveDir(cwd, dir string) string {
	if dir == "" {
		return cwd
	}
	if filepath.IsAbs(dir) {
		return filepath.Clean(dir)
	}
	return filepath.Join(cwd, dir)
}
