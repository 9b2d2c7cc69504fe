package surface

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentexec/agentexec/exec"
	"github.com/agentexec/agentexec/gate"
)

// answers parses Serve's output, failing on any line that is not one
// whole answer.
func answers(t *testing.T, out []byte) []ServeAnswer {
	t.Helper()
	var as []ServeAnswer
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var a ServeAnswer
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			t.Fatalf("answer line %q: %v", sc.Text(), err)
		}
		as = append(as, a)
	}
	return as
}

func serve(t *testing.T, r *exec.Runner, input string, opts ServeOptions) []ServeAnswer {
	t.Helper()
	var out bytes.Buffer
	if err := Serve(context.Background(), r, strings.NewReader(input), &out, opts); err != nil {
		t.Fatal(err)
	}
	return answers(t, out.Bytes())
}

// TestServeParallel: 100 requests with --parallel 8, ids of every JSON
// type, all answered under their own id with their own output.
func TestServeParallel(t *testing.T) {
	var in strings.Builder
	want := map[string]string{} // id as JSON → stdout
	for i := range 100 {
		id := []string{fmt.Sprint(i), fmt.Sprintf("%q", fmt.Sprint("s", i)), fmt.Sprintf(`{"n":%d}`, i), fmt.Sprintf("[%d]", i)}[i%4]
		fmt.Fprintf(&in, `{"id":%s,"request":{"command":"sleep 0.0%d; echo %d"}}`+"\n", id, i%10, i)
		want[id] = fmt.Sprintf("%d\n", i)
	}
	as := serve(t, testRunner(t, gate.ModeYolo, gate.Permissions{}), in.String(), ServeOptions{Parallel: 8})
	if len(as) != 100 {
		t.Errorf("%d answers, want 100", len(as))
	}
	for _, a := range as {
		id := string(a.ID)
		if a.Observation == nil || a.Observation.Stdout != want[id] {
			t.Errorf("id %s: answer %+v, want stdout %q", id, a, want[id])
		}
		delete(want, id)
	}
	if len(want) > 0 {
		t.Errorf("ids lost: %v", want)
	}
}

// TestServeBound: never more than Parallel requests run at once. Each
// request counts the requests running beside it by their marker files.
func TestServeBound(t *testing.T) {
	const parallel = 3
	var in strings.Builder
	for i := range 12 {
		fmt.Fprintf(&in, `{"id":%d,"request":{"command":"touch run.$$; sleep 0.05; ls run.* | wc -l; rm run.$$"}}`+"\n", i)
	}
	as := serve(t, testRunner(t, gate.ModeYolo, gate.Permissions{}), in.String(), ServeOptions{Parallel: parallel})
	if len(as) != 12 {
		t.Fatalf("%d answers, want 12", len(as))
	}
	for _, a := range as {
		var n int
		if a.Observation == nil || a.Observation.Status != exec.StatusExited {
			t.Fatalf("id %s: %+v", a.ID, a)
		}
		if _, err := fmt.Sscan(a.Observation.Stdout, &n); err != nil || n < 1 || n > parallel {
			t.Errorf("id %s saw %q requests running, want 1 to %d", a.ID, a.Observation.Stdout, parallel)
		}
	}
}

