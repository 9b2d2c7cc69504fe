package shellcfg

// Program returns the program that runs a shell's text: "bash", "sh",
// "cmd.exe" or "powershell". It is a name for PATH lookup, not a path.
//
// PowerShell is started as "powershell" (Windows PowerShell, present on
// every Windows). pwsh accepts the same flags, so a caller configured for
// pwsh, or running PowerShell on a Unix host where only pwsh exists,
// replaces argv[0] of Argv's result with "pwsh"; the text and flags stay
// the same. An unknown ShellType yields "".
func Program(s ShellType) string {
	switch s {
	case Bash:
		return "bash"
	case Sh:
		return "sh"
	case Cmd:
		return "cmd.exe"
	case PowerShell:
		return "powershell"
	}
	return ""
}

// Argv returns the argv that starts shell s running text, and nothing else:
//
//	bash -c -- TEXT
//	sh -c -- TEXT
//	cmd.exe /d /s /c "TEXT"
//	powershell -NoLogo -NoProfile -NonInteractive -Command TEXT
//
// bash and sh get no -l or -i, so they read no login or rc files, and a
// non-interactive shell has no aliases or history expansion; the -- keeps
// a text that starts with - (a quoted argv whose program is "-x", say)
// from being read as shell options. Sharp edge: flags cannot stop a
// non-interactive bash from sourcing $BASH_ENV or importing BASH_FUNC_*
// functions and SHELLOPTS; keeping those out of the environment is the
// caller's job (the gate treats them as making a command unknown). cmd's /d skips
// the AutoRun registry commands; /s makes cmd strip exactly the outer pair
// of quotes, which Argv adds as part of the last element. That element must
// reach cmd.exe verbatim: on Windows the caller sets the whole command line
// itself (syscall.SysProcAttr.CmdLine), because os/exec would escape the
// quotes. An unknown ShellType yields nil.
func Argv(s ShellType, text string) []string {
	switch s {
	case Bash, Sh:
		return []string{Program(s), "-c", "--", text}
	case Cmd:
		return []string{Program(s), "/d", "/s", "/c", `"` + text + `"`}
	case PowerShell:
		return []string{Program(s), "-NoLogo", "-NoProfile", "-NonInteractive", "-Command", text}
	}
	return nil
}
