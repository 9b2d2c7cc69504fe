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
	// Opts reads the subcommand's options as git's parse-options reads
	// them — short options cluster (-qx CMD, -ux'CMD'), a long option may
	// be abbreviated to any unique prefix (--upload-p=CMD, --ex CMD), `--`
	// ends them — and carries the effect of each option that runs a
	// command (RunsShell: shell text; RunsProgram: a program). Only the
	// options that take a value are listed besides those: any other is
	// read as a flag (AnyOption), so the reading finds every command
	// option git finds, and at worst one more inside another's value.
	Opts *Options
	// After: the words after this operand are the command (bisect run …,
	// submodule foreach …); Joined joins them into shell text.
	After  string
	Joined bool
	// Git: the words from its first operand on are a git command line it
	// runs (for-each-repo runs `git WORDS` in each repository its
	// configuration lists, after its options, which stop there).
	Git bool
	// Config are the options whose value is KEY=VALUE configuration the
	// subcommand writes (clone -c into the new repository, which its own
	// checkout already reads): read as `git config KEY VALUE` is.
	Config []string
}

// gitOpts builds a subcommand's grammar: valued are its short options
// that take a value (not the command's), values its long ones whose
// name is a prefix of a command option's (send-email --to beside
// --to-cmd: the exact name wins over the abbreviation), and cmds maps
// each command option's spellings ("x exec") to its effect.
func gitOpts(valued, values string, cmds map[string]Opt) *Options {
	o := Opts("", valued, &Longs{Req: values}).AnyOption()
	for spell, opt := range cmds {
		for _, n := range strings.Fields(spell) {
			if len(n) == 1 {
				o.Short(n, opt)
			} else {
				o.Long(opt, n)
			}
		}
	}
	return o
}

// The effects of git's command options.
var (
	gitShell     = Opt{Arity: ReqArg, Effect: RunsShell}
	gitShellOpt  = Opt{Arity: OptArg, Effect: RunsShell}
	gitSendmail  = Opt{Arity: ReqArg, Effect: RunsProgram, Appends: true, Absolute: true}
	gitPackShell = map[string]Opt{"upload-pack": gitShell}
)

// GitRuns maps subcommands to the ways they run commands. The options are
// git 2.39's (`git CMD -h`, and the hidden aliases its sources keep:
// ls-remote --exec); send-email's are Perl's Getopt::Long, which reads
// -name as --name and abbreviates too.
var GitRuns = &lazy.Value[map[string][]GitRun]{Build: func() map[string][]GitRun {
	return map[string][]GitRun{
		"rebase":    {{Opts: gitOpts("sXC", "", map[string]Opt{"x exec": gitShell})}},
		"bisect":    {{After: "run"}},
		"submodule": {{After: "foreach", Joined: true}},
		"difftool":  {{Opts: gitOpts("t", "", map[string]Opt{"x extcmd": gitShell})}},
		"filter-branch": {{Opts: gitOpts("d", "", map[string]Opt{"env-filter tree-filter index-filter parent-filter " +
			"msg-filter commit-filter tag-name-filter": gitShell})}},
		"grep":  {{Opts: gitOpts("CBAmfe", "", map[string]Opt{"O open-files-in-pager": gitShellOpt})}},
		"fetch": {{Opts: gitOpts("jo", "", gitPackShell)}},
		"pull":  {{Opts: gitOpts("sXo", "", gitPackShell)}},
		"clone": {{Opts: gitOpts("job", "", map[string]Opt{"u upload-pack": gitShell}).
			Short("c", Opt{Arity: ReqArg}).Long(Opt{Arity: ReqArg}, "config"), Config: []string{"c", "config"}}},
		"ls-remote":  {{Opts: gitOpts("o", "", map[string]Opt{"upload-pack exec": gitShell})}},
		"archive":    {{Opts: gitOpts("o", "", map[string]Opt{"exec": gitShell})}},
		"push":       {{Opts: gitOpts("o", "", map[string]Opt{"receive-pack exec": gitShell})}},
		"send-pack":  {{Opts: gitOpts("", "", map[string]Opt{"receive-pack exec": gitShell})}},
		"fetch-pack": {{Opts: gitOpts("", "", map[string]Opt{"upload-pack exec": gitShell})}},
		// git send-email runs its --sendmail-cmd and the commands that
		// give recipients or headers through the shell, and an
		// --smtp-server that is an absolute path as the mailer.
		"send-email": {{Opts: sendEmailOpts()}},
		// git daemon runs its --access-hook through the shell (with the
		// service and path after it) for every request it serves.
		"daemon": {{Opts: gitOpts("", "", map[string]Opt{"access-hook": gitShell})}},
		// git instaweb starts --httpd's words as the web server, with
		// its configuration file after them (a known server's name
		// anywhere in the value is enough: "rm -rf x httpd" ran rm).
		"instaweb": {{Opts: gitOpts("pmb", "port module-path browser", map[string]Opt{
			"d httpd": {Arity: ReqArg, Effect: RunsProgram, Appends: true}})}},
		"for-each-repo": {{Opts: gitForEachRepoOpts(), Git: true}},
	}
}}

