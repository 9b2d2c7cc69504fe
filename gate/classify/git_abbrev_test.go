package classify

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// gitScratchSetup builds the repository every confirmed git case runs in:
// branches main and a, tag v1, config x.y = 1 and 2, a tracked file f
// ("hello") and a patch p that changes it to "bye".
const gitScratchSetup = `set -e
git init -q -b main .
echo hello > f
git add f
git commit -q -m one
git branch a
git tag v1
git config x.y 1
git config --add x.y 2
echo bye > f
git diff > p
git checkout -q f
`

// gitScratch runs script (after gitScratchSetup) under real bash in a new
// directory with a scratch HOME and no system config, and returns whether
// it exited 0 plus its output.
func gitScratch(t *testing.T, script string) (bool, string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("confirming against git needs a POSIX host")
	}
	for _, p := range []string{"bash", "git"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip(p + " not found on PATH; cannot confirm against the real program")
		}
	}
	dir, home := t.TempDir(), t.TempDir()
	cmd := exec.Command("bash", "-c", gitScratchSetup+"set +e\n"+script)
	cmd.Dir = dir
	cmd.Env = append(confirmEnv(home), "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat",
		"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b",
		"CANARY="+filepath.Join(dir, "CANARY"))
	out, err := cmd.CombinedOutput()
	return err == nil, string(out)
}

// TestGitLongOptionAbbreviations classifies abbreviated long options of
// the parse-options subcommands and confirms each with git 2.39 in a
// scratch repository: probe is true when the write or the program run
// happened. A refused form must show git doing it (or, for an ambiguous
// prefix, git refusing it with status 129); a near miss must leave the
// probe false.
func TestGitLongOptionAbbreviations(t *testing.T) {
	const editor = `GIT_EDITOR='touch "$CANARY"; true' `
	tests := []struct {
		cmd    string
		want   Safety
		prefix string // run before cmd (an environment assignment)
		probe  string // bash test: did it write or run something?
	}{
		// Refused: the abbreviation is the write or helper option.
		{"git branch --mov a b", Write, "", `git rev-parse -q --verify refs/heads/b && ! git rev-parse -q --verify refs/heads/a`},
		{"git branch --del a", Write, "", `! git rev-parse -q --verify refs/heads/a`},
		{"git branch --cop a b", Write, "", `git rev-parse -q --verify refs/heads/b`},
		{"git branch --set-upstream-t=main a", Write, "", `git config branch.a.merge`},
		{"git branch --ed a", Unknown, editor, `test -e "$CANARY"`},
		{"git config --unset-a x.y", Write, "", `! git config --get-all x.y`},
		{"git config --rep x.y 3", Write, "", `test "$(git config --get-all x.y)" = 3`},
		{"git config --ed", Unknown, editor, `test -e "$CANARY"`},
		{"git apply --check --ap p", Write, "", `grep -q bye f`},
		{"git apply --stat --ap p", Write, "", `grep -q bye f`},
		{"git apply --check --no-ch p", Write, "", `grep -q bye f`},
		{"git tag --del v1", Write, "", `! git rev-parse -q --verify refs/tags/v1`},
		// A display option does not make tag list: given a name, it creates it.
		{"git tag --column v2", Write, "", `git rev-parse -q --verify refs/tags/v2`},
		{"git tag -i v2", Write, "", `git rev-parse -q --verify refs/tags/v2`},
		{"git tag --color=always --no-column v2", Write, "", `git rev-parse -q --verify refs/tags/v2`},
		{"git tag --colu v2", Write, "", `git rev-parse -q --verify refs/tags/v2`},
		{"git grep --open='touch $CANARY;true' hello", Unknown, "", `test -e "$CANARY"`},
		{"git grep --open-files='touch $CANARY;true' hello", Unknown, "", `test -e "$CANARY"`},
		// Ambiguous: git refuses (status 129); the rules do not guess.
		{"git branch --c", Unknown, "", `(git branch --c; test $? = 129)`},
		{"git config --ge x.y", Unknown, "", `(git config --ge x.y; test $? = 129)`},
		{"git range-diff --outp=o main main", Unknown, "", `(git range-diff --outp=o main main; test $? = 129)`},
		{"git status --sh", Unknown, "", `(git status --sh; test $? = 129)`},
		// Not an option the table knows: git refuses it; so do the rules.
		{"git status --bogus", Unknown, "", `(git status --bogus; test $? = 129)`},
		{"git branch --list --bogus", Unknown, "", `(git branch --list --bogus; test $? = 129)`},
		// Near misses: abbreviations of read options stay read-only.
		{"git branch --li", ReadOnly, "", `test "$(git branch --format='%(refname)' | wc -l)" != 2`},
		{"git branch --sho", ReadOnly, "", `test "$(git branch --show-current)" != main`},
		{"git tag --li", ReadOnly, "", `! git rev-parse -q --verify refs/tags/v1`},
		{"git tag --column", ReadOnly, "", `git rev-parse -q --verify refs/tags/v2`},
		{"git tag --column --contains HEAD v2", ReadOnly, "", `git rev-parse -q --verify refs/tags/v2`},
		{"git tag -i -l v2", ReadOnly, "", `git rev-parse -q --verify refs/tags/v2`},
		{"git config --get-a x.y", ReadOnly, "", `test "$(git config --get-all x.y | wc -l)" != 2`},
		{"git config --li", ReadOnly, "", `! git config x.y`},
		{"git apply --check --sta p", ReadOnly, "", `grep -q bye f`},
		{"git apply --no-ch --check p", ReadOnly, "", `grep -q bye f`},
		{"git status --u", ReadOnly, "", `test -n "$(git status --porcelain --untracked-files=no)"`},
		{"git status --sho", Unknown, "", `(git status --sho; test $? = 129)`},
		{"git grep --cach hello", ReadOnly, "", `test -e "$CANARY"`},
		{"git grep --no-textc hello", ReadOnly, "", `test -e "$CANARY"`},
		{"git ls-files --cach", ReadOnly, "", `test -n "$(git status --porcelain --untracked-files=no)"`},
		{"git describe --alw", ReadOnly, "", `test -e "$CANARY"`},
		{"git for-each-ref --coun=1", ReadOnly, "", `test -e "$CANARY"`},
		{"git branch '--format=%(refname)' --li", ReadOnly, "", `test -e "$CANARY"`},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			if r := Classify(tt.cmd, Options{}); r.Safety != tt.want {
				t.Errorf("Classify(%q) = %s (%s), want %s", tt.cmd, r.Safety, r.Reason, tt.want)
			}
			did, out := gitScratch(t, tt.prefix+tt.cmd+" >/dev/null 2>&1\n"+tt.probe)
			if (tt.want == ReadOnly) == did {
				t.Errorf("git 2.39: %q then %q = %v, want %v\n%s", tt.cmd, tt.probe, did, tt.want != ReadOnly, out)
			}
		})
	}
}

