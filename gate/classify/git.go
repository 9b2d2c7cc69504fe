package classify

import (
	"fmt"
	"strings"

	"github.com/agentexec/agentexec/gate/gitconfig"
	"github.com/agentexec/agentexec/gate/programs"
	"github.com/agentexec/agentexec/internal/lazy"
)

// git rules. Subcommands are read-only, write, or Unknown by table; options
// that make git run a helper program (external diff, textconv, filters,
// signature checks, pagers) are Unknown; --output writes. Read-only results
// are then checked against the configuration git would read, when the
// directory or the environment is known.

// gitHarmlessGlobals are global options that only make git do less: no
// pager, no optional locks, literal pathspecs.
var gitHarmlessGlobals = lazy.NewSet("--no-pager", "-P", "--no-optional-locks",
	"--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs",
	"--icase-pathspecs", "--no-replace-objects", "--no-lazy-fetch", "--no-advice")

// gitSafeConfigKeys are configuration keys `git -c` may set without
// making git run anything: display settings. Matching ignores case.
var gitSafeConfigKeys = lazy.NewSet("core.quotepath", "diff.noprefix", "diff.mnemonicprefix",
	"column.ui", "log.decorate", "log.abbrevcommit", "log.date", "status.short",
	"status.branch", "status.relativepaths", "grep.linenumber", "grep.fullname")

// gitSafeConfigOpt returns how many words a `-c key=value` (or
// `-ckey=value`) at args[i] spans when key only affects display (color.*,
// advice.* or gitSafeConfigKeys), and 0 otherwise.
func gitSafeConfigOpt(args []string, i int) int {
	kv, n := "", 0
	switch {
	case args[i] == "-c" && i+1 < len(args):
		kv, n = args[i+1], 2
	case strings.HasPrefix(args[i], "-c") && len(args[i]) > 2:
		kv, n = args[i][2:], 1
	default:
		return 0
	}
	key, _, _ := strings.Cut(kv, "=")
	key = strings.ToLower(key)
	if strings.Count(key, ".") != 1 {
		return 0 // subsections (diff.<driver>.command …) are never display-only
	}
	if gitSafeConfigKeys.Has(key) || strings.HasPrefix(key, "color.") || strings.HasPrefix(key, "advice.") {
		return n
	}
	return 0
}

// gitCommitValues are commit's options whose value is the next word, so a
// message such as `-m --help` is not read as an option.
var gitCommitValues = lazy.NewSet("-C", "-c", "-F", "-m", "-t", "--author", "--cleanup",
	"--date", "--file", "--fixup", "--message", "--pathspec-from-file",
	"--reedit-message", "--reuse-message", "--squash", "--template", "--trailer")

// gitHelperOptions are the options that make read-only subcommands run a
// program (why says what it runs; "" for an option checked by hand), sorted
// by name, so that an abbreviation matching several is reported the same
// way every time.
var gitHelperOptions = []struct{ name, why string }{
	{"alternate-refs", "runs core.alternateRefsCommand"},
	{"exec", "runs a program"},
	{"ext-diff", "runs the external diff program"},
	{"filters", "runs clean/smudge filters"},
	{"gpg-sign", "runs gpg"},
	{"open-files-in-pager", "opens matches in a pager program"},
	{"output", ""},
	{"output-directory", ""},
	{"paginate", "runs a pager"},
	{"remote", "contacts a remote"},
	{"show-signature", "runs gpg to verify signatures"},
	{"textconv", "runs textconv filters"},
	{"upload-pack", "runs an upload-pack program"},
	{"verify", "runs gpg to verify signatures"},
	{"verify-signatures", "runs gpg to verify signatures"},
}

func gitCommandRule(w *walker, a argv) finding {
	if a.dynamic() {
		return finding{Unknown, "dynamic-argument", "`git` has an argument computed at run time, which could be -c or a helper option"}
	}
	args := a.vals
	i := 0
	for i < len(args) {
		if gitHarmlessGlobals.Has(args[i]) {
			i++
		} else if n := gitSafeConfigOpt(args, i); n > 0 {
			i += n
		} else {
			break
		}
	}
	if i == len(args) {
		return finding{ReadOnly, "git-usage", "`git` without a subcommand prints its usage"}
	}
	if v := args[i]; strings.HasPrefix(v, "-") {
		if (v == "--version" || v == "--help") && i == len(args)-1 {
			return finding{ReadOnly, "git-usage", fmt.Sprintf("`git %s` only prints", v)}
		}
		if strings.HasPrefix(v, "-c") {
			// -c NAME=VALUE: the facts tree reads its aliases and the keys
			// that name programs, so the rules see them.
			return finding{Unknown, "git-config-option", fmt.Sprintf("the git global option `%s` sets configuration that can change what git runs", v)}
		}
		return finding{Unknown, "git-global-option", fmt.Sprintf("the git global option `%s` can change which configuration, directory or program git uses", v)}
	}
	sub, rest := args[i], args[i+1:]
	f := gitSub(sub, rest)
	if f.s == ReadOnly {
		f = w.gitConfig(sub, rest, f)
	}
	return f
}

