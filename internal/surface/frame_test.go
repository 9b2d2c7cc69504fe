package surface

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/gate"
)

func TestIDScanner(t *testing.T) {
	tests := []struct{ in, id string }{
		{`{"id":1,"method":"x"}`, `1`},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"id":5,"x":"}"},"id":"abc"}`, `"abc"`},
		{`{"params":{"a":[{"id":2}]},"id":-3.5e2}`, `-3.5e2`},
		{` { "id" : "a\"b,}" , "x":1}`, `"a\"b,}"`},
		{`{"x":"\"id\":9","id":7}`, `7`},
		{`{"id":"long` + strings.Repeat("x", 300), ``},
		{`{"id":"` + strings.Repeat("x", 300) + `"}`, ``}, // too long to echo
		{`{"id":{"a":1}}`, ``},
		{`{"id":null}`, ``},
		{`{"id":true}`, ``},
		{`[{"id":1}]`, ``},
		{`{"method":"x"}`, ``},
		{`{"idx":1}`, ``},
		{"{\"id\":\"\xff\"}", ``},
	}
	for _, tt := range tests {
		// Fed in pieces of every size: the state carries across.
		for _, piece := range []int{1, 3, 1 << 20} {
			var s idScanner
			for i := 0; i < len(tt.in); i += piece {
				s.feed([]byte(tt.in[i:min(i+piece, len(tt.in))]))
			}
			if got := string(s.found()); got != tt.id {
				t.Errorf("idScanner(%.60q) in pieces of %d = %q, want %q", tt.in, piece, got, tt.id)
			}
		}
	}
}

// TestFrameOverSize: a line over the limit costs no more than the limit,
// is reported with its size and id, and the next line reads whole.
func TestFrameOverSize(t *testing.T) {
	big := `{"id":42,"request":{"command":"echo ` + strings.Repeat("a", 3<<20) + `"}}`
	in := big + "\r\n" + `{"id":43}` + "\n"
	fr := &LineReader{br: bufio.NewReaderSize(strings.NewReader(in), 4096), max: 1 << 10}
	f, err := fr.Next()
	if err != nil || !f.TooLong || f.Text != nil || f.Size != int64(len(big)+1) || string(f.ID) != "42" {
		t.Fatalf("big frame: %v tooLong=%v kept=%d size=%d id=%s", err, f.TooLong, len(f.Text), f.Size, f.ID)
	}
	f, err = fr.Next()
	if err != nil || f.TooLong || string(f.Text) != `{"id":43}` || f.N != 2 {
		t.Fatalf("next frame: %v %+v", err, f)
	}
}

// TestServeInvalidUTF8RunsNothing: a request whose text is not UTF-8 is
// refused and nothing runs; the valid line after it runs.
func TestServeInvalidUTF8RunsNothing(t *testing.T) {
	dir := t.TempDir()
	r := testRunner(t, gate.ModeYolo, gate.Permissions{})
	r.Cwd = dir
	in := "{\"id\":1,\"request\":{\"command\":\"echo \xff > made\"}}\n" +
		`{"id":2,"request":{"command":"echo \udc00 > made2"}}` + "\n" +
		`{"id":3,"request":{"command":"echo ok > control"}}` + "\n"
	as := serve(t, r, in, ServeOptions{})
	errs := map[string]string{}
	for _, a := range as {
		errs[string(a.ID)] = a.Error
	}
	for _, name := range []string{"made", "made2"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was written: a request with invalid text ran", name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "control")); err != nil {
		t.Errorf("the valid request did not run: %v", err)
	}
	if !strings.Contains(errs["1"], "byte 35: invalid UTF-8") || !strings.Contains(errs["2"], "byte 35: a \\u escape") || errs["3"] != "" {
		t.Errorf("answers: %q", errs)
	}
}
