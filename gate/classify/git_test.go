package classify

import (
	"testing"

	"github.com/agentexec/agentexec/gate/programs"
)

func TestGitRules(t *testing.T) {
	runCases(t, Options{}, []classCase{
		// globals
		{"git -P log", ro}, {"git --no-optional-locks status", ro}, {"git --literal-pathspecs ls-files", ro},
		{"git --bare log", un}, {"git --work-tree=. status", un}, {"git --namespace=x log", un},
		{"git --version status", un}, {"git --help", ro}, {"git -h", un},
		{"git -c color.ui=always log", ro}, {"git -c core.quotePath=off status", ro}, {"git -ccolor.diff=never diff", ro},
		{"git -c advice.detachedHead=false log", ro}, {"git -c core.pager=cat log", un}, {"git -c color.x.y=1 log", un},
		{"git -c diff.x.textconv=cat diff", un}, {"git -c alias.st=status st", un}, {"git -c", un},
		{"git -c color.ui=always push", wr}, {"git -c include.path=x log", un}, {"git -c core.fsmonitor=x status", un},
		// read-only subcommands, both directions
		{"git blame f", ro}, {"git blame --contents x f", ro},
		{"git cat-file -p HEAD", ro}, {"git cat-file --textconv HEAD:f", un},
		{"git diff --stat", ro}, {"git diff --no-ext-diff", ro}, {"git diff --ext-diff", un}, {"git diff --output x", wr}, /* Qwen `git log --output --help` → write */
		{"git grep -n foo", ro}, {"git grep -h foo", ro}, {"git grep -O foo", un}, {"git grep --open-files foo", un},
		{"git log -p -3", ro}, {"git log --oneline --graph", ro}, {"git log --show-sig", un}, {"git log --format=%H", ro},
		{"git log --pretty=format:%G?", un}, {"git log -- --output=x", ro},
		{"git ls-files -m", ro}, {"git ls-files --help", un},
		{"git rev-parse --show-toplevel", ro}, {"git rev-parse -h", un},
		{"git show HEAD:f", ro}, {"git show --output=x HEAD", wr}, {"git show --textconv HEAD:f", un},
		{"git status -sb", ro}, {"git status --porcelain=v2", ro}, {"git status -h", un},
		{"git describe --tags", ro}, {"git shortlog -sn HEAD", ro}, {"git ls-tree HEAD", ro},
		{"git rev-list --count HEAD", ro}, {"git show-ref", ro}, {"git for-each-ref --format='%(refname)'", ro},
		{"git for-each-ref --format='%(signature)'", un}, {"git merge-base a b", ro}, {"git whatchanged -1", ro},
		{"git count-objects -v", ro}, {"git check-ignore x", ro}, {"git version", ro}, {"git range-diff a b c", ro},
		// write subcommands
		{"git am x.patch", wr}, {"git cherry-pick x", wr}, {"git clean -fd", wr}, {"git clone u", wr},
		{"git gc", wr}, {"git init", wr}, {"git merge x", wr}, {"git mv a b", wr}, {"git mv -n a b", un},
		{"git pull", wr}, {"git push -n", un}, {"git rebase main", wr}, {"git restore f", wr}, {"git revert x", wr},
		{"git rm f", wr}, {"git rm -n f", un}, {"git switch x", wr}, {"git commit -n -m x", wr},
		{"git commit --dry-run", un}, {"git commit -m x -- --dry-run", wr}, {"git add -- --help", wr},
		{"git update-ref x y", wr}, {"git prune", wr},
		// tables
		{"git branch -r", ro}, {"git branch --show-current", ro}, {"git branch -v", ro}, {"git branch --merged main", ro},
		{"git branch -vv", ro}, {"git branch -m a b", wr}, {"git branch --move a b", wr}, {"git branch -u o/x", wr},
		{"git branch --set-upstream-to=o/x", wr}, {"git branch --unset-upstream", wr}, {"git branch -c a b", wr},
		{"git branch -v topic", wr}, {"git branch -- topic", wr}, {"git branch --", un}, {"git branch --format='%(refname)'", ro},
		{"git remote", ro}, {"git remote --verbose", ro}, {"git remote get-url origin", ro}, {"git remote get-url remove", un},
		{"git remote remove o", wr}, {"git remote rename a b", wr}, {"git remote set-url o u", wr}, {"git remote update", wr},
		{"git remote show --no-query origin", ro}, {"git remote prune --dry-run o", un},
		{"git tag --list", ro}, {"git tag -n5", ro}, {"git tag --contains HEAD", ro}, {"git tag -d v1", wr},
		{"git tag -a v1 -m x", wr}, {"git tag --verify v1", un}, {"git tag -l v1 v2", ro}, {"git tag -n v1", ro},
		{"git tag -l --format='%(refname) %(contents:subject)'", ro}, {"git tag --format='%(signature)'", un},
		{"git tag --format %(signature)", un},
		{"git stash show -p", ro}, {"git stash show --ext-diff", un}, {"git stash pop", wr}, {"git stash drop", wr},
		{"git config -l", ro}, {"git config --list --show-origin", ro}, {"git config user.name", ro},
		{"git config --global user.name x", wr}, {"git config --unset x", wr}, {"git config -e", un}, {"git config", un},
		{"git config get user.name", ro}, {"git config set user.name x", wr},
		{"git reflog", ro}, {"git reflog show", ro}, {"git reflog expire --all", wr}, {"git reflog bogus", un},
		{"git worktree list", ro}, {"git worktree add x", wr},
		{"git notes", ro}, {"git notes show", ro}, {"git notes add -m x", wr},
		{"git apply --check x.patch", ro}, {"git apply --stat x.patch", ro}, {"git apply x.patch", wr}, {"git apply --check --index x", wr},
		{"git format-patch -1", wr}, {"git format-patch -1 --stdout", ro}, {"git format-patch --stdout --output-directory=x", un},
		{"git bisect log", ro}, {"git bisect start", wr},
		{"git difftool", un}, {"git submodule update", un}, {"git archive HEAD", un}, {"git fsck", un},
	})
}

// TestGitHelperOptionsSorted: an abbreviation matching several helper
// options is reported as the first in name order, the same every time.
// TestGitReadOnlyIsLocal: every git command the classifier may call
// read-only is one whose read-only forms the configuration rules treat as
// local, so the two cannot drift (git worktree list had been read-only to
// the classifier and, with any credential helper configured, unknown to
// the configuration rules).
func TestGitReadOnlyIsLocal(t *testing.T) {
	for sub := range gitTables {
		if !programs.GitLocal(sub) {
			t.Errorf("git %s has read-only forms but is not local to the configuration rules", sub)
		}
	}
	for _, sub := range []string{"status", "log", "worktree", "symbolic-ref", "annotate"} {
		if !programs.GitLocal(sub) {
			t.Errorf("GitLocal(%s) = false", sub)
		}
	}
	for _, sub := range []string{"fetch", "push", "ls-remote", "commit", "send-email", "submodule", "pull"} {
		if programs.GitLocal(sub) {
			t.Errorf("GitLocal(%s) = true; it contacts a remote or starts an editor", sub)
		}
	}
}

func TestGitHelperOptionsSorted(t *testing.T) {
	for i := 1; i < len(gitHelperOptions); i++ {
		if gitHelperOptions[i-1].name >= gitHelperOptions[i].name {
			t.Errorf("gitHelperOptions: %q before %q", gitHelperOptions[i-1].name, gitHelperOptions[i].name)
		}
	}
}
