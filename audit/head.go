package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// current makes l.f the file at l.opt.Path (reopening it when another
// writer rotated it away), repairs a torn tail, and returns its head. Call
// it holding the lock.
func (l *Log) current() (head, error) {
	fi, err := l.f.Stat()
	if err != nil {
		return head{}, fmt.Errorf("audit: %w", err)
	}
	pfi, err := os.Stat(l.opt.Path)
	if err != nil || !os.SameFile(fi, pfi) {
		if err := l.reopen(); err != nil {
			return head{}, err
		}
		if fi, err = l.f.Stat(); err != nil {
			return head{}, fmt.Errorf("audit: %w", err)
		}
	}
	if l.head.valid && fi.Size() == l.head.size {
		return l.head, nil // nobody appended since our last record
	}
	h, err := l.readHead(fi.Size())
	l.head = h
	return h, err
}

func (l *Log) reopen() error {
	l.head = head{}
	f, err := openPrivate(l.opt.Path, os.O_RDWR|os.O_APPEND)
	if err != nil {
		return err
	}
	l.f.Close()
	l.f = f
	return nil
}

// readHead reads the last whole record of l.f, moving a torn tail aside
// first, and checks it against this writer's key. An empty file continues
// the newest rotated file's chain.
func (l *Log) readHead(size int64) (head, error) {
	last, end, err := lastLine(l.f, size)
	if err != nil {
		return head{}, fmt.Errorf("audit: read %s: %w", l.opt.Path, err)
	}
	if end < size {
		if err := l.repairTorn(l.f, end, size); err != nil {
			return head{}, err
		}
		size = end
	}
	if size == 0 {
		return l.predecessorHead()
	}
	h, err := l.checkHead(l.opt.Path, last)
	h.size = size
	return h, err
}

// checkHead parses and verifies a head record with this writer's key.
func (l *Log) checkHead(path string, line []byte) (head, error) {
	rec, why := parseLine(line)
	switch {
	case why != "":
	case rec.Alg != l.alg:
		why = fmt.Sprintf("it is a %s chain but this writer is %s (a keyed and an unkeyed writer cannot share a log)", rec.Alg, l.alg)
	case lineSum(line, rec.Hash, l.opt.Key) != rec.Hash:
		why = "its hash does not verify (wrong key, or the record was edited)"
	}
	if why != "" {
		return head{}, fmt.Errorf("audit: %s: refusing to extend the chain: last record: %s; run 'agentexec audit verify', then move the log aside", path, why)
	}
	return head{valid: true, seq: rec.Seq, hash: rec.Hash}, nil
}

// repairTorn moves the bytes [end, size) of f, an incomplete last line
// left by an interrupted write, to PATH.torn and truncates f to end: the
// only truncation the log ever does, of a partial line only.
func (l *Log) repairTorn(f *os.File, end, size int64) error {
	torn := make([]byte, size-end)
	if _, err := f.ReadAt(torn, end); err != nil {
		return fmt.Errorf("audit: read torn tail of %s: %w", f.Name(), err)
	}
	if err := appendTorn(l.opt.Path+".torn", f.Name(), end, torn); err != nil {
		return err
	}
	if err := f.Truncate(end); err != nil {
		return fmt.Errorf("audit: truncate torn tail of %s: %w", f.Name(), err)
	}
	return f.Sync()
}

// appendTorn records torn bytes with where they came from, as one JSON line
// (the bytes may be anything).
func appendTorn(path, from string, offset int64, torn []byte) error {
	t, err := openPrivate(path, os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return err
	}
	line, _ := json.Marshal(struct {
		File   string `json:"file"`
		Offset int64  `json:"offset"`
		Time   string `json:"time"`
		Bytes  []byte `json:"bytes"` // base64
	}{filepath.Base(from), offset, time.Now().UTC().Format(timeLayout), torn})
	_, err = t.Write(append(line, '\n'))
	if err == nil {
		err = t.Sync()
	}
	return errors.Join(err, t.Close())
}