// gitSub classifies a subcommand and its arguments.
func gitSub(sub string, rest []string) finding {
	if gitHasHelp(sub, rest) {
		return finding{Unknown, "git-help", fmt.Sprintf("`git %s --help` may start an external help viewer", sub)}
	}
	rest, f, ok := gitCanonLong(sub, rest)
	if !ok {
		return f
	}
	kind, _ := programs.GitCommand(sub)
	switch {
	case sub == "help":
		return finding{Unknown, "git-help", "`git help` may start an external help viewer"}
	case kind == programs.GitWrites:
		return gitWriteSub(sub, rest)
	case kind == programs.GitReads:
		return gitReadSub(sub, rest)
	}
	if rule, ok := gitTables[sub]; ok {
		return rule(rest)
	}
	return finding{Unknown, "git-subcommand", fmt.Sprintf("`git %s` is not a subcommand the rules know", sub)}
}

var gitTables map[string]func([]string) finding

func init() {
	gitTables = map[string]func([]string) finding{
		"branch": gitBranch, "remote": gitRemote, "tag": gitTag, "stash": gitStash,
		"config": gitConfigSub, "reflog": gitReflog, "worktree": gitWorktree,
		"notes": gitNotes, "apply": gitApply, "format-patch": gitFormatPatch,
		"bisect": gitBisect,
	}
}

// gitHasHelp finds --help (or -h as the only argument) before `--`,
// skipping commit's option values.
func gitHasHelp(sub string, rest []string) bool {
	if len(rest) == 1 && rest[0] == "-h" {
		return true
	}
	for i := 0; i < len(rest); i++ {
		v := rest[i]
		switch {
		case v == "--":
			return false
		case v == "--help":
			return true
		case sub == "commit" && gitCommitValues.Has(v):
			i++
		case v == "--output" && sub != "branch":
			// diff-family --output takes the next word, even `--help`
			// (Qwen shellAstParser `git log --output --help` → write).
			i++
		case sub == "branch" && (v == "--sort" || v == "--format"):
			// The value is the next word, even `--help` (Qwen
			// shellAstParser `git branch --format --help -d topic` → write).
			i++
		}
	}
	return false
}

func gitWriteSub(sub string, rest []string) finding {
	for i := 0; i < len(rest); i++ {
		v := rest[i]
		switch {
		case v == "--":
			i = len(rest)
		case sub == "commit" && gitCommitValues.Has(v):
			i++
		case v == "--dry-run" || (v == "-n" && programs.GitDryRunN.Has(sub)):
			return finding{Unknown, "git-dry-run", fmt.Sprintf("`git %s %s` is a dry run, which the rules do not prove read-only", sub, v)}
		}
	}
	return finding{Write, "git-write", "`git " + sub + "` changes the repository, work tree or a remote"}
}

// gitReadSub checks a read-only subcommand's options for helpers, output
// files and signature placeholders.
func gitReadSub(sub string, rest []string) finding {
	for i, v := range rest {
		if v == "--" {
			break
		}
		if v == "--output" && sub != "blame" && i+1 < len(rest) {
			// Qwen shellAstParser `git log --output --help` → write: the
			// value is the next word.
			return finding{Write, "git-output", fmt.Sprintf("`git %s --output` writes %q", sub, rest[i+1])}
		}
		if f, bad := gitOption(sub, v); bad {
			return f
		}
	}
	for _, v := range rest {
		if strings.Contains(v, "%G") || strings.Contains(v, "%(signature") {
			return finding{Unknown, "git-signature-format", "a %G signature placeholder makes git run gpg"}
		}
	}
	return finding{ReadOnly, "git-read", "`git " + sub + "` only reads the repository"}
}

