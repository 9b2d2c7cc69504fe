package hook

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/agentexec/agentexec/gate"
)

// envelope describes one agent's payload: the key and value of its event
// name, its permission mode field and how its modes map to agentexec's,
// and its tools. Claude Code, Codex and Qwen Code share the Claude Code
// layout; Gemini CLI and Crush differ in the event key and have no mode.
type envelope struct {
	agent    string
	eventKey string // "hook_event_name" (Claude, Codex, Qwen, Gemini) or "event" (Crush)
	event    string // the one event judged: "PreToolUse" or "BeforeTool"
	foldCase bool   // event names compare case-insensitively, with _ ignored (Crush)
	modeKey  string // "permission_mode", or "" for agents without one
	modes    map[string]gate.Mode
	tools    map[string]toolSpec
}

// parse reads a payload into a Call. A payload for another event, or for
// a tool not in e.tools, is a Call of Kind Other.
func (e envelope) parse(data []byte) (Call, error) {
	c := Call{Agent: e.agent}
	m, err := object(e.agent, "", bytes.TrimSpace(data))
	if err != nil {
		return c, err
	}
	event, err := str(e.agent, m, e.eventKey, true)
	if err != nil {
		return c, err
	}
	if !e.isEvent(event) {
		return c, nil // not a pre-tool event: no opinion
	}
	if c.Tool, err = str(e.agent, m, "tool_name", true); err != nil {
		return c, err
	}
	cwd, err := str(e.agent, m, "cwd", true)
	if err != nil {
		return c, err
	}
	if c.Cwd, err = absCwd(e.agent, "cwd", cwd); err != nil {
		return c, err
	}
	c.Dir = c.Cwd
	if err := e.mode(&c, m); err != nil {
		return c, err
	}
	c.SessionID, _ = str(e.agent, m, "session_id", false)
	c.ToolUseID, _ = str(e.agent, m, "tool_use_id", false)
	spec, ok := e.tools[c.Tool]
	if !ok {
		return c, nil // a tool agentexec has no opinion on
	}
	raw, ok := m["tool_input"]
	if !ok {
		return c, badField(e.agent, "tool_input", "missing")
	}
	return c, toolCall(&c, spec, raw)
}

func (e envelope) isEvent(name string) bool {
	if !e.foldCase {
		return name == e.event
	}
	fold := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	return fold(name) == fold(e.event)
}

// mode maps the payload's permission mode. An unknown mode name is mapped
// to plan, the strictest, and kept in ModeName for the reason.
func (e envelope) mode(c *Call, m map[string]json.RawMessage) error {
	if e.modeKey == "" {
		return nil
	}
	name, err := str(e.agent, m, e.modeKey, false)
	if err != nil || name == "" {
		return err
	}
	c.ModeName = name
	if mode, ok := e.modes[name]; ok {
		c.Mode = mode
	} else {
		c.Mode = gate.ModePlan
	}
	return nil
}

// updatedInput is the tool input with the command replaced; every other
// field is kept as the agent sent it.
func updatedInput(c Call, command string) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(c.Input)+1)
	for k, v := range c.Input {
		out[k] = v
	}
	b, _ := marshalNoEscape(command)
	out[c.CommandKey] = b
	return out
}

// marshalNoEscape is json.Marshal without HTML escaping, so a command's
// <, > and & read as written in the agent's transcript.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
