package audit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ErrKeyRequired is returned by Verify for a keyed (hmac-sha256) chain
// checked without the key: links, sequence numbers, canonical form and
// anchors were checked and are intact, but the hashes could not be, so the
// log's authenticity is not proven.
var ErrKeyRequired = errors.New("audit: keyed chain (hmac-sha256) and no key given: links, sequence and anchors are intact, but authenticity is not verified")

// ChainError is the first break Verify found. It is returned as a pointer.
type ChainError struct {
	File   string // the file the break is in (a log file or its anchors file)
	Line   int    // 1-based line number in File; 0 when no one line is at fault
	Seq    uint64 // the record's sequence number, when it could be read
	Reason string
	// Torn marks an incomplete last line, the mark of a writer interrupted
	// mid-write: the next writer moves it to PATH.torn and the chain is
	// whole again. It is the only break a crash can cause.
	Torn bool
}

func (e *ChainError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Reason)
	}
	return fmt.Sprintf("%s: line %d: %s", e.File, e.Line, e.Reason)
}

// IsTorn reports whether err is a *ChainError for a torn last line only.
func IsTorn(err error) bool {
	var ce *ChainError
	return errors.As(err, &ce) && ce.Torn
}

// VerifyOptions configure Verify.
type VerifyOptions struct {
	// Key verifies an hmac-sha256 chain. With a key, an unkeyed (sha256)
	// record is a break: an attacker who can write the log must not be
	// able to replace a keyed chain with a recomputed unkeyed one. Every
	// anchor must then carry a MAC made with the key.
	Key []byte
	// ExpectSeq, when not 0, is a sequence number the log is known to have
	// reached, kept where the agent cannot write (shipped off the machine
	// from an earlier Verify's summary): a log ending before it was cut.
	// It is the only defense against a log and its anchors cut in step.
	ExpectSeq uint64
}

// Report summarizes a verified chain. Verify fills it as far as it got,
// also when it returns an error.
type Report struct {
	Files    []string // the chain's files, in order
	Records  int
	FirstSeq uint64
	LastSeq  uint64
	LastHash string
	Alg      string // AlgSHA256 or AlgHMACSHA256; "" for an empty log
	// Authenticated is true when every record's hash was recomputed: always
	// for sha256, only with the key for hmac-sha256.
	Authenticated bool
	Anchors       int    // anchors matched against a record
	LastAnchor    uint64 // the highest anchored seq; records after it are not yet anchored
}

// String is the one-line summary verify prints for an intact chain.
func (r *Report) String() string {
	alg := "empty"
	switch {
	case r.Alg == AlgSHA256:
		alg = "sha256 (unkeyed)"
	case r.Alg == AlgHMACSHA256 && r.Authenticated:
		alg = "hmac-sha256 (keyed)"
	case r.Alg == AlgHMACSHA256:
		alg = "hmac-sha256 (keyed, NOT authenticated: no key)"
	}
	anchored := ""
	if r.LastAnchor > 0 {
		anchored = fmt.Sprintf(" (last at seq %d)", r.LastAnchor)
	}
	return fmt.Sprintf("%d records (seq %d-%d) in %d file(s), chain intact, %d anchors ok%s, %s",
		r.Records, r.FirstSeq, r.LastSeq, len(r.Files), r.Anchors, anchored, alg)
}

// MaxRecordBytes bounds one line of the log: Append refuses a longer
// record, and Verify and the readers hold at most one line of this size
// (a longer one is a break, read to its end without being kept), so their
// memory is bounded whatever the log holds.
const MaxRecordBytes = 16 << 20

