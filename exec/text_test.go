package exec

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/gate"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.txt")

func intp(n int) *int { return &n }

// TestTextGolden fixes the format of Text, the string a model reads.
func TestTextGolden(t *testing.T) {
	tests := []struct {
		name string
		obs  Observation
	}{
		{"exited", Observation{Status: StatusExited, ExitCode: intp(0), DurationMS: 12, Stdout: "total 0\nfile.txt\n", StdoutBytes: 17}},
		{"exited_stderr", Observation{Status: StatusExited, ExitCode: intp(2), DurationMS: 1234, Stdout: "partial", Stderr: "ls: cannot access 'x': No such file or directory\n"}},
		{"no_output", Observation{Status: StatusExited, ExitCode: intp(0), DurationMS: 3}},
		{"signal", Observation{Status: StatusExited, Signal: "SIGKILL", DurationMS: 40, Stdout: "working\n"}},
		{"timed_out", Observation{Status: StatusTimedOut, Signal: "SIGTERM", DurationMS: 1002, TimeoutMS: 1000, Stdout: "before the timeout\n"}},
		{"canceled", Observation{Status: StatusTimedOut, Error: "canceled", DurationMS: 20, Stdout: "x\n"}},
		{"truncated", Observation{Status: StatusExited, ExitCode: intp(0), DurationMS: 150, Truncated: true, Omitted: 4999000,
			Stdout: "abcd\n…[4999000 bytes omitted]…\nwxyz\n", StdoutBytes: 5000000}},
		{"ansi", Observation{Status: StatusExited, ExitCode: intp(0), DurationMS: 5, Output: "\x1b[1;32mPASS\x1b[0m ok\r\n\x1b]0;title\x07done\r\n"}},
		{"progress", Observation{Status: StatusExited, ExitCode: intp(0), DurationMS: 900, Stdout: "downloading\n 10%\r 50%\r100%\ndone\n"}},
		{"binary", Observation{Status: StatusExited, ExitCode: intp(0), DurationMS: 5, Stdout: "\x7fELF\x02\x01\x01\x00\x00\x00", StdoutBytes: 10}},
		{"contained", Observation{Status: StatusExited, ExitCode: intp(0), DurationMS: 8, Stdout: "v1.2\n",
			Sandbox: &SandboxReport{Profile: "read-only", Network: "netns", Contained: true}}},
		{"rejected_rule", Observation{Status: StatusRejected, Decision: gate.Deny, RuleDecision: "deny",
			Rule: "Bash(rm *)", RuleSource: "/home/u/project/.agentexec.json",
			Reason: "the deny rule Bash(rm *) matches the segment `rm -rf build`."}},
		{"rejected_blacklist", Observation{Status: StatusRejected, Decision: gate.Deny, Blacklist: "wipe-root",
			Reason: "it would delete the whole filesystem."}},
		{"declined", Observation{Status: StatusRejected, Decision: gate.Ask, Reason: "git push writes to a remote."}},
		{"needs_approval", Observation{Status: StatusNeedsApproval, Decision: gate.Ask, Reason: "npm install writes node_modules and runs install scripts.",
			Suggestions: []string{"Bash(npm install:*)", "Bash(npm install)"}}},
		{"error", Observation{Status: StatusError, Error: "request: cwd: stat /nope: no such file or directory"}},
		{"sandbox_error", Observation{Status: StatusError, Decision: gate.Allow, Error: "sandbox workspace-write could not be applied, so nothing ran"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.obs.Text()
			path := filepath.Join("testdata", "golden", tt.name+".txt")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestTextGolden -update)", err)
			}
			if got != string(want) {
				t.Fatalf("Text() =\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestTextNeverHasEscapes(t *testing.T) {
	obs := Observation{Status: StatusExited, ExitCode: intp(0), Stdout: "\x1b[2J\x1b[H\x1b[?25lhi\x1b(B\x1b[m", Stderr: "\x1b[31me\x1b[0m"}
	if txt := obs.Text(); strings.ContainsRune(txt, 0x1b) {
		t.Fatalf("escape left in %q", txt)
	}
}

// TestExecRefusedText: a program the exec gate stopped is told as such,
// with what the command printed before it.
func TestExecRefusedText(t *testing.T) {
	o := Observation{Status: StatusRejected, Decision: "deny", Reason: "The run-time exec gate stopped `rm -f x`", Rule: "Bash(rm *)",
		Stdout: "building\n", ExecRefused: &ExecRefusal{Program: "rm", Argv: []string{"rm", "-f", "x"}}}
	got := o.Text()
	for _, want := range []string{"exec gate stopped", "Rule: Bash(rm *)", "It ran until it started rm", "building"} {
		if !strings.Contains(got, want) {
			t.Errorf("text lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "It was not run") {
		t.Errorf("a run that ran says it was not run:\n%s", got)
	}
	static := Observation{Status: StatusRejected, Decision: "deny", Reason: "Denied"}
	if !strings.Contains(static.Text(), "It was not run") {
		t.Errorf("a static refusal: %s", static.Text())
	}
}
