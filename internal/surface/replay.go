package surface

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/agentexec/agentexec/exec"
	"github.com/agentexec/agentexec/gate"
)

// A transcript is a recorded ReAct loop, one JSON object per line:
//
//	{"thought": "Let me see what the project holds."}
//	{"request": {"command": "ls testdata/react/fixture"}, "expected": {"status": "exited", "exit_code": 0, "decision": "allow", "stdout": "README\nsrc\n"}}
//	{"request": {"command": "git push"}, "approved": true, "expected": {...}}
//	{"answer": "The project has a README and a src directory."}
//
// A line with "request" is a tool call: the run_command arguments (decoded
// as strictly as the tools decode them) and "expected", the observation
// that came back, of which only the [Pinned] fields count. "approved" says
// the user approved the call when the gate asked; without it an ask ends as
// needs_approval, as with no one to ask. "thought" and "answer" are the
// model's words, kept for the reader and ignored. Blank lines are skipped;
// any other field is an error, so that a typo cannot silently weaken a test.
type Step struct {
	Thought  string            `json:"thought,omitempty"`
	Request  json.RawMessage   `json:"request,omitempty"`
	Approved bool              `json:"approved,omitempty"`
	Expected *exec.Observation `json:"expected,omitempty"`
	Answer   string            `json:"answer,omitempty"`
}

// ReplayOptions configure [Replay]. The zero value is valid.
type ReplayOptions struct {
	// Name prefixes every reported difference, as file:line (the
	// transcript's path).
	Name string
	// Update records instead of checking: every expected observation is
	// replaced with the one observed, and [ReplayReport.Updated] holds the
	// rewritten transcript.
	Update bool
}

// ReplayReport says what a replay found.
type ReplayReport struct {
	Calls   int    // tool calls replayed
	Changed int    // calls whose pinned observation differed
	Updated []byte // with ReplayOptions.Update: the rewritten transcript
}

// Replay runs every tool call of the transcript through a copy of r, in
// order, and writes to diff each call whose pinned observation changed. It
// reads the whole transcript first: a malformed line is an error naming the
// line and the field, and then nothing runs. r's Approver is replaced by the
// transcript's "approved" marks.
func Replay(ctx context.Context, r *exec.Runner, transcript io.Reader, diff io.Writer, opts ReplayOptions) (ReplayReport, error) {
	steps, err := readTranscript(transcript)
	if err != nil {
		return ReplayReport{}, err
	}
	plain, approving := *r, *r
	plain.Approver, approving.Approver = nil, approveAll
	var rep ReplayReport
	var updated bytes.Buffer
	for _, st := range steps {
		if st.call == nil {
			updated.Write(st.raw)
			updated.WriteByte('\n')
			continue
		}
		rep.Calls++
		run := &plain
		if st.call.Approved {
			run = &approving
		}
		got := run.RunCommand(ctx, st.req)
		if d := diffObservations(*st.call.Expected, got); len(d) > 0 && !opts.Update {
			rep.Changed++
			writeDiff(diff, fmt.Sprintf("%s:%d", opts.Name, st.line), commandText(st.req), d)
		}
		writeStep(&updated, st.call, got)
	}
	if opts.Update {
		rep.Updated = updated.Bytes()
	}
	return rep, nil
}

// approveAll approves the calls the transcript marks approved: the user
// said yes when the transcript was recorded. Unmarked calls get no Approver,
// so an ask ends as needs_approval, as with no one to ask.
func approveAll(context.Context, exec.Request, gate.Decision) (bool, error) { return true, nil }

// transcriptLine is one read line: the raw text, and for a tool call the
// decoded step and request.
type transcriptLine struct {
	line int
	raw  []byte
	call *Step
	req  exec.Request
}

// readTranscript reads and checks a whole transcript. It returns the tool
// calls and the other lines in order; blank lines are dropped. A line that
// is not valid UTF-8, over MaxLineBytes or not a step is an error naming
// its line.
func readTranscript(in io.Reader) ([]transcriptLine, error) {
	var out []transcriptLine
	lines := NewLineReader(in, MaxLineBytes)
	for {
		l, err := lines.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading the transcript: %w", err)
		}
		if l.Blank() {
			continue
		}
		if l.TooLong {
			return nil, fmt.Errorf("line %d: %d bytes, longer than the limit of %d", l.N, l.Size, MaxLineBytes)
		}
		raw := bytes.TrimSpace(l.Text)
		if err := exec.CheckJSONText(raw); err != nil {
			return nil, fmt.Errorf("line %d: %w", l.N, err)
		}
		t, err := parseStep(raw)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", l.N, err)
		}
		t.line, t.raw = l.N, append([]byte(nil), raw...)
		out = append(out, t)
	}
}

