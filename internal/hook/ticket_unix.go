//go:build unix

package hook

import (
	"io/fs"
	"syscall"
)

// oNoFollow makes opening a ticket fail on a symlink.
const oNoFollow = syscall.O_NOFOLLOW

// fileOwner returns the uid that owns fi.
func fileOwner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
