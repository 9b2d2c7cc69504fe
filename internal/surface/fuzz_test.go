package surface

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/exec"
	"github.com/agentexec/agentexec/gate"
)

// addLines seeds f with every line of the given testdata files.
func addLines(f *testing.F, add func(line []byte), patterns ...string) {
	for _, p := range patterns {
		files, _ := filepath.Glob(p)
		if len(files) == 0 {
			f.Fatalf("no seed files match %s", p)
		}
		for _, name := range files {
			data, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			for _, l := range bytes.Split(data, []byte("\n")) {
				add(l)
			}
		}
	}
}

// FuzzServeLine: whatever a line holds, parsing never panics, an accepted
// request is valid, and the answer is exactly one line of JSON carrying the
// id that was read.
func FuzzServeLine(f *testing.F) {
	addLines(f, func(l []byte) { f.Add(l) }, filepath.Join("testdata", "serve_lines.jsonl"))
	f.Fuzz(func(t *testing.T, line []byte) {
		id, req, err := parseLine(inputLine{Line: Line{N: 1, Text: line, Size: int64(len(line))}, max: MaxLineBytes})
		a := ServeAnswer{ID: id}
		if err == nil {
			if verr := req.Validate(); verr != nil {
				t.Fatalf("accepted an invalid request %q: %v", line, verr)
			}
			a.Error = "placeholder"
		} else {
			a.Error = err.Error()
		}
		b, err := encodeLine(a)
		if err != nil {
			t.Fatalf("answer for %q does not encode: %v", line, err)
		}
		if bytes.IndexByte(b, '\n') != len(b)-1 {
			t.Fatalf("answer for %q is not one line: %q", line, b)
		}
		var back ServeAnswer
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("answer %q is not JSON: %v", b, err)
		}
		if id != nil && !jsonEqual(back.ID, id) {
			t.Fatalf("id %s came back as %s", id, back.ID)
		}
	})
}

// jsonEqual compares two JSON texts byte for byte once compacted: the id
// is echoed, not re-encoded, so even 1e400 must come back as written.
func jsonEqual(a, b []byte) bool {
	var x, y bytes.Buffer
	return json.Compact(&x, a) == nil && json.Compact(&y, b) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}

// FuzzReadLine: the input comes back line by line, each within the limit or
// marked too long, none lost.
func FuzzReadLine(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), uint8(2))
	f.Add([]byte("\r\n\r\n"), uint8(0))
	f.Add(bytes.Repeat([]byte("x"), 100), uint8(40))
	addLines(f, func(l []byte) { f.Add(append(l, '\n'), uint8(30)) }, filepath.Join("testdata", "serve_lines.jsonl"))
	f.Fuzz(func(t *testing.T, data []byte, max uint8) {
		limit := int(max)%64 + 1
		segs := strings.Split(string(data), "\n")
		if segs[len(segs)-1] == "" {
			segs = segs[:len(segs)-1]
		}
		fr := &LineReader{br: bufio.NewReaderSize(bytes.NewReader(data), 16), max: limit}
		for i := 0; ; i++ {
			f, err := fr.Next()
			text, tooLong := f.Text, f.TooLong
			if err != nil {
				if i != len(segs) {
					t.Fatalf("%q: %d lines read, want %d (%v)", data, i, len(segs), err)
				}
				return
			}
			if i >= len(segs) {
				t.Fatalf("%q: more lines than there are", data)
			}
			want := segs[i]
			switch {
			case tooLong && len(want) <= limit:
				t.Fatalf("%q line %d: %q marked too long for %d", data, i, want, limit)
			case !tooLong && string(text) != strings.TrimSuffix(want, "\r"):
				t.Fatalf("%q line %d: %q, want %q", data, i, text, want)
			case !tooLong && len(want) > limit:
				t.Fatalf("%q line %d: %d bytes kept over the limit %d", data, i, len(want), limit)
			}
		}
	})
}

// FuzzTranscriptLine: a line either fails with an error or, for a call,
// survives being recorded: the recorded line reads back as the same request
// with the same pinned observation.
func FuzzTranscriptLine(f *testing.F) {
	addLines(f, func(l []byte) { f.Add(l) }, filepath.Join("..", "..", "testdata", "react", "*.jsonl"))
	f.Add([]byte(`{"request": {"argv": ["a", "b"]}, "approved": true, "expected": {"status": "error"}}`))
	f.Add([]byte(`{"request": {"command": "x"}, "expected": {"status": "exited", "exit_code": null, "duration_ms": 7}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		l, err := parseStep(line)
		if err != nil || l.call == nil {
			return
		}
		var rec bytes.Buffer
		writeStep(&rec, l.call, *l.call.Expected)
		back, err := parseStep(bytes.TrimSuffix(rec.Bytes(), []byte("\n")))
		if err != nil || back.call == nil {
			t.Fatalf("recorded %q does not read back: %v", rec.Bytes(), err)
		}
		if !reflect.DeepEqual(back.req, l.req) || back.call.Approved != l.call.Approved {
			t.Fatalf("request %+v came back as %+v", l.req, back.req)
		}
		if d := diffObservations(*l.call.Expected, *back.call.Expected); len(d) > 0 {
			t.Fatalf("expected observation changed in recording: %+v", d)
		}
	})
}

// FuzzServe: whatever the input, Serve answers every line that is not
// blank exactly once (over-size lines included) and never crashes. Every
// command is denied, so nothing the fuzzer writes runs.
func FuzzServe(f *testing.F) {
	addLines(f, func(l []byte) { f.Add(append(l, '\n')) }, filepath.Join("testdata", "serve_lines.jsonl"))
	f.Add([]byte("{\"id\":1,\"request\":{\"command\":\"echo \xff\"}}\n\n \n{\"id\":2}"))
	f.Add([]byte(`{"id":"big","request":{"command":"` + strings.Repeat("x", 300) + `"}}` + "\r\n[1,2]"))
	r := &exec.Runner{Policy: &gate.Policy{Permissions: gate.Permissions{Deny: []string{"Bash"}}}, Sandbox: "none", Cwd: f.TempDir()}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		if err := Serve(context.Background(), r, bytes.NewReader(data), &out, ServeOptions{MaxLineBytes: 256}); err != nil {
			t.Fatal(err)
		}
		want := 0
		lines := NewLineReader(bytes.NewReader(data), 256)
		for {
			l, err := lines.Next()
			if err != nil {
				break
			}
			if !l.Blank() {
				want++
			}
		}
		got := answers(t, out.Bytes())
		if len(got) != want {
			t.Fatalf("%q: %d answers for %d lines:\n%s", data, len(got), want, out.Bytes())
		}
		for _, a := range got {
			if a.Observation != nil && a.Observation.Status == exec.StatusExited {
				t.Fatalf("%q: a command ran: %+v", data, a.Observation)
			}
		}
	})
}
