package gitconfig

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// subFixtureScript builds, under real git, a superproject top with
//   - lib: a submodule (absorbed into .git/modules/lib) with its own
//     nested submodule deep,
//   - inner: an embedded repository added as a gitlink, with no
//     .gitmodules entry (status still recurses into it),
//
// and a superproject commit that moves lib's gitlink, so log -p shows a
// submodule change.
const subFixtureScript = `set -e
for r in deep lib inner; do git init -q -b main $r; (cd $r && echo $r > $r.txt && git add . && git commit -q -m $r); done
(cd lib && git -c protocol.file.allow=always submodule -q add ../deep deep && git commit -q -m deep)
git init -q -b main top
cd top
echo t > t.txt
git add t.txt
git -c protocol.file.allow=always submodule -q add ../lib lib
git -c protocol.file.allow=always submodule -q update --init --recursive
git commit -q -m sub
mv ../inner inner
git add inner 2>/dev/null
git commit -q -m inner
(cd lib && echo more >> lib.txt && git commit -q -am more)
git add lib
git commit -q -m bump
`

// buildSubFixture returns a directory holding top/ (and a scratch home),
// built once per test binary run and copied per case.
func buildSubFixture(t *testing.T) (template, home string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the submodule fixture is built with a POSIX shell")
	}
	for _, p := range []string{"git", "sh"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip(p + " not found on PATH; cannot build a submodule fixture")
		}
	}
	template, home = t.TempDir(), t.TempDir()
	cmd := exec.Command("sh", "-c", subFixtureScript)
	cmd.Dir = template
	cmd.Env = subGitEnv(home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the fixture: %v\n%s", err, out)
	}
	return template, home
}

func subGitEnv(home string) []string {
	return []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_PAGER=cat", "PAGER=cat", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
		"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b"}
}

// TestGitConfigSubmodules sets a program-running key in one submodule
// (or the superproject), runs the command with real git 2.39, and checks
// Risk: where Risk says safe the canary must not have run; where the
// case says git does run it (ran), the canary must have run and Risk
// must say risky.
func TestGitConfigSubmodules(t *testing.T) {
	template, home := buildSubFixture(t)
	tests := []struct {
		name   string
		config map[string]string // repository path under top → config text ({c} = canary)
		sub    string
		args   []string
		risky  bool
		ran    bool // git 2.39 runs the canary here
	}{
		{"lib fsmonitor, status", map[string]string{"lib": "[core]\n\tfsmonitor = {c}\n"}, "status", nil, true, true},
		{"lib fsmonitor, diff", map[string]string{"lib": "[core]\n\tfsmonitor = {c}\n"}, "diff", nil, true, true},
		{"lib fsmonitor, diff-files", map[string]string{"lib": "[core]\n\tfsmonitor = {c}\n"}, "diff-files", nil, true, true},
		{"lib fsmonitor, diff-index", map[string]string{"lib": "[core]\n\tfsmonitor = {c}\n"}, "diff-index", []string{"HEAD"}, true, true},
		{"lib fsmonitor, describe --dirty", map[string]string{"lib": "[core]\n\tfsmonitor = {c}\n"}, "describe", []string{"--dirty", "--always"}, true, true},
		{"lib fsmonitor, grep --recurse-submodules", map[string]string{"lib": "[core]\n\tfsmonitor = {c}\n"}, "grep", []string{"--recurse-submodules", "-e", "lib"}, true, true},
		{"lib fsmonitor, grep abbreviated --recurse-s", map[string]string{"lib": "[core]\n\tfsmonitor = {c}\n"}, "grep", []string{"--recurse-s", "-e", "lib"}, true, true},
		{"lib fsmonitor, submodule.recurse grep", map[string]string{"lib": "[core]\n\tfsmonitor = {c}\n", ".": "[submodule]\n\trecurse = true\n"}, "grep", []string{"-e", "lib"}, true, true},
		{"inner without a gitmodules entry, fsmonitor, status", map[string]string{"inner": "[core]\n\tfsmonitor = {c}\n"}, "status", nil, true, true},
		{"nested deep fsmonitor, status", map[string]string{"lib/deep": "[core]\n\tfsmonitor = {c}\n"}, "status", nil, true, true},
		{"lib external diff, diff.submodule=diff log -p", map[string]string{"lib": "[diff]\n\texternal = {c}\n", ".": "[diff]\n\tsubmodule = diff\n"}, "log", []string{"-p", "-1"}, true, true},
		{"lib external diff, log --submodule=diff", map[string]string{"lib": "[diff]\n\texternal = {c}\n"}, "log", []string{"-p", "-1", "--submodule=diff"}, true, true},
		{"lib pager config, status", map[string]string{"lib": "[core]\n\tpager = {c}\n"}, "status", nil, false, false},
		// Near misses: the same keys where git does not go into the submodule.
		{"lib fsmonitor, log", map[string]string{"lib": "[core]\n\tfsmonitor = {c}\n"}, "log", []string{"-1"}, false, false},
		{"lib fsmonitor, plain grep", map[string]string{"lib": "[core]\n\tfsmonitor = {c}\n"}, "grep", []string{"-e", "lib"}, false, false},
		{"lib fsmonitor, ls-files", map[string]string{"lib": "[core]\n\tfsmonitor = {c}\n"}, "ls-files", nil, false, false},
		{"lib fsmonitor, submodule.recurse false grep", map[string]string{"lib": "[core]\n\tfsmonitor = {c}\n", ".": "[submodule]\n\trecurse = false\n"}, "grep", []string{"-e", "lib"}, false, false},
		{"lib external diff, log -p without diff.submodule", map[string]string{"lib": "[diff]\n\texternal = {c}\n"}, "log", []string{"-p", "-1"}, false, false},
		{"lib fsmonitor false, status", map[string]string{"lib": "[core]\n\tfsmonitor = false\n"}, "status", nil, false, false},
		{"no submodule config, status", nil, "status", nil, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.CopyFS(root, os.DirFS(template)); err != nil {
				t.Fatal(err)
			}
			top := filepath.Join(root, "top")
			canary := filepath.Join(root, "canary.sh")
			marker := filepath.Join(root, "RAN")
			os.WriteFile(canary, []byte("#!/bin/sh\ntouch "+marker+"\nexit 1\n"), 0o755)
			for repo, text := range tt.config {
				path := subConfigPath(t, filepath.Join(top, repo))
				old, _ := os.ReadFile(path)
				os.WriteFile(path, append(old, strings.ReplaceAll(text, "{c}", canary)...), 0o644)
			}
			cmd := exec.Command("git", append([]string{tt.sub}, tt.args...)...)
			cmd.Dir, cmd.Env = top, subGitEnv(home)
			out, _ := cmd.CombinedOutput()
			_, err := os.Stat(marker)
			ran := err == nil
			risky, why := Risk(top, []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat"}, tt.sub, tt.args)
			if risky != tt.risky {
				t.Errorf("Risk = %v (%q), want %v", risky, why, tt.risky)
			}
			if ran && !risky {
				t.Errorf("git %s %v ran the canary, but Risk says safe\n%s", tt.sub, tt.args, out)
			}
			if ran != tt.ran {
				t.Errorf("git 2.39 ran the canary = %v, the case says %v\n%s", ran, tt.ran, out)
			}
		})
	}
}

