package exec

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/agentexec/agentexec/shellcfg"
	"mvdan.cc/sh/v3/syntax"
)

// This file is the executor's only contact with shell specifics. Until the
// shellcfg package's Detect, Argv, Quote and Validate are in the tree it
// holds minimal, strict stand-ins with the same contracts; then each
// function below becomes a one-line call.

// shellDetect picks the shell for command text: the request's, the
// configured one, $AGENTEXEC_SHELL, else bash when on PATH, else sh
// (Windows: cmd). An unknown name is an error naming its source.
func shellDetect(explicit, configured string, getenv func(string) string, lookPath func(string) (string, error)) (shellcfg.ShellType, error) {
	for _, n := range []struct{ source, name string }{
		{"request shell", explicit}, {"configured shell", configured}, {"AGENTEXEC_SHELL", getenv("AGENTEXEC_SHELL")},
	} {
		if n.name != "" {
			s, err := shellcfg.ParseShell(n.name)
			if err != nil {
				return "", fmt.Errorf("%s: %w", n.source, err)
			}
			return s, nil
		}
	}
	if runtime.GOOS == "windows" {
		return shellcfg.Cmd, nil
	}
	if _, err := lookPath("bash"); err == nil {
		return shellcfg.Bash, nil
	}
	return shellcfg.Sh, nil
}

// shellArgv is the argv that runs text under shell s.
func shellArgv(s shellcfg.ShellType, text string) []string {
	switch s {
	case shellcfg.Bash, shellcfg.Sh:
		return []string{string(s), "-c", text}
	case shellcfg.Cmd:
		return []string{"cmd.exe", "/d", "/s", "/c", `"` + text + `"`}
	case shellcfg.PowerShell:
		return []string{"powershell", "-NoLogo", "-NoProfile", "-NonInteractive", "-Command", text}
	}
	return nil
}

// quoteBash quotes argv as bash text that parses back to exactly argv.
func quoteBash(argv []string) (string, error) {
	if len(argv) == 0 {
		return "", errors.New("empty argv")
	}
	words := make([]string, len(argv))
	for i, a := range argv {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			return "", fmt.Errorf("argv[%d]: %w", i, err)
		}
		words[i] = q
	}
	return strings.Join(words, " "), nil
}

// validateText refuses text that must not run: empty, a NUL byte, or
// invalid UTF-8 (what the gate parses and what the shell reads would
// differ).
func validateText(text string) error {
	switch {
	case strings.TrimSpace(text) == "":
		return errors.New("empty command")
	case strings.IndexByte(text, 0) >= 0:
		return fmt.Errorf("NUL byte at offset %d", strings.IndexByte(text, 0))
	case !utf8.ValidString(text):
		return errors.New("invalid UTF-8")
	}
	return nil
}