// gitOption classifies one option of a read-only subcommand. A long option
// that is an abbreviation of a helper option counts as that option, since
// git accepts unique prefixes.
func gitOption(sub, v string) (finding, bool) {
	if sub == "grep" && len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.ContainsRune(v, 'O') {
		return finding{Unknown, "git-grep-pager", "`git grep -O` opens matches in a pager program"}, true
	}
	if !strings.HasPrefix(v, "--") {
		return finding{}, false
	}
	name, val, _ := strings.Cut(v[2:], "=")
	if name == "output" && sub != "blame" && val != "" {
		return finding{Write, "git-output", fmt.Sprintf("`git %s --output` writes %q", sub, val)}, true
	}
	for _, h := range gitHelperOptions {
		full, why := h.name, h.why
		if full != name && (name == "" || !strings.HasPrefix(full, name)) {
			continue
		}
		switch {
		case why == "":
			return finding{Unknown, "git-option", fmt.Sprintf("`git %s %s` names a file or helper the rules do not follow", sub, v)}, true
		default:
			return finding{Unknown, "git-helper", fmt.Sprintf("`git %s --%s` %s", sub, full, why)}, true
		}
	}
	return finding{}, false
}

// gitConfig fails a read-only git command closed when the configuration
// it would read, or the environment, may make it run a program; and when
// an earlier cd moved it to a directory that cannot be followed statically.
func (w *walker) gitConfig(sub string, rest []string, f finding) finding {
	if w == nil || (w.opt.Cwd == "" && !gitEnvTrigger(w.opt.Env)) {
		return f
	}
	if w.sawCd {
		return finding{Unknown, "git-after-cd", "git runs after a cd, in a directory whose configuration cannot be checked statically"}
	}
	if risky, why := gitconfig.Risk(w.opt.Cwd, w.opt.Env, sub, rest); risky {
		return finding{Unknown, "git-config", "git's configuration may run a program: " + why}
	}
	return f
}

// gitEnvTrigger reports variables that change what git reads or runs.
func gitEnvTrigger(env []string) bool {
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "GIT_"), strings.HasPrefix(k, "LESS"):
		case k == "PAGER", k == "MANPAGER", k == "XDG_CONFIG_HOME", k == "EDITOR", k == "VISUAL", k == "SSH_ASKPASS":
		default:
			continue
		}
		return true
	}
	return false
}

// gitBranchWrite are branch's options that create, delete, move or copy
// branches or change their upstream.
var gitBranchWrite = lazy.NewSet("--delete", "--move", "--copy", "--set-upstream",
	"--set-upstream-to", "--unset-upstream", "--create-reflog", "--edit-description",
	"--track", "--no-track", "--force", "-f")

// gitBranchList are branch's listing options.
var gitBranchList = lazy.NewSet("-a", "-l", "-r", "--all", "--list", "--remotes",
	"--show-current", "--contains", "--no-contains", "--merged", "--no-merged",
	"--points-at", "--with", "--without")

// gitBranchHarmless are branch's display options.
var gitBranchHarmless = lazy.NewSet("-v", "-vv", "--verbose", "-q", "--quiet", "--color",
	"--no-color", "--column", "--no-column", "-i", "--ignore-case", "--omit-empty",
	"--abbrev", "--no-abbrev")

func gitBranch(rest []string) finding {
	list, positional, unknown, sepValue := false, false, false, false
	for i := 0; i < len(rest); i++ {
		v := rest[i]
		name, _, _ := strings.Cut(v, "=")
		switch {
		case v == "--":
			if i == len(rest)-1 || strings.HasPrefix(rest[i+1], "-") {
				// git rejects a branch name starting with '-' (Qwen
				// shellAstParser `git branch -- --list` → unknown).
				return finding{Unknown, "git-branch", "`git branch --` has no valid branch name"}
			}
			positional = true
			i = len(rest)
		case v == "--sort" || v == "--format":
			i++
			sepValue = true
		case strings.HasPrefix(v, "--sort=") || strings.HasPrefix(v, "--format=") || strings.HasPrefix(v, "--abbrev=") || strings.HasPrefix(v, "--color=") || strings.HasPrefix(v, "--column="):
		case name == "--edit-description":
			return finding{Unknown, "git-branch-edit", "`git branch --edit-description` starts an editor"}
		case gitBranchWrite.Has(name) || (len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.ContainsAny(v, "cCdDmMu")):
			return finding{Write, "git-branch-write", fmt.Sprintf("`git branch %s` changes branches", v)}
		case gitBranchList.Has(name):
			list = true
		case gitBranchHarmless.Has(name):
		case strings.HasPrefix(v, "-"):
			unknown = true
		default:
			positional = true
		}
	}
	switch {
	case unknown:
		// Checked before list: an option the sets do not place (a
		// negation, --recurse-submodules) is not proven to only list.
		return finding{Unknown, "git-branch", "`git branch` has an option the rules do not know"}
	case sepValue:
		// The peer reads a separate --sort/--format value as unknown
		// unless a write option decides (Qwen shellAstParser `git branch
		// --sort refname` → unknown, `--sort --version --delete topic` →
		// write).
		return finding{Unknown, "git-branch", "`git branch --sort`/`--format` with a separate value is not proven a listing"}
	case list:
		return finding{ReadOnly, "git-branch-list", "`git branch` with a listing option only lists branches"}
	case positional:
		return finding{Write, "git-branch-create", "`git branch NAME` creates a branch"}
	}
	return finding{ReadOnly, "git-branch-list", "`git branch` only lists branches"}
}

