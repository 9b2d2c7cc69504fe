package classify

import "github.com/agentexec/agentexec/gate/programs"

// Norm maps the classifier's internal empty class to Unknown, as every
// caller should see it.
func (s Safety) Norm() Safety { return s.norm() }

// RefusalFloor reports whether name can never be vouched read-only by a
// user (see refusalFloor).
func RefusalFloor(name string) bool { return refusalFloor(name) }

// SubCommands reads a program's sub-language for the shell commands it
// runs: the texts of sed's e commands, and why a command cannot be read
// (awk's system() and pipes, sed's s///e, sqlite's dot commands): the
// facts tree's reader of sub-languages (facts.Options.Sub).
func SubCommands(scanner programs.Scanner, args []string) ([]string, string) {
	switch scanner {
	case programs.ScanSed:
		return sedRuns(args)
	case programs.ScanAwk:
		return nil, awkRuns(args)
	case programs.ScanSqlite:
		return sqliteRuns(args)
	}
	return nil, ""
}