func TestServeMalformed(t *testing.T) {
	cases := []struct {
		line   string
		id     string // the answer's id as JSON
		errHas string
	}{
		{`not json`, "null", `line 1: want a JSON object {"id": ..., "request": {"command": "..."}}: invalid JSON at byte 2`},
		{`[1,2]`, "null", `line 1: want a JSON object {"id": ..., "request": {"command": "..."}}, got an array`},
		{`"ls"`, "null", `, got a string`},
		{"{\"id\":7,\"request\":{\"command\":\"echo \xff\"}}", "7", "line 1: byte 35: invalid UTF-8 (send text as UTF-8); not run"},
		{"{\"id\":\"\xff\",\"request\":{\"command\":\"ls\"}}", "null", "line 1: byte 7: invalid UTF-8"},
		{"{\"id\":8,\"request\":{\"command\":\"echo \xff\"", "null", "line 1: byte 35: invalid UTF-8"},
		{`{"id":9,"request":{"command":"echo \udc00"}}`, "9", `byte 35: a \u escape names half of a UTF-16 surrogate pair`},
		{`{"id":1}`, "1", `"request": missing`},
		{`{"id":2,"request":null}`, "2", `"request": missing`},
		{`{"id":"x","request":{"command":"ls","argv":["ls"]}}`, `"x"`, "command and argv"},
		{`{"id":3,"request":{"commandd":"ls"}}`, "3", `"commandd"`},
		{`{"id":4,"request":{"command":"ls","timeout":"soon"}}`, "4", "timeout"},
		{`{"id":5,"request":{"command":"ls"},"extra":1}`, "5", `"extra"`},
		{`{"id":6,"request":"ls"}`, "6", `line 1: request: want an object such as {"command": "ls -l"} or {"argv": ["ls", "-l"]}, got a string`},
		{`{"id":6,"request":{"argv":"ls"}}`, "6", `line 1: request: field "argv": want an array of strings, got a string`},
		{`{"request":{}}`, "null", "command"},
		{`{"id":{"a":[1, 2]},"request":{}}`, `{"a":[1,2]}`, "command"},
	}
	for _, tc := range cases {
		t.Run(tc.line, func(t *testing.T) {
			as := serve(t, &exec.Runner{Sandbox: "none"}, tc.line+"\n", ServeOptions{})
			if len(as) != 1 {
				t.Fatalf("%d answers, want 1", len(as))
			}
			a := as[0]
			if id := string(a.ID); (id == "" && tc.id != "null") || (id != "" && id != tc.id) {
				t.Errorf("id %s, want %s", id, tc.id)
			}
			if a.Observation != nil || !strings.Contains(a.Error, tc.errHas) {
				t.Errorf("answer %+v, want an error containing %q", a, tc.errHas)
			}
			for _, internal := range []string{"exec.Request", "json.RawMessage", "Go value", "map["} {
				if strings.Contains(a.Error, internal) {
					t.Errorf("error %q shows Go internals (%s)", a.Error, internal)
				}
			}
		})
	}
}

// TestServeGoesOn: bad lines, blank lines and a line over the limit are
// answered (or skipped) and the good lines around them still run.
func TestServeGoesOn(t *testing.T) {
	long := `{"id":"long","request":{"command":"echo ` + strings.Repeat("x", 300) + `"}}`
	input := strings.Join([]string{
		`{"id":1,"request":{"command":"echo one"}}`,
		`garbage`,
		``,
		`   `,
		long,
		`{"id":2,"request":{"command":"echo two"}}`,
		`{"id":3,"request":{"command":"echo three"}}`, // no final newline
	}, "\n")
	as := serve(t, testRunner(t, gate.ModeYolo, gate.Permissions{}), input, ServeOptions{MaxLineBytes: 200})
	got := map[string]string{}
	for _, a := range as {
		switch {
		case a.Observation != nil:
			got[string(a.ID)] = a.Observation.Stdout
		default:
			got["error "+a.Error] = string(a.ID)
		}
	}
	want := map[string]string{
		"1": "one\n", "2": "two\n", "3": "three\n",
		`error line 2: want a JSON object {"id": ..., "request": {"command": "..."}}: invalid JSON at byte 1: invalid character 'g' looking for beginning of value`: "null",
		"error line 5: 343 bytes, longer than the limit of 200 (--max-line-bytes); not run":                                                                         `"long"`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("answers:\n%v\nwant:\n%v", got, want)
	}
}

