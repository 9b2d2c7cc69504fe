//go:build linux

package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// TestRunAsksOnTTY runs agentexec run under a pseudo-terminal: a command
// the gate asks about is put to the user on /dev/tty, and runs only on yes.
func TestRunAsksOnTTY(t *testing.T) {
	bin, err := osexec.LookPath("agentexec") // testscript.Main put it on PATH
	if err != nil {
		t.Skipf("agentexec test command not on PATH: %v", err)
	}
	tests := []struct {
		answer string
		code   int
		made   bool
	}{
		{"y", 0, true},
		{"a", 0, true},
		{"n", 126, false},
		{"", 126, false},
	}
	for _, tt := range tests {
		t.Run("answer "+tt.answer, func(t *testing.T) {
			ws := t.TempDir()
			file := filepath.Join(ws, "made")
			cmd := osexec.Command(bin, "run", "--audit", "off", "--sandbox", "none", "--", "touch", file)
			cmd.Dir = ws // "always" writes the workspace's .agentexec/local.json
			tty, err := pty.Start(cmd)
			if err != nil {
				t.Skipf("no pseudo-terminal: %v", err)
			}
			defer tty.Close()
			if err := waitFor(tty, "[a]lways / [N]o "); err != nil {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal(err)
			}
			tty.WriteString(tt.answer + "\n")
			code := 0
			var ee *osexec.ExitError
			if err := cmd.Wait(); errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(file)
			if code != tt.code || (statErr == nil) != tt.made {
				t.Fatalf("exit %d (want %d), file made %v (want %v)", code, tt.code, statErr == nil, tt.made)
			}
			rules, _ := os.ReadFile(filepath.Join(ws, ".agentexec", "local.json"))
			if kept := strings.Contains(string(rules), "Bash(touch "+file+")"); kept != (tt.answer == "a") {
				t.Errorf("answer %q: rule kept %v: %s", tt.answer, kept, rules)
			}
		})
	}
}

// TestRunBrokenPipe: when the reader of agentexec's output goes away
// (agentexec run -- yes | head), the command's tree is ended and
// agentexec exits 141 like a pipeline member killed by SIGPIPE.
func TestRunBrokenPipe(t *testing.T) {
	bin, err := osexec.LookPath("agentexec")
	if err != nil {
		t.Skipf("agentexec test command not on PATH: %v", err)
	}
	m := "307." + strconv.Itoa(os.Getpid())
	cmd := osexec.Command(bin, "run", "--audit", "off", "--sandbox", "none", "--mode", "yolo", "-c", "sleep "+m+" & yes")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(out, buf); err != nil {
		t.Fatal(err)
	}
	out.Close()
	var ee *osexec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 141 {
		t.Fatalf("exit %v, want 141", err)
	}
	b, _ := osexec.Command("pgrep", "-f", "sleep "+m).Output()
	if len(b) > 0 {
		t.Fatalf("left behind: %s", b)
	}
}

// waitFor reads the terminal until s appears.
func waitFor(tty *os.File, s string) error {
	r := bufio.NewReader(tty)
	var seen strings.Builder
	for !strings.Contains(seen.String(), s) {
		b, err := r.ReadByte()
		if err != nil {
			return errors.New("no prompt; the terminal showed: " + seen.String())
		}
		seen.WriteByte(b)
	}
	return nil
}
