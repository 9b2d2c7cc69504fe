package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runIn is sh with the command started in dir rather than spec.Cwd.
func runIn(t *testing.T, spec Spec, dir, script string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	h, err := Prepare(cmd, spec)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	defer h.Close()
	if err := h.Start(); err != nil {
		return result{err: err, report: h.Report()}
	}
	err = cmd.Wait()
	return result{out: out.String(), err: err, report: h.Report()}
}

// The command's directory is not a writable root as such: started outside
// the workspace, it writes only in the workspace.
func TestCommandDirNotWritable(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, sibling := workspace(t)
		spec := Spec{Profile: WorkspaceWrite, Cwd: ws, ProtectGit: true}
		if r := runIn(t, spec, sibling, "echo x > here"); r.err == nil || !denied(r.out) {
			t.Fatalf("wrote in the command's directory outside the workspace: %v %s", r.err, r.out)
		}
		if r := runIn(t, spec, sibling, "echo x > "+filepath.Join(ws, "there")); r.err != nil {
			t.Fatalf("workspace not writable from outside it: %v %s", r.err, r.out)
		}
		if _, err := os.Stat(filepath.Join(sibling, "here")); err == nil {
			t.Fatal("sibling written")
		}
	})
}

// A descriptor without close-on-exec does not reach the command under
// either launcher; the command's own ExtraFiles do.
func TestInheritedFDs(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, sibling := workspace(t)
		leak, err := os.Create(filepath.Join(sibling, "leak"))
		if err != nil {
			t.Fatal(err)
		}
		defer leak.Close()
		fd, err := syscall.Dup(int(leak.Fd())) // no close-on-exec
		if err != nil {
			t.Fatal(err)
		}
		defer syscall.Close(fd)
		r := sh(t, Spec{Profile: WorkspaceWrite, Cwd: ws}, fmt.Sprintf("bash -c 'echo leaked >&%d'; ls /proc/self/fd", fd))
		if fi, _ := leak.Stat(); fi.Size() != 0 {
			t.Fatalf("descriptor %d reached the command: %s", fd, r.out)
		}
		if !strings.Contains(r.out, "Bad file descriptor") {
			t.Fatalf("%s", r.out)
		}
		_, list, _ := strings.Cut(r.out, "\n")
		if got := strings.Join(strings.Fields(list), " "); got != "0 1 2 3" { // 3: ls reading the directory
			t.Fatalf("the command's descriptors: %s", got)
		}
	})
}

