package gitconfig

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// newBenchGitFixture is a repository with realistic global and local
// configuration (aliases, a credential helper, an editor, remotes and
// branches, an include), aged past the racy window so the cache is warm.
func newBenchGitFixture(b *testing.B) (cwd string, env []string) {
	root := b.TempDir()
	home := filepath.Join(root, "home")
	repo := filepath.Join(root, "src", "project")
	gitDir := filepath.Join(repo, ".git")
	files := map[string]string{
		filepath.Join(home, ".gitconfig"): "[user]\n\tname = A Developer\n\temail = dev@example.com\n" +
			"[core]\n\teditor = vim\n\tautocrlf = input\n[credential]\n\thelper = cache --timeout=3600\n" +
			"[alias]\n\tst = status -sb\n\tco = checkout\n\tlg = log --graph --oneline\n" +
			"[init]\n\tdefaultBranch = main\n[pull]\n\trebase = true\n[include]\n\tpath = ~/.gitconfig.local\n",
		filepath.Join(home, ".gitconfig.local"): "[user]\n\tsigningkey = ABCDEF\n",
		filepath.Join(gitDir, "config"): "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n" +
			"[remote \"origin\"]\n\turl = git@github.com:org/project.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n" +
			"[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n",
		filepath.Join(gitDir, "HEAD"): "ref: refs/heads/main\n",
	}
	for p, text := range files {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, d := range []string{"objects", "refs", "hooks"} {
		os.MkdirAll(filepath.Join(gitDir, d), 0o755)
	}
	cwd = filepath.Join(repo, "internal", "server")
	os.MkdirAll(cwd, 0o755)
	time.Sleep(gitConfigRacyWindow + 100*time.Millisecond)
	return cwd, []string{"HOME=" + home, "PAGER=cat", "GIT_PAGER=cat", "PATH=/usr/bin:/bin", "LANG=C.UTF-8"}
}

// BenchmarkGitConfigRisk measures a warm call (files parsed and cached):
// the cost is the stat calls of discovery, every scope and the hooks.
func BenchmarkGitConfigRisk(b *testing.B) {
	cwd, env := newBenchGitFixture(b)
	old := gitSystemConfig
	gitSystemConfig = filepath.Join(filepath.Dir(cwd), "no-system-gitconfig")
	defer func() { gitSystemConfig = old }()
	if r, why := Risk(cwd, env, "status", nil); r {
		b.Fatalf("fixture is risky: %s", why)
	}
	for _, sub := range []string{"status", "log"} {
		b.Run(sub, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Risk(cwd, env, sub, nil)
			}
		})
	}
	// The floor: one stat of an existing file, the unit the call is made of.
	b.Run("one-stat-baseline", func(b *testing.B) {
		p := filepath.Join(cwd, "..", "..", ".git", "config")
		for b.Loop() {
			os.Stat(p)
		}
	})
}