var gitRemoteWrite = lazy.NewSet("add", "remove", "rm", "rename", "set-branches", "set-head", "set-url", "update")

func gitRemote(rest []string) finding {
	i := 0
	for i < len(rest) && (rest[i] == "-v" || rest[i] == "--verbose") {
		i++
	}
	if i == len(rest) {
		return finding{ReadOnly, "git-remote-list", "`git remote` only lists remotes"}
	}
	action, args := rest[i], rest[i+1:]
	switch {
	case gitRemoteWrite.Has(action):
		return finding{Write, "git-remote-write", fmt.Sprintf("`git remote %s` changes the remote configuration", action)}
	case action == "prune":
		if gitHasArg(args, "-n") || gitHasArg(args, "--dry-run") {
			return finding{Unknown, "git-dry-run", "`git remote prune --dry-run` contacts the remote"}
		}
		return finding{Write, "git-remote-write", "`git remote prune` deletes remote-tracking branches"}
	case action == "get-url" || (action == "show" && (gitHasArg(args, "-n") || gitHasArg(args, "--no-query"))):
		for _, v := range args {
			if gitRemoteWrite.Has(v) || v == "prune" {
				return finding{Unknown, "git-remote", "`git remote` mixes a listing action with a write action's name"}
			}
		}
		return finding{ReadOnly, "git-remote-list", fmt.Sprintf("`git remote %s` only prints the configuration", action)}
	case action == "show":
		return finding{Unknown, "git-remote-show", "`git remote show` without -n contacts the remote, which may run credential helpers or ssh"}
	}
	return finding{Unknown, "git-remote", fmt.Sprintf("`git remote %s` is not an action the rules know", action)}
}

