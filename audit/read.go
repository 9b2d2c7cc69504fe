package audit

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Entry is one line of a log as read back by Scan, Tail and Follow. They
// parse lines but do not verify the chain: run Verify for that.
type Entry struct {
	File   string // the file the line is in
	Line   int    // 1-based line number in File
	Raw    []byte // the line without its "\n"
	Record Record // the parsed record, when Err is nil
	// Err says why the line is not a record: invalid JSON, or a torn last
	// line (no "\n").
	Err error
}

// ErrTornLine is Entry.Err for an incomplete last line.
var ErrTornLine = errors.New("torn last line")

// newEntry parses a line for reading. An edited but parseable record is
// still shown: flagging it is Verify's job.
func newEntry(file string, line int, raw []byte, whole bool) Entry {
	e := Entry{File: file, Line: line, Raw: raw}
	if !whole {
		e.Err = ErrTornLine
		return e
	}
	rec, why := parseLine(raw)
	if why == "empty line" || strings.HasPrefix(why, "invalid JSON") {
		e.Err = errors.New(why)
	} else {
		e.Record = rec
	}
	return e
}

// Scan calls fn with every line of the chain at path (see ChainFiles), in
// order. It stops at the first error fn returns and returns it.
func Scan(path string, fn func(Entry) error) error {
	files, err := ChainFiles(path)
	if err != nil {
		return err
	}
	for _, f := range files {
		if _, err := scanFile(f, 0, 0, fn); err != nil {
			return err
		}
	}
	return nil
}

// scanFile calls fn for the lines of path from byte offset off (numbering
// them from line+1), a torn last line included, and returns the offset
// just past the last whole line.
func scanFile(path string, off int64, line int, fn func(Entry) error) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return off, err
	}
	defer f.Close()
	return scanFrom(f, path, off, line, true, fn)
}

// scanFrom reads the lines of f from off. torn controls whether an
// incomplete last line is passed to fn (a follower waits for it instead).
func scanFrom(f *os.File, path string, off int64, line int, torn bool, fn func(Entry) error) (int64, error) {
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return off, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		b, n, tooLong, err := readBounded(r, MaxRecordBytes)
		if err == io.EOF {
			if n > 0 && torn {
				return off, fn(longEntry(newEntry(path, line+1, b, false), tooLong))
			}
			return off, nil
		}
		if err != nil {
			return off, err
		}
		line++
		off += n
		if err := fn(longEntry(newEntry(path, line, bytes.TrimSuffix(b, []byte("\n")), true), tooLong)); err != nil {
			return off, err
		}
	}
}

// errLongLine is Entry.Err for a line too long to be a record.
var errLongLine = fmt.Errorf("a line longer than %d bytes (not a record the writer writes; not read)", MaxRecordBytes)

// longEntry marks e as a line too long to be read, when it is one.
func longEntry(e Entry, tooLong bool) Entry {
	if tooLong {
		e.Raw, e.Record, e.Err = nil, Record{}, errLongLine
	}
	return e
}

// Tail calls fn with the last n lines of the chain at path, oldest first,
// reaching back into rotated files when the current one is shorter. It
// reads each file from its end, so its memory is n lines whatever the
// log's length.
func Tail(path string, n int, fn func(Entry) error) error {
	_, err := tail(path, n, fn)
	return err
}

// tail is Tail; it returns the current file's state for Follow.
func tail(path string, n int, fn func(Entry) error) (position, error) {
	files, err := ChainFiles(path)
	if err != nil {
		return position{}, err
	}
	var pos position
	var keep []Entry
	for i := len(files) - 1; i >= 0 && (len(keep) < n || i == len(files)-1); i-- {
		got, p, err := lastEntries(files[i], n-len(keep))
		if err != nil {
			return pos, err
		}
		if i == len(files)-1 {
			pos = p
		}
		keep = append(got, keep...)
	}
	for _, e := range keep {
		if err := fn(e); err != nil {
			return pos, err
		}
	}
	return pos, nil
}

// position is how far a follower has read the current file.
type position struct {
	off  int64
	line int
}

// lastEntries returns the last n whole lines of path, oldest first, and
// the position just past its last whole line. It finds the lines reading
// backwards from the end, then counts the lines before them in chunks for
// their numbers.
func lastEntries(path string, n int) ([]Entry, position, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, position{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, position{}, err
	}
	end, err := lastNewline(f, fi.Size())
	if err != nil {
		return nil, position{}, err
	}
	starts := []int64{end}
	for hi := end; len(starts) <= n && hi > 0; {
		if hi, err = lastNewline(f, hi-1); err != nil {
			return nil, position{}, err
		}
		starts = append(starts, hi)
	}
	first := starts[len(starts)-1]
	before, err := countLines(f, first)
	if err != nil {
		return nil, position{}, err
	}
	var out []Entry
	for i := len(starts) - 1; i > 0; i-- {
		e, err := readEntry(f, path, before+len(out)+1, starts[i], starts[i-1])
		if err != nil {
			return nil, position{}, err
		}
		out = append(out, e)
	}
	return out, position{off: end, line: before + len(out)}, nil
}

// readEntry reads the whole line [start, end) of f, "\n" included.
func readEntry(f *os.File, path string, line int, start, end int64) (Entry, error) {
	if end-start-1 > MaxRecordBytes {
		return longEntry(Entry{File: path, Line: line}, true), nil
	}
	b := make([]byte, end-start-1)
	if _, err := f.ReadAt(b, start); err != nil {
		return Entry{}, err
	}
	return newEntry(path, line, b, true), nil
}

// countLines counts the newlines in f[0:end].
func countLines(f io.ReaderAt, end int64) (int, error) {
	buf := make([]byte, 64<<10)
	n := 0
	for off := int64(0); off < end; {
		b := buf[:min(int64(len(buf)), end-off)]
		if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
			return 0, err
		}
		n += bytes.Count(b, []byte("\n"))
		off += int64(len(b))
	}
	return n, nil
}

// Follow is Tail, then waits for new records, calling fn with each whole
// line appended, checking every poll. When the file is rotated it reads
// the rest of the old file and goes on with the new one. It returns when
// ctx is done (nil) or fn or a read fails.
func Follow(ctx context.Context, path string, n int, poll time.Duration, fn func(Entry) error) error {
	pos, err := tail(path, n, fn)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	defer func() { f.Close() }()
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if pos, err = follow(f, path, pos, fn); err != nil {
			return err
		}
		if nf, ok := reopened(f, path); ok {
			if pos, err = follow(f, path, pos, fn); err != nil {
				nf.Close()
				return err
			}
			f.Close()
			f, pos = nf, position{}
		}
	}
}

func follow(f *os.File, path string, pos position, fn func(Entry) error) (position, error) {
	line := pos.line
	off, err := scanFrom(f, path, pos.off, line, false, func(e Entry) error {
		line = e.Line
		return fn(e)
	})
	return position{off, line}, err
}

// reopened opens path when it is no longer the file f (rotated away).
func reopened(f *os.File, path string) (*os.File, bool) {
	fi, err := f.Stat()
	if err != nil {
		return nil, false
	}
	pfi, err := os.Stat(path)
	if err != nil || os.SameFile(fi, pfi) {
		return nil, false
	}
	nf, err := os.Open(path)
	return nf, err == nil
}
