//go:build unix

package procfs

import (
	"os"

	"golang.org/x/sys/unix"
)

// ReadFile reads a /proc or /sys file whole with plain system calls.
// os.ReadFile makes each descriptor non-blocking and registers it with
// the runtime's poller (these files can be polled), then removes it:
// twice the calls of the read itself, for files the process tree walk and
// every sandboxed run read by the dozen. Such a read never blocks, so
// nothing is lost.
func ReadFile(path string) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
