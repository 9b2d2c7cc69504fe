package audit

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Anchor is one line of PATH.anchors: the head of the chain at some point.
// A log whose records stop short of an anchor's Seq, or whose record at Seq
// has another hash, lost or rewrote records after the anchor was written.
//
// In a keyed log each anchor carries MAC, an HMAC-SHA-256 with the log's
// key over the anchor's other fields: without the key nobody can write an
// anchor, so an anchors file cannot be made to vouch for a cut the writer
// never anchored. The writer anchors seq 1, every AnchorEvery records and
// its last record at Close, so the anchors of an untouched log start at
// seq 1 and rise.
type Anchor struct {
	Seq  uint64 `json:"seq"`
	Hash string `json:"hash"`
	File string `json:"file"` // base name of the log the record was appended to
	Time string `json:"time"`
	MAC  string `json:"mac,omitempty"` // keyed logs: hex HMAC-SHA-256 (see anchorMAC)
}

// anchorMAC is the MAC of a keyed anchor: hex HMAC-SHA-256 over
// "agentexec anchor\n" and the anchor's JSON without its MAC, the prefix
// keeping it apart from a record hash made with the same key.
func anchorMAC(a Anchor, key []byte) string {
	a.MAC = ""
	b, _ := json.Marshal(a)
	m := hmac.New(sha256.New, key)
	m.Write([]byte("agentexec anchor\n"))
	m.Write(b)
	return hex.EncodeToString(m.Sum(nil))
}

// anchor appends h to the anchors file. Call it holding the lock.
func (l *Log) anchor(h head) error {
	if err := l.sameAnchors(); err != nil {
		return err
	}
	if err := l.repairAnchors(); err != nil {
		return err
	}
	a := Anchor{Seq: h.seq, Hash: h.hash, File: l.base, Time: time.Now().UTC().Format(timeLayout)}
	if l.opt.Key != nil {
		a.MAC = anchorMAC(a, l.opt.Key)
	}
	line, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("audit: anchor: %w", err)
	}
	if _, err := l.anchors.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("audit: anchor: %w", err)
	}
	l.dirty = false
	if l.opt.NoSync {
		return nil
	}
	return l.anchors.Sync()
}

// sameAnchors fails when PATH.anchors is no longer the file this Log
// opened (removed or replaced): anchors written on into the old file would
// be lost, and those in a new one would start past seq 1.
func (l *Log) sameAnchors() error {
	fi, err := l.anchors.Stat()
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	pfi, err := os.Stat(l.anchors.Name())
	if err != nil || !os.SameFile(fi, pfi) {
		return fmt.Errorf("audit: %s was removed or replaced while the log was open; run 'agentexec audit verify', then move the log aside", l.anchors.Name())
	}
	return nil
}

// repairAnchors moves a torn last anchor line aside, as for the log.
func (l *Log) repairAnchors() error {
	fi, err := l.anchors.Stat()
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	end, err := lastNewline(l.anchors, fi.Size())
	if err != nil {
		return fmt.Errorf("audit: read %s: %w", l.anchors.Name(), err)
	}
	if end == fi.Size() {
		return nil
	}
	return l.repairTorn(l.anchors, end, fi.Size())
}

// checkAnchored refuses to extend a log with records whose anchors file
// holds no anchor (it was deleted, emptied or never written): anchoring
// from here on would make the anchors look whole while records cut off the
// end before now could no longer be detected. Call it holding the lock,
// with the head read.
func (l *Log) checkAnchored(h head) error {
	if h.seq == 0 {
		return nil
	}
	fi, err := l.anchors.Stat()
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if end, err := lastNewline(l.anchors, fi.Size()); err != nil || end > 0 {
		return err
	}
	return fmt.Errorf("audit: %s: refusing to extend the chain: the log has records up to seq %d but its anchors file holds no anchor (deleted or emptied?), so records cut off its end could not be detected; run 'agentexec audit verify', then move the log aside", l.opt.Path, h.seq)
}

// anchorRef is an anchor and the line of the anchors file it came from.
type anchorRef struct {
	Anchor
	line int
}

