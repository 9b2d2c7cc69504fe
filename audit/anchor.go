package audit

import (
	"bufio"
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
type Anchor struct {
	Seq  uint64 `json:"seq"`
	Hash string `json:"hash"`
	File string `json:"file"` // base name of the log the record was appended to
	Time string `json:"time"`
}

// anchor appends h to the anchors file. Call it holding the lock.
func (l *Log) anchor(h head) error {
	if err := l.repairAnchors(); err != nil {
		return err
	}
	line, err := json.Marshal(Anchor{Seq: h.seq, Hash: h.hash, File: l.base, Time: time.Now().UTC().Format(timeLayout)})
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

// anchorRef is an anchor and the line of the anchors file it came from.
type anchorRef struct {
	Anchor
	line int
}

// readAnchors reads an anchors file into a map by sequence number. A
// missing file is no anchors; a torn last line is ignored, since a writer
// may have died writing it.
func readAnchors(path string) (map[uint64]anchorRef, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseAnchors(path, f)
}

// parseAnchors reads anchors from rd; path names it in errors.
func parseAnchors(path string, rd io.Reader) (map[uint64]anchorRef, error) {
	anchors := map[uint64]anchorRef{}
	r := bufio.NewReader(rd)
	for n := 1; ; n++ {
		b, err := r.ReadBytes('\n')
		if err == io.EOF {
			return anchors, nil
		}
		if err != nil {
			return nil, err
		}
		if err := addAnchor(anchors, b, n, path); err != nil {
			return nil, err
		}
	}
}

func addAnchor(anchors map[uint64]anchorRef, b []byte, n int, path string) error {
	var a Anchor
	if err := json.Unmarshal(b, &a); err != nil {
		return &ChainError{File: path, Line: n, Reason: "invalid anchor (" + err.Error() + ")"}
	}
	if !isHexHash(a.Hash) || a.Seq == 0 {
		return &ChainError{File: path, Line: n, Reason: "invalid anchor (seq 0 or a malformed hash)"}
	}
	if old, ok := anchors[a.Seq]; ok && old.Hash != a.Hash {
		return &ChainError{File: path, Line: n, Seq: a.Seq, Reason: fmt.Sprintf("anchor for seq %d disagrees with line %d", a.Seq, old.line)}
	} else if ok {
		return nil
	}
	anchors[a.Seq] = anchorRef{a, n}
	return nil
}
