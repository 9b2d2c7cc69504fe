package classify

import (
	"fmt"
	"strings"

	"github.com/agentexec/agentexec/gate/programs"
)

// find's expression is read with an accept-list of primaries and their
// value counts, so a path literally named -delete is consumed as the value
// of -name and an unknown primary is Unknown.

// findRule classifies find: -delete and -fprint*/-fls write, -exec and
// friends run their command, which is classified by the same rules.
func findRule(w *walker, a argv) finding {
	if a.dynamic() {
		return finding{Unknown, "dynamic-argument", "`find` has an argument computed at run time, which could be -delete or -exec"}
	}
	args := a.vals
	i := findSkipStart(args)
	if i < 0 {
		return finding{Unknown, "unknown-option", "`find` has an option the rules do not know before its starting points"}
	}
	worst := finding{ReadOnly, "read-only-command", "`find` only lists files"}
	merge := func(f finding) {
		if Merge(worst.s, f.s) != worst.s {
			worst = f
		}
	}
	help := false
	for i < len(args) {
		var f finding
		help = help || programs.FindHelp.Has(args[i])
		i, f = findPrimary(w, args, i)
		merge(f)
	}
	if help {
		// Qwen shellAstParser `find . -fprint --help --help` → unknown: a
		// help word in primary position wins over a write.
		return finding{Unknown, "find-help", "`find --help` prints help instead of running, which the rules do not prove"}
	}
	return worst
}

// findSkipStart skips -P/-H/-L, -D and -O options and the starting points,
// returning the index of the expression, or -1 on an unknown option.
func findSkipStart(args []string) int {
	i := 0
options:
	for i < len(args) {
		v := args[i]
		switch {
		case programs.FindStartOptions.Has(v):
			i++
		case v == "-D":
			i += 2
		case strings.HasPrefix(v, "-O") || strings.HasPrefix(v, "-D"):
			i++
		case v == "--" || v == "--help" || v == "-help" || v == "--version" || v == "-version":
			return -1
		default:
			break options
		}
	}
	for i < len(args) && !strings.HasPrefix(args[i], "-") && args[i] != "(" && args[i] != "!" {
		i++
	}
	return i
}

// findPrimary reads one primary at i and returns the next index and its
// finding.
func findPrimary(w *walker, args []string, i int) (int, finding) {
	v := args[i]
	switch {
	case programs.FindNoValue.Has(v):
		return i + 1, finding{ReadOnly, "find", ""}
	case programs.FindOneValue(v):
		if i+1 >= len(args) {
			return len(args), finding{Unknown, "missing-value", fmt.Sprintf("`find %s` has no value", v)}
		}
		if looksLikePrimary(args[i+1]) {
			// Qwen shellAstParser `find . -name -delete` → unknown.
			return i + 2, finding{Unknown, "find-dash-value", fmt.Sprintf("`find %s %s` has a value that looks like a primary", v, args[i+1])}
		}
		return i + 2, finding{ReadOnly, "find", ""}
	case v == "-delete":
		return i + 1, finding{Write, "find-delete", "`find -delete` deletes files"}
	case v == "-fls" || v == "-fprint" || v == "-fprint0":
		return i + 2, finding{Write, "find-fprint", fmt.Sprintf("`find %s` writes a file", v)}
	case v == "-fprintf":
		return i + 3, finding{Write, "find-fprint", "`find -fprintf` writes a file"}
	case programs.FindRuns.Has(v):
		return findExec(w, args, i)
	}
	return len(args), finding{Unknown, "unknown-option", fmt.Sprintf("`find` primary %q is not one the rules know", v)}
}

// looksLikePrimary reports a word that starts like a find primary or a
// long option (-delete, --help); -7 and -1k stay numeric values.
func looksLikePrimary(v string) bool {
	if len(v) < 2 || v[0] != '-' {
		return false
	}
	c := v[1]
	return c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// findExec classifies the command of -exec/-execdir/-ok/-okdir up to its
// `;` or `+`. {} is a plain word: find substitutes paths that start with
// the starting point or ./, never with a dash.
func findExec(w *walker, args []string, i int) (int, finding) {
	end := i + 1
	for end < len(args) && args[end] != ";" && !(args[end] == "+" && args[end-1] == "{}") {
		end++
	}
	if end >= len(args) || end == i+1 {
		return len(args), finding{Unknown, "find-exec", fmt.Sprintf("`find %s` has no complete command", args[i])}
	}
	inner := argv{name: args[i+1], vals: args[i+2 : end], dyn: make([]bool, end-i-2), inner: true}
	if base, ok := systemProgram(inner.name); ok {
		inner.name = base
	}
	if bad, isBad := checkName(inner.name); isBad {
		return end + 1, bad
	}
	if inner.name == "git" {
		return end + 1, finding{Unknown, "find-exec", "`find -exec git` runs git in directories whose configuration is not checked"}
	}
	f := w.dispatch(inner)
	if f.s == ReadOnly {
		// The peer classifies a find-run command only as a writer or a
		// process signal; anything else is unknown (Qwen shellAstParser
		// `find . -exec echo {} \;`, `find . -execdir ls {} \;`).
		f = finding{Unknown, "find-exec-other", fmt.Sprintf("`%s` is not a writer; the peer's rules leave it unknown", inner.name)}
	}
	f.why = fmt.Sprintf("`find %s` runs `%s`: %s", args[i], inner.name, f.why)
	f.rule = "find-exec/" + f.rule
	return end + 1, f
}
