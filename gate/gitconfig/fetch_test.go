package gitconfig

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// gitCanaryDir runs a POSIX shell script in a new directory with a scratch
// HOME and a canary program at $CANARY that records each run; it returns
// the directory, the home and the environment.
func gitCanaryDir(t *testing.T, script string) (dir, home string, env []string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fixture is built with a POSIX shell")
	}
	for _, p := range []string{"git", "sh"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip(p + " not found on PATH; cannot build a git fixture")
		}
	}
	dir, home = t.TempDir(), t.TempDir()
	env = append(subGitEnv(home), "CANARY="+filepath.Join(dir, "canary"))
	os.WriteFile(filepath.Join(dir, "canary"), []byte("#!/bin/sh\ntouch \"$0.ran\"\nexit 1\n"), 0o755)
	cmd := exec.Command("sh", "-c", "set -e\n"+script)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the fixture: %v\n%s", err, out)
	}
	return dir, home, env
}

// canaryRan runs git args in dir and reports whether the canary ran.
func canaryRan(t *testing.T, dir, repo string, env []string, args []string) (bool, string) {
	t.Helper()
	marker := filepath.Join(dir, "canary.ran")
	os.Remove(marker)
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = repo, env
	out, _ := cmd.CombinedOutput()
	_, err := os.Stat(marker)
	return err == nil, string(out)
}

// TestGitConfigPartialClone makes a --filter=tree:0 clone (git 2.39 sets
// remote.origin.promisor, not extensions.partialClone) whose uploadpack is
// the canary, and checks Risk against what really fetches: every command
// that ran the canary must be risky, and the ones the rules call free
// must not have run it.
func TestGitConfigPartialClone(t *testing.T) {
	dir, home, env := gitCanaryDir(t, `git init -q -b main src
cd src && mkdir d && echo one > d/f && git add . && git commit -q -m one && git tag -a v1 -m v1
echo two > d/f && git commit -q -am two
git config uploadpack.allowFilter true && git config uploadpack.allowAnySHA1InWant true
cd .. && git clone -q --filter=tree:0 --no-checkout "file://$PWD/src" part
git -C part config remote.origin.uploadpack "$CANARY"
`)
	part := filepath.Join(dir, "part")
	riskEnv := []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat"}
	tests := []struct {
		args  string
		risky bool
		ran   bool
	}{
		{"status", true, true}, {"diff HEAD~1", true, true}, {"show -s", true, true},
		{"log -p -1", true, true}, {"log --stat -1", true, true}, {"ls-tree HEAD", true, true},
		{"blame HEAD -- d/f", true, true}, {"grep one HEAD", true, true},
		{"rev-parse HEAD:d/f", true, true}, {"rev-parse HEAD^{tree}", true, true},
		{"describe --dirty", true, true}, {"describe --dir", true, true}, {"reflog -p -1", true, true},
		// Near misses: refs, commits and the index only.
		{"rev-parse HEAD", false, false}, {"rev-parse --verify HEAD~1", false, false},
		{"branch -v", false, false}, {"tag -n", false, false}, {"for-each-ref", false, false},
		{"show-ref", false, false}, {"describe", false, false}, {"ls-files", false, false},
		{"reflog", false, false}, {"name-rev HEAD", false, false}, {"merge-base HEAD HEAD~1", false, false},
		{"show-branch", false, false}, {"count-objects", false, false}, {"remote -v", false, false},
		{"symbolic-ref HEAD", false, false}, {"version", false, false},
		// Fetch-free here, but the rules do not tell its forms apart.
		{"log --oneline", true, false},
	}
	for _, tt := range tests {
		args := strings.Fields(tt.args)
		ran, out := canaryRan(t, dir, part, env, args)
		risky, why := Risk(part, riskEnv, args[0], args[1:])
		if ran && !risky {
			t.Errorf("git %s fetched (ran the canary) but Risk says safe\n%s", tt.args, out)
		}
		if ran != tt.ran || risky != tt.risky {
			t.Errorf("git %s: ran=%v risky=%v (%s), want ran=%v risky=%v", tt.args, ran, risky, why, tt.ran, tt.risky)
		}
	}
}

// TestGitConfigSignatures plants a commit with a (fake) gpgsig header and
// checks, with gpg.program pointing at the canary, that every key the
// rules say turns on verification really runs it, and that the near
// misses do not.
func TestGitConfigSignatures(t *testing.T) {
	dir, home, env := gitCanaryDir(t, `git init -q -b main r && cd r
echo a > a && git add a && git commit -q -m a
tree=$(git rev-parse 'HEAD^{tree}') parent=$(git rev-parse HEAD)
c=$(printf 'tree %s\nparent %s\nauthor a <a@b> 1700000000 +0000\ncommitter a <a@b> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQ==\n -----END PGP SIGNATURE-----\n\nsigned\n' $tree $parent | git hash-object -t commit -w --stdin)
git update-ref refs/heads/main $c
`)
	repo := filepath.Join(dir, "r")
	riskEnv := []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat"}
	tests := []struct {
		config string
		args   string
		risky  bool
		ran    bool
	}{
		{"[log]\n\tshowSignature = true\n", "log -1", true, true},
		{"[log]\n\tshowSignature = true\n", "log --format=%H -1", true, true},
		{"[log]\n\tshowSignature = true\n", "show -s", true, true},
		{"[format]\n\tpretty = %G?\n", "log -1", true, true},
		{"[format]\n\tpretty = %G?\n", "show -s", true, true},
		{"[pretty]\n\tx = %G?\n", "log --format=x -1", true, true},
		// Near misses.
		{"[log]\n\tshowSignature = false\n", "log -1", false, false},
		{"[log]\n\tshowSignature = true\n", "status", false, false},
		{"[log]\n\tshowSignature = true\n", "blame a", false, false},
		{"[log]\n\tshowSignature = true\n", "diff HEAD~1", false, false},
		{"[pretty]\n\tx = %H %an\n", "log --format=x -1", false, false},
		{"", "log -1", false, false},
	}
	cfg := filepath.Join(repo, ".git", "config")
	base, _ := os.ReadFile(cfg)
	canary := filepath.Join(dir, "canary")
	for _, tt := range tests {
		text := string(base) + "[gpg]\n\tprogram = " + canary + "\n" + tt.config
		os.WriteFile(cfg, []byte(text), 0o644)
		args := strings.Fields(tt.args)
		ran, out := canaryRan(t, dir, repo, env, args)
		// Without gpg.program git runs gpg itself: the same answer.
		os.WriteFile(cfg, []byte(string(base)+tt.config), 0o644)
		risky, why := Risk(repo, riskEnv, args[0], args[1:])
		if ran && !risky {
			t.Errorf("%q git %s ran gpg but Risk says safe\n%s", tt.config, tt.args, out)
		}
		if ran != tt.ran || risky != tt.risky {
			t.Errorf("%q git %s: ran=%v risky=%v (%s), want ran=%v risky=%v", tt.config, tt.args, ran, risky, why, tt.ran, tt.risky)
		}
	}
}
