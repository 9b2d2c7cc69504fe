package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/agentexec/agentexec/internal/jsontext"
)

// toolSpec says how to read one tool's input: which keys hold the command,
// its directory, the paths it touches. A key may be missing from the input
// unless the spec's kind needs it (the command of a Shell tool; at least
// one path of a Read or Write tool).
type toolSpec struct {
	kind       Kind
	command    string   // Shell: the key of the command text
	dir        string   // Shell: the key of its working directory, if any
	paths      []string // Read/Write: keys holding a path or a list of paths
	timeoutMS  string   // the key of a timeout in milliseconds, if any
	background string   // the key of a run-in-background flag, if any
	patch      bool     // Write: the paths are in a Codex apply_patch text under command
	optional   bool     // Read: no path means the working directory (Grep, Glob)
}

// object decodes one JSON object into its fields, refusing anything else
// (an array, a string, trailing data) and text that is not valid Unicode,
// which decoding would turn into U+FFFD: the gate would judge other bytes
// than the agent runs.
func object(agent, field string, data []byte) (map[string]json.RawMessage, error) {
	if err := jsontext.Check(data); err != nil {
		return nil, &PayloadError{Agent: agent, Field: field, Reason: err.Error()}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var m map[string]json.RawMessage
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, &PayloadError{Agent: agent, Field: field, Reason: "not a JSON object"}
	}
	if dec.More() {
		return nil, &PayloadError{Agent: agent, Field: field, Reason: "trailing data after the JSON object"}
	}
	return m, nil
}

// str reads a string field; absent is "" unless required.
func str(agent string, m map[string]json.RawMessage, key string, required bool) (string, error) {
	raw, ok := m[key]
	if !ok || string(raw) == "null" {
		if required {
			return "", badField(agent, key, "missing")
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", badField(agent, key, "want a string, got %s", jsonKind(raw))
	}
	return s, nil
}

// jsonKind names the JSON type of raw for an error message.
func jsonKind(raw json.RawMessage) string {
	switch t := bytes.TrimSpace(raw); {
	case len(t) == 0:
		return "nothing"
	case t[0] == '"':
		return "a string"
	case t[0] == '{':
		return "an object"
	case t[0] == '[':
		return "an array"
	case t[0] == 't' || t[0] == 'f':
		return "a boolean"
	case t[0] == 'n':
		return "null"
	}
	return "a number"
}

// absCwd checks the payload's cwd: agentexec resolves every relative path
// and decides every rule against it, so it must be absolute.
func absCwd(agent, key, cwd string) (string, error) {
	if cwd == "" {
		return "", badField(agent, key, "missing")
	}
	if !filepath.IsAbs(cwd) {
		return "", badField(agent, key, "%q is not an absolute path", cwd)
	}
	return filepath.Clean(cwd), nil
}

// toolCall fills c from the tool input according to spec. c.Cwd is set.
func toolCall(c *Call, spec toolSpec, input json.RawMessage) error {
	c.Kind = spec.kind
	if spec.kind == Other {
		return nil
	}
	m, err := object(c.Agent, "tool_input", input)
	if err != nil {
		return err
	}
	c.Input = m
	switch spec.kind {
	case Shell:
		return shellInput(c, spec, m)
	case Read, Write:
		return fileInput(c, spec, m)
	}
	return nil
}

func shellInput(c *Call, spec toolSpec, m map[string]json.RawMessage) error {
	cmd, err := str(c.Agent, m, spec.command, true)
	if err != nil {
		return prefixField(err, "tool_input.")
	}
	c.Command, c.CommandKey = cmd, spec.command
	dir := ""
	if spec.dir != "" {
		if dir, err = str(c.Agent, m, spec.dir, false); err != nil {
			return prefixField(err, "tool_input.")
		}
	}
	c.Dir = resolveDir(c.Cwd, dir)
	if spec.timeoutMS != "" {
		if c.Timeout, err = millis(c.Agent, m, spec.timeoutMS); err != nil {
			return err
		}
	}
	if spec.background != "" {
		var b bool
		if raw, ok := m[spec.background]; ok && string(raw) != "null" {
			if json.Unmarshal(raw, &b) != nil {
				return badField(c.Agent, "tool_input."+spec.background, "want a boolean, got %s", jsonKind(raw))
			}
		}
		c.Background = b
	}
	return nil
}

// millis reads an optional timeout in milliseconds.
func millis(agent string, m map[string]json.RawMessage, key string) (time.Duration, error) {
	raw, ok := m[key]
	if !ok || string(raw) == "null" {
		return 0, nil
	}
	var ms float64
	if json.Unmarshal(raw, &ms) != nil || ms < 0 || math.IsInf(ms, 0) || ms > float64(math.MaxInt64/int64(time.Millisecond)) {
		return 0, badField(agent, "tool_input."+key, "want a number of milliseconds, got %s", string(raw))
	}
	return time.Duration(ms * float64(time.Millisecond)), nil
}

func fileInput(c *Call, spec toolSpec, m map[string]json.RawMessage) error {
	c.Dir = c.Cwd
	if spec.patch {
		text, err := str(c.Agent, m, spec.command, true)
		if err != nil {
			return prefixField(err, "tool_input.")
		}
		paths, err := patchPaths(text)
		if err != nil {
			return badField(c.Agent, "tool_input."+spec.command, "%v", err)
		}
		c.Paths = absPaths(c.Cwd, paths)
		return nil
	}
	for _, key := range spec.paths {
		ps, err := pathList(c.Agent, m, key)
		if err != nil {
			return err
		}
		c.Paths = append(c.Paths, absPaths(c.Cwd, ps)...)
	}
	if len(c.Paths) == 0 && spec.optional {
		c.Paths = []string{c.Cwd}
	}
	if len(c.Paths) == 0 {
		return badField(c.Agent, "tool_input", "no file path in %s", fmt.Sprint(spec.paths))
	}
	return nil
}

// pathList reads a key holding one path or a list of paths.
func pathList(agent string, m map[string]json.RawMessage, key string) ([]string, error) {
	raw, ok := m[key]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if one == "" {
			return nil, nil
		}
		return []string{one}, nil
	}
	var many []string
	if json.Unmarshal(raw, &many) != nil {
		return nil, badField(agent, "tool_input."+key, "want a path or a list of paths, got %s", jsonKind(raw))
	}
	return many, nil
}

func absPaths(cwd string, ps []string) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if p != "" {
			out = append(out, resolveDir(cwd, p))
		}
	}
	return out
}

// prefixField qualifies a *PayloadError's field (tool_input.command).
func prefixField(err error, prefix string) error {
	if pe, ok := err.(*PayloadError); ok && pe.Field != "" {
		pe.Field = prefix + pe.Field
	}
	return err
}
