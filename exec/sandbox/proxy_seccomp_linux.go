//go:build linux && (amd64 || arm64)

package sandbox

import (
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// proxySocketFilter is a seccomp filter stacked on the main one in the
// proxy mode (which leaves socket families alone there): socket(2) and
// socketpair(2) of any family but AF_UNIX, AF_INET and AF_INET6 fail with
// EPERM. AF_VSOCK, AF_PACKET, AF_NETLINK, AF_BLUETOOTH and the rest are
// not needed to reach a proxy, and vsock is confined by no network
// namespace. The main filter has refused foreign architectures already.
func proxySocketFilter() ([]unix.SockFilter, error) {
	var a bpfAsm
	a.add(bpf.LoadAbsolute{Off: offNr, Size: 4})
	a.jeq(unix.SYS_SOCKET, "socket")
	a.jeq(unix.SYS_SOCKETPAIR, "socket")
	a.ret(retAllow)
	a.label("socket")
	a.add(bpf.LoadAbsolute{Off: offArg0, Size: 4})
	a.jeq(unix.AF_UNIX, "allow")
	a.jeq(unix.AF_INET, "allow")
	a.jeq(unix.AF_INET6, "allow")
	a.ret(retEPERM)
	a.label("allow")
	a.ret(retAllow)
	raw, err := a.assemble()
	if err != nil {
		return nil, err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return filter, nil
}

// installProxySocketFilter installs proxySocketFilter on this thread.
func installProxySocketFilter(*wireSpec) error {
	filter, err := proxySocketFilter()
	if err != nil {
		return err
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0)
}
