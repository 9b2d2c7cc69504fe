package programs

import (
	"strings"

	"github.com/agentexec/agentexec/internal/lazy"
)

// Git's own table: the global options before the subcommand, and the
// options and operands of subcommands that run a command (the classifier's
// git rules read git's subcommands and configuration themselves).

// GitGlobalValued are git's global options that take the next word as
// value (or an attached =value).
var GitGlobalValued = lazy.NewSet(
	"-C", "-c", "--git-dir", "--work-tree", "--namespace",
	"--config-env", "--super-prefix", "--attr-source", "--list-cmds",
)

// GitCommands are git's own commands (builtins and the programs of its
// exec path, as `git --list-cmds=builtins,main` lists them, plus newer
// ones). A subcommand not among them is an alias from git's configuration,
// a `git-NAME` program found on PATH, or a command help.autocorrect picks:
// what it runs is not in the text. A name among them is never an alias
// (git's commands win over aliases), and `git-NAME` is `git NAME`.
var GitCommands = lazy.FieldSet(`add add--interactive am annotate apply archive backfill bisect bisect--helper
		blame branch bugreport bundle cat-file check-attr check-ignore check-mailmap check-ref-format checkout
		checkout--worker checkout-index cherry cherry-pick citool clean clone column commit commit-graph
		commit-tree config count-objects credential credential-cache credential-cache--daemon credential-store
		daemon describe diagnose diff diff-files diff-index diff-pairs diff-tree difftool difftool--helper
		env--helper fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref
		for-each-repo format-patch fsck fsck-objects fsmonitor--daemon gc get-tar-commit-id grep gui
		hash-object help hook http-backend http-fetch http-push imap-send index-pack init init-db instaweb
		interpret-trailers last-modified log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge
		merge-base merge-file merge-index merge-octopus merge-one-file merge-ours merge-recursive
		merge-recursive-ours merge-recursive-theirs merge-resolve merge-subtree merge-tree mergetool mktag
		mktree multi-pack-index mv name-rev notes p4 pack-objects pack-redundant pack-refs patch-id pickaxe
		prune prune-packed pull push quiltimport range-diff read-tree rebase receive-pack reflog refs remote
		remote-ext remote-fd remote-ftp remote-ftps remote-http remote-https repack replace replay repo
		request-pull rerere reset restore rev-list rev-parse revert rm send-email send-pack sh-i18n--envsubst
		shell shortlog show show-branch show-index show-ref sparse-checkout stage stash status stripspace
		submodule submodule--helper subtree svn switch symbolic-ref tag unpack-file unpack-objects
		update-index update-ref update-server-info upload-archive upload-archive--writer upload-pack var
		verify-commit verify-pack verify-tag version web--browse whatchanged worktree write-tree`)

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
var GitRuns = &lazy.Value[map[string][]GitRun]{Build: func() map[string][]GitRun {
	return map[string][]GitRun{
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
}}

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
