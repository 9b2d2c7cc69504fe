//go:build !linux

package audit

import "os"

// syncData makes what was appended to f durable (fsync).
func syncData(f *os.File) error { return f.Sync() }
