package exec

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentexec/agentexec/gate"
)

// A descriptor this process holds without close-on-exec does not reach a
// command, sandboxed or not; a file passed in Cmd.ExtraFiles does.
func TestOnlyExtraFilesReachTheCommand(t *testing.T) {
	for _, profile := range []string{"none", "workspace-write"} {
		t.Run(profile, func(t *testing.T) {
			ws := t.TempDir()
			leak, err := os.OpenFile(filepath.Join(t.TempDir(), "leak"), os.O_WRONLY|os.O_CREATE, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer leak.Close()
			fd, err := syscall.Dup(int(leak.Fd()))
			if err != nil {
				t.Fatal(err)
			}
			defer syscall.Close(fd) // inheritable: Dup does not set close-on-exec
			pass, err := os.Create(filepath.Join(t.TempDir(), "passed"))
			if err != nil {
				t.Fatal(err)
			}
			defer pass.Close()
			r := &Runner{Mode: gate.ModeYolo, Sandbox: profile, Cwd: ws}
			c := Command("/bin/bash", "-c", "echo passed >&3; echo leaked >&"+itoa(fd)+"; true")
			c.Runner, c.ExtraFiles = r, []*os.File{pass}
			b, err := c.CombinedOutput()
			if err != nil {
				if strings.Contains(err.Error(), "sandbox") {
					t.Skipf("sandbox unavailable: %v", err)
				}
				t.Fatalf("%v: %s", err, b)
			}
			got, _ := os.ReadFile(pass.Name())
			if string(got) != "passed\n" {
				t.Errorf("ExtraFiles[0] got %q (output %s)", got, b)
			}
			if fi, _ := leak.Stat(); fi.Size() != 0 {
				t.Errorf("the inherited descriptor %d reached the command: %s", fd, b)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