// lastLine returns the last whole line of f (without "\n") and the offset
// just past it; bytes after end are a torn line. end is 0 when f has no
// whole line. It reads backwards in chunks, so a long log costs only its
// tail.
func lastLine(f io.ReaderAt, size int64) (line []byte, end int64, err error) {
	end, err = lastNewline(f, size)
	if err != nil || end == 0 {
		return nil, end, err
	}
	start, err := lastNewline(f, end-1)
	if err != nil {
		return nil, 0, err
	}
	line = make([]byte, end-1-start)
	if _, err := f.ReadAt(line, start); err != nil {
		return nil, 0, err
	}
	return line, end, nil
}

// lastNewline returns the offset just past the last "\n" in f[0:before],
// or 0 when there is none. It reads backwards from a small chunk
// (a record is a few hundred bytes; every writer reads the head when it
// opens the log, and the anchors file's tail at each anchor), doubling up
// to 64 KiB, so a long line is still read in a few large reads.
func lastNewline(f io.ReaderAt, before int64) (int64, error) {
	chunk := int64(4 << 10)
	var buf []byte
	for hi := before; hi > 0; {
		lo := max(hi-chunk, 0)
		if int64(cap(buf)) < hi-lo {
			buf = make([]byte, hi-lo)
		}
		b := buf[:hi-lo]
		if _, err := f.ReadAt(b, lo); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return lo + int64(i) + 1, nil
		}
		hi = lo
		chunk = min(chunk*2, 64<<10)
	}
	return 0, nil
}

// rotate renames the current file to PATH.<last seq> and starts a new one.
func (l *Log) rotate(h head) error {
	name := fmt.Sprintf("%s.%d", l.opt.Path, h.seq)
	if _, err := os.Lstat(name); err == nil {
		return fmt.Errorf("audit: rotate: %s already exists", name)
	}
	if err := l.f.Sync(); err != nil { // a rotated file is final: make it durable
		return fmt.Errorf("audit: rotate: %w", err)
	}
	if err := os.Rename(l.opt.Path, name); err != nil {
		return fmt.Errorf("audit: rotate: %w", err)
	}
	f, err := openPrivate(l.opt.Path, os.O_RDWR|os.O_APPEND)
	if err != nil {
		return fmt.Errorf("audit: rotate: %w", err)
	}
	// Only a writer holding the lock writes, so a file another process
	// created meanwhile (opening the log) is empty.
	if fi, err := f.Stat(); err != nil || fi.Size() != 0 {
		f.Close()
		return fmt.Errorf("audit: rotate: %s is not empty after the rename", l.opt.Path)
	}
	l.f.Close()
	l.f = f
	return syncDir(filepath.Dir(l.opt.Path))
}

// predecessorHead is the head of the newest rotated file, or the empty
// head (seq 0, prev "") when there is none.
func (l *Log) predecessorHead() (head, error) {
	rotated, err := rotatedFiles(l.opt.Path)
	if err != nil || len(rotated) == 0 {
		return head{valid: true}, err
	}
	path := rotated[len(rotated)-1]
	f, err := os.Open(path)
	if err != nil {
		return head{}, fmt.Errorf("audit: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return head{}, fmt.Errorf("audit: %w", err)
	}
	last, _, err := lastLine(f, fi.Size())
	if err != nil {
		return head{}, fmt.Errorf("audit: read %s: %w", path, err)
	}
	h, err := l.checkHead(path, last)
	return h, err
}

// rotatedFiles lists PATH.N files, oldest (smallest N) first.
func rotatedFiles(path string) ([]string, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("audit: %w", err)
	}
	type seqFile struct {
		seq  uint64
		path string
	}
	var files []seqFile
	for _, e := range ents {
		suffix, ok := strings.CutPrefix(e.Name(), base+".")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if n, err := strconv.ParseUint(suffix, 10, 64); err == nil && suffix == strconv.FormatUint(n, 10) {
			files = append(files, seqFile{n, filepath.Join(dir, e.Name())})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].seq < files[j].seq })
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.path
	}
	return out, nil
}

// ChainFiles lists the files of the chain whose current file is path, in
// chain order: rotated files oldest first, then path itself if it exists.
func ChainFiles(path string) ([]string, error) {
	files, err := rotatedFiles(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err == nil {
		files = append(files, path)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("audit: no log at %s: %w", path, os.ErrNotExist)
	}
	return files, nil
}