// Verify checks the chain whose current file is path (its rotated files
// PATH.N first, then path): every line is canonical JSON, every hash
// recomputes, every record's prev is the previous record's hash (the first
// record's is ""), sequence numbers start at 1 and rise by exactly 1, the
// algorithm never changes; and the anchors in PATH.anchors: the file
// exists and holds an anchor when the log has records, anchors start at
// seq 1 and never fall, each matches the record with its sequence number,
// none lies past the end, and with a key each is sealed with it. With
// ExpectSeq the log must reach that seq.
//
// It streams: memory stays bounded whatever the log's length. It returns
// nil for an intact chain; a *ChainError naming the first broken line and
// why; ErrKeyRequired for an intact keyed chain checked without the key;
// or an I/O error.
func Verify(path string, opt VerifyOptions) (*Report, error) {
	rep := &Report{Authenticated: true}
	files, err := ChainFiles(path)
	if err != nil {
		return rep, err
	}
	rep.Files = files
	anchors, err := openAnchors(path+".anchors", opt.Key)
	if err != nil {
		return rep, err
	}
	defer anchors.close()
	v := &verifier{key: opt.Key, rep: rep, anchors: anchors}
	var torn error
	for i, f := range files {
		if err := v.file(f, i == len(files)-1); IsTorn(err) {
			torn = err
		} else if err != nil {
			return rep, err
		}
	}
	if err := v.end(torn, opt.ExpectSeq); err != nil {
		return rep, err
	}
	if torn != nil {
		return rep, torn
	}
	if !rep.Authenticated {
		return rep, ErrKeyRequired
	}
	return rep, nil
}

// verifier carries the chain state from line to line and file to file.
type verifier struct {
	key      []byte
	rep      *Report
	anchors  *anchorStream
	lastFile string
	lastLine int
}

// file verifies one file of the chain; only the last may end torn.
func (v *verifier) file(path string, last bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return v.lines(path, f, last)
}

// lines verifies the lines of one file read from rd.
func (v *verifier) lines(path string, rd io.Reader, last bool) error {
	v.lastFile, v.lastLine = path, 0
	r := bufio.NewReaderSize(rd, 64<<10)
	for n := 1; ; n++ {
		b, _, tooLong, err := readBounded(r, MaxRecordBytes)
		switch {
		case err == io.EOF && len(b) == 0 && !tooLong:
			return nil
		case err == io.EOF:
			return v.torn(path, n, last)
		case err != nil:
			return err
		case tooLong:
			return &ChainError{File: path, Line: n, Reason: fmt.Sprintf("a line longer than %d bytes (not a record the writer writes)", MaxRecordBytes)}
		}
		if err := v.record(path, n, b[:len(b)-1]); err != nil {
			return err
		}
		v.lastLine = n
	}
}

func (v *verifier) torn(path string, n int, last bool) error {
	if !last {
		return &ChainError{File: path, Line: n, Reason: "last line has no newline in a rotated file (edited)"}
	}
	return &ChainError{File: path, Line: n, Torn: true,
		Reason: "torn last line (an interrupted write; the next writer moves it to " + filepath.Base(path) + ".torn)"}
}

// record checks one line against the chain so far and advances it.
func (v *verifier) record(path string, n int, line []byte) error {
	rec, why := parseLine(line)
	if why == "" {
		why = v.alg(&rec)
	}
	if why == "" {
		why = v.hash(line, &rec)
	}
	if why == "" {
		why = v.link(&rec)
	}
	if why != "" {
		return &ChainError{File: path, Line: n, Seq: rec.Seq, Reason: why}
	}
	if err := v.anchor(path, n, &rec); err != nil {
		return err
	}
	r := v.rep
	if r.Records == 0 {
		r.FirstSeq = rec.Seq
	}
	r.Records++
	r.LastSeq, r.LastHash = rec.Seq, rec.Hash
	return nil
}

func (v *verifier) alg(rec *Record) string {
	switch {
	case v.key != nil && rec.Alg != AlgHMACSHA256:
		return fmt.Sprintf("unkeyed record (%s) in a log verified with a key (a keyed log must not be downgraded)", rec.Alg)
	case v.rep.Alg != "" && rec.Alg != v.rep.Alg:
		return fmt.Sprintf("alg changes from %s to %s (a chain never changes algorithm)", v.rep.Alg, rec.Alg)
	}
	v.rep.Alg = rec.Alg
	return ""
}

func (v *verifier) hash(line []byte, rec *Record) string {
	if rec.Alg == AlgHMACSHA256 && v.key == nil {
		v.rep.Authenticated = false
		return ""
	}
	if lineSum(line, rec.Hash, v.key) == rec.Hash {
		return ""
	}
	if v.key != nil {
		return "hash mismatch (record edited, or the wrong key)"
	}
	return "hash mismatch (record edited)"
}

