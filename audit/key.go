package audit

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
)

// MinKeyBytes is the shortest key LoadKey accepts.
const MinKeyBytes = 16

// LoadKey reads an HMAC key file, refusing one that others can read: a key
// that others can read keys nothing. The file's bytes are the key, minus
// trailing newlines and spaces; generate one with
//
//	head -c 32 /dev/urandom > key && chmod 600 key
//
// On Windows, where mode bits do not describe access, the permission check
// is skipped.
func LoadKey(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("audit: key: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("audit: key: %w", err)
	}
	if perm := fi.Mode().Perm(); runtime.GOOS != "windows" && perm&0o077 != 0 {
		return nil, fmt.Errorf("audit: key file %s is accessible by group or others (mode %04o): chmod 600 it", path, perm)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("audit: key file %s is not a regular file", path)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, fmt.Errorf("audit: key: %w", err)
	}
	key := bytes.TrimRight(buf.Bytes(), "\r\n\t ")
	if len(key) < MinKeyBytes {
		return nil, fmt.Errorf("audit: key file %s holds %d bytes, want at least %d", path, len(key), MinKeyBytes)
	}
	return key, nil
}
