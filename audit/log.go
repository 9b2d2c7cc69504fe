package audit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// DefaultAnchorEvery is how often the head is anchored when
// Options.AnchorEvery is 0.
const DefaultAnchorEvery = 64

// ErrClosed is returned by Append after Close.
var ErrClosed = errors.New("audit: log is closed")

// Options configure a Log.
type Options struct {
	// Path of the log file. Its parent directories are created 0700.
	Path string
	// Key, when set, makes the chain an HMAC-SHA-256 chain with this key.
	Key []byte
	// KeyFile is where Key was read from, if anywhere: only reported by
	// [Log.Files], so that a sandbox can hide it.
	KeyFile string
	// NoSync skips the fsync after each record and anchor (faster, less
	// durable: a power loss may lose the last records, or leave an anchor
	// ahead of them). Close still fsyncs once, so NoSync batches.
	NoSync bool
	// RotateBytes starts a new file once the current one reaches this size
	// (0: never). The chain continues across files.
	RotateBytes int64
	// AnchorEvery appends the head to the anchors file every N records
	// (0: a default), for the first record, and at Close.
	AnchorEvery int
}

// Log is an open, append-only, hash-chained log. Safe for concurrent use by
// goroutines and, through a file lock, by processes.
//
// Files, for a log at PATH (all created 0600):
//
//	PATH          the current file: one canonical JSON record per line
//	PATH.N        a rotated file whose last record has sequence number N;
//	              larger N is newer
//	PATH.anchors  one {"seq","hash","file","time"[,"mac"]} line for seq 1,
//	              every AnchorEvery records and at Close
//	PATH.torn     the bytes of torn last lines, moved aside by the writer
//	              that found them
//	PATH.lock     the file each writer holds an exclusive flock on while it
//	              reads the head, appends and fsyncs
//
// Each Append, under the lock, reads the head (the last whole record) from
// the file rather than trusting memory, since another process may have
// appended or rotated; it continues that chain. A writer refuses to extend
// a head that does not verify with its own key (or, unkeyed, whose alg is
// keyed): a keyed and an unkeyed writer cannot share a log, and a tampered
// head stops the log loudly instead of being chained over. Move the log
// aside to start a new chain.
//
// Open also refuses a log that has records but an anchors file without an
// anchor (deleted or emptied), and an anchor fails when the anchors file
// was removed or replaced while the log was open: anchoring on would make
// a cut made before look whole.
//
// Sharp edges: the lock is flock(2), which network filesystems may not
// honor. Anchors sit beside the log, so whoever can truncate the log can
// also truncate the anchors in step: keep the last seq (Verify's summary)
// or a copy of PATH.anchors somewhere the agent cannot write, and verify
// with VerifyOptions.ExpectSeq, to make such a cut evident (see the
// package doc for what each kind of log detects).
type Log struct {
	opt  Options
	alg  string
	base string // the file name written into anchors

	// mu is held by the writer committing a batch (and by Close): it
	// guards the files and the state below it.
	mu      sync.Mutex
	f       *os.File // the current file, O_RDWR|O_APPEND
	lock    *os.File // PATH.lock
	anchors *os.File // PATH.anchors
	head    head     // what this Log last knew of f's tail
	dirty   bool     // appended since the last anchor this Log wrote
	unsync  bool     // written without fsync (NoSync)
	pending bool     // written since the last sync of f
	syncs   int      // syncs of f that flush did (tests count them)
	shut    bool     // the files are closed

	// qmu guards the queue of records waiting for the next commit: one
	// appender commits everything queued with one sync (group commit),
	// the others wait for it.
	qmu     sync.Mutex
	queue   []*waiting
	leading bool // an appender is committing
	closed  bool // Close was called: no more records are queued
}

// waiting is one record queued for a commit and where its outcome goes.
type waiting struct {
	rec  *Record
	done chan error
}

// head is the state of a file's tail: its size and last whole record.
type head struct {
	valid bool
	size  int64
	seq   uint64
	hash  string
}

// Open opens (creating if needed) the log at opt.Path. It reads and checks
// the head under the lock, so a key that does not match the existing chain
// is an error here rather than at the first Append.
func Open(opt Options) (*Log, error) {
	if err := checkOptions(&opt); err != nil {
		return nil, err
	}
	l := &Log{opt: opt, alg: AlgSHA256, base: filepath.Base(opt.Path)}
	if opt.Key != nil {
		l.alg = AlgHMACSHA256
	}
	if err := l.openFiles(); err != nil {
		l.closeFiles()
		return nil, err
	}
	// The log file is opened under the lock: a writer rotating it away at
	// this moment must not find an empty stranger in its place.
	err := l.locked(func() (err error) {
		if l.f, err = openPrivate(l.opt.Path, os.O_RDWR|os.O_APPEND); err != nil {
			return err
		}
		h, err := l.current()
		if err != nil {
			return err
		}
		return l.checkAnchored(h)
	})
	if err != nil {
		l.closeFiles()
		return nil, err
	}
	return l, nil
}

