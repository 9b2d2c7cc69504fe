package egress

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"time"
)

// SOCKS5 (RFC 1928), the CONNECT command only, no authentication. Names
// (address type 3) are resolved here, by the proxy, as for HTTP.
const (
	socksVersion     = 5
	socksNoAuth      = 0
	socksNoMethod    = 0xff
	socksConnect     = 1
	socksIPv4        = 1
	socksName        = 3
	socksIPv6        = 4
	socksOK          = 0
	socksFailure     = 1
	socksNotAllowed  = 2
	socksHostUnreach = 4
	socksCmdUnsupp   = 7
	socksAddrUnsupp  = 8
)

// serveSOCKS serves one SOCKS5 client: greeting, one CONNECT request,
// then a tunnel like CONNECT's.
func (p *Proxy) serveSOCKS(c net.Conn, br *bufio.Reader) {
	if !socksGreeting(c, br) {
		return
	}
	host, port, code := socksRequest(br)
	if code != socksOK {
		ref := badRequest("SOCKS5: only CONNECT to a name, IPv4 or IPv6 address is relayed")
		p.refusedRecord("socks5", host, port, ref, "", "")
		socksReply(c, code, netip.AddrPort{})
		return
	}
	v, rec, ref, err := p.check(p.ctx, "socks5", host, port)
	switch {
	case ref != nil:
		socksReply(c, socksNotAllowed, netip.AddrPort{})
		return
	case err != nil:
		socksReply(c, socksHostUnreach, netip.AddrPort{})
		return
	}
	up, ap, err := p.dial(p.ctx, v)
	if err != nil {
		p.update(rec, func(r *Connection) { r.Error = err.Error() })
		socksReply(c, socksHostUnreach, netip.AddrPort{})
		return
	}
	p.update(rec, func(r *Connection) { r.Addr = ap.String() })
	local, _ := netip.ParseAddrPort(up.LocalAddr().String())
	if socksReply(c, socksOK, local) != nil {
		up.Close()
		return
	}
	c.SetReadDeadline(time.Time{})
	p.tunnel(c, br, up, v, rec)
}

// socksGreeting reads the client's methods and accepts "no
// authentication", the only one offered here.
func socksGreeting(c net.Conn, br *bufio.Reader) bool {
	var hdr [2]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil || hdr[0] != socksVersion {
		return false
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(br, methods); err != nil {
		return false
	}
	for _, m := range methods {
		if m == socksNoAuth {
			_, err := c.Write([]byte{socksVersion, socksNoAuth})
			return err == nil
		}
	}
	c.Write([]byte{socksVersion, socksNoMethod})
	return false
}

// socksRequest reads a request: VER CMD RSV ATYP ADDR PORT.
func socksRequest(br *bufio.Reader) (string, int, byte) {
	var hdr [4]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil || hdr[0] != socksVersion {
		return "", 0, socksFailure
	}
	var host string
	switch hdr[3] {
	case socksIPv4, socksIPv6:
		b := make([]byte, 4)
		if hdr[3] == socksIPv6 {
			b = make([]byte, 16)
		}
		if _, err := io.ReadFull(br, b); err != nil {
			return "", 0, socksFailure
		}
		a, _ := netip.AddrFromSlice(b)
		host = a.String()
	case socksName:
		n, err := br.ReadByte()
		if err != nil {
			return "", 0, socksFailure
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return "", 0, socksFailure
		}
		host = string(b)
	default:
		return "", 0, socksAddrUnsupp
	}
	var pb [2]byte
	if _, err := io.ReadFull(br, pb[:]); err != nil {
		return host, 0, socksFailure
	}
	port := int(binary.BigEndian.Uint16(pb[:]))
	if hdr[1] != socksConnect {
		return host, port, socksCmdUnsupp
	}
	return host, port, socksOK
}

// socksReply answers a request with code and the bound address.
func socksReply(c net.Conn, code byte, bound netip.AddrPort) error {
	b := []byte{socksVersion, code, 0}
	a := bound.Addr()
	switch {
	case a.Is4():
		b = append(b, socksIPv4)
		b = append(b, a.AsSlice()...)
	case a.Is6():
		b = append(b, socksIPv6)
		b = append(b, a.AsSlice()...)
	default:
		b = append(b, socksIPv4, 0, 0, 0, 0)
	}
	b = binary.BigEndian.AppendUint16(b, bound.Port())
	_, err := c.Write(b)
	return err
}
