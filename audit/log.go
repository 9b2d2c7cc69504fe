package audit

import "errors"

// Options configure a Log.
type Options struct {
	// Path of the log file. Its parent directories are created 0700.
	Path string
	// Key, when set, makes the chain an HMAC-SHA-256 chain with this key.
	Key []byte
	// NoSync skips the fsync after each record (faster, less durable).
	NoSync bool
	// RotateBytes starts a new file once the current one reaches this size
	// (0: never). The chain continues across files.
	RotateBytes int64
	// AnchorEvery appends the head to the anchors file every N records
	// (0: a default) and at Close.
	AnchorEvery int
}

// Log is an open, append-only, hash-chained log. Safe for concurrent use by
// goroutines and, through a file lock, by processes.
type Log struct{ opt Options }

// Open opens (creating if needed) the log at opt.Path.
// Placeholder until the audit issue lands.
func Open(opt Options) (*Log, error) {
	return nil, errors.New("audit: not implemented yet")
}

// Append writes rec, filling Seq, Time, Prev and Hash.
func (l *Log) Append(rec *Record) error { return errors.New("audit: not implemented yet") }

// Close anchors the head and closes the file.
func (l *Log) Close() error { return nil }

// DefaultPath is the log's default location: $XDG_STATE_HOME/agentexec/
// audit.jsonl, else ~/.local/state/agentexec/audit.jsonl.
// Placeholder until the audit issue lands.
func DefaultPath(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return d + "/agentexec/audit.jsonl"
	}
	return getenv("HOME") + "/.local/state/agentexec/audit.jsonl"
}

// LoadKey reads an HMAC key file, refusing one that others can read.
// Placeholder until the audit issue lands.
func LoadKey(path string) ([]byte, error) { return nil, errors.New("audit: not implemented yet") }
