package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// makeProxyListener is the launcher step of the proxy mode, run inside
// the command's new network namespace while the launcher still holds
// CAP_NET_ADMIN there: it brings loopback up and listens at ProxyAddr.
// The launcher thread keeps the socket for its Handle (the process's fd
// table is shared); the trampoline sends it to its parent over
// w.ProxySock and closes its copies before it goes on.
func makeProxyListener(w *wireSpec) error {
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("bringing lo up: %w", err)
	}
	fd, err := listenProxy()
	if err != nil {
		return err
	}
	if w.ProxySock <= 0 {
		w.proxyFD = fd
		return nil
	}
	err = unix.Sendmsg(w.ProxySock, []byte{1}, unix.UnixRights(fd), nil, 0)
	unix.Close(fd)
	unix.Close(w.ProxySock)
	if err != nil {
		return fmt.Errorf("handing the proxy listener to agentexec: %w", err)
	}
	return nil
}

// loopbackUp sets IFF_UP on lo, which a new network namespace has down.
func loopbackUp() error {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(s)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr)
}

// listenProxy listens at ProxyAddr, close-on-exec so that the command
// never holds it.
func listenProxy() (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return -1, fmt.Errorf("proxy socket: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("proxy socket: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: ProxyPort, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("binding %s: %w", ProxyAddr, err)
	}
	if err := unix.Listen(fd, 128); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("listening at %s: %w", ProxyAddr, err)
	}
	return fd, nil
}

// takeProxyFD returns the listener a launcher made, once; 0 when none.
func (w *wireSpec) takeProxyFD() int {
	fd := w.proxyFD
	w.proxyFD = 0
	return fd
}

// closeProxyFD closes a listener no run took.
func (w *wireSpec) closeProxyFD() {
	if fd := w.takeProxyFD(); fd > 0 {
		unix.Close(fd)
	}
}

// proxySocket makes, for the trampoline of a proxy run, the socket pair
// its listener comes back on; the child's end will be fd n.
func (h *Handle) proxySocket(w *wireSpec, n int) error {
	if !w.Plan.Proxy {
		return nil
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox: proxy socket pair: %w", err)
	}
	h.proxyRecv = os.NewFile(uintptr(fds[0]), "agentexec-proxy-recv")
	h.proxyChild = os.NewFile(uintptr(fds[1]), "agentexec-proxy-send")
	w.ProxySock = n
	return nil
}

// ProxyListener returns the listener at ProxyAddr inside the command's
// network namespace, for a run prepared with Spec.Proxy; call it once,
// after Start. Serving it is the caller's business (connections wait in
// its queue until then); the caller closes it. Through the trampoline it
// waits until the trampoline has made it, or failed to (then the
// command does not run, and the error says the listener never came).
func (h *Handle) ProxyListener() (net.Listener, error) {
	fd := h.proxyFD
	h.proxyFD = 0
	if fd <= 0 && h.proxyRecv != nil {
		var err error
		if fd, err = receiveFD(h.proxyRecv); err != nil {
			return nil, fmt.Errorf("sandbox: the proxy listener did not come from the trampoline: %w", err)
		}
	}
	if fd <= 0 {
		return nil, errors.New("sandbox: this run has no proxy listener (Spec.Proxy unset, not started, or taken already)")
	}
	f := os.NewFile(uintptr(fd), "agentexec-proxy")
	defer f.Close()
	return net.FileListener(f)
}

// receiveFD reads one descriptor sent with SCM_RIGHTS from f.
func receiveFD(f *os.File) (int, error) {
	defer func() { f.Close() }()
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	var fds []int
	var rerr error
	err = rc.Read(func(s uintptr) bool {
		buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
		n, oobn, _, _, err := unix.Recvmsg(int(s), buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EAGAIN {
			return false
		}
		switch {
		case err != nil:
			rerr = err
		case n == 0:
			rerr = errors.New("the trampoline exited first")
		default:
			fds, rerr = parseRights(oob[:oobn])
		}
		return true
	})
	if err == nil {
		err = rerr
	}
	if err != nil {
		return -1, err
	}
	return fds[0], nil
}

func parseRights(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil || len(msgs) != 1 {
		return nil, errors.New("no descriptor in the message")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, errors.New("not one descriptor in the message")
	}
	return fds, nil
}

// closeProxy closes what a proxy run left untaken.
func (h *Handle) closeProxy() {
	if h.proxyFD > 0 {
		unix.Close(h.proxyFD)
		h.proxyFD = 0
	}
	for _, f := range []**os.File{&h.proxyRecv, &h.proxyChild} {
		if *f != nil {
			(*f).Close()
			*f = nil
		}
	}
}

// withProxyEnv points the command's clients at the proxy.
func withProxyEnv(env []string) []string {
	for _, kv := range proxyEnv {
		k, v, _ := strings.Cut(kv, "=")
		env = setEnv(env, k, v)
	}
	return env
}
