package sandbox

import (
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// A server's runs keep the per-run temp dirs that came back exactly as
// they were made, for later runs: on this project's ext4 /tmp, making a
// directory costs 0.3 ms of CPU and removing it 0.1 ms (the allocator
// passes over the inodes of the directories removed just before), twice a
// server request before (the run's and its standby's). A dir is kept only
// when nothing of the run can be left in it or hold it: the run had a PID
// namespace of its own (the kernel ended every process of it before the
// init was reaped), and the dir is empty, this process's user's, mode
// 0700 and without extended attributes (no ACL, no label the run set) —
// what os.MkdirTemp makes. It is checked again when taken. A run that
// wrote a file there, or changed the dir, gets its dir removed as before,
// so no run sees what another left. Only a process that has started more
// than one run keeps any (the CLI's one run removes its dir at Close, and
// Release removes the kept ones).

var tempDirs struct {
	sync.Mutex
	free []string
}

const tempDirsMax = 4

// takeTempDir returns a kept temp dir that is still pristine, or a new one.
func takeTempDir() (string, error) {
	for {
		tempDirs.Lock()
		n := len(tempDirs.free)
		if n == 0 {
			tempDirs.Unlock()
			return os.MkdirTemp("", tempDirPrefix())
		}
		dir := tempDirs.free[n-1]
		tempDirs.free = tempDirs.free[:n-1]
		tempDirs.Unlock()
		if filepath.Dir(dir) == filepath.Clean(os.TempDir()) && pristineDir(dir) {
			return dir, nil // still where a new one would be made, and as made
		}
		os.RemoveAll(dir)
	}
}

// recycleTempDir keeps dir for a later run when the run that had it
// cannot have left anything in it (ownPIDNS: see above) and it is as
// made; otherwise, or when enough are kept, it removes dir.
func recycleTempDir(dir string, ownPIDNS bool) error {
	if ownPIDNS && keepsTempDirs() && pristineDir(dir) {
		tempDirs.Lock()
		if len(tempDirs.free) < tempDirsMax {
			tempDirs.free = append(tempDirs.free, dir)
			tempDirs.Unlock()
			return nil
		}
		tempDirs.Unlock()
	}
	return os.RemoveAll(dir)
}

// keepsTempDirs reports whether this process has started runs from a
// thread more than once: a server, which readies standbys too.
func keepsTempDirs() bool {
	standbys.Lock()
	defer standbys.Unlock()
	return standbys.runs >= 2 && !standbys.off
}

// drainTempDirs removes the kept temp dirs.
func drainTempDirs() {
	tempDirs.Lock()
	free := tempDirs.free
	tempDirs.free = nil
	tempDirs.Unlock()
	for _, d := range free {
		os.RemoveAll(d)
	}
}

// pristineDir reports whether dir is a directory as os.MkdirTemp makes
// it: not a link, owned by this process's user and group, mode 0700 with
// no special bits, no extended attributes, and empty.
func pristineDir(dir string) bool {
	var st unix.Stat_t
	if unix.Lstat(dir, &st) != nil || st.Mode != unix.S_IFDIR|0o700 ||
		int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid() || st.Nlink != 2 {
		return false
	}
	if n, err := unix.Llistxattr(dir, nil); err != unix.ENOTSUP && (err != nil || n != 0) {
		return false
	}
	return emptyDir(dir)
}

// emptyDir reports whether dir has no entry but . and .. (read with plain
// system calls and a small buffer: os.Open registers the descriptor with
// the poller, and Readdirnames allocates 8 KiB).
func emptyDir(dir string) bool {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var buf [512]byte
	for {
		n, err := unix.Getdents(fd, buf[:])
		if err != nil {
			return false
		}
		if n == 0 {
			return true
		}
		if _, count, _ := unix.ParseDirent(buf[:n], -1, nil); count > 0 {
			return false // an entry other than . and ..
		}
	}
}
