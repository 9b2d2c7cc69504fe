package audit

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// readRecords reads every record of the log at path.
func readRecords(t *testing.T, path string) []Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, MaxRecordBytes)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestRecordBounded: a command past MaxCommandBytes is kept as its head,
// redacted, with the length and SHA-256 of the whole redacted text; one
// at the cap is kept whole; segments are counted, never copied.
func TestRecordBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path})
	long := "export GITHUB_TOKEN=abc; cat > f <<'EOF'\n" + strings.Repeat("é line of text\n", 8000) + "EOF"
	atCap := "echo " + strings.Repeat("a", MaxCommandBytes-5)
	argv := []string{"printf", "%s", strings.Repeat("b", MaxCommandBytes)}
	segs := make([]string, 300)
	for i := range segs {
		segs[i] = long
	}
	for _, rec := range []*Record{
		{Kind: "decision", Command: long, Segments: segs},
		{Kind: "decision", Command: atCap, Segments: []string{atCap}},
		{Kind: "decision", Argv: argv},
	} {
		if err := l.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	mustVerify(t, path, VerifyOptions{})
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "GITHUB_TOKEN=abc") {
		t.Error("the secret reached the log")
	}
	if n := len(data); n > 3*MaxCommandBytes+4*MaxReasonBytes+4096 {
		t.Errorf("log of three bounded records is %d bytes", n)
	}
	recs := readRecords(t, path)
	full := Redact(long)
	sum := sha256.Sum256([]byte(full))
	r := recs[0]
	switch {
	case len(r.Command) > MaxCommandBytes || !strings.HasPrefix(full, r.Command) || !utf8.ValidString(r.Command):
		t.Errorf("long command kept as %d bytes, not a head of the redacted text", len(r.Command))
	case r.CommandBytes != int64(len(full)) || r.CommandSHA256 != hex.EncodeToString(sum[:]):
		t.Errorf("long command: bytes %d sha %s, want %d %x", r.CommandBytes, r.CommandSHA256, len(full), sum)
	case r.Segments != nil || r.SegmentCount != 300:
		t.Errorf("segments %d stored, count %d; want none stored, count 300", len(r.Segments), r.SegmentCount)
	}
	if r := recs[1]; r.Command != atCap || r.CommandBytes != 0 || r.CommandSHA256 != "" || r.SegmentCount != 1 {
		t.Errorf("command at the cap: kept %d bytes, bytes %d, sha %q, segments %d; want whole, no hash", len(r.Command), r.CommandBytes, r.CommandSHA256, r.SegmentCount)
	}
	h := sha256.New()
	for _, a := range argv {
		h.Write([]byte(a + "\x00"))
	}
	if r := recs[2]; argvBytes(r.Argv) > MaxCommandBytes || len(r.Argv) != 3 || r.Argv[0] != "printf" ||
		r.CommandBytes != int64(argvBytes(argv)) || r.CommandSHA256 != hex.EncodeToString(h.Sum(nil)) {
		t.Errorf("long argv: kept %d words of %d bytes, bytes %d; want the head within the cap and the whole hashed", len(r.Argv), argvBytes(r.Argv), r.CommandBytes)
	}
}

func TestCut(t *testing.T) {
	for _, c := range []struct {
		s    string
		max  int
		want string
	}{
		{"abc", 3, "abc"}, {"abcd", 3, "abc"}, {"aé", 2, "a"}, {"aé", 3, "aé"}, {"€€", 4, "€"}, {"€", 2, ""},
	} {
		if got := cut(c.s, c.max); got != c.want {
			t.Errorf("cut(%q, %d) = %q, want %q", c.s, c.max, got, c.want)
		}
	}
}
