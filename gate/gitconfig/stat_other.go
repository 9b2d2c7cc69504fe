//go:build !linux

package gitconfig

import "os"

// stampOf identifies a file version by size and mtime only: the portable
// os.FileInfo has no inode or ctime. The racy window then applies to mtime
// alone.
func stampOf(fi os.FileInfo) fileStamp {
	m := fi.ModTime().UnixNano()
	return fileStamp{size: fi.Size(), mtime: m, ctime: m}
}
