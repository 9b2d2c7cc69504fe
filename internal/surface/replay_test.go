package surface

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/exec"
	"github.com/agentexec/agentexec/gate"
)

// repoRoot is where the shipped transcripts expect to run.
func repoRoot(t *testing.T) string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// shippedRunner is the Runner the shipped transcripts are recorded with:
// agentexec replay --policy testdata/react/policy.json --sandbox none,
// from the repository's root.
func shippedRunner(t *testing.T) *exec.Runner {
	root := repoRoot(t)
	pol, err := gate.LoadPolicy(filepath.Join(root, "testdata", "react", "policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	return &exec.Runner{Policy: pol, Sandbox: "none", Cwd: root}
}

func replay(t *testing.T, r *exec.Runner, transcript string, opts ReplayOptions) (ReplayReport, string) {
	t.Helper()
	var diff bytes.Buffer
	rep, err := Replay(context.Background(), r, strings.NewReader(transcript), &diff, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep, diff.String()
}

func shippedTranscripts(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "testdata", "react", "*.jsonl"))
	if err != nil || len(files) < 2 {
		t.Fatalf("shipped transcripts: %v %v", files, err)
	}
	return files
}

func TestReplayShipped(t *testing.T) {
	for _, f := range shippedTranscripts(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			rep, diff := replay(t, shippedRunner(t), string(data), ReplayOptions{Name: filepath.Base(f)})
			if rep.Changed != 0 || rep.Calls < 4 {
				t.Errorf("%d calls, %d changed:\n%s", rep.Calls, rep.Changed, diff)
			}
		})
	}
}

// TestReplayEdited: a transcript whose expected observation no longer
// matches fails, and the diff shows the field, the line and both sides.
func TestReplayEdited(t *testing.T) {
	f := filepath.Join(repoRoot(t), "testdata", "react", "explore.jsonl")
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `four-function calculator.`, `three-function calculator.`, 1)
	if edited == string(data) {
		t.Fatal("the edit did not apply: explore.jsonl changed")
	}
	rep, diff := replay(t, shippedRunner(t), edited, ReplayOptions{Name: "explore.jsonl"})
	if rep.Changed != 1 {
		t.Errorf("%d changed, want 1:\n%s", rep.Changed, diff)
	}
	for _, want := range []string{"explore.jsonl:4: cat testdata/react/fixture/README.md", "  stdout:", "- A three-function", "+ A four-function", "    # tinycalc"} {
		if !strings.Contains(diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, diff)
		}
	}
}

// TestReplayUpdate: recording writes every call's pinned observation and
// keeps the other lines; the recording then replays unchanged.
func TestReplayUpdate(t *testing.T) {
	r := testRunner(t, gate.ModeYolo, gate.Permissions{})
	transcript := `{"thought": "look"}
{"request": {"command": "echo hi; echo err >&2; exit 2"}, "expected": {"status": "error"}}

{"request": {"argv": ["printf", "x"]}, "expected": {"status": "exited"}}
{"answer": "done"}
`
	rep, _ := replay(t, r, transcript, ReplayOptions{Update: true})
	if rep.Calls != 2 || rep.Changed != 0 {
		t.Errorf("update: %+v", rep)
	}
	rec := string(rep.Updated)
	for _, want := range []string{
		`{"thought": "look"}` + "\n",
		`{"request":{"command":"echo hi; echo err >&2; exit 2"},"expected":{"status":"exited","exit_code":2,"decision":"allow","stdout":"hi\n","stderr":"err\n"}}` + "\n",
		`"stdout":"x"}}` + "\n",
		`{"answer": "done"}` + "\n",
	} {
		if !strings.Contains(rec, want) {
			t.Errorf("recording lacks %q:\n%s", want, rec)
		}
	}
	if strings.Contains(rec, "duration_ms") || strings.Contains(rec, "run_id") {
		t.Errorf("recording pins what varies:\n%s", rec)
	}
	rep, diff := replay(t, r, rec, ReplayOptions{})
	if rep.Changed != 0 {
		t.Errorf("the recording does not replay:\n%s", diff)
	}
}

