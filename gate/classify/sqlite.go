package classify

import "strings"

// sqliteRuns reads sqlite3's (and duckdb's) dot commands that run a
// program — .shell and .system by any prefix the shell accepts (.sh,
// .sy), output or input through a pipe, .once/.output -e/-x and .excel
// (an editor or the desktop's viewer), .load (an extension: a shared
// object whose code runs) — and the SQL functions that do (edit() runs
// its second argument as the editor, load_extension() loads an object).
func sqliteRuns(args []string) ([]string, string) {
	var cmds []string
	for _, a := range args {
		low := strings.ToLower(a)
		if strings.Contains(low, "edit(") || strings.Contains(low, "load_extension(") {
			return cmds, "runs an editor or loads an extension from SQL (" + clip(a) + ")"
		}
		for _, line := range strings.Split(a, "\n") {
			l := strings.TrimSpace(line)
			name, rest, _ := strings.Cut(strings.TrimPrefix(l, "."), " ")
			switch {
			case strings.HasPrefix(l, ".") && dotPrefix(name, 2, "shell", "system"):
				cmds = append(cmds, strings.TrimSpace(rest))
			case strings.HasPrefix(l, ".") && strings.Contains(l, "|"):
				return cmds, "pipes through a command with a dot command (" + clip(l) + ")"
			case strings.HasPrefix(l, ".") && dotPrefix(name, 2, "load", "excel"):
				return cmds, "loads an extension or opens a viewer with a dot command (" + clip(l) + ")"
			case strings.HasPrefix(l, ".") && dotPrefix(name, 2, "once", "output") && (strings.Contains(rest, "-e") || strings.Contains(rest, "-x")):
				return cmds, "opens an editor or a viewer with a dot command (" + clip(l) + ")"
			case strings.HasPrefix(l, "-cmd") || l == "-init":
				return cmds, "runs dot commands from its options or a file"
			}
		}
	}
	return cmds, ""
}

// dotPrefix reports a dot command name of at least min letters that is a
// prefix of one of the commands (the shell runs the first command a
// prefix names).
func dotPrefix(name string, min int, cmds ...string) bool {
	if len(name) < min {
		return false
	}
	for _, c := range cmds {
		if strings.HasPrefix(c, name) {
			return true
		}
	}
	return false
}