// TestGitLongOptsMatchGit compares each table with the installed git's
// own list (`git SUB --git-completion-helper-all`). A name git does not
// list is always an error (a typo the tables would silently carry); with
// git 2.39, the version the tables were made from, the lists must agree.
func TestGitLongOptsMatchGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found on PATH; cannot compare with the real option lists")
	}
	ver, _ := exec.Command("git", "version").Output()
	same := strings.HasPrefix(string(ver), "git version 2.39.")
	subs := make([]string, 0, len(gitLongOpts()))
	for s := range gitLongOpts() {
		subs = append(subs, s)
	}
	sort.Strings(subs)
	for _, sub := range subs {
		out, err := exec.Command("git", sub, "--git-completion-helper-all").Output()
		if err != nil {
			t.Errorf("git %s --git-completion-helper-all: %v", sub, err)
			continue
		}
		var names []string
		for _, w := range strings.Fields(string(out)) {
			if strings.HasPrefix(w, "--") && len(w) > 2 {
				names = append(names, w[2:])
			}
		}
		git := gitOptSet(strings.Join(names, " "))
		for n, v := range gitLongOpts()[sub].names {
			if gv, ok := git[n]; !ok || gv != v {
				t.Errorf("git %s: the table has --%s (value %v), git lists it as present=%v value=%v", sub, n, v, ok, gv)
			}
		}
		for n := range git {
			if _, ok := gitLongOpts()[sub].names[n]; !ok && same {
				t.Errorf("git %s: git 2.39 has --%s, the table does not", sub, n)
			}
		}
	}
}

// TestGitCanonLong checks the resolver on its own.
func TestGitCanonLong(t *testing.T) {
	tests := []struct {
		sub  string
		args string
		want string // "" = refused
	}{
		{"branch", "--mov a b", "--move a b"},
		{"branch", "--no-del a", "--no-delete a"},
		{"branch", "--sort --del", "--sort --del"}, // the value is not an option
		{"branch", "--sort=x --c", ""},             // color, column, contains, copy, create-reflog
		{"branch", "-- --mov", "-- --mov"},
		{"config", "--unset-a=x", "--unset-all=x"},
		{"config", "--no", ""},
		{"remote", "--verb show --no-query o", "--verbose show --no-query o"},
		{"blame", "--incr --first-parent f", "--incremental --first-parent f"},
		{"log", "--sho", "--sho"}, // exact parser: left for the helper checks
	}
	for _, tt := range tests {
		got, f, ok := gitCanonLong(tt.sub, strings.Fields(tt.args))
		if tt.want == "" {
			if ok {
				t.Errorf("gitCanonLong(%s %s) = %q, want refused", tt.sub, tt.args, got)
			}
			continue
		}
		if !ok || strings.Join(got, " ") != tt.want {
			t.Errorf("gitCanonLong(%s %s) = %q (%s), want %q", tt.sub, tt.args, got, f.why, tt.want)
		}
	}
}
