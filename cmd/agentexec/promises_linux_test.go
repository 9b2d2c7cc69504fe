//go:build linux

package main

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestInheritedFilesStayOutside starts agentexec with a file open for
// appending outside the workspace and a connected socket, both without
// close-on-exec, as a careless parent would leave them: the command can
// use neither, under every profile, while its own files work.
func TestInheritedFilesStayOutside(t *testing.T) {
	bin, err := osexec.LookPath("agentexec") // testscript.Main put it on PATH
	if err != nil {
		t.Skipf("agentexec test command not on PATH: %v", err)
	}
	for _, profile := range []string{"none", "workspace-write", "read-only"} {
		t.Run(profile, func(t *testing.T) {
			ws, out := t.TempDir(), t.TempDir()
			leak := filepath.Join(out, "leak")
			f, err := os.OpenFile(leak, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
			if err != nil {
				t.Fatal(err)
			}
			ours, theirs := os.NewFile(uintptr(pair[0]), "ours"), os.NewFile(uintptr(pair[1]), "theirs")
			defer ours.Close()
			defer theirs.Close()
			script := `echo FDLEAK >&3; echo SOCKLEAK >&4; exec 5>/dev/null; echo own >&5 && echo OWN-OK`
			cmd := osexec.Command(bin, "run", "--audit", "off", "--mode", "yolo", "--sandbox", profile, "--cwd", ws, "-c", script)
			cmd.ExtraFiles = []*os.File{f, theirs} // fds 3 and 4 of agentexec, inheritable
			b, _ := cmd.CombinedOutput()
			theirs.Close()
			if fi, err := os.Stat(leak); err != nil || fi.Size() != 0 {
				t.Errorf("the command wrote through the inherited file: %v %v", fi.Size(), err)
			}
			syscall.SetNonblock(pair[0], true)
			if n, _ := ours.Read(make([]byte, 64)); n > 0 {
				t.Errorf("the command wrote %d bytes through the inherited socket", n)
			}
			if !strings.Contains(string(b), "OWN-OK") || !strings.Contains(string(b), "Bad file descriptor") {
				t.Errorf("output: %s", b)
			}
		})
	}
}
