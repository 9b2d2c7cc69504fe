package exec

// Request is one run_command call: the tool arguments an agent sends.
// Exactly one of Command and Argv is set.
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
