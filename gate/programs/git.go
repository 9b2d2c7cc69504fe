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

// GitKind is what a git command does, as far as its name tells: the
// classifier's git rules start from it.
type GitKind uint8

// The kinds.
const (
	// GitOther: a command with rules of its own (branch, stash, config …),
	// or none (unknown).
	GitOther GitKind = iota
	// GitReads: it only reads the repository, unless an option says more.
	GitReads
	// GitWrites: it changes the repository, the work tree or a remote.
	GitWrites
)

// gitCommandNames are git's own commands (builtins and the programs of its
// exec path, as `git --list-cmds=builtins,main,others` lists them, plus
// newer ones), each once, under its kind. A subcommand not among them is
// an alias from git's configuration, a `git-NAME` program found on PATH,
// or a command help.autocorrect picks: what it runs is not in the text. A
// name among them is never an alias (git's commands win over aliases), and
// `git-NAME` is `git NAME`.
var gitCommandNames = [...]struct {
	kind  GitKind
	names string
}{
	{GitReads, `blame cat-file check-attr check-ignore cherry count-objects describe diff diff-files diff-index
		diff-tree for-each-ref grep log ls-files ls-tree merge-base name-rev range-diff rev-list rev-parse
		shortlog show show-branch show-ref status var version whatchanged`},
	{GitWrites, `add am checkout cherry-pick clean clone commit commit-tree fast-import fetch filter-branch gc init
		maintenance merge mktag mktree mv pack-refs prune pull push read-tree rebase repack replace reset
		restore revert rm sparse-checkout switch symbolic-ref unpack-objects update-index update-ref write-
		tree`},
	{GitOther, `add--interactive annotate apply archive backfill bisect bisect--helper branch bugreport bundle
		check-mailmap check-ref-format checkout--worker checkout-index citool column commit-graph config
		credential credential-cache credential-cache--daemon credential-store cvsexportcommit cvsimport
		cvsserver daemon diagnose diff-pairs difftool difftool--helper env--helper fast-export fetch-pack
		fmt-merge-msg for-each-repo format-patch fsck fsck-objects fsmonitor--daemon get-tar-commit-id gui
		hash-object help hook http-backend http-fetch http-push imap-send index-pack init-db instaweb
		interpret-trailers last-modified ls-remote mailinfo mailsplit merge-file merge-index merge-octopus
		merge-one-file merge-ours merge-recursive merge-recursive-ours merge-recursive-theirs merge-resolve
		merge-subtree merge-tree mergetool multi-pack-index notes p4 pack-objects pack-redundant patch-id
		pickaxe prune-packed quiltimport receive-pack reflog refs remote remote-ext remote-fd remote-ftp
		remote-ftps remote-http remote-https replay repo request-pull rerere send-email send-pack sh-i18n
		sh-i18n--envsubst sh-setup shell show-index stage stash stripspace submodule submodule--helper
		subtree svn tag unpack-file update-server-info upload-archive upload-archive--writer upload-pack
		verify-commit verify-pack verify-tag web--browse worktree`},
}

var gitCommands = &lazy.Value[map[string]GitKind]{Build: func() map[string]GitKind {
	m := map[string]GitKind{}
	for _, k := range gitCommandNames {
		for _, n := range strings.Fields(k.names) {
			m[n] = k.kind
		}
	}
	return m
}}

// GitCommand returns the kind of one of git's own commands; ok is false
// for any other name.
func GitCommand(sub string) (kind GitKind, ok bool) {
	kind, ok = gitCommands.Get()[sub]
	return kind, ok
}

// IsGitCommand reports whether sub is one of git's own commands.
func IsGitCommand(sub string) bool {
	_, ok := GitCommand(sub)
	return ok
}

// gitLocalOther are the commands with rules of their own (GitOther, and
// symbolic-ref) whose read-only forms, like every GitReads command's,
// neither contact a remote nor start an editor; `git remote` is local
// only in the forms that do not query the remote, which the
// configuration rules tell apart.
var gitLocalOther = lazy.NewSet("annotate", "apply", "bisect", "branch", "config", "format-patch",
	"notes", "reflog", "remote", "stash", "symbolic-ref", "tag", "worktree")

// GitLocal reports whether the read-only forms of git command sub stay in
// the repository: no remote is contacted and no editor started, so the
// configuration that names a credential helper, an ssh command or an
// editor does not concern them. Every command the classifier may call
// read-only must be one (TestGitReadOnlyIsLocal).
func GitLocal(sub string) bool {
	kind, _ := GitCommand(sub)
	return kind == GitReads || gitLocalOther.Has(sub)
}

// GitDryRunN are the git commands whose -n means --dry-run.
var GitDryRunN = lazy.NewSet("add", "clean", "mv", "push", "rm")

// GitSuite are the programs that come with git but are not git commands
// (gitk, scalar): a vouched command naming one is not proven read-only.
var GitSuite = lazy.NewSet("gitk", "scalar")

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
