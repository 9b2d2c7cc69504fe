package classify

import (
	"fmt"
	"strings"

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

// gitExtraVerbs are git subcommands beyond the ones git.go has rules for,
// including the exec-fallback porcelains (svn, cvsserver, citool, gui,
// instaweb) that run other programs.
var gitExtraVerbs = lazy.NewSet("annotate", "archive", "bundle", "checkout-index",
	"check-mailmap", "check-ref-format", "citool", "column", "credential",
	"credential-cache", "credential-store", "cvsexportcommit", "cvsimport",
	"cvsserver", "daemon", "diff-pairs", "difftool", "fast-export",
	"fetch-pack", "fmt-merge-msg", "fsck", "fsmonitor--daemon", "get-tar-commit-id",
	"gui", "hash-object", "help", "hook", "http-backend", "http-fetch",
	"http-push", "imap-send", "index-pack", "instaweb", "interpret-trailers",
	"last-modified", "ls-remote", "mailinfo", "mailsplit", "merge-file",
	"merge-index", "merge-one-file", "merge-tree", "mergetool", "multi-pack-index",
	"p4", "pack-objects", "pack-redundant", "patch-id", "prune-packed",
	"quiltimport", "receive-pack", "replay", "request-pull", "rerere",
	"send-email", "send-pack", "sh-i18n", "sh-setup", "shell", "show-index",
	"stripspace", "submodule", "subtree", "svn", "unpack-file", "upload-archive",
	"upload-pack", "verify-commit", "verify-pack", "verify-tag", "whatchanged",
	"backfill", "refs", "repo", "scalar", "sparse-checkout", "gitk", "blame",
	"show-branch", "grep", "init-db", "am", "branch", "remote", "tag", "stash",
	"config", "reflog", "worktree", "notes", "apply", "format-patch", "bisect")

// isGitVerb reports whether v is a git subcommand name.
func isGitVerb(v string) bool {
	return gitReadOnly.Has(v) || gitWrite.Has(v) || gitExtraVerbs.Has(v)
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
