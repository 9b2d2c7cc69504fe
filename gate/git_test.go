package gate

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGitConfigDir checks that a read-only git command becomes unknown when
// the repository's configuration names a program, and stays read-only in a
// plain repository.
func TestGitConfigDir(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not found on PATH; cannot build a test repository")
	}
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1"}
	plain, risky := t.TempDir(), t.TempDir()
	for _, d := range []string{plain, risky} {
		cmd := exec.Command(git, "init", "-q", d)
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	}
	cfg := filepath.Join(risky, ".git", "config")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("[core]\n\tfsmonitor = touch pwned\n[diff]\n\texternal = touch pwned\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, c := range []struct {
		dir, cmd string
		want     Safety
	}{
		{risky, "git status", Unknown},
		{risky, "git diff", Unknown},
		{risky, "rm x", Write},
		{risky, "git push", Write},
		{risky, "ls", ReadOnly},
		{plain, "cd sub && git status", Unknown},
		{plain, "pushd sub; git log", Unknown},
		{plain, "git status", ReadOnly},
	} {
		r := Classify(c.cmd, ClassifyOptions{Cwd: c.dir, Env: env})
		if r.Safety != c.want {
			t.Errorf("in %s: Classify(%q) = %s, want %s\n%s", filepath.Base(c.dir), c.cmd, r.Safety, c.want, r.Explain())
		}
	}
	// The gate reads no process environment: without HOME in Env the
	// global scope is unknown, so even the plain repository is not proven.
	for _, in := range []Input{{Text: "git status", Cwd: plain}, {Text: "git log", Cwd: plain, Env: []string{"PAGER=cat"}}} {
		if d := Decide(in); d.Safety != Unknown {
			t.Errorf("Decide(%q, env %q) without HOME = %s, want unknown", in.Text, in.Env, d.Safety)
		}
	}
	if d := Decide(Input{Text: "git status", Cwd: plain, Env: env}); d.Safety != ReadOnly || d.Action != Allow {
		t.Errorf("Decide(git status) with HOME = %s %s (%s)", d.Safety, d.Action, d.Reason)
	}
}
