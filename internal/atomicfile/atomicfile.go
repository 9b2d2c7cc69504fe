// Package atomicfile replaces a file's contents so that a reader, or a
// crash, sees the old bytes or the new ones and never a part of either:
// the settings files agentexec edits for its users (a hook installed, an
// "always" approval) belong to other programs that may read them at any
// moment.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write stores data at path with mode: it writes a temporary file in
// path's directory (created when missing), flushes it to disk and renames
// it over path. On an error path is as it was.
func Write(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".agentexec-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing is there
	if err := finish(tmp, data, mode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// finish writes data to tmp, sets its mode, syncs and closes it.
func finish(tmp *os.File, data []byte, mode fs.FileMode) error {
	_, err := tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	return err
}
