package gate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigRunsConfirm: a repository whose configuration names a program
// (core.fsmonitor) makes `git status` run it — proved under bash with a
// stand-in — so with deny Bash(rm *) and no run-time exec gate to watch
// it, no allow rule vouches for `git status` there, nor for `git -C` into
// it or a cd into it. With the exec gate, project configuration is like
// project code run by name (the gate watches what it starts); a clean
// repository stays allowed either way.
func TestConfigRunsConfirm(t *testing.T) {
	bash := requireBash(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	p := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	dir := t.TempDir()
	marker := filepath.Join(dir, "RAN")
	stub := filepath.Join(dir, "stub-rm")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\necho \"$@\" >> '"+marker+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1"}
	setup := "git init -q evil && cd evil && echo a > f && git add f && git -c user.name=t -c user.email=t@t commit -qm f && " +
		"git config core.fsmonitor '" + stub + "' && cd .. && git init -q clean"
	mk := exec.Command(bash, "-c", setup)
	mk.Dir, mk.Env = dir, env
	if out, err := mk.CombinedOutput(); err != nil {
		t.Skipf("repository setup: %v %s", err, out)
	}
	run := exec.Command(bash, "-c", "git status")
	run.Dir, run.Env, run.Stdin = filepath.Join(dir, "evil"), env, strings.NewReader("")
	_ = run.Run()
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("git status did not run core.fsmonitor (the form is wrong here)")
	}
	for _, c := range []struct{ text, cwd string }{
		{"git status", "evil"}, {"git -C evil status", ""}, {"cd evil && git status", ""}, {"git -C " + filepath.Join(dir, "evil") + " status", "clean"},
	} {
		cwd := filepath.Join(dir, c.cwd)
		if d := Decide(Input{Text: c.text, Policy: p, Cwd: cwd, Env: env}); d.Action == Allow {
			t.Errorf("%q in %s: git's configuration runs a program, and with no exec gate it was allowed: %s", c.text, c.cwd, d.Reason)
		}
		if d := Decide(Input{Text: c.text, Policy: p, Cwd: cwd, Env: env, ExecGate: true}); d.Action != Allow {
			t.Errorf("%q in %s with the exec gate: %s: %s", c.text, c.cwd, d.Action, d.Reason)
		}
	}
	for _, gate := range []bool{false, true} {
		if d := Decide(Input{Text: "git status", Policy: p, Cwd: filepath.Join(dir, "clean"), Env: env, ExecGate: gate}); d.Action != Allow {
			t.Errorf("near miss git status in a clean repository (exec gate %v): %s: %s", gate, d.Action, d.Reason)
		}
	}
}
