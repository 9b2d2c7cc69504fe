// Package shellcfg knows which shell runs a command's text, how to start it,
// how to quote structured argv into its syntax, and which characters in a
// command text deserve suspicion.
//
// It imports nothing of agentexec's own and takes every host fact (GOOS, the
// environment, PATH lookups) as a parameter, so every branch is testable on
// any host.
//
// Sharp edges: quoting is exact for bash and sh (what the shell parses back
// is the argv), and best-effort-but-refusing for cmd.exe, whose parsing
// depends on the program being started; an argument cmd cannot carry safely
// is an error, never a guess. Normalization produces a copy for matching
// only; the text that is executed is never changed.
package shellcfg

import (
	"fmt"
	"strings"
)

// ShellType names a shell family that agentexec can start.
type ShellType string

// The shells agentexec knows. pwsh counts as PowerShell.
const (
	Bash       ShellType = "bash"
	Sh         ShellType = "sh"
	Cmd        ShellType = "cmd"
	PowerShell ShellType = "powershell"
)

// ParseShell maps a user-facing shell name ("bash", "sh", "cmd", "cmd.exe",
// "powershell", "pwsh", "powershell.exe", "pwsh.exe") to its ShellType.
// Matching ignores case and a directory prefix. An empty name is an error.
func ParseShell(name string) (ShellType, error) {
	base := strings.ToLower(name)
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	base = strings.TrimSuffix(base, ".exe")
	switch base {
	case "bash":
		return Bash, nil
	case "sh", "dash":
		return Sh, nil
	case "cmd":
		return Cmd, nil
	case "powershell", "pwsh":
		return PowerShell, nil
	case "":
		return "", fmt.Errorf("shell: empty shell name")
	}
	return "", fmt.Errorf("shell: unknown shell %q (want bash, sh, cmd or powershell)", name)
}

// IsPOSIX reports whether the shell parses POSIX-family syntax (bash or sh).
func (s ShellType) IsPOSIX() bool { return s == Bash || s == Sh }