func parseStep(raw []byte) (transcriptLine, error) {
	var st Step
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return transcriptLine{}, stepJSONError(err)
	}
	if dec.More() {
		return transcriptLine{}, errors.New("more than one JSON value on the line")
	}
	if st.Request == nil {
		if st.Expected != nil || st.Approved {
			return transcriptLine{}, errors.New(`"expected" or "approved" without "request"`)
		}
		return transcriptLine{}, nil
	}
	req, err := exec.DecodeRequest(st.Request)
	if err != nil {
		return transcriptLine{}, err
	}
	if st.Expected == nil {
		return transcriptLine{}, errors.New(`"expected": missing (run replay with -update to record it)`)
	}
	return transcriptLine{call: &st, req: req}, nil
}

// stepJSONError says what is wrong with a step line in our words.
func stepJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "" {
		return fmt.Errorf(`%s (a step is an object such as {"request": {"command": "ls"}, "expected": {...}})`, exec.JSONErrorText(err))
	}
	return errors.New(exec.JSONErrorText(err))
}

// pinned is the part of an Observation that describes behaviour. Its field
// order is the order in which a recorded transcript shows them.
type pinned struct {
	Status    exec.Status `json:"status"`
	ExitCode  *int        `json:"exit_code,omitempty"`
	Signal    string      `json:"signal,omitempty"`
	Decision  gate.Action `json:"decision,omitempty"`
	Rule      string      `json:"rule,omitempty"`
	Blacklist string      `json:"blacklist,omitempty"`
	Stdout    string      `json:"stdout,omitempty"`
	Stderr    string      `json:"stderr,omitempty"`
	Output    string      `json:"output,omitempty"`
	Truncated bool        `json:"truncated,omitempty"`
	Omitted   int64       `json:"omitted_bytes,omitempty"`
}

// Pinned returns the fields of obs that a replay compares: status, exit code,
// signal, decision, the deciding rule or blacklist entry, the output and its
// truncation. Durations, run ids, the reason's wording, suggestions, the
// rule's source path, the safety class and the sandbox report are left out:
// they change with the machine or the wording, not with behaviour.
func Pinned(obs exec.Observation) exec.Observation {
	p := pin(obs)
	return exec.Observation{
		Status: p.Status, ExitCode: p.ExitCode, Signal: p.Signal,
		Decision: p.Decision, Rule: p.Rule, Blacklist: p.Blacklist,
		Stdout: p.Stdout, Stderr: p.Stderr, Output: p.Output,
		Truncated: p.Truncated, Omitted: p.Omitted,
	}
}

func pin(o exec.Observation) pinned {
	return pinned{
		Status: o.Status, ExitCode: o.ExitCode, Signal: o.Signal,
		Decision: o.Decision, Rule: o.Rule, Blacklist: o.Blacklist,
		Stdout: o.Stdout, Stderr: o.Stderr, Output: o.Output,
		Truncated: o.Truncated, Omitted: o.Omitted,
	}
}

// fieldDiff is one pinned field that changed.
type fieldDiff struct {
	name          string
	expected, got string
}

// diffObservations lists the pinned fields that differ, in pinned order.
func diffObservations(want, got exec.Observation) []fieldDiff {
	w, g := pin(want), pin(got)
	var d []fieldDiff
	add := func(name, a, b string) {
		if a != b {
			d = append(d, fieldDiff{name, a, b})
		}
	}
	add("status", string(w.Status), string(g.Status))
	add("exit_code", exitText(w.ExitCode), exitText(g.ExitCode))
	add("signal", w.Signal, g.Signal)
	add("decision", string(w.Decision), string(g.Decision))
	add("rule", w.Rule, g.Rule)
	add("blacklist", w.Blacklist, g.Blacklist)
	add("stdout", w.Stdout, g.Stdout)
	add("stderr", w.Stderr, g.Stderr)
	add("output", w.Output, g.Output)
	add("truncated", strconv.FormatBool(w.Truncated), strconv.FormatBool(g.Truncated))
	add("omitted_bytes", strconv.FormatInt(w.Omitted, 10), strconv.FormatInt(g.Omitted, 10))
	return d
}

func exitText(code *int) string {
	if code == nil {
		return "none"
	}
	return strconv.Itoa(*code)
}

// writeStep writes a tool call line with got as its expected observation.
func writeStep(w *bytes.Buffer, st *Step, got exec.Observation) {
	type line struct {
		Thought  string          `json:"thought,omitempty"`
		Request  json.RawMessage `json:"request"`
		Approved bool            `json:"approved,omitempty"`
		Expected pinned          `json:"expected"`
		Answer   string          `json:"answer,omitempty"`
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // keep "2>&1" readable in the file
	if err := enc.Encode(line{st.Thought, st.Request, st.Approved, pin(got), st.Answer}); err != nil {
		// Every part was decoded from JSON or is plain data.
		panic(fmt.Sprintf("surface: re-encoding a transcript line: %v", err))
	}
}
