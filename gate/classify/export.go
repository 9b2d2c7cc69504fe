package classify

import "github.com/agentexec/agentexec/gate/programs"

// Norm maps the classifier's internal empty class to Unknown, as every
// caller should see it.
func (s Safety) Norm() Safety { return s.norm() }

// RefusalFloor reports whether name can never be vouched read-only by a
// user (see refusalFloor).
func RefusalFloor(name string) bool { return refusalFloor(name) }

// SubWrites lists the files a program's sub-language script opens for
// writing (sed's w, W and s///w; awk's print > "F" and >> "F"; sqlite3's
// database, dot commands and SQL), and
// whether it writes one the script names at run time or the script cannot
// be read: the blacklist checks them as it checks a redirection.
func SubWrites(scanner programs.Scanner, args []string) (files []string, unknown bool) {
	switch scanner {
	case programs.ScanSed:
		c := &sedCall{}
		c.parse(args)
		script, ok := c.script()
		if c.fromFile || !ok {
			return nil, c.fromFile
		}
		p := sedScan(script)
		return p.files, p.stop
	case programs.ScanAwk:
		texts, i, why := awkProgramArgs(args)
		if why != "" {
			return nil, true
		}
		if len(texts) == 0 && i < len(args) {
			texts = []string{args[i]}
		}
		for _, t := range texts {
			p := awkScan(t)
			files = append(files, p.files...)
			unknown = unknown || p.dynOut || p.failed
		}
		return files, unknown
	case programs.ScanSqlite:
		return sqliteWrites(args)
	}
	return nil, false
}

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