// gitForEachRepoOpts is git for-each-repo's grammar: --config KEY, and
// options that stop at the first operand, where the git command line
// begins.
func gitForEachRepoOpts() *Options {
	o := gitOpts("", "config", nil)
	o.Stop = true
	return o
}

// What git commands do to the work tree as a whole, for the blacklist:
// `git clean -f -d` removes every untracked file and directory of it (a
// work tree at / or a home directory is emptied: confirmed on a scratch
// tree), and GitFills write the repository's files into it, which the
// text does not name (reset --hard replaced a work tree's file with the
// repository's).
var (
	GitFills = lazy.NewSet("checkout", "switch", "restore", "read-tree", "stash", "merge", "pull", "cherry-pick",
		"revert", "rebase", "am", "checkout-index")
	// GitFillsWith are the options that make a GitFills-like command of
	// another kind write the work tree (reset --hard).
	GitFillsWith = map[string][]string{"reset": {"--hard", "--merge", "--keep"}}
)

// GitOutputs are the options of git's subcommands that name a file they
// write (git log --output=F, git archive -o F), read with the
// subcommand's grammar (--outp=F is --output=F); GitWritesAfter the
// operand after which the next one is a file written (bundle create F).
var GitOutputs = &lazy.Value[map[string]*Options]{Build: func() map[string]*Options {
	w := Opt{Arity: ReqArg, Effect: Writes, Why: "git writes %q"}
	out := gitOpts("", "", map[string]Opt{"output": w})
	m := map[string]*Options{"archive": gitOpts("", "", map[string]Opt{"o output": w})}
	for _, s := range strings.Fields("log show diff whatchanged diff-tree diff-files diff-index range-diff format-patch stash reflog") {
		m[s] = out
	}
	return m
}}

// GitWritesAfter maps subcommands to the operand whose next operand is a
// file they write.
var GitWritesAfter = map[string]string{"bundle": "create"}

// GitConfigOpts is git config's grammar (git 2.39, and the subcommands
// of 2.46): the options that take a value, and the modes that only read
// or remove, whose operands are not a key and its new value.
var GitConfigOpts = Opts("lez", "f", &Longs{Req: "file blob type default comment value url",
	None: "get get-all get-regexp get-urlmatch get-color get-colorbool unset unset-all " +
		"rename-section remove-section list edit"}).AnyOption()

// GitConfigReads are the modes of GitConfigOpts, and the subcommands of
// git config, that set nothing.
var GitConfigReads = lazy.NewSet("get", "get-all", "get-regexp", "get-urlmatch", "get-color",
	"get-colorbool", "unset", "unset-all", "rename-section", "remove-section", "list", "l",
	"edit", "e")

func sendEmailOpts() *Options {
	o := gitOpts("", "to cc", map[string]Opt{"sendmail-cmd to-cmd cc-cmd header-cmd": gitShell, "smtp-server": gitSendmail})
	o.SingleDashLong, o.LongOnly = true, true
	return o
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
