package egress

import (
	"net"

	"golang.org/x/sys/unix"
)

// tcpActivity is the bytes the kernel has received and had acknowledged
// on c, if c is a TCP connection (plus one, so that a live socket is never
// 0); 0 otherwise.
func tcpActivity(c net.Conn) uint64 {
	t := tcpOf(c)
	if t == nil {
		return 0
	}
	rc, err := t.SyscallConn()
	if err != nil {
		return 0
	}
	var v uint64
	rc.Control(func(fd uintptr) {
		if info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); err == nil {
			v = info.Bytes_received + info.Bytes_acked + 1
		}
	})
	return v
}
