package classify

import "strings"

// sqliteRuns reads sqlite3's (and duckdb's) dot commands that run a
// program: .shell and .system, and output or input through a pipe.
func sqliteRuns(args []string) ([]string, string) {
	var cmds []string
	for _, a := range args {
		for _, line := range strings.Split(a, "\n") {
			l := strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(l, ".sh") || strings.HasPrefix(l, ".system"):
				_, rest, _ := strings.Cut(l, " ")
				cmds = append(cmds, strings.TrimSpace(rest))
			case strings.HasPrefix(l, ".") && strings.Contains(l, "|"):
				return cmds, "pipes through a command with a dot command (" + clip(l) + ")"
			case strings.HasPrefix(l, "-cmd") || l == "-init":
				return cmds, "runs dot commands from its options or a file"
			}
		}
	}
	return cmds, ""
}
