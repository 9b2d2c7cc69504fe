package exec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Request is one run_command call: the tool arguments an agent sends.
// Exactly one of Command and Argv is set. Command is text run with the
// shell (-c); Argv runs directly, without a shell, and is quoted as bash
// text only for the gate. Absent Stdin means /dev/null, so a command that
// waits for input ends instead of hanging. MaxOutputBytes caps each stream
// (head and tail kept) and is clamped to MaxOutputLimit. Rows and Cols
// size the PTY (default 24x80).
type Request struct {
	Command        string            `json:"command,omitempty" jsonschema:"shell command text to run"`
	Argv           []string          `json:"argv,omitempty" jsonschema:"structured argv; alternative to command"`
	Shell          string            `json:"shell,omitempty" jsonschema:"bash, sh, cmd or powershell; default: detected"`
	Cwd            string            `json:"cwd,omitempty" jsonschema:"working directory"`
	Env            map[string]string `json:"env,omitempty" jsonschema:"environment variables to add"`
	Stdin          *string           `json:"stdin,omitempty" jsonschema:"text fed to standard input; absent means /dev/null"`
	Timeout        string            `json:"timeout,omitempty" jsonschema:"Go duration such as 30s"`
	PTY            bool              `json:"pty,omitempty" jsonschema:"run under a pseudo-terminal (output merged)"`
	Rows           uint16            `json:"rows,omitempty" jsonschema:"PTY rows"`
	Cols           uint16            `json:"cols,omitempty" jsonschema:"PTY columns"`
	MaxOutputBytes int               `json:"max_output_bytes,omitempty" jsonschema:"cap on kept output bytes"`
}

// DecodeRequest parses a run_command request from JSON. Unknown fields are
// an error naming the field, so a misspelt "timout" is never silently
// ignored; so is trailing data after the object, and text that is not valid
// Unicode (see [CheckJSONText]): it would otherwise be decoded as U+FFFD and
// run as other bytes than were sent. Errors say what was expected in the
// protocol's words, never Go's.
func DecodeRequest(data []byte) (Request, error) {
	if err := CheckJSONText(data); err != nil {
		return Request{}, fmt.Errorf("request: %w", err)
	}
	var req Request
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return Request{}, requestJSONError(err)
	}
	if dec.More() {
		return Request{}, errors.New("request: trailing data after the JSON object")
	}
	return req, nil
}

// requestFields lists the fields of a request, for errors.
const requestFields = "command, argv, shell, cwd, env, stdin, timeout, pty, rows, cols, max_output_bytes"

// requestJSONError rewords encoding/json's errors so they name the field
// and what it should hold.
func requestJSONError(err error) error {
	var te *json.UnmarshalTypeError
	msg := JSONErrorText(err)
	switch {
	case strings.HasPrefix(msg, "unknown field "):
		return fmt.Errorf("request: %s (known: %s)", msg, requestFields)
	case errors.As(err, &te) && te.Field == "":
		return fmt.Errorf(`request: want an object such as {"command": "ls -l"} or {"argv": ["ls", "-l"]}, got %s`, jsonKind(te.Value))
	}
	return fmt.Errorf("request: %s", msg)
}

// Validate checks what can be checked without the host: exactly one of
// command and argv, text and argv free of NUL bytes, a parsable positive
// timeout and a non-negative output cap. Errors name the field.
func (req Request) Validate() error {
	switch {
	case req.Command == "" && len(req.Argv) == 0:
		return errors.New("request: one of command or argv is required")
	case req.Command != "" && len(req.Argv) > 0:
		return errors.New("request: command and argv are exclusive; send one")
	}
	if req.Command != "" {
		if err := validateText(req.Command); err != nil {
			return fmt.Errorf("request: command: %w", err)
		}
	}
	if err := validateArgv(req.Argv); err != nil {
		return err
	}
	if _, err := req.timeout(); err != nil {
		return err
	}
	if req.MaxOutputBytes < 0 {
		return fmt.Errorf("request: max_output_bytes: %d is negative", req.MaxOutputBytes)
	}
	if strings.ContainsRune(req.Cwd, 0) {
		return errors.New("request: cwd: contains a NUL byte")
	}
	if req.Stdin != nil && req.PTY && strings.ContainsRune(*req.Stdin, 0) {
		return errors.New("request: stdin: a NUL byte cannot be typed into a pty")
	}
	return checkEnvAdd(req.Env)
}

func validateArgv(argv []string) error {
	if len(argv) > 0 && argv[0] == "" {
		return errors.New("request: argv[0]: empty program name")
	}
	for i, a := range argv {
		if strings.ContainsRune(a, 0) {
			return fmt.Errorf("request: argv[%d]: contains a NUL byte", i)
		}
	}
	return nil
}

// timeout parses the timeout field; 0 means unset.
func (req Request) timeout() (time.Duration, error) {
	if req.Timeout == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(req.Timeout)
	if err != nil {
		return 0, fmt.Errorf("request: timeout: %q is not a duration such as \"30s\"", req.Timeout)
	}
	if d <= 0 {
		return 0, fmt.Errorf("request: timeout: %q must be positive", req.Timeout)
	}
	return d, nil
}
