package programs

import "strings"

// Git's own table: the global options before the subcommand, and the
// options and operands of subcommands that run a command (the classifier's
// git rules read git's subcommands and configuration themselves).

// GitGlobalValued are git's global options that take the next word as
// value (or an attached =value).
var GitGlobalValued = map[string]bool{
	"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
	"--config-env": true, "--super-prefix": true, "--attr-source": true, "--list-cmds": true,
}

// GitRun is how one git subcommand runs a command.
type GitRun struct {
	// Opts are the options whose value is the command (-x, --exec, …).
	Opts []string
	// Shell: the value is shell text (else an argv split on blanks).
	Shell bool
	// After: the words after this operand are the command (bisect run …,
	// submodule foreach …); Joined joins them into shell text.
	After  string
	Joined bool
}

// GitRuns maps subcommands to the ways they run commands.
var GitRuns = map[string][]GitRun{
	"rebase":        {{Opts: []string{"-x", "--exec"}, Shell: true}},
	"bisect":        {{After: "run"}},
	"submodule":     {{After: "foreach", Joined: true}},
	"difftool":      {{Opts: []string{"-x", "--extcmd"}, Shell: true}},
	"filter-branch": {{Opts: []string{"--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter", "--commit-filter", "--tag-name-filter"}, Shell: true}},
	"grep":          {{Opts: []string{"-O", "--open-files-in-pager"}, Shell: true}},
	"fetch":         {{Opts: []string{"--upload-pack"}, Shell: true}},
	"pull":          {{Opts: []string{"--upload-pack"}, Shell: true}},
	"clone":         {{Opts: []string{"-u", "--upload-pack"}, Shell: true}},
	"ls-remote":     {{Opts: []string{"--upload-pack"}, Shell: true}},
	"archive":       {{Opts: []string{"--exec"}, Shell: true}},
	"push":          {{Opts: []string{"--receive-pack", "--exec"}, Shell: true}},
	"send-pack":     {{Opts: []string{"--receive-pack", "--exec"}, Shell: true}},
	"fetch-pack":    {{Opts: []string{"--upload-pack", "--exec"}, Shell: true}},
}

// gitSafeConfigPrefixes are configuration keys (lower-cased) that never
// name a program, whatever their value; every other `-c key=value` may.
var gitSafeConfigPrefixes = []string{
	"color.", "advice.", "user.", "column.", "i18n.", "init.defaultbranch", "core.quotepath",
	"core.autocrlf", "core.safecrlf", "core.eol", "core.filemode", "core.ignorecase",
	"core.abbrev", "log.date", "log.decorate", "log.abbrevcommit", "diff.noprefix",
	"diff.mnemonicprefix", "diff.renames", "diff.algorithm", "diff.context", "status.short",
	"status.branch", "status.showuntrackedfiles", "safe.directory", "gc.auto", "fetch.prune",
	"pull.rebase", "pull.ff", "push.default", "merge.conflictstyle", "rerere.enabled",
	"protocol.version", "commit.verbose", "format.numbered", "help.autocorrect",
	"maintenance.auto", "feature.manyfiles", "index.threads", "pack.threads",
}

// GitSafeConfigKey reports whether a configuration key can never make git
// run a program.
func GitSafeConfigKey(key string) bool {
	k := strings.ToLower(key)
	for _, p := range gitSafeConfigPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}
