package gitconfig

import (
	"os"
	"syscall"
)

// stampOf identifies a file version by size, mtime, ctime, inode and
// device: ctime changes on every write, chmod and rename, which mtime alone
// does not show.
func stampOf(fi os.FileInfo) fileStamp {
	st := fileStamp{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ctime = s.Ctim.Nano()
		st.ino = uint64(s.Ino)
		st.dev = uint64(s.Dev)
	}
	return st
}