func checkOptions(opt *Options) error {
	switch {
	case opt.Path == "":
		return errors.New("audit: Options.Path is empty")
	case opt.Key != nil && len(opt.Key) == 0:
		return errors.New("audit: Options.Key is empty (nil means unkeyed)")
	case opt.RotateBytes < 0:
		return fmt.Errorf("audit: Options.RotateBytes is negative (%d)", opt.RotateBytes)
	case opt.AnchorEvery < 0:
		return fmt.Errorf("audit: Options.AnchorEvery is negative (%d)", opt.AnchorEvery)
	}
	if opt.AnchorEvery == 0 {
		opt.AnchorEvery = DefaultAnchorEvery
	}
	opt.Key = append([]byte(nil), opt.Key...)
	if len(opt.Key) == 0 {
		opt.Key = nil
	}
	return nil
}

func (l *Log) openFiles() (err error) {
	if err := os.MkdirAll(filepath.Dir(l.opt.Path), 0o700); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if l.lock, err = openPrivate(l.opt.Path+".lock", os.O_RDWR); err != nil {
		return err
	}
	l.anchors, err = openPrivate(l.opt.Path+".anchors", os.O_RDWR|os.O_APPEND)
	return err
}

// openPrivate opens or creates a file 0600, tightening an existing file
// that others could read.
func openPrivate(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, fmt.Errorf("audit: %w", err)
		}
	}
	return f, nil
}

// Append writes rec, filling Seq, Time, Alg, Prev and Hash. Command, Argv,
// Reason and Output are redacted first (see Redact) and bounded (see
// MaxCommandBytes; Segments become SegmentCount), and the results are
// stored back into rec in fresh slices, so after Append rec is exactly the
// record on disk. An error means the record may not be on disk; a partial
// write leaves a torn line that the next writer repairs.
//
// Append returns once the record is durable (unless NoSync). Concurrent
// Appends share the work: while one writer syncs, the records that arrive
// queue up, and the next of them writes them all, in order, and syncs once
// (group commit), so N concurrent records cost one sync instead of N.
func (l *Log) Append(rec *Record) error {
	if rec == nil {
		return errors.New("audit: Append: nil record")
	}
	if err := prepare(rec); err != nil {
		return err
	}
	w := &waiting{rec: rec, done: make(chan error, 1)}
	l.qmu.Lock()
	if l.closed {
		l.qmu.Unlock()
		return ErrClosed
	}
	l.queue = append(l.queue, w)
	if l.leading {
		l.qmu.Unlock()
		return <-w.done
	}
	l.leading = true
	l.qmu.Unlock()
	l.mu.Lock()
	for {
		l.qmu.Lock()
		batch := l.queue
		l.queue = nil
		if len(batch) == 0 {
			l.leading = false
			l.qmu.Unlock()
			break
		}
		l.qmu.Unlock()
		l.commit(batch)
	}
	l.mu.Unlock()
	return <-w.done
}

// commit writes batch, in order, under the file lock and syncs once; every
// record's outcome goes to its waiter. Call it holding l.mu.
func (l *Log) commit(batch []*waiting) {
	if l.shut {
		for _, w := range batch {
			w.done <- ErrClosed
		}
		return
	}
	var written []*waiting // since the last sync
	settle := func(err error) {
		for _, w := range written {
			w.done <- err
		}
		written = written[:0]
	}
	next := 0
	err := l.locked(func() error {
		for ; next < len(batch); next++ {
			w := batch[next]
			synced, err := l.appendLocked(w.rec)
			if synced {
				settle(nil)
			}
			if err != nil {
				w.done <- err
				continue
			}
			written = append(written, w)
		}
		return l.flush()
	})
	settle(err)
	for _, w := range batch[next:] { // the lock was not taken
		w.done <- err
	}
}

// prepare redacts, sanitizes and bounds rec: the work of a record that
// needs no lock, done by each appender before it queues.
func prepare(rec *Record) error {
	dropSegments(rec)
	if n := textBytes(rec); n > MaxRecordBytes {
		return fmt.Errorf("audit: record: %d bytes of text, over the limit of %d (a command text this long is not audited, so it does not run)", n, MaxRecordBytes)
	}
	redactRecord(rec)
	sanitize(rec)
	bound(rec)
	return nil
}