// Every repository under a writable root has its .git read-only, not only
// the workspace's; its work tree stays writable. A .git made during a run
// is writable in that run (it did not exist when the run started) and
// read-only from the next run on.
func TestNestedGit(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		for _, d := range []string{"sub/.git/hooks", "a/b/c/deep/.git/hooks", "wtgit/hooks", "wt"} {
			if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		// A worktree-style .git file naming a gitdir elsewhere in the workspace.
		if err := os.WriteFile(filepath.Join(ws, "wt", ".git"), []byte("gitdir: ../wtgit\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		spec := Spec{Profile: WorkspaceWrite, Cwd: ws, ProtectGit: true}
		for _, script := range []string{
			"echo x > sub/.git/hooks/post-checkout",
			"echo x > sub/.git/config",
			"echo x > a/b/c/deep/.git/hooks/pre-commit",
			"echo x > wtgit/hooks/pre-commit",
			"echo x > wt/.git",
			"mv sub/.git sub/git-moved",
			"mv sub other",
		} {
			if r := sh(t, spec, script); r.err == nil || !(denied(r.out) || strings.Contains(r.out, "busy")) {
				t.Errorf("%s: want a denial, got %v: %s", script, r.err, r.out)
			}
		}
		for _, script := range []string{"echo y > sub/file", "echo y > a/b/c/deep/file", "mkdir -p a/b/new && echo y > wt/file"} {
			if r := sh(t, spec, script); r.err != nil {
				t.Errorf("%s: %v: %s", script, r.err, r.out)
			}
		}
		if r := sh(t, spec, "mkdir -p made/.git/hooks && echo x > made/.git/hooks/h"); r.err != nil {
			t.Fatalf("a .git made during the run: %v %s", r.err, r.out)
		}
		if r := sh(t, spec, "echo x >> made/.git/hooks/h"); r.err == nil || !denied(r.out) {
			t.Fatalf("a .git made by an earlier run is writable: %v %s", r.err, r.out)
		}
	})
}

// The search for repositories stops at its bound and says so.
func TestNestedGitBound(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/.git", "b/c/d/.git"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	paths, complete := nestedGit(root, false)
	if !complete || len(paths) != 2 {
		t.Fatalf("%v %v", paths, complete)
	}
	old := gitWalkMaxDirs
	gitWalkMaxDirs = 3 // root, a, b: c and d are not reached
	defer func() { gitWalkMaxDirs = old }()
	paths, complete = nestedGit(root, false)
	if complete || len(paths) != 1 || paths[0] != filepath.Join(root, "a", ".git") {
		t.Fatalf("%v %v", paths, complete)
	}
}

// A remembered walk sees a repository made since, and forgets one removed.
func TestNestedGitCache(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "x/y"), 0o755); err != nil {
		t.Fatal(err)
	}
	racy := gitWalkRacy
	gitWalkRacy = 0 // every remembered directory is trusted
	defer func() { gitWalkRacy = racy }()
	if paths, _ := nestedGit(root, true); len(paths) != 0 {
		t.Fatal(paths)
	}
	if err := os.Mkdir(filepath.Join(root, "x/y/.git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if paths, _ := nestedGit(root, true); len(paths) != 1 {
		t.Fatalf("a repository made since the last walk was missed: %v", paths)
	}
	os.Remove(filepath.Join(root, "x/y/.git"))
	if paths, _ := nestedGit(root, true); len(paths) != 0 {
		t.Fatal(paths)
	}
}

// Hidden paths read as empty under both launchers and both profiles,
// inside the workspace or outside it, and cannot be written or moved; a
// path next to them still reads.
func TestHiddenPaths(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		for _, profile := range []Profile{WorkspaceWrite, ReadOnly} {
			t.Run(string(profile), func(t *testing.T) {
				ws, sibling := workspace(t)
				write := func(p, s string) {
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				write(filepath.Join(ws, ".env"), "SECRET=hunter2\n")
				write(filepath.Join(ws, "secrets", "deep", "k"), "hunter2\n")
				write(filepath.Join(sibling, "outside.key"), "hunter2\n")
				write(filepath.Join(ws, "real.txt"), "hunter2\n")
				write(filepath.Join(ws, "public.txt"), "PUBLIC\n")
				if err := os.Symlink("real.txt", filepath.Join(ws, "link")); err != nil {
					t.Fatal(err)
				}
				spec := Spec{Profile: profile, Cwd: ws, HiddenPaths: []string{
					filepath.Join(ws, ".env"), filepath.Join(ws, "secrets"), filepath.Join(sibling, "outside.key"),
					filepath.Join(ws, "link"), filepath.Join(ws, "missing"),
				}}
				r := sh(t, spec, "cat .env secrets/deep/k ../sibling/outside.key real.txt link 2>&1; ls -A secrets; cat public.txt")
				if strings.Contains(r.out, "hunter2") || !strings.Contains(r.out, "PUBLIC") {
					t.Fatalf("%v: %s", r.err, r.out)
				}
				for _, script := range []string{"echo x > .env", "echo x > secrets/new", "rm .env", "mv .env moved", "mv secrets moved"} {
					if r := sh(t, spec, script); r.err == nil {
						t.Errorf("%s: not refused: %s", script, r.out)
					}
				}
				want := []string{filepath.Join(ws, ".env"), filepath.Join(ws, "secrets"), filepath.Join(sibling, "outside.key"), filepath.Join(ws, "real.txt")}
				if got := r.report.Masks; strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("Report.Masks = %v, want %v", got, want)
				}
			})
		}
	})
}
