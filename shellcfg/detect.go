package shellcfg

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// DetectEnv holds the host facts Detect consults. Every field is an input,
// so each detection branch can be tested on any host.
type DetectEnv struct {
	// GOOS is the host operating system as runtime.GOOS spells it; empty
	// means runtime.GOOS.
	GOOS string
	// Configured is the shell named by configuration (a policy file or a
	// --shell flag); empty means none.
	Configured string
	// Getenv looks up an environment variable; nil means an empty
	// environment. Detect reads AGENTEXEC_SHELL and, on Windows, ComSpec.
	Getenv func(string) string
	// LookPath reports where a program is on PATH, as os/exec.LookPath does;
	// nil means nothing is found.
	LookPath func(string) (string, error)
}

// HostEnv returns the DetectEnv of the running process: runtime.GOOS, the
// process environment and exec.LookPath, with no configured shell.
func HostEnv() DetectEnv {
	return DetectEnv{GOOS: runtime.GOOS, Getenv: os.Getenv, LookPath: exec.LookPath}
}

// EnvShell is the environment variable that names the default shell.
const EnvShell = "AGENTEXEC_SHELL"

// Detect decides which shell runs a command's text. The first source that
// names a shell wins:
//
//  1. explicit, the shell the request itself names;
//  2. env.Configured;
//  3. the AGENTEXEC_SHELL environment variable;
//  4. the host: on Windows, PowerShell when ComSpec names powershell or
//     pwsh, else cmd; elsewhere bash when LookPath finds it, else sh.
//
// A source that names an unknown shell is an error naming that source; it
// never falls through to the next one, because a typo must not silently
// change which language the text is parsed in.
func Detect(explicit string, env DetectEnv) (ShellType, error) {
	named := []struct{ source, name string }{
		{"request shell", explicit},
		{"configured shell", env.Configured},
		{EnvShell, env.getenv(EnvShell)},
	}
	for _, n := range named {
		if n.name == "" {
			continue
		}
		s, err := ParseShell(n.name)
		if err != nil {
			return "", fmt.Errorf("%s: %w", n.source, err)
		}
		return s, nil
	}
	return env.hostShell(), nil
}

func (env DetectEnv) hostShell() ShellType {
	goos := env.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	if goos == "windows" {
		return env.windowsShell()
	}
	if env.LookPath != nil {
		if _, err := env.LookPath("bash"); err == nil {
			return Bash
		}
	}
	return Sh
}

// windowsShell trusts ComSpec only when it names PowerShell; anything else,
// including an empty or unparsable ComSpec, means cmd, which every Windows
// has.
func (env DetectEnv) windowsShell() ShellType {
	if s, err := ParseShell(env.getenv("ComSpec")); err == nil && s == PowerShell {
		return PowerShell
	}
	return Cmd
}

func (env DetectEnv) getenv(key string) string {
	if env.Getenv == nil {
		return ""
	}
	return env.Getenv(key)
}
