package exec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/gate"
)

// A request's cwd never widens what may be written: outside the
// workspace it is refused before anything runs, inside it works, and the
// workspace stays writable wherever in it the command starts.
func TestRequestCwdStaysInWorkspace(t *testing.T) {
	r := sandboxedRunner(t)
	ws := r.Cwd
	out := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(ws, "outlink")); err != nil {
		t.Fatal(err)
	}
	for _, cwd := range []string{out, "/", "..", "outlink", "src/../..", filepath.Join(ws, "outlink")} {
		t.Run("refused "+cwd, func(t *testing.T) {
			obs := runReq(t, r, Request{Command: "touch " + filepath.Join(out, "escape") + "; touch escape2", Shell: "sh", Cwd: cwd})
			if obs.Status != StatusError || !strings.Contains(obs.Error, "outside the workspace "+ws) || !strings.Contains(obs.Error, "cwd") {
				t.Fatalf("%+v", obs)
			}
			if ents, _ := os.ReadDir(out); len(ents) > 0 {
				t.Fatalf("written outside the workspace: %v", ents)
			}
		})
	}
	for _, cwd := range []string{"src", filepath.Join(ws, "src"), ".", ws} {
		t.Run("allowed "+cwd, func(t *testing.T) {
			obs := runReq(t, r, Request{Command: "touch made && touch " + filepath.Join(ws, "top") + " && pwd", Shell: "sh", Cwd: cwd})
			if obs.Status != StatusExited || (obs.ExitCode == nil || *obs.ExitCode != 0) {
				t.Fatalf("%+v", obs)
			}
			if _, err := os.Stat(filepath.Join(strings.TrimSpace(obs.Stdout), "made")); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A policy root outside the workspace may be the request's cwd: a
// readable root stays read-only there, a writable root is writable.
func TestRequestCwdInPolicyRoots(t *testing.T) {
	r := sandboxedRunner(t)
	ro, rw := t.TempDir(), t.TempDir()
	pol := &gate.Policy{Mode: gate.ModeYolo}
	pol.Sandbox.WritableRoots = []string{rw}
	pol.Sandbox.ReadableRoots = []string{ro, rw, r.Cwd, "/usr", "/bin", "/lib", "/lib64"}
	r.Policy = pol
	obs := runReq(t, r, Request{Command: "touch x", Shell: "sh", Cwd: rw})
	if obs.Status != StatusExited || (obs.ExitCode == nil || *obs.ExitCode != 0) {
		t.Fatalf("writable root: %+v", obs)
	}
	obs = runReq(t, r, Request{Command: "touch x", Shell: "sh", Cwd: ro})
	if obs.Status != StatusExited || (obs.ExitCode == nil || *obs.ExitCode == 0) {
		t.Fatalf("readable root written: %+v", obs)
	}
	if _, err := os.Stat(filepath.Join(ro, "x")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("readable root written: %v", err)
	}
}

// Cmd.Dir under a Runner with a workspace follows the request's rule.
func TestCmdDirStaysInWorkspace(t *testing.T) {
	ws, out := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &Runner{Mode: gate.ModeYolo, Sandbox: "none", Cwd: ws}
	c := Command("pwd")
	c.Runner, c.Dir = r, out
	if b, err := c.Output(); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Fatalf("Dir outside the workspace ran: %q %v", b, err)
	}
	c = Command("pwd")
	c.Runner, c.Dir = r, filepath.Join(ws, "src")
	if b, err := c.Output(); err != nil || strings.TrimSpace(string(b)) != filepath.Join(ws, "src") {
		t.Fatalf("Dir inside the workspace: %q %v", b, err)
	}
	c = Command("pwd")
	c.Runner = r
	if b, err := c.Output(); err != nil || strings.TrimSpace(string(b)) != ws {
		t.Fatalf("no Dir: %q %v", b, err)
	}
}
