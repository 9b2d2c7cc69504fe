package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// agentexec-init is the first process of a run, so that the command is
// never PID 1 of its PID namespace. The kernel drops every signal sent to
// a namespace's init that the init has no handler for (from inside the
// namespace, and from outside but for SIGKILL and SIGSTOP): a shell as PID
// 1 ignores the SIGTERM of a timeout and goes on to its next statement,
// and `kill -TERM $$` or abort() in it are lost. A blocked signal is not
// dropped, so the init blocks them all, reads them from a signalfd and
// forwards those a process sent to the command's process group; it
// reaps, and exits with the command's status once the command is gone,
// which ends the namespace (nothing of the command outlives it). Its
// source is initsrc/init.c; it is a static binary of about 2 KiB built
// into this one (initELF), run from a sealed memfd, and it costs a fork
// and an exec of that binary: Go cannot run its own code between a fork
// and an exec, and a Go process as init would cost a runtime start
// (4.5 ms here).
//
// The command gets its own process group, with the terminal's foreground
// when the init's group had it: a signal to the run's group (the one the
// caller knows, the init's) reaches the init alone, which forwards it
// once. Had the command stayed in the init's group, a group signal would
// reach it twice, directly and forwarded.
//
// The init talks with this process on a socket pair (initCtl): it waits
// for a go byte, and reports the command's wait status, so that the run
// can still say "killed by SIGTERM" where the init, as PID 1, exits 143.

const initName = "agentexec-init"

//go:generate initsrc/gen.sh

// initImage returns this process's copy of agentexec-init: a sealed
// memfd, made once and kept open. A command started through os/exec gets
// it as one of its extra files, so its descriptor number in the child is
// fixed by its place in the list (whatever numbers the parent's files
// have, which os/exec's child shuffles above the highest of them), and it
// is executed as /proc/self/fd/N; the init marks it close-on-exec. The
// trampoline, which execs the init itself, uses the file's own number.
var initImage = sync.OnceValues(makeInitImage)

func makeInitImage() (*os.File, error) {
	if initELF == "" {
		return nil, fmt.Errorf("no agentexec-init is built for %s", runtime.GOARCH)
	}
	fd, err := unix.MemfdCreate(initName, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING|unix.MFD_EXEC)
	if err == unix.EINVAL { // before Linux 6.3, which has no MFD_EXEC
		fd, err = unix.MemfdCreate(initName, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	}
	if err != nil {
		return nil, fmt.Errorf("memfd: %w", err)
	}
	if err := writeAll(fd, []byte(initELF)); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("writing agentexec-init: %w", err)
	}
	if err := unix.Fchmod(fd, 0o500); err != nil {
		unix.Close(fd)
		return nil, err
	}
	seals := unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, seals); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("sealing agentexec-init: %w", err)
	}
	return os.NewFile(uintptr(fd), initName), nil
}

// initPath is the path the trampoline executes the init at.
func initPath() (string, error) {
	f, err := initImage()
	if err != nil {
		return "", err
	}
	return "/proc/self/fd/" + strconv.Itoa(int(f.Fd())), nil
}

// withInit turns cmd into a start of agentexec-init running path with
// args: its control socket ctl and its own image are appended to the
// extra files, and it is executed from the image's descriptor in the
// child.
func withInit(cmd *exec.Cmd, ctl *os.File, path string, args []string) error {
	img, err := initImage()
	if err != nil {
		return fmt.Errorf("sandbox: agentexec-init: %w", err)
	}
	ctlFD := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, ctl, img)
	cmd.Path = "/proc/self/fd/" + strconv.Itoa(ctlFD+1)
	cmd.Args = append([]string{initName, strconv.Itoa(ctlFD) + "." + strconv.Itoa(ctlFD+1), path}, args...)
	return nil
}

func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// initAvailable reports whether runs can start agentexec-init, and why
// not: a built init for this architecture, memfds that may be executed.
func initAvailable() (bool, string) {
	if initELF == "" {
		return false, fmt.Sprintf("init: no agentexec-init is built for %s; the command is PID 1 of its PID namespace (it ignores signals it has no handler for)", runtime.GOARCH)
	}
	if b, err := os.ReadFile("/proc/sys/vm/memfd_noexec"); err == nil && len(b) > 0 && b[0] == '2' {
		return false, "init: vm.memfd_noexec is 2, so agentexec-init cannot run from a memfd; the command is PID 1 of its PID namespace"
	}
	if _, err := initImage(); err != nil {
		return false, "init: " + err.Error()
	}
	return true, ""
}

// initArgs is the argv that makes agentexec-init run path with args,
// reading its control socket on descriptor ctlFD.
func initArgs(ctlFD int, path string, args []string) []string {
	return append([]string{initName, strconv.Itoa(ctlFD), path}, args...)
}

