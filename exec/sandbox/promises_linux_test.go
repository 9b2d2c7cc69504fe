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
		r := sh(t, Spec{Profile: WorkspaceWrite, Cwd: ws}, fmt.Sprintf("echo leaked >&%d; ls /proc/self/fd", fd))
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
