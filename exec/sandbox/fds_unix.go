//go:build unix && !linux

package sandbox

import (
	"os"
	"strconv"
	"syscall"
)

// CloseInherited marks every file descriptor of this process from 3 up
// close-on-exec, so that a command started afterwards gets only its
// standard files and those passed on purpose (see the Linux version).
func CloseInherited() error {
	ents, err := os.ReadDir("/dev/fd")
	if err != nil {
		return err
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
	return nil
}