// TestReplayApproved: "approved" approves that call only.
func TestReplayApproved(t *testing.T) {
	r := testRunner(t, gate.ModeDefault, gate.Permissions{Ask: []string{"Bash(touch *)"}})
	transcript := `{"request": {"command": "touch a"}, "approved": true, "expected": {"status": "exited", "exit_code": 0, "decision": "ask", "rule": "Bash(touch *)"}}
{"request": {"command": "touch b"}, "expected": {"status": "needs_approval", "decision": "ask", "rule": "Bash(touch *)"}}
`
	rep, diff := replay(t, r, transcript, ReplayOptions{})
	if rep.Changed != 0 {
		t.Errorf("approved replay:\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(r.Cwd, "a")); err != nil {
		t.Errorf("approved call did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.Cwd, "b")); !os.IsNotExist(err) {
		t.Errorf("unapproved call ran: %v", err)
	}
}

func TestReadTranscriptErrors(t *testing.T) {
	cases := []struct {
		in, want string
	}{
		{`{"thought": "a"}` + "\nnot json\n", "line 2: invalid JSON at byte 2: invalid character"},
		{`{"thougth": "a"}`, `line 1: unknown field "thougth"`},
		{"{\"thought\": \"\xff\"}", `line 1: byte 13: invalid UTF-8`},
		{`[1]`, `line 1: want an object, got an array (a step is an object such as`},
		{`{"request": {"command": "ls"}}`, `line 1: "expected": missing`},
		{`{"request": {"comand": "ls"}, "expected": {"status": "exited"}}`, `line 1: request: unknown field "comand"`},
		{`{"request": {"command": "ls"}, "expected": {"stauts": "exited"}}`, `line 1: unknown field "stauts"`},
		{`{"expected": {"status": "exited"}}`, `line 1: "expected" or "approved" without "request"`},
		{`{"thought": "a"} {"thought": "b"}`, "line 1: more than one JSON value"},
		{"\n\n" + `{"request": 1, "expected": {}}`, "line 3: request: want an object such as"},
		{strings.Repeat("x", MaxLineBytes+1), "line 1: 4194305 bytes, longer than the limit of 4194304"},
	}
	for _, tc := range cases {
		_, err := Replay(context.Background(), &exec.Runner{Sandbox: "none"}, strings.NewReader(tc.in), &bytes.Buffer{}, ReplayOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestDiffObservations(t *testing.T) {
	zero, one := 0, 1
	base := exec.Observation{Status: exec.StatusExited, ExitCode: &zero, Stdout: "a\n", Decision: gate.Allow, DurationMS: 5, RunID: "x", Reason: "r"}
	cases := []struct {
		name string
		edit func(o *exec.Observation)
		want string // changed field names
	}{
		{"same", func(o *exec.Observation) {}, ""},
		{"ignored", func(o *exec.Observation) {
			o.DurationMS, o.RunID, o.Reason, o.Safety, o.Sandbox = 9, "y", "other", gate.Write, &exec.SandboxReport{Profile: "none"}
		}, ""},
		{"exit", func(o *exec.Observation) { o.ExitCode = &one }, "exit_code"},
		{"no exit", func(o *exec.Observation) { o.ExitCode = nil }, "exit_code"},
		{"status+decision", func(o *exec.Observation) { o.Status, o.Decision = exec.StatusRejected, gate.Deny }, "status decision"},
		{"output", func(o *exec.Observation) { o.Stdout, o.Stderr, o.Output = "b", "c", "d" }, "stdout stderr output"},
		{"rule", func(o *exec.Observation) { o.Rule, o.Blacklist, o.Signal = "Bash(x)", "fork bomb", "SIGKILL" }, "signal rule blacklist"},
		{"truncation", func(o *exec.Observation) { o.Truncated, o.Omitted = true, 10 }, "truncated omitted_bytes"},
	}
	for _, tc := range cases {
		got := base
		tc.edit(&got)
		var names []string
		for _, d := range diffObservations(base, got) {
			names = append(names, d.name)
		}
		if strings.Join(names, " ") != tc.want {
			t.Errorf("%s: changed %v, want %q", tc.name, names, tc.want)
		}
	}
}

func TestLineDiff(t *testing.T) {
	cases := []struct {
		a, b string
		want []string
	}{
		{"x\ny\n", "x\ny\n", []string{"  x", "  y"}},
		{"x\ny\nz\n", "x\nz\n", []string{"  x", "- y", "  z"}},
		{"x\n", "x\nw\n", []string{"  x", "+ w"}},
		{"x\n", "x", []string{`- x`, `+ x\ (no newline at end)`}},
		{"", "a\n", []string{"+ a"}},
		{"a\nb\n", "b\na\n", []string{"- a", "  b", "+ a"}},
	}
	for _, tc := range cases {
		got := lineDiff(splitLines(tc.a), splitLines(tc.b))
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("lineDiff(%q, %q) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}
