package egress

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

var discardLog = log.New(io.Discard, "", 0)

// tunnel relays between the client c (its read-ahead in br) and up, a
// connection to the checked target v. The host's bytes flow at once (a
// server may speak first); the client's first bytes are held until they
// show whether it starts TLS: if so, its ClientHello's server name must
// be v's host (none for an IP literal), or both ends are closed before a
// byte of it reaches the host. Nothing moving either way for
// IdleTimeout ends the tunnel, and so does Close.
func (p *Proxy) tunnel(c net.Conn, br *bufio.Reader, up net.Conn, v verdict, rec *Connection) {
	defer c.Close()
	if !p.hold(up) {
		up.Close()
		return
	}
	defer p.release(up)
	t := newRelay(p.cfg.IdleTimeout, c, up)
	defer t.stop()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // host → client
		defer wg.Done()
		n, _ := t.copy(c, up, nil)
		p.update(rec, func(r *Connection) { r.BytesIn += n })
		closeWrite(c)
	}()
	head, ref := p.firstBytes(c, br, v)
	if ref != nil {
		p.update(rec, func(r *Connection) {
			r.Allowed, r.Refused, r.Reason = false, ref.Kind, ref.Reason
		})
		c.Close()
		up.Close()
		wg.Wait()
		return
	}
	n, err := writeAll(up, head)
	if err == nil {
		m, _ := t.copy(up, c, br)
		n += m
	}
	p.update(rec, func(r *Connection) { r.BytesOut += n })
	closeWrite(up)
	wg.Wait()
}

func writeAll(w io.Writer, b []byte) (int64, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, err := w.Write(b)
	return int64(n), err
}

// firstBytes reads what the client sends first, within HandshakeTimeout:
// a TLS ClientHello (whose server name is checked) or anything else
// (relayed as is). It returns the bytes read, to be sent on.
func (p *Proxy) firstBytes(c net.Conn, br *bufio.Reader, v verdict) ([]byte, *Refusal) {
	c.SetReadDeadline(time.Now().Add(p.cfg.HandshakeTimeout))
	defer c.SetReadDeadline(time.Time{})
	b, err := br.Peek(1)
	if err != nil {
		return nil, nil // nothing sent: the host's side decides
	}
	if b[0] != recordTypeHandshake {
		return nil, nil
	}
	var seen bytes.Buffer
	name, err := clientHelloServerName(io.TeeReader(br, &seen))
	if err != nil {
		return nil, &Refusal{Kind: RefusedSNI, Reason: "the tunnel's first bytes looked like TLS but are no ClientHello the proxy could read: " + err.Error()}
	}
	if ref := sniRefusal(name, v); ref != nil {
		return nil, ref
	}
	return seen.Bytes(), nil
}

// sniRefusal compares a ClientHello's server name with the host asked for.
func sniRefusal(name string, v verdict) *Refusal {
	want := v.host
	isIP := strings.Contains(want, ":") || net.ParseIP(want) != nil
	n := strings.ToLower(strings.TrimSuffix(name, "."))
	switch {
	case isIP && (n == "" || n == want):
		return nil
	case !isIP && n == want:
		return nil
	case n == "":
		return &Refusal{Kind: RefusedSNI, Reason: "the TLS ClientHello names no server, but the tunnel was opened to " + want + ": closed"}
	}
	return &Refusal{Kind: RefusedSNI, Reason: "the TLS ClientHello names " + name + ", but the tunnel was opened to " + want + ": closed (the server name must be the host asked for)"}
}

const recordTypeHandshake = 0x16

// errHelloRead stops the TLS handshake once the ClientHello was read.
var errHelloRead = errors.New("client hello read")

// clientHelloServerName reads one ClientHello from r with crypto/tls's own
// parser and returns its server name ("" when it has none). The handshake
// goes no further: nothing is written back.
func clientHelloServerName(r io.Reader) (string, error) {
	var name string
	var got bool
	cfg := &tls.Config{GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
		name, got = h.ServerName, true
		return nil, errHelloRead
	}}
	err := tls.Server(readOnlyConn{r: r}, cfg).Handshake()
	if got {
		return name, nil
	}
	if err == nil {
		err = errors.New("no ClientHello")
	}
	return "", err
}

