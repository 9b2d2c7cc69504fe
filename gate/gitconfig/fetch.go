package gitconfig

import (
	"strings"

	"github.com/agentexec/agentexec/internal/lazy"
)

// A partial clone (remote.<name>.promisor = true, or
// extensions.partialClone) lacks some trees and blobs and fetches them
// when a command needs one: git then runs upload-pack for the promisor
// remote (over ssh, a remote helper, or remote.<name>.uploadpack). What
// needs a missing object was measured with git 2.39 on a --filter=tree:0
// clone whose uploadpack is a canary (TestGitConfigPartialClone):
// status, diff, show (even -s), log -p/--stat, ls-tree, blame, grep REV,
// rev-parse REV:path and REV^{tree}, describe --dirty and reflog -p
// fetched; rev-parse REV, branch -v, tag -n, for-each-ref, show-ref,
// describe, ls-files, reflog, name-rev, merge-base, show-branch,
// count-objects, check-ignore, symbolic-ref, var, version and remote -v
// did not.

// gitNoLazyFetch are subcommands that read refs, commits (a partial clone
// always has them) or the index only, in every form the classifier calls
// read-only.
var gitNoLazyFetch = lazy.NewSet(
	"branch", "show-ref", "for-each-ref", "symbolic-ref",
	"var", "version", "tag", "remote", "name-rev",
	"merge-base", "show-branch", "count-objects", "check-ignore",
)

// mayLazyFetch reports whether the command may need an object a partial
// clone lacks. The forms that read only refs and commits are told apart
// for rev-parse, describe, ls-files and reflog; every other subcommand
// may fetch.
func mayLazyFetch(sub string, args []string) bool {
	switch {
	case gitNoLazyFetch.Has(sub):
		return false
	case sub == "rev-parse":
		// A path in a tree (REV:path) or a peel to a tree or blob reads
		// trees; options and plain revisions do not.
		for _, a := range args {
			if !strings.HasPrefix(a, "-") && (strings.Contains(a, ":") || strings.Contains(a, "^{")) {
				return true
			}
		}
		return false
	case sub == "describe":
		// --dirty and --broken compare the work tree with HEAD's tree.
		return anyAbbrevOf(args, "dirty", "broken")
	case sub == "ls-files":
		// --with-tree reads a tree; --eol reads the indexed blobs.
		return anyAbbrevOf(args, "with-tree", "eol")
	case sub == "reflog":
		// `git reflog [show]` lists commits; any other option may ask
		// for a diff.
		return len(args) > 1 || (len(args) == 1 && args[0] != "show")
	}
	return true
}

// anyAbbrevOf reports an argument that is one of the long options names
// or an abbreviation of it (git accepts any unique prefix; an ambiguous
// one is an error, so counting it costs nothing).
func anyAbbrevOf(args []string, names ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || name == "" {
			continue
		}
		for _, n := range names {
			if strings.HasPrefix(n, name) {
				return true
			}
		}
	}
	return false
}

// configShowsSignatures reports a key that makes the command verify
// signatures, which runs gpg (git 2.39, TestGitConfigSignatures):
// log.showSignature for log, show and whatchanged, and a %G placeholder
// in format.pretty or a pretty.<name> format (counted for every command:
// a named format applies wherever it is asked for).
func (c *gitRiskContext) configShowsSignatures(e *gitConfigEntry) bool {
	switch e.rule {
	case grShowSignature:
		return gitBool(e) && (c.sub == "log" || c.sub == "show" || c.sub == "whatchanged")
	case grPrettyFormat:
		return strings.Contains(e.value, "%G")
	}
	return false
}
