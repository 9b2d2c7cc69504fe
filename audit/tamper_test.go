package audit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tamperKey is the key of the keyed logs; the attacker does not have it.
var tamperKey = []byte("0123456789abcdef0123456789abcdef")

// tamperLog writes 12 records as six short-lived writers do (two records
// each, then Close, as `agentexec run` does): anchors at seq 1, 2, 4, ...
// 12. It returns the log's path.
func tamperLog(t *testing.T, key []byte) string {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	for range 6 {
		writeLog(t, Options{Path: path, Key: key}, 2)
	}
	return path
}

// cutLog keeps the first n records of the log.
func cutLog(t *testing.T, path string, n int) {
	writeLines(t, path, readLines(t, path)[:n])
}

// cutAnchors keeps the anchors for seqs up to n, as an attacker cutting
// the anchors file in step with the log does.
func cutAnchors(t *testing.T, path string, n uint64) {
	var keep [][]byte
	for _, l := range readLines(t, path+".anchors") {
		var a Anchor
		json.Unmarshal(l, &a)
		if a.Seq <= n {
			keep = append(keep, l)
		}
	}
	writeLines(t, path+".anchors", keep)
}

// forgeAnchor appends an anchor for record n copied from the log itself:
// all an attacker without the key can write.
func forgeAnchor(t *testing.T, path string, n int) {
	rec, _ := parseLine(readLines(t, path)[n-1])
	line, _ := json.Marshal(Anchor{Seq: rec.Seq, Hash: rec.Hash, File: "audit.jsonl", Time: rec.Time})
	f, err := os.OpenFile(path+".anchors", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(append(line, '\n'))
	f.Close()
}

// rechain rewrites an unkeyed log from record n on as an attacker with
// write access can: edited, every hash recomputed, and a fresh anchors
// file vouching for the new chain.
func rechain(t *testing.T, path string, n int) {
	lines := readLines(t, path)
	prev := ""
	var anchors [][]byte
	for i, l := range lines {
		rec, _ := parseLine(l)
		if i+1 >= n {
			rec.Command = "echo nothing to see"
		}
		rec.Prev = prev
		line, _ := seal(&rec, nil)
		lines[i], prev = line[:len(line)-1], rec.Hash
		if rec.Seq == 1 || rec.Seq == uint64(len(lines)) {
			a, _ := json.Marshal(Anchor{Seq: rec.Seq, Hash: rec.Hash, File: "audit.jsonl", Time: rec.Time})
			anchors = append(anchors, a)
		}
	}
	writeLines(t, path, lines)
	writeLines(t, path+".anchors", anchors)
}

// TestTamper is the tamper suite: what verify reports for each way an
// attacker who can write the log's directory, but has no key, may cut or
// rewrite it, for an unkeyed and a keyed log. An outcome is "intact" (not
// detected: the documented limit, see the package doc) or a piece of the
// reason of the break ("": any break). Each case also runs with ExpectSeq 12, the last seq
// kept where the attacker cannot write, which detects every cut.
func TestTamper(t *testing.T) {
	tests := []struct {
		name            string
		tamper          func(t *testing.T, path string)
		unkeyed, keyed  string
		cutWithExpect12 bool // a cut: ExpectSeq 12 detects what nothing else does
	}{
		{"untouched", func(*testing.T, string) {}, "intact", "intact", false},
		{"log cut to 6", func(t *testing.T, p string) { cutLog(t, p, 6) },
			"anchors seq 12 (records were cut off the end)", "anchors seq 12", true},
		{"anchors deleted", func(t *testing.T, p string) { os.Remove(p + ".anchors") },
			"missing: the log has 12 records but no anchors file", "missing", false},
		{"log cut to 6, anchors deleted", func(t *testing.T, p string) { cutLog(t, p, 6); os.Remove(p + ".anchors") },
			"missing: the log has 6 records but no anchors file", "missing", true},
		{"log cut to 6, anchors emptied", func(t *testing.T, p string) { cutLog(t, p, 6); writeLines(t, p+".anchors", nil) },
			"invalid anchor", "invalid anchor", true},
		{"log cut to 6, anchors truncated to nothing", func(t *testing.T, p string) { cutLog(t, p, 6); os.Truncate(p+".anchors", 0) },
			"holds no anchor for a log of 6 records", "holds no anchor", true},
		{"log cut to 6, anchors cut in step", func(t *testing.T, p string) { cutLog(t, p, 6); cutAnchors(t, p, 6) },
			"intact", "intact", true},
		{"log cut to 5, anchors cut in step (last anchor at 4)", func(t *testing.T, p string) { cutLog(t, p, 5); cutAnchors(t, p, 5) },
			"intact", "intact", true},
		{"log cut to 5, anchors cut in step, anchor for 5 forged", func(t *testing.T, p string) {
			cutLog(t, p, 5)
			cutAnchors(t, p, 5)
			forgeAnchor(t, p, 5)
		}, "intact", "anchor for seq 5 is not sealed with the key", true},
		{"log cut to 6, anchors replaced by one for seq 6", func(t *testing.T, p string) {
			cutLog(t, p, 6)
			os.Remove(p + ".anchors")
			forgeAnchor(t, p, 6)
		}, "the first anchor is for seq 6, not 1", "not sealed with the key", true},
		{"log cut to 6, anchors cut in step, log written on", func(t *testing.T, p string) {
			cutLog(t, p, 6)
			writeLog(t, Options{Path: p, Key: keyOf(p)}, 1)
		}, "anchor for seq 7 follows one for seq 12", "follows one for seq 12", false},
	}
	for _, tt := range tests {
		for _, keyed := range []bool{false, true} {
			name := tt.name + map[bool]string{false: "/unkeyed", true: "/keyed"}[keyed]
			t.Run(name, func(t *testing.T) {
				var key []byte
				want := tt.unkeyed
				if keyed {
					key, want = tamperKey, tt.keyed
				}
				path := tamperLog(t, key)
				if keyed {
					os.WriteFile(path+".key", key, 0o600) // for keyOf
				}
				tt.tamper(t, path)
				checkOutcome(t, path, VerifyOptions{Key: key}, want)
				switch {
				case tt.cutWithExpect12 && want == "intact":
					checkOutcome(t, path, VerifyOptions{Key: key, ExpectSeq: 12}, "but seq 12 was expected")
				case tt.cutWithExpect12:
					checkOutcome(t, path, VerifyOptions{Key: key, ExpectSeq: 12}, "") // a break, whichever is named
				case want == "intact":
					checkOutcome(t, path, VerifyOptions{Key: key, ExpectSeq: 12}, "intact")
				}
			})
		}
	}
}

// keyOf reads the key a tamperLog left beside a keyed log (nil: unkeyed):
// what the log's own writer, not the attacker, holds.
func keyOf(path string) []byte {
	k, err := os.ReadFile(path + ".key")
	if err != nil {
		return nil
	}
	return k
}

func checkOutcome(t *testing.T, path string, opt VerifyOptions, want string) {
	t.Helper()
	rep, err := Verify(path, opt)
	switch {
	case want == "intact" && err != nil:
		t.Errorf("expect-seq %d: %v, want intact", opt.ExpectSeq, err)
	case want != "intact" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("expect-seq %d: %v (%s), want a break with %q", opt.ExpectSeq, err, rep, want)
	}
}

// TestTamperBothRestored: the log and its anchors both put back to a
// consistent earlier state (copies taken at 6 records) verify intact,
// keyed or not: only a seq kept elsewhere shows it.
func TestTamperBothRestored(t *testing.T) {
	for _, key := range [][]byte{nil, tamperKey} {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		for range 3 {
			writeLog(t, Options{Path: path, Key: key}, 2)
		}
		logAt6, _ := os.ReadFile(path)
		anchorsAt6, _ := os.ReadFile(path + ".anchors")
		for range 3 {
			writeLog(t, Options{Path: path, Key: key}, 2)
		}
		os.WriteFile(path, logAt6, 0o600)
		os.WriteFile(path+".anchors", anchorsAt6, 0o600)
		checkOutcome(t, path, VerifyOptions{Key: key}, "intact")
		checkOutcome(t, path, VerifyOptions{Key: key, ExpectSeq: 12}, "log ends at seq 6, but seq 12 was expected")
	}
}

// TestTamperRechained: an unkeyed log rewritten with recomputed hashes
// and anchors verifies intact (anyone can recompute sha256); the same
// edit of a keyed log cannot be resealed without the key.
func TestTamperRechained(t *testing.T) {
	path := tamperLog(t, nil)
	rechain(t, path, 4)
	checkOutcome(t, path, VerifyOptions{}, "intact")
	if data, _ := os.ReadFile(path); !bytes.Contains(data, []byte("nothing to see")) {
		t.Fatal("the rewrite did not happen")
	}
	keyed := tamperLog(t, tamperKey)
	lines := readLines(t, keyed)
	lines[3] = bytes.Replace(lines[3], []byte(`"kind":"run"`), []byte(`"kind":"ran"`), 1)
	writeLines(t, keyed, lines)
	checkOutcome(t, keyed, VerifyOptions{Key: tamperKey}, "line 4: hash mismatch")
}

// TestWriterRefusesUnanchored: a writer does not extend a log whose
// anchors were deleted or emptied, nor anchor into an anchors file that
// was removed while it was open.
func TestWriterRefusesUnanchored(t *testing.T) {
	path := tamperLog(t, nil)
	os.Remove(path + ".anchors")
	if _, err := Open(Options{Path: path}); err == nil || !strings.Contains(err.Error(), "holds no anchor") {
		t.Errorf("anchors deleted: Open = %v", err)
	}
	os.WriteFile(path+".anchors", nil, 0o600)
	if _, err := Open(Options{Path: path}); err == nil || !strings.Contains(err.Error(), "holds no anchor") {
		t.Errorf("anchors emptied: Open = %v", err)
	}

	path = tamperLog(t, nil)
	l := openLog(t, Options{Path: path, AnchorEvery: 2})
	os.Remove(path + ".anchors")
	appendN(t, l, 1)
	if err := l.Append(&Record{Kind: "run"}); err == nil || !strings.Contains(err.Error(), "removed or replaced") {
		t.Errorf("anchors removed while open: Append = %v", err)
	}
	l.Close()

	// A new log starts its anchors with its first record.
	fresh := filepath.Join(t.TempDir(), "audit.jsonl")
	writeLog(t, Options{Path: fresh, AnchorEvery: 1000}, 3)
	if rep := mustVerify(t, fresh, VerifyOptions{}); rep.Anchors != 2 || rep.LastAnchor != 3 {
		t.Errorf("fresh log: %+v", rep)
	}
}