// readOnlyConn is a net.Conn that reads from r and refuses writes, for
// parsing a ClientHello.
type readOnlyConn struct {
	net.Conn // nil: only Read, Write and the deadlines are called
	r        io.Reader
}

func (c readOnlyConn) Read(b []byte) (int, error)       { return c.r.Read(b) }
func (c readOnlyConn) Write(b []byte) (int, error)      { return 0, io.ErrClosedPipe }
func (c readOnlyConn) Close() error                     { return nil }
func (c readOnlyConn) SetDeadline(time.Time) error      { return nil }
func (c readOnlyConn) SetReadDeadline(time.Time) error  { return nil }
func (c readOnlyConn) SetWriteDeadline(time.Time) error { return nil }
func (c readOnlyConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c readOnlyConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }

// relay copies between two connections and ends them when nothing moved
// for idle. Between two TCP connections the kernel moves the bytes
// (io.Copy splices), so activity is read from the sockets' own counters
// (tcpActivity); other connections are copied here and counted.
type relay struct {
	moved atomic.Int64 // bytes copied in user space
	conns []net.Conn
	done  chan struct{}
	once  sync.Once
}

func newRelay(idle time.Duration, conns ...net.Conn) *relay {
	t := &relay{conns: conns, done: make(chan struct{})}
	go t.watch(idle)
	return t
}

func (t *relay) stop() { t.once.Do(func() { close(t.done) }) }

// activity is a number that changes whenever a byte moved.
func (t *relay) activity() uint64 {
	v := uint64(t.moved.Load())
	for _, c := range t.conns {
		v += tcpActivity(c)
	}
	return v
}

// watch closes the connections once activity stood still for idle.
func (t *relay) watch(idle time.Duration) {
	tick := time.NewTicker(max(idle/4, 10*time.Millisecond))
	defer tick.Stop()
	last, since := t.activity(), time.Now()
	for {
		select {
		case <-t.done:
			return
		case now := <-tick.C:
			if a := t.activity(); a != last {
				last, since = a, now
			} else if now.Sub(since) >= idle {
				for _, c := range t.conns {
					c.Close()
				}
				return
			}
		}
	}
}

// copy copies src to dst (what br holds of src first, when br is not
// nil) and returns the bytes copied.
func (t *relay) copy(dst, src net.Conn, br *bufio.Reader) (int64, error) {
	var n int64
	if br != nil && br.Buffered() > 0 {
		b, _ := br.Peek(br.Buffered())
		m, err := dst.Write(b)
		br.Discard(m)
		n += int64(m)
		t.moved.Add(int64(m))
		if err != nil {
			return n, err
		}
	}
	d, s := tcpOf(dst), tcpOf(src)
	if d != nil && s != nil && tcpActivity(d) != 0 {
		m, err := io.Copy(d, s) // splice(2) on Linux
		return n + m, err
	}
	m, err := t.userCopy(dst, src)
	return n + m, err
}

// userCopy copies through a buffer, counting.
func (t *relay) userCopy(dst io.Writer, src io.Reader) (int64, error) {
	buf := make([]byte, 64<<10)
	var n int64
	for {
		m, err := src.Read(buf)
		if m > 0 {
			t.moved.Add(int64(m))
			w, werr := dst.Write(buf[:m])
			n += int64(w)
			if werr != nil {
				return n, werr
			}
		}
		if err != nil {
			if err == io.EOF {
				return n, nil
			}
			return n, err
		}
	}
}

// tcpOf unwraps c to its TCP connection, or nil.
func tcpOf(c net.Conn) *net.TCPConn {
	switch c := c.(type) {
	case *net.TCPConn:
		return c
	case *bufConn:
		return tcpOf(c.Conn)
	}
	return nil
}

// closeWrite half-closes a TCP connection (the peer sees end of file),
// or closes another kind.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	if bc, ok := c.(*bufConn); ok {
		closeWrite(bc.Conn)
		return
	}
	c.Close()
}