// anchorStream reads an anchors file in order, one anchor at a time, so
// verifying costs the same memory for a log of any length. It checks what
// an anchor line can be checked for alone and against the one before:
// valid JSON, a well-formed hash, seq 1 first, seqs that never fall, two
// anchors for one seq agreeing, and, with a key, every MAC.
type anchorStream struct {
	path    string
	missing bool // no anchors file at all
	r       *bufio.Reader
	f       io.Closer
	key     []byte // nil: MACs unchecked
	line    int
	peeked  *anchorRef
	prev    *anchorRef
	err     error // sticky
	read    int   // anchors read
}

// openAnchors opens path for streaming; a missing file is a stream that
// reports missing and holds no anchor.
func openAnchors(path string, key []byte) (*anchorStream, error) {
	s := &anchorStream{path: path, key: key}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		s.missing = true
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	s.r, s.f = bufio.NewReaderSize(f, 32<<10), f
	return s, nil
}

// newAnchorStream streams anchors from rd; path names it in errors.
func newAnchorStream(path string, rd io.Reader, key []byte) *anchorStream {
	return &anchorStream{path: path, r: bufio.NewReaderSize(rd, 32<<10), key: key}
}

func (s *anchorStream) close() {
	if s.f != nil {
		s.f.Close()
	}
}

// peek returns the next anchor without consuming it; nil at the end. A
// torn last line is ignored, since a writer may have died writing it.
func (s *anchorStream) peek() (*anchorRef, error) {
	if s.peeked != nil || s.err != nil || s.r == nil {
		return s.peeked, s.err
	}
	for {
		b, _, tooLong, err := readBounded(s.r, maxAnchorBytes)
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			s.err = err
			return nil, err
		}
		s.line++
		if tooLong {
			s.err = s.fail("an anchor line longer than %d bytes (edited)", maxAnchorBytes)
			return nil, s.err
		}
		a, err := s.parse(b)
		if err != nil {
			s.err = err
			return nil, err
		}
		if a != nil {
			s.peeked = a
			return a, nil
		}
	}
}

// pop consumes the anchor peek returned.
func (s *anchorStream) pop() {
	if s.peeked != nil {
		s.prev, s.peeked = s.peeked, nil
		s.read++
	}
}

// maxAnchorBytes bounds one anchor line: a real one is about 200 bytes.
const maxAnchorBytes = 4 << 10

// parse checks one anchor line; it returns nil for a repeat of the anchor
// before (Close anchors a head already anchored).
func (s *anchorStream) parse(b []byte) (*anchorRef, error) {
	var a Anchor
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, s.fail("invalid anchor (%v)", err)
	}
	ref := &anchorRef{a, s.line}
	switch {
	case !isHexHash(a.Hash) || a.Seq == 0:
		return nil, s.fail("invalid anchor (seq 0 or a malformed hash)")
	case s.key != nil && a.MAC != anchorMAC(a, s.key):
		return nil, s.fail("anchor for seq %d is not sealed with the key (forged, edited, or the wrong key)", a.Seq)
	case s.prev == nil && s.read == 0 && a.Seq != 1:
		return nil, s.fail("the first anchor is for seq %d, not 1: the anchors file was deleted and started again, or cut at its head", a.Seq)
	case s.prev != nil && a.Seq < s.prev.Seq:
		return nil, s.fail("anchor for seq %d follows one for seq %d: records were cut off the end and the log written on, or the anchors were edited", a.Seq, s.prev.Seq)
	case s.prev != nil && a.Seq == s.prev.Seq && a.Hash != s.prev.Hash:
		return nil, s.fail("anchor for seq %d disagrees with line %d", a.Seq, s.prev.line)
	case s.prev != nil && a.Seq == s.prev.Seq:
		return nil, nil
	}
	return ref, nil
}

func (s *anchorStream) fail(format string, args ...any) error {
	return &ChainError{File: s.path, Line: s.line, Reason: fmt.Sprintf(format, args...)}
}

// readBounded reads one line, "\n" included, of at most max bytes; a
// longer line is consumed to its end but not kept (tooLong, line nil). n
// is the bytes consumed either way. It returns io.EOF at the end of input
// and for a last line without "\n" (a torn line: the caller decides), with
// that line's bytes.
func readBounded(r *bufio.Reader, max int) (line []byte, n int64, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		n += int64(len(chunk))
		if !tooLong && len(line)+len(chunk) <= max {
			line = append(line, chunk...)
		} else if !tooLong {
			tooLong, line = true, nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, n, tooLong, err
	}
}
