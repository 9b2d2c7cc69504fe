package classify

import (
	"fmt"
	"strings"

	"github.com/agentexec/agentexec/gate/programs"
	"github.com/agentexec/agentexec/internal/lazy"
)

// A user-vouched root may be a frontend that passes its arguments on to
// git (a `gitw` wrapper). The peer (Qwen's extraReadOnlyCommands, PR
// #9948/#9950) therefore refuses git's redirecting options on every vouched
// root and sends a git-shaped verb through git's own rules.

// gitRedirectLongs are git's global options that change which repository,
// configuration or programs git uses.
var gitRedirectLongs = lazy.NewSet("--git-dir", "--work-tree", "--namespace",
	"--config-env", "--exec-path", "--bare", "--open-files-in-pager",
	"--super-prefix", "--attr-source", "--list-cmds")

// isGitVerb reports whether v is a git subcommand name.
func isGitVerb(v string) bool {
	return programs.IsGitCommand(v) || programs.GitSuite.Has(v)
}

// vouchedGitShape refuses a vouched command that carries a git redirecting
// option anywhere, or whose first operand is a git verb that git's rules do
// not prove read-only. bad is false when neither applies.
func vouchedGitShape(w *walker, a argv) (f finding, bad bool) {
	for i, v := range a.vals {
		if gitRedirectShape(a.vals, i) {
			return finding{Unknown, "vouched-git-option", fmt.Sprintf("vouched `%s` has `%s`, which redirects git's repository, configuration or programs", a.name, v)}, true
		}
	}
	for i, v := range a.vals {
		if strings.HasPrefix(v, "-") {
			continue
		}
		if !isGitVerb(v) {
			return finding{}, false
		}
		g := gitCommandRule(w, argv{name: "git", vals: a.vals[i:], dyn: a.dyn[i:]})
		if g.s == ReadOnly {
			return finding{}, false
		}
		return finding{Unknown, "vouched-git-verb", fmt.Sprintf("vouched `%s` looks like a git frontend, and `git %s` is not read-only: %s", a.name, v, g.why)}, true
	}
	return finding{}, false
}

// gitRedirectShape reports git's -C/-c in any spelling at args[i]: -C and
// -c alone, a short cluster holding C, a cluster holding c whose value
// (attached, or the next word) is a key=value, and the long redirecting
// options with or without =.
func gitRedirectShape(args []string, i int) bool {
	v := args[i]
	if strings.HasPrefix(v, "--") {
		name, _, _ := strings.Cut(v, "=")
		return gitRedirectLongs.Has(name)
	}
	if len(v) < 2 || v[0] != '-' {
		return false
	}
	if v == "-c" || strings.Contains(v, "C") {
		return true
	}
	j := strings.IndexByte(v, 'c')
	if j < 0 {
		return false
	}
	if val := v[j+1:]; val != "" {
		return strings.Contains(val, "=")
	}
	return i+1 < len(args) && strings.Contains(args[i+1], "=")
}

// VouchRefused says why name can never be vouched read-only (a
// read_only_commands entry on the refusal floor: a shell, an interpreter,
// a wrapper, a build tool, a known writer, or a path), or "" when it can.
// Loaders report refused vouches with it; the classifier ignores them.
func VouchRefused(name string) string {
	if strings.ContainsAny(name, "/\\") {
		return "it is a path; vouches name commands, not files"
	}
	if k := floorKind(name); k != "" {
		return "it is " + floorWhy(name)
	}
	return ""
}
