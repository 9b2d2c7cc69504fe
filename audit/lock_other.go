//go:build !unix && !windows

package audit

import (
	"errors"
	"os"
)

var errNoLock = errors.New("file locking is not supported on this platform, so writers could interleave")

func lockFile(*os.File) error   { return errNoLock }
func unlockFile(*os.File) error { return errNoLock }
func syncDir(string) error      { return nil }