// marker returns a sleep command no other process on the machine runs, so
// that /proc can tell whether it outlived Serve. bash may exec the sleep in
// place of itself, so the marker is in sleep's own arguments.
func marker(t *testing.T) (cmd, arg string) {
	arg = fmt.Sprintf("299.%d", time.Now().UnixNano()%1e9)
	return "sleep " + arg, arg
}

// survivors lists the processes whose command line contains arg.
func survivors(arg string) []string {
	var found []string
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err == nil && bytes.Contains(b, []byte(arg)) {
			found = append(found, filepath.Dir(d)+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return found
}

// TestServeEOFGrace: at the end of input, a request that finishes within
// the grace period is answered normally; one that does not is cancelled,
// answered with the output it had, and leaves no process behind.
func TestServeEOFGrace(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc to look for leftover processes:", err)
	}
	slow, arg := marker(t)
	input := fmt.Sprintf(`{"id":"quick","request":{"command":"sleep 0.2; echo quick"}}
{"id":"slow","request":{"command":"echo started; %s; echo never"}}
`, slow)
	start := time.Now()
	as := serve(t, testRunner(t, gate.ModeYolo, gate.Permissions{}), input, ServeOptions{Grace: time.Second})
	elapsed := time.Since(start)
	byID := map[string]*exec.Observation{}
	for _, a := range as {
		byID[string(a.ID)] = a.Observation
	}
	if q := byID[`"quick"`]; q == nil || q.Status != exec.StatusExited || q.Stdout != "quick\n" {
		t.Errorf("quick request: %+v", q)
	}
	s := byID[`"slow"`]
	if s == nil || s.Status == exec.StatusExited || s.Stdout != "started\n" {
		t.Errorf("slow request: %+v, want it cancelled with its output", s)
	}
	if elapsed > time.Minute {
		t.Errorf("serve took %v to give up on a 299s sleep", elapsed)
	}
	if left := survivors(arg); len(left) > 0 {
		t.Errorf("processes outlived serve: %v", left)
	}
}

// TestServeCancel: when ctx is done (a signal) Serve stops reading, though
// the input stays open, cancels running requests after the grace period
// and answers them.
func TestServeCancel(t *testing.T) {
	slow, arg := marker(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, testRunner(t, gate.ModeYolo, gate.Permissions{}), pr, &out, ServeOptions{Grace: 200 * time.Millisecond})
	}()
	fmt.Fprintf(pw, `{"id":1,"request":{"command":"echo started; %s"}}`+"\n", slow)
	waitFor(t, func() bool { return len(survivors(arg)) > 0 })
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Serve did not return after its context was cancelled")
	}
	as := answers(t, out.Bytes())
	if len(as) != 1 || as[0].Observation == nil || as[0].Observation.Stdout != "started\n" {
		t.Errorf("answers %+v, want the cancelled request with its output", as)
	}
	if left := survivors(arg); len(left) > 0 {
		t.Errorf("processes outlived serve: %v", left)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("timed out waiting")
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.b.Bytes())
}

func TestReadLine(t *testing.T) {
	cases := []struct {
		in   string
		max  int
		want []string // "!" marks a line too long
	}{
		{"a\nbb\n", 10, []string{"a", "bb"}},
		{"a\r\nb", 10, []string{"a", "b"}},
		{"abcdef\nab\n", 3, []string{"!", "ab"}},
		{"abc\n", 3, []string{"abc"}},
		{"abcd", 3, []string{"!"}},
		{"\n\n", 3, []string{"", ""}},
		{"\r", 3, []string{""}},
		{"", 3, nil},
		{strings.Repeat("x", 200000) + "\nok\n", 100000, []string{"!", "ok"}},
	}
	for _, tc := range cases {
		fr := &LineReader{br: bufio.NewReaderSize(strings.NewReader(tc.in), 16), max: tc.max}
		var got []string
		for {
			f, err := fr.Next()
			if err != nil {
				break
			}
			if f.TooLong {
				got = append(got, "!")
			} else {
				got = append(got, string(f.Text))
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("readLine(%.20q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}