// Records the init (or its child) writes on the control socket: 8 bytes,
// the type, three zero bytes, an int32 in host byte order.
const (
	recReady  = 'R' // the exec gate's filter is in place: its listener comes with it ('H' only)
	recFilter = 'F' // the exec gate's filter could not be installed: the errno ('H' only)
	recStatus = 'S' // the command's wait status, before the init exits
	recExec   = 'X' // the command could not be executed: the errno
)

// Bytes this process writes to the init.
const (
	ctlGo    = 'G' // fork the command
	ctlGated = 'H' // fork it under the exec gate's filter
)

// initCtl is this process's end of a run's control socket, and the
// init's until the start.
type initCtl struct {
	fd    int      // ours: SO_PASSCRED, so a record says which process wrote it
	child *os.File // the init's, passed to it as an extra file
	// released is set once the go byte was written.
	released bool
	// Filled by results, after the init exited.
	status    syscall.WaitStatus
	hasStatus bool
	execErrno syscall.Errno
	read      bool
	mu        sync.Mutex
}

func newInitCtl() (*initCtl, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: the init's control socket: %w", err)
	}
	if err := unix.SetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_PASSCRED, 1); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, fmt.Errorf("sandbox: the init's control socket: %w", err)
	}
	return &initCtl{fd: fds[0], child: os.NewFile(uintptr(fds[1]), "agentexec-init-ctl")}, nil
}

// started closes the init's end, which the started process holds now.
func (c *initCtl) started() {
	if c.child != nil {
		c.child.Close()
		c.child = nil
	}
}

// release lets the init fork the command; gated has the command install
// the exec gate's filter first. Only the first call writes.
func (c *initCtl) release(gated bool) error {
	if c.released {
		return nil
	}
	c.released = true
	b := []byte{ctlGo}
	if gated {
		b[0] = ctlGated
	}
	if err := writeAll(c.fd, b); err != nil {
		return fmt.Errorf("sandbox: releasing the init: %w", err)
	}
	return nil
}

// waitReady blocks until the command's exec gate filter is in place, and
// returns the command's pid in this process's PID namespace (from the
// socket's credentials: the init sees another pid in its own namespace)
// and the filter's listener.
func (c *initCtl) waitReady() (pid, listener int, err error) {
	var rec [8]byte
	oob := make([]byte, unix.CmsgSpace(unix.SizeofUcred)+unix.CmsgSpace(4))
	var n, oobn int
	for {
		n, oobn, _, _, err = unix.Recvmsg(c.fd, rec[:], oob, unix.MSG_CMSG_CLOEXEC)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return 0, -1, err
	}
	msgs, _ := unix.ParseSocketControlMessage(oob[:oobn])
	listener = -1
	for i := range msgs {
		switch m := &msgs[i]; {
		case m.Header.Type == unix.SCM_CREDENTIALS:
			if cred, err := unix.ParseUnixCredentials(m); err == nil {
				pid = int(cred.Pid)
			}
		case m.Header.Type == unix.SCM_RIGHTS:
			if fds, err := unix.ParseUnixRights(m); err == nil {
				for _, fd := range fds {
					if listener < 0 {
						listener = fd
					} else {
						unix.Close(fd)
					}
				}
			}
		}
	}
	switch {
	case n == 0:
		err = errors.New("the init ended before the command was ready")
	case n == 8 && rec[0] == recFilter:
		e := syscall.Errno(binary.NativeEndian.Uint32(rec[4:]))
		err = fmt.Errorf("installing the seccomp filter: %w", e)
		if e == syscall.EBUSY {
			// The kernel allows one listener per filter chain.
			err = fmt.Errorf("installing the seccomp filter: %w: this process runs under another exec gate already (an agentexec run inside a gated run, or another seccomp supervisor); run it with --exec-gate off there, the outer gate still judges every exec", e)
		}
	case n != 8 || rec[0] != recReady:
		err = fmt.Errorf("unexpected record %q from the init", rec[:n])
	case listener < 0:
		err = errors.New("the command's record carries no filter")
	case pid <= 0:
		err = errors.New("the command's record carries no credentials")
	}
	if err != nil {
		if listener >= 0 {
			unix.Close(listener)
		}
		return 0, -1, err
	}
	return pid, listener, nil
}

// results reads what the init and the command reported, once the init
// has exited (the records are in the socket's buffer).
func (c *initCtl) results() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.read || c.fd < 0 {
		return
	}
	c.read = true
	var buf [8]byte
	for {
		n, _, err := unix.Recvfrom(c.fd, buf[:], unix.MSG_DONTWAIT|unix.MSG_WAITALL)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n != 8 {
			return
		}
		v := int32(binary.NativeEndian.Uint32(buf[4:]))
		switch buf[0] {
		case recStatus:
			c.status, c.hasStatus = syscall.WaitStatus(v), true
		case recExec:
			c.execErrno = syscall.Errno(v)
		}
	}
}

func (c *initCtl) close() {
	c.started()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fd >= 0 {
		unix.Close(c.fd)
		c.fd = -1
	}
}