func gitHasArg(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// gitTagList are tag's options that make it list: -l and the filters
// (builtin/tag.c enters list mode for those alone).
var gitTagList = lazy.NewSet("-l", "--list", "--contains", "--no-contains", "--merged",
	"--no-merged", "--points-at")

// gitTagDisplay are tag's display options, which do not make it list:
// git tag --column NAME creates the tag NAME (confirmed with git 2.x).
var gitTagDisplay = lazy.NewSet("--column", "--no-column", "--color", "--no-color", "-i",
	"--ignore-case", "--omit-empty")

func gitTag(rest []string) finding {
	list, positional := false, false
	for i := 0; i < len(rest); i++ {
		v := rest[i]
		name, _, _ := strings.Cut(v, "=")
		switch {
		case v == "-v" || name == "--verify":
			return finding{Unknown, "git-helper", "`git tag -v` runs gpg to verify signatures"}
		case v == "--sort" || v == "--format":
			i++
			if i < len(rest) && (strings.Contains(rest[i], "%(signature") || strings.Contains(rest[i], "%G")) {
				return finding{Unknown, "git-signature-format", "a signature placeholder makes git run gpg"}
			}
		case strings.HasPrefix(v, "--sort=") || strings.HasPrefix(v, "--format="):
			if strings.Contains(v, "%(signature") || strings.Contains(v, "%G") {
				return finding{Unknown, "git-signature-format", "a signature placeholder makes git run gpg"}
			}
		case strings.HasPrefix(v, "-n") && digitsOnly(v[2:]+"0"):
			list = true // -n<num> prints annotations, which implies listing
		case gitTagList.Has(name):
			list = true
		case gitTagDisplay.Has(name):
		case strings.HasPrefix(v, "-"):
			return finding{Write, "git-tag-write", fmt.Sprintf("`git tag %s` creates or deletes tags", v)}
		default:
			positional = true
		}
	}
	if positional && !list {
		return finding{Write, "git-tag-write", "`git tag NAME` creates a tag"}
	}
	return finding{ReadOnly, "git-tag-list", "`git tag` only lists tags"}
}

func gitStash(rest []string) finding {
	if len(rest) == 0 {
		return finding{Write, "git-write", "`git stash` saves and reverts local changes"}
	}
	switch rest[0] {
	case "list", "show":
		return gitReadSub("stash "+rest[0], rest[1:])
	}
	return finding{Write, "git-write", fmt.Sprintf("`git stash %s` changes the stash or the work tree", rest[0])}
}

var (
	gitConfigEdit  = lazy.NewSet("--edit", "-e", "edit")
	gitConfigWrite = lazy.NewSet("--add", "--unset", "--unset-all", "--replace-all",
		"--rename-section", "--remove-section", "set", "unset", "rename-section",
		"remove-section")
	gitConfigRead = lazy.NewSet("--get", "--get-all", "--get-regexp", "--get-urlmatch",
		"--list", "-l", "get", "list", "--get-color", "--get-colorbool")
	gitConfigValues = lazy.NewSet("--file", "-f", "--blob", "--type", "--default", "--comment", "--value")
)

func gitConfigSub(rest []string) finding {
	positional := 0
	for i := 0; i < len(rest); i++ {
		v := rest[i]
		switch {
		case gitConfigEdit.Has(v):
			return finding{Unknown, "git-config-edit", "`git config --edit` starts an editor"}
		case gitConfigWrite.Has(v):
			return finding{Write, "git-config-write", fmt.Sprintf("`git config %s` changes the configuration", v)}
		case gitConfigRead.Has(v):
			return finding{ReadOnly, "git-config-read", "`git config` only reads the configuration"}
		case gitConfigValues.Has(v):
			i++
		case !strings.HasPrefix(v, "-"):
			positional++
		}
	}
	switch positional {
	case 0:
		return finding{Unknown, "git-config", "`git config` without a key does nothing the rules model"}
	case 1:
		return finding{ReadOnly, "git-config-read", "`git config KEY` only reads a value"}
	}
	return finding{Write, "git-config-write", "`git config KEY VALUE` changes the configuration"}
}

func gitReflog(rest []string) finding {
	if len(rest) == 0 || rest[0] == "show" || rest[0] == "exists" || strings.HasPrefix(rest[0], "-") {
		return gitReadSub("reflog", rest)
	}
	if rest[0] == "expire" || rest[0] == "delete" {
		return finding{Write, "git-write", fmt.Sprintf("`git reflog %s` deletes reflog entries", rest[0])}
	}
	return finding{Unknown, "git-subcommand", fmt.Sprintf("`git reflog %s` is not an action the rules know", rest[0])}
}

func gitWorktree(rest []string) finding {
	if len(rest) > 0 && rest[0] == "list" {
		return finding{ReadOnly, "git-worktree-list", "`git worktree list` only lists work trees"}
	}
	return finding{Write, "git-write", "`git worktree` changes work trees"}
}

func gitNotes(rest []string) finding {
	if len(rest) == 0 || rest[0] == "list" || rest[0] == "show" {
		return finding{ReadOnly, "git-read", "`git notes` only lists or shows notes"}
	}
	return finding{Write, "git-write", fmt.Sprintf("`git notes %s` changes notes", rest[0])}
}

// gitApplyReport are apply's options that report on a patch instead of
// applying it; each one's negation takes it back (`--check --no-check`
// applies).
var gitApplyReport = lazy.NewSet("--check", "--stat", "--numstat", "--summary")

func gitApply(rest []string) finding {
	report := map[string]bool{}
	for _, v := range rest {
		switch {
		case gitApplyReport.Has(v):
			report[v] = true
		case strings.HasPrefix(v, "--no-") && gitApplyReport.Has("--"+v[5:]):
			delete(report, "--"+v[5:])
		case v == "--apply" || v == "--index" || v == "--cached" || v == "--3way" || strings.HasPrefix(v, "--build-fake-ancestor"):
			return finding{Write, "git-write", "`git apply` changes the work tree or index"}
		}
	}
	if len(report) > 0 {
		return finding{ReadOnly, "git-apply-check", "`git apply --check/--stat` only reports on a patch"}
	}
	return finding{Write, "git-write", "`git apply` changes the work tree"}
}

func gitFormatPatch(rest []string) finding {
	if gitHasArg(rest, "--stdout") {
		return gitReadSub("format-patch", rest)
	}
	return finding{Write, "git-write", "`git format-patch` writes patch files"}
}

func gitBisect(rest []string) finding {
	if len(rest) > 0 && rest[0] == "log" {
		return finding{ReadOnly, "git-read", "`git bisect log` only prints the bisect log"}
	}
	return finding{Write, "git-write", "`git bisect` moves HEAD and records bisect state"}
}
