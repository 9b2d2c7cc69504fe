package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

func runCheck(t *testing.T, stdin io.Reader, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	c := &cli{stdin: stdin, stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code := checkMain(context.Background(), c, args)
	return out.String(), errb.String(), code
}

// TestCheckBatchLines: one output line per input line, in order, whatever
// the line holds: an over-long line, CRLF endings, no final newline; blank
// lines are skipped, as serve skips them.
func TestCheckBatchLines(t *testing.T) {
	long := `{"command": "echo ` + strings.Repeat("x", maxBatchLine) + `"}`
	in := strings.Join([]string{`{"command":"ls"}`, long, "", " \t", "{\"command\":\"rm x\"}\r", `{"command":"git status"}`}, "\n")
	out, stderr, code := runCheck(t, strings.NewReader(in), "--batch", "--shell", "bash")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d output lines, want 4:\n%s", len(lines), out)
	}
	want := []string{`"command":"ls"`, `"error":"line 2: 1048596 bytes, longer than the limit of 1048576 (--max-line-bytes)"`, `"command":"rm x"`, `"command":"git status"`}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d = %.120s, want it to contain %s", i+1, lines[i], w)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &v); err != nil {
			t.Errorf("line %d is not JSON: %v", i+1, err)
		}
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestCheckBatchReadError(t *testing.T) {
	_, stderr, code := runCheck(t, failingReader{}, "--batch")
	if code != 1 || !strings.Contains(stderr, "disk on fire") {
		t.Errorf("exit %d stderr %q, want 1 and the cause", code, stderr)
	}
}

func TestCheckExitStatus(t *testing.T) {
	for cmd, want := range map[string]int{"ls": checkAllow, "rm x": checkAsk, "rm -rf /": checkDeny} {
		if _, _, code := runCheck(t, nil, "--shell", "bash", "--", cmd); code != want {
			t.Errorf("%q: exit %d, want %d", cmd, code, want)
		}
	}
}
