package gitconfig

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentexec/agentexec/internal/lazy"
)

// maxSubmodules and maxSubmoduleDepth bound the submodules one call reads;
// past them the answer is risky rather than slow.
const (
	maxSubmodules     = 256
	maxSubmoduleDepth = 8
)

// gitSubmoduleReaders are the subcommands that, by default, start git in
// each populated submodule to tell whether it is modified (`git status
// --porcelain=2` there, which runs its fsmonitor and refreshes its index).
// Confirmed with git 2.39: a submodule's core.fsmonitor runs under status,
// diff, diff-files, diff-index and describe --dirty in the superproject.
var gitSubmoduleReaders = lazy.NewSet(
	"status", "diff", "diff-files", "diff-index", "describe",
)

// gitSubmoduleChildren are the subcommands a recursion runs, or reads
// configuration for, inside a submodule: each submodule's entries are
// checked as every one of them (and as the command itself).
var gitSubmoduleChildren = []string{"status", "diff"}

// recursesIntoSubmodules reports whether the command reads or runs git
// in the repository's submodules: by default for the readers above;
// grep and ls-files with --recurse-submodules (any abbreviation) or
// submodule.recurse; and any diff-showing command with
// --submodule=diff or diff.submodule=diff, which runs `git diff` in each
// changed submodule.
func (l *gitConfigLoader) recursesIntoSubmodules(sub string, args []string) bool {
	if gitSubmoduleReaders.Has(sub) {
		return true
	}
	if e := l.last(grDiffSubmodule); e != nil && strings.EqualFold(e.value, "diff") {
		return true
	}
	recurseFlag := sub == "grep" || sub == "ls-files"
	for _, a := range args {
		if a == "--" {
			break
		}
		name, val, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch {
		case !strings.HasPrefix(a, "--") || len(name) < 3:
		case recurseFlag && strings.HasPrefix("recurse-submodules", name):
			return true
		case strings.HasPrefix("submodule", name) && val != "" && strings.HasPrefix("diff", strings.ToLower(val)):
			return true
		}
	}
	if e := l.last(grSubmoduleRecurse); recurseFlag && e != nil && gitBool(e) {
		return true
	}
	return false
}

// submoduleRisk reads the configuration of every populated submodule the
// command recurses into, like the top-level repository's: system and
// global files, the submodule's own config (.git/modules/NAME/config or
// SUB/.git/config, with config.worktree and includes), its read hooks, and
// its own submodules in turn. force says an enclosing recursion already
// runs git here. Submodules are the index's gitlink entries whose
// directory has a .git, which is how git finds them (a gitlink needs no
// .gitmodules entry for status to recurse into it).
func (l *gitConfigLoader) submoduleRisk(sub string, args []string, force bool, depth int, budget *int) string {
	sub = strings.ToLower(sub)
	if l.repo == nil || l.repo.workTree == "" || (!force && !l.recursesIntoSubmodules(sub, args)) {
		return ""
	}
	links, why := l.gitlinks()
	if why != "" {
		return "git " + sub + " also runs in submodules, and " + why
	}
	for _, p := range links {
		if why := l.oneSubmodule(sub, args, p, depth, budget); why != "" {
			return why
		}
	}
	return ""
}

// oneSubmodule checks the submodule at the index path p.
func (l *gitConfigLoader) oneSubmodule(sub string, args []string, p string, depth int, budget *int) string {
	dir := filepath.Join(l.repo.workTree, filepath.FromSlash(p))
	if _, err := os.Lstat(filepath.Join(dir, ".git")); os.IsNotExist(err) {
		return "" // not populated: git does not go in
	}
	*budget--
	if *budget < 0 || depth >= maxSubmoduleDepth {
		return "git " + sub + " also runs in more submodules, or more deeply nested ones, than the rules read"
	}
	repo, why, found := gitRepoAt(dir)
	switch {
	case why != "":
		return "submodule " + p + ": " + why
	case !found || repo == nil:
		return "submodule " + p + " has a .git that is not a repository the rules can read"
	}
	repo.workTree = dir
	sl := &gitConfigLoader{env: l.env}
	if why := sl.loadRepo(repo); why != "" {
		return "submodule " + p + ": " + why
	}
	for _, child := range append([]string{sub}, gitSubmoduleChildren...) {
		if why := sl.repoRisk(child, args); why != "" {
			return "submodule " + p + ": " + why
		}
	}
	return sl.submoduleRisk(sub, args, true, depth+1, budget)
}

// gitlinks returns the paths of the repository's gitlink index entries.
func (l *gitConfigLoader) gitlinks() ([]string, string) {
	hashLen := 20
	switch l.objectFormat {
	case "", "sha1":
	case "sha256":
		hashLen = 32
	default:
		return nil, "extensions.objectFormat " + l.objectFormat + " is not one the rules know"
	}
	path := filepath.Join(l.repo.gitDir, "index")
	links, err := readGitlinks(path, hashLen)
	if err != nil {
		return nil, "its index " + path + " cannot be read: " + err.Error()
	}
	return links, ""
}