func (v *verifier) link(rec *Record) string {
	r := v.rep
	switch {
	case r.Records == 0 && rec.Seq != 1:
		return fmt.Sprintf("chain starts at seq %d, not 1 (records cut off the head, or a rotated file is missing)", rec.Seq)
	case r.Records == 0 && rec.Prev != "":
		return "first record's prev is not empty (records cut off the head, or a rotated file is missing)"
	case r.Records == 0:
		return ""
	case rec.Seq != r.LastSeq+1:
		return fmt.Sprintf("sequence number %d follows %d (a record was removed, duplicated or reordered)", rec.Seq, r.LastSeq)
	case rec.Prev != r.LastHash:
		return "prev is not the previous record's hash (a record was removed, inserted or reordered)"
	}
	return ""
}

// anchor matches the anchors for rec's seq, which come next in the stream
// (anchors rise, records are contiguous from 1).
func (v *verifier) anchor(path string, n int, rec *Record) error {
	for {
		a, err := v.anchors.peek()
		if err != nil || a == nil || a.Seq > rec.Seq {
			return err
		}
		if a.Seq < rec.Seq || a.Hash != rec.Hash {
			return &ChainError{File: path, Line: n, Seq: rec.Seq,
				Reason: fmt.Sprintf("seq %d does not match its anchor (%s line %d): records were rewritten", a.Seq, filepath.Base(v.anchors.path), a.line)}
		}
		v.anchors.pop()
		v.rep.Anchors++
		v.rep.LastAnchor = a.Seq
	}
}

// end checks what can only be checked once every record is read: an
// anchors file that is missing or empty while the log has records, an
// anchor past the last record, and a log ending before ExpectSeq; all are
// records cut off the end, or hidden cuts.
//
// When the log ends torn, the break is named at the torn line: the anchor
// vouches for a record that is no longer whole.
func (v *verifier) end(torn error, expect uint64) error {
	e := &ChainError{File: v.lastFile, Line: v.lastLine, Seq: v.rep.LastSeq}
	base := filepath.Base(v.anchors.path)
	switch worst, err := v.pastEnd(); {
	case err != nil:
		return err
	case worst != nil:
		e.Reason = fmt.Sprintf("log ends at seq %d, but %s line %d anchors seq %d (records were cut off the end)",
			v.rep.LastSeq, base, worst.line, worst.Seq)
	case expect > v.rep.LastSeq:
		e.Reason = fmt.Sprintf("log ends at seq %d, but seq %d was expected (records were cut off the end, the anchors in step)", v.rep.LastSeq, expect)
	case v.rep.Records > 0 && v.anchors.missing:
		e.File, e.Line, e.Seq = v.anchors.path, 0, 0
		e.Reason = fmt.Sprintf("missing: the log has %d records but no anchors file, so records cut off its end cannot be detected (deleted? compare the last seq with one kept elsewhere: --expect-seq)", v.rep.Records)
	case v.rep.Records > 0 && v.rep.Anchors == 0:
		e.File, e.Line, e.Seq = v.anchors.path, 0, 0
		e.Reason = fmt.Sprintf("holds no anchor for a log of %d records, so records cut off its end cannot be detected (emptied? compare the last seq with one kept elsewhere: --expect-seq)", v.rep.Records)
	default:
		return nil
	}
	var ce *ChainError
	if errors.As(torn, &ce) && e.File == v.lastFile {
		e.File, e.Line = ce.File, ce.Line
		e.Reason = "torn last line, and " + e.Reason
	}
	return e
}

// pastEnd drains the anchors after the last record and returns the one
// with the highest seq, or nil.
func (v *verifier) pastEnd() (*anchorRef, error) {
	var worst *anchorRef
	for {
		a, err := v.anchors.peek()
		if err != nil || a == nil {
			return worst, err
		}
		worst = a
		v.anchors.pop()
	}
}

// VerifyTargets expands verify's arguments: a directory stands for every
// *.jsonl log in it.
func VerifyTargets(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil || !fi.IsDir() {
		return []string{path}, nil
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".jsonl") && e.Type().IsRegular() {
			out = append(out, filepath.Join(path, e.Name()))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("audit: no *.jsonl log in %s", path)
	}
	return out, nil
}