// subConfigPath is the config file of the repository whose work tree is
// dir, as git reports it.
func subConfigPath(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--git-dir").Output()
	if err != nil {
		t.Fatalf("git rev-parse in %s: %v", dir, err)
	}
	gitDir := strings.TrimSpace(string(out))
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(dir, gitDir)
	}
	return filepath.Join(gitDir, "config")
}

// TestGitConfigSubmoduleIndex checks the index reader against git's own
// list of gitlinks, for index versions 2, 3 and 4, and refuses a split
// index.
func TestGitConfigSubmoduleIndex(t *testing.T) {
	template, home := buildSubFixture(t)
	top := filepath.Join(template, "top")
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = top, subGitEnv(home)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	for _, v := range []string{"2", "3", "4"} {
		git("update-index", "--index-version", v)
		if v == "3" {
			os.WriteFile(filepath.Join(top, "new.txt"), []byte("n\n"), 0o644)
			git("add", "-N", "new.txt") // intent-to-add: an extended-flags entry
		}
		var want []string
		for _, line := range strings.Split(git("ls-files", "-s"), "\n") {
			if strings.HasPrefix(line, "160000 ") {
				want = append(want, line[strings.IndexByte(line, '\t')+1:])
			}
		}
		got, err := readGitlinks(filepath.Join(top, ".git", "index"), 20)
		if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("index version %s: gitlinks %q (%v), git lists %q", v, got, err, want)
		}
	}
	git("update-index", "--split-index")
	if _, err := readGitlinks(filepath.Join(top, ".git", "index"), 20); err == nil {
		t.Error("a split index was read as if complete")
	}
	if r, why := Risk(top, []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1"}, "status", nil); !r {
		t.Error("status over a split index with submodules is not risky")
	} else {
		t.Log(why)
	}
	if r, why := Risk(top, []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1"}, "log", nil); r {
		t.Errorf("log, which does not recurse, is risky over a split index: %s", why)
	}
}
