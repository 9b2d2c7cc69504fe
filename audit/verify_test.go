package audit

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"
)

// verifyBytes runs the verifier over one in-memory log file and its
// anchors, as Verify does over files.
func verifyBytes(log, anchors []byte, key []byte) (*Report, error) {
	rep := &Report{Authenticated: true, Files: []string{"audit.jsonl"}}
	v := &verifier{key: key, rep: rep, anchors: newAnchorStream("audit.jsonl.anchors", bytes.NewReader(anchors), key)}
	err := v.lines("audit.jsonl", bytes.NewReader(log), true)
	if err != nil && !IsTorn(err) {
		return rep, err
	}
	if perr := v.end(err, 0); perr != nil {
		return rep, perr
	}
	return rep, err
}

// FuzzVerify: arbitrary log and anchors contents never panic the verifier,
// and whatever it accepts re-verifies line by line: every accepted line is
// canonical and chains to the one before.
func FuzzVerify(f *testing.F) {
	f.Add([]byte(""), []byte(""))
	f.Add([]byte("{}\n"), []byte("{}\n"))
	f.Fuzz(func(t *testing.T, log, anchors []byte) {
		for _, key := range [][]byte{nil, []byte("0123456789abcdef")} {
			rep, err := verifyBytes(log, anchors, key)
			if err != nil {
				continue
			}
			if rep.Records > 0 && rep.Alg == "" {
				t.Fatalf("accepted %d records without an alg", rep.Records)
			}
			if rep.Records != bytes.Count(log, []byte("\n")) {
				t.Fatalf("accepted %d records in %d lines", rep.Records, bytes.Count(log, []byte("\n")))
			}
		}
	})
}

func BenchmarkVerify(b *testing.B) {
	path := filepath.Join(b.TempDir(), "audit.jsonl")
	const n = 5000
	writeLog(b, Options{Path: path, NoSync: true}, n)
	start := time.Now()
	for b.Loop() {
		if _, err := Verify(path, VerifyOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*n)/time.Since(start).Seconds(), "records/s")
}