// locked runs fn holding the file lock.
func (l *Log) locked(fn func() error) (err error) {
	if err := lockFile(l.lock); err != nil {
		return fmt.Errorf("audit: lock %s: %w", l.lock.Name(), err)
	}
	defer func() {
		if uerr := unlockFile(l.lock); uerr != nil && err == nil {
			err = fmt.Errorf("audit: unlock %s: %w", l.lock.Name(), uerr)
		}
	}()
	return fn()
}

// appendLocked writes one prepared record after the head, without
// syncing it unless an anchor or a rotation needs what came before on
// disk first; synced reports that such a sync covered the records written
// before this one.
func (l *Log) appendLocked(rec *Record) (synced bool, err error) {
	h, err := l.current()
	if err != nil {
		return false, err
	}
	if l.opt.RotateBytes > 0 && h.size >= l.opt.RotateBytes {
		synced = l.pending
		if err := l.rotate(h); err != nil {
			return false, err
		}
		l.pending = false
		h.size = 0
	}
	line, err := l.seal(rec, h)
	if err != nil {
		return synced, err
	}
	if err := l.write(line); err != nil {
		return synced, err
	}
	l.head = head{valid: true, size: h.size + int64(len(line)), seq: rec.Seq, hash: rec.Hash}
	l.dirty = true
	if rec.Seq == 1 || rec.Seq%uint64(l.opt.AnchorEvery) == 0 {
		// An anchor must never be ahead of the records on disk.
		if err := l.flush(); err != nil {
			return synced, err
		}
		return true, l.anchor(l.head)
	}
	return synced, nil
}

// seal fills the chain fields of the prepared rec after h and returns its
// line.
func (l *Log) seal(rec *Record, h head) ([]byte, error) {
	rec.Seq = h.seq + 1
	rec.Time = time.Now().UTC().Format(timeLayout)
	rec.Alg = l.alg
	rec.Prev = h.hash
	line, err := seal(rec, l.opt.Key)
	if err != nil {
		return nil, fmt.Errorf("audit: record %d: %w", rec.Seq, err)
	}
	if len(line) > MaxRecordBytes {
		return nil, fmt.Errorf("audit: record %d: %d bytes, over the limit of %d (a command text this long is not audited, so it does not run)", rec.Seq, len(line), MaxRecordBytes)
	}
	return line, nil
}

// textBytes is the length of the text fields of rec: more than
// MaxRecordBytes can never make a record short enough, and is refused
// before the redaction's work.
func textBytes(rec *Record) int {
	n := len(rec.Command) + len(rec.Reason) + len(rec.Output) + len(rec.Cwd)
	for _, s := range rec.Argv {
		n += len(s)
	}
	return n
}

// timeLayout is RFC 3339 in UTC with a fixed nine-digit fraction, so times
// sort as text.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// write appends one line with a single write(2); flush makes it durable.
func (l *Log) write(line []byte) error {
	if _, err := l.f.Write(line); err != nil {
		l.head.valid = false
		return fmt.Errorf("audit: %w", err)
	}
	if l.opt.NoSync {
		l.unsync = true
		return nil
	}
	l.pending = true
	return nil
}

// flush syncs what write appended since the last sync, if anything.
func (l *Log) flush() error {
	if !l.pending {
		return nil
	}
	l.pending = false
	l.syncs++
	if err := syncData(l.f); err != nil {
		l.head.valid = false
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// Close anchors the head, if this Log appended since its last anchor,
// fsyncs what NoSync left unsynced, and closes the files. Close is
// idempotent.
func (l *Log) Close() error {
	l.qmu.Lock()
	if l.closed {
		l.qmu.Unlock()
		return nil
	}
	l.closed = true
	l.qmu.Unlock()
	l.mu.Lock() // after the batch being committed, if any
	defer l.mu.Unlock()
	l.shut = true
	var err error
	if l.dirty {
		err = l.locked(func() error {
			h, err := l.current()
			if err != nil || h.seq == 0 {
				return err
			}
			return l.anchor(h)
		})
	}
	if l.unsync {
		err = errors.Join(err, l.f.Sync(), l.anchors.Sync())
	}
	return errors.Join(err, l.closeFiles())
}

func (l *Log) closeFiles() error {
	var errs []error
	for _, f := range []*os.File{l.f, l.anchors, l.lock} {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	return errors.Join(errs...)
}

// DefaultPath is the log's default location: $XDG_STATE_HOME/agentexec/
// audit.jsonl, else ~/.local/state/agentexec/audit.jsonl. It returns "" when
// neither XDG_STATE_HOME nor HOME is set (rather than a relative path).
func DefaultPath(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "agentexec", "audit.jsonl")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "agentexec", "audit.jsonl")
	}
	return ""
}
