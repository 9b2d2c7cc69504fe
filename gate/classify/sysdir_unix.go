//go:build unix

package classify

import (
	"os"
	"syscall"
)

// trustedDir reports whether path is a directory owned by root that
// neither its group nor others may write: only root can change what it
// holds.
func trustedDir(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Uid == 0
}
