package classify

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentexec/agentexec/gate/programs"
)

// TestConfirmReadOnlyWithBash runs every read-only table case under real
// bash in a scratch directory (with a scratch HOME, stdin from /dev/null and
// a timeout) and checks that nothing in either directory was created,
// changed or removed: the real shell is the oracle for "read-only".
func TestConfirmReadOnlyWithBash(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("confirming against bash needs a POSIX host")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found on PATH; cannot confirm against the real shell")
	}
	git, gitErr := exec.LookPath("git")
	cases := append([]classCase(nil), readOnlyTable...)
	for _, n := range tableNames(plainReader) {
		if programs.Lookup(n).Endless {
			// It prints without end: read a bounded part of it.
			cases = append(cases, classCase{n + " | head -3", ReadOnly}, classCase{n + " a.txt | head -3", ReadOnly})
			continue
		}
		cases = append(cases, classCase{n, ReadOnly}, classCase{n + " a.txt", ReadOnly})
	}
	template := t.TempDir()
	confirmFixture(t, template, git, confirmEnv(t.TempDir()))
	for _, c := range cases {
		if c.want != ReadOnly {
			continue
		}
		if strings.Contains(c.cmd, "git") && gitErr != nil {
			t.Logf("skipping %q: git not found", c.cmd)
			continue
		}
		t.Run(c.cmd, func(t *testing.T) {
			if r := Classify(c.cmd, Options{}); r.Safety != ReadOnly {
				t.Fatalf("table case is %s, not read-only: %s", r.Safety, r.Reason)
			}
			work, home := t.TempDir(), t.TempDir()
			env := confirmEnv(home)
			if err := os.CopyFS(work, os.DirFS(template)); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, work, home)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bash, "-c", c.cmd)
			cmd.Dir, cmd.Env, cmd.Stdin = work, env, nil
			var buf capped
			cmd.Stdout, cmd.Stderr = &buf, &buf
			_ = cmd.Run()
			out := buf.b
			if ctx.Err() != nil {
				t.Fatalf("timed out; output: %s", out)
			}
			if diff := diffSnapshots(before, snapshot(t, work, home)); diff != "" {
				t.Errorf("read-only command changed the file system:\n%s\noutput: %s", diff, out)
			}
		})
	}
}

// capped keeps the first MiB written to it: a command that prints without
// end runs into the timeout instead of the host's memory.
type capped struct{ b []byte }

func (c *capped) Write(p []byte) (int, error) {
	if room := 1<<20 - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

func confirmEnv(home string) []string {
	return []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LC_ALL=C", "TERM=dumb",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
	}
}

// confirmFixture gives the commands files to read and a git repository
// with one commit, whose index is refreshed before the snapshot.
func confirmFixture(t *testing.T, dir, git string, env []string) {
	t.Helper()
	files := map[string]string{
		"a.txt": "b 2\na 1\nc 3\na 1\n", "b.txt": "a 1\nd 4\n", "README.md": "# readme\n",
		"data.json": `{"k": [1, 2]}`, "f": "x\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if git == "" {
		return
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-qm", "init"}, {"status"}} {
		cmd := exec.Command(git, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// fileState is what the snapshot compares: type, mode, size and content.
type fileState struct {
	mode fs.FileMode
	sum  [32]byte
}

// snapshot records every file under dirs. git's index is a stat cache that
// git may refresh on any read, so it is left out.
func snapshot(t *testing.T, dirs ...string) map[string]fileState {
	t.Helper()
	m := map[string]fileState{}
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if strings.HasSuffix(p, "/.git/index") {
				return nil
			}
			info, err := e.Info()
			if err != nil {
				return err
			}
			st := fileState{mode: info.Mode()}
			if info.Mode().IsRegular() {
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				st.sum = sha256.Sum256(b)
			}
			m[p] = st
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func diffSnapshots(a, b map[string]fileState) string {
	var out []string
	for p, s := range a {
		if s2, ok := b[p]; !ok {
			out = append(out, "removed "+p)
		} else if s2 != s {
			out = append(out, fmt.Sprintf("changed %s", p))
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, "created "+p)
		}
	}
	return strings.Join(out, "\n")
}

// confirmWriteCases are write cases safe to run in a scratch directory;
// each must really change it, which checks that the write rules name real
// behaviour (abbreviated options, clusters, permuted operands).
var confirmWriteCases = []string{
	"rm a.txt", "touch new", "mkdir d", "echo x > out", "echo x >> a.txt", "echo x >| out", "echo x &> out",
	"ls >& out", "cat 3<> out", "> out", "sort -o out a.txt", "sort -oout a.txt",
	// sort -ruo / --outp= are unknown now (Qwen `sort -roout`, `sort --out=output`).
	"sort a.txt -o out", "uniq a.txt out", "uniq -c -- a.txt out", "tee out < a.txt",
	"echo x | tee -a a.txt", "dd if=a.txt of=out status=none", "xxd a.txt out", "find . -name f -delete",
	"find . -name f -fprint out", "find . -name f -exec rm {} \\;", "git branch topic", "git tag v1",
	"git config user.name x", "git diff --output=out HEAD", "git log --output=out -1",
	"echo $(touch new)", "cat <(touch new)", "X=$(touch new)", "ls ${x:-$(touch new)}", "cat <<E\n$(touch new)\nE",
	"history -w", "tree -o out", "zstdcat -o out a.txt", "gzip -S -c a.txt", "zstd -c -o out a.txt", "sed -i s/a/b/ a.txt", "awk 'BEGIN{print 1 > \"out\"}'",
}

func TestConfirmWriteWithBash(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("confirming against bash needs a POSIX host")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found on PATH; cannot confirm against the real shell")
	}
	git, _ := exec.LookPath("git")
	template := t.TempDir()
	confirmFixture(t, template, git, confirmEnv(t.TempDir()))
	for _, c := range confirmWriteCases {
		t.Run(c, func(t *testing.T) {
			if r := Classify(c, Options{}); r.Safety != Write {
				t.Fatalf("case is %s, not write: %s", r.Safety, r.Reason)
			}
			if name := strings.Fields(c)[0]; name != "echo" && name != "cat" && name != "ls" && name != ">" && name != "X=$(touch" && name != "history" {
				if _, err := exec.LookPath(name); err != nil {
					t.Skipf("%s not installed", name)
				}
			}
			if strings.HasPrefix(c, "git") && git == "" {
				t.Skip("git not installed")
			}
			work, home := t.TempDir(), t.TempDir()
			if err := os.CopyFS(work, os.DirFS(template)); err != nil {
				t.Fatal(err)
			}
			env := append(confirmEnv(home), "HISTFILE="+filepath.Join(home, "hist"))
			before := snapshot(t, work, home)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bash, "-c", "set -o history; "+c)
			cmd.Dir, cmd.Env = work, env
			out, _ := cmd.CombinedOutput()
			if diffSnapshots(before, snapshot(t, work, home)) == "" {
				t.Errorf("write case changed nothing; output: %s", out)
			}
		})
	}
}
