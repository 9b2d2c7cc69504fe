package sandbox

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// CloseInherited marks every file descriptor of this process from 3 up
// close-on-exec, so that a command started afterwards gets only its
// standard files and those passed on purpose (os/exec's ExtraFiles, which
// the child dups into place after the fork, clearing the flag). Go opens
// every file close-on-exec; what this catches is a descriptor this process
// inherited without the flag (a file open for writing elsewhere, a
// connected socket), which would otherwise reach the command through every
// sandbox layer. Every start through this package and through agentexec's
// exec package calls it, whatever the profile; it is one close_range call
// (Linux 5.11), else a walk of /proc/self/fd.
func CloseInherited() error {
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return nil
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return err
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
	return nil
}
