package exec

import (
	"os/exec"
	"runtime"

	"github.com/agentexec/agentexec/shellcfg"
)

// This file is the executor's only contact with shell specifics; shellcfg
// holds the rules.

// shellDetect picks the shell for command text: the request's, the
// configured one, $AGENTEXEC_SHELL (looked up with getenv), else the host's.
// An unknown name is an error naming its source.
func shellDetect(explicit, configured string, getenv func(string) string, lookPath func(string) (string, error)) (shellcfg.ShellType, error) {
	return shellcfg.Detect(explicit, shellcfg.DetectEnv{
		GOOS: runtime.GOOS, Configured: configured, Getenv: getenv, LookPath: lookPath,
	})
}

// shellArgv is the argv that runs text under shell s. PowerShell is
// started as pwsh where only pwsh is installed (its flags are the same).
func shellArgv(s shellcfg.ShellType, text string) []string {
	argv := shellcfg.Argv(s, text)
	if s == shellcfg.PowerShell {
		if _, err := exec.LookPath(argv[0]); err != nil {
			if _, err := exec.LookPath("pwsh"); err == nil {
				argv[0] = "pwsh"
			}
		}
	}
	return argv
}

// quoteBash quotes argv as bash text that parses back to exactly argv: it
// is what the gate sees of a command that runs without a shell.
func quoteBash(argv []string) (string, error) { return shellcfg.Quote(shellcfg.Bash, argv) }

// validateText refuses text that must not run (empty, NUL, invalid UTF-8).
func validateText(text string) error { return shellcfg.Validate(text) }
