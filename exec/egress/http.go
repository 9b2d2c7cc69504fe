package egress

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// httpFront serves the HTTP side of the proxy with net/http: absolute-URI
// requests are relayed by a ReverseProxy whose transport dials only the
// addresses the check returned; CONNECT is hijacked into a tunnel.
type httpFront struct {
	p      *Proxy
	srv    *http.Server
	ln     *chanListener
	rp     *httputil.ReverseProxy
	tr     *http.Transport
	served atomic.Bool
}

// verdictKey carries a request's checked verdict to the transport's dial.
type verdictKey struct{}

func newHTTPFront(p *Proxy) *httpFront {
	f := &httpFront{p: p, ln: newChanListener()}
	f.tr = &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			v, ok := ctx.Value(verdictKey{}).(verdict)
			if !ok || len(v.addrs) == 0 {
				return nil, errors.New("egress: dial without a checked target") // never: every request is checked
			}
			c, _, err := p.dial(ctx, v)
			return c, err
		},
		MaxIdleConnsPerHost: 4, IdleConnTimeout: p.cfg.IdleTimeout,
		TLSHandshakeTimeout: p.cfg.HandshakeTimeout, DisableCompression: true,
		ResponseHeaderTimeout: p.cfg.IdleTimeout,
	}
	f.rp = &httputil.ReverseProxy{
		Rewrite:      func(pr *httputil.ProxyRequest) { pr.Out.Host = pr.In.Host },
		Transport:    f.tr,
		ErrorHandler: f.upstreamError,
		BufferPool:   bufferPool{},
	}
	f.srv = &http.Server{
		Handler:           f,
		ReadHeaderTimeout: p.cfg.HandshakeTimeout,
		IdleTimeout:       p.cfg.IdleTimeout,
		ErrorLog:          discardLog,
	}
	return f
}

// serve hands one client connection (its first bytes in br) to the HTTP
// server and waits for it to be done with it.
func (f *httpFront) serve(c net.Conn, br *bufio.Reader) {
	if f.served.CompareAndSwap(false, true) {
		go f.srv.Serve(f.ln)
		go func() {
			<-f.p.ctx.Done()
			f.srv.Close()
			f.tr.CloseIdleConnections()
		}()
	}
	c.SetReadDeadline(time.Time{}) // the server applies its own timeouts
	bc := &bufConn{Conn: c, r: br, done: make(chan struct{})}
	if !f.ln.push(bc) {
		return
	}
	// Done when the server closes it, or the tunnel it was hijacked
	// into ends: Close closes the raw connection (and a tunnel's host
	// side), which ends either.
	<-bc.done
}

// ServeHTTP relays one proxy request.
func (f *httpFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		f.connect(w, r)
		return
	}
	host, port, ref := requestTarget(r)
	if ref != nil {
		f.p.refusedRecord("http", r.Host, 0, ref, "", "")
		refuse(w, http.StatusBadRequest, ref)
		return
	}
	v, rec, ok := f.admit(w, r, "http", host, port)
	if !ok {
		return
	}
	if r.Body != nil {
		r.Body = &countReader{r: r.Body, f: func(n int64) { f.p.update(rec, func(c *Connection) { c.BytesOut += n }) }}
	}
	cw := &countWriter{ResponseWriter: w, f: func(n int64) { f.p.update(rec, func(c *Connection) { c.BytesIn += n }) }}
	ctx := context.WithValue(r.Context(), verdictKey{}, v)
	ctx = context.WithValue(ctx, recordKey{}, rec)
	f.rp.ServeHTTP(cw, r.WithContext(ctx))
}

type recordKey struct{}

// upstreamError answers a request whose host could not be reached.
func (f *httpFront) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	if rec, ok := r.Context().Value(recordKey{}).(*Connection); ok {
		f.p.update(rec, func(c *Connection) {
			if c.Error == "" {
				c.Error = err.Error()
			}
		})
	}
	http.Error(w, "agentexec egress proxy: the host could not be reached: "+err.Error(), http.StatusBadGateway)
}

// requestTarget reads the host a proxy request is for: an absolute http
// or https URI, whose host the Host header must name too (a request to
// one host carrying another's Host header is refused, not guessed at).
func requestTarget(r *http.Request) (string, int, *Refusal) {
	u := r.URL
	if u == nil || !u.IsAbs() || u.Host == "" {
		return "", 0, badRequest("this is agentexec's egress proxy: a request must carry an absolute URI (http://host/path); set HTTP_PROXY rather than connecting to it directly")
	}
	def := 80
	switch strings.ToLower(u.Scheme) {
	case "http":
	case "https":
		def = 443
	default:
		return "", 0, badRequest(fmt.Sprintf("the proxy relays http and https, not %s", u.Scheme))
	}
	host, port, err := splitTarget(u.Host, def)
	if err != nil {
		return "", 0, badRequest("request URI: " + err.Error())
	}
	if r.Host != "" {
		hh, hp, err := splitTarget(r.Host, def)
		if err != nil || !strings.EqualFold(strings.TrimSuffix(hh, "."), strings.TrimSuffix(host, ".")) || hp != port {
			return "", 0, badRequest(fmt.Sprintf("the Host header %q names another host than the request URI (%s)", r.Host, u.Host))
		}
	}
	return host, port, nil
}

// refuse answers a refused request: status, and a body that says why and
// which entry would allow it.
func refuse(w http.ResponseWriter, status int, ref *Refusal) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Agentexec-Refused", ref.Kind)
	w.Header().Set("Connection", "close")
	w.WriteHeader(status)
	fmt.Fprintf(w, "agentexec egress proxy: refused: %s\n", ref.Reason)
}

// connect serves CONNECT host:port: checked, dialled, then hijacked into
// a tunnel whose TLS server name is checked.
// admit checks a request's target and answers a refused or failed one.
func (f *httpFront) admit(w http.ResponseWriter, r *http.Request, proto, host string, port int) (verdict, *Connection, bool) {
	v, rec, ref, err := f.p.check(r.Context(), proto, host, port)
	switch {
	case ref != nil:
		refuse(w, http.StatusForbidden, ref)
		return v, rec, false
	case err != nil:
		http.Error(w, "agentexec egress proxy: "+err.Error(), http.StatusBadGateway)
		return v, rec, false
	}
	return v, rec, true
}

func (f *httpFront) connect(w http.ResponseWriter, r *http.Request) {
	host, port, err := splitTarget(r.Host, 0)
	if err != nil {
		ref := badRequest("CONNECT wants host:port: " + err.Error())
		f.p.refusedRecord("connect", r.Host, 0, ref, "", "")
		refuse(w, http.StatusBadRequest, ref)
		return
	}
	v, rec, ok := f.admit(w, r, "connect", host, port)
	if !ok {
		return
	}
	up, ap, err := f.p.dial(r.Context(), v)
	if err != nil {
		f.p.update(rec, func(c *Connection) { c.Error = err.Error() })
		http.Error(w, "agentexec egress proxy: the host could not be reached: "+err.Error(), http.StatusBadGateway)
		return
	}
	f.p.update(rec, func(c *Connection) { c.Addr = ap.String() })
	c, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		up.Close()
		return
	}
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		c.Close()
		up.Close()
		return
	}
	f.p.tunnel(c, brw.Reader, up, v, rec)
}

// chanListener is a net.Listener fed by the proxy's protocol sniffing.
type chanListener struct {
	c      chan net.Conn
	done   chan struct{}
	closed atomic.Bool
}

func newChanListener() *chanListener {
	return &chanListener{c: make(chan net.Conn), done: make(chan struct{})}
}

func (l *chanListener) push(c net.Conn) bool {
	select {
	case l.c <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.c:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error {
	if l.closed.CompareAndSwap(false, true) {
		close(l.done)
	}
	return nil
}

func (l *chanListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// bufConn is a client connection whose first bytes were read ahead; done
// is closed when the HTTP server closes it (or hijacked it and the tunnel
// closed it).
type bufConn struct {
	net.Conn
	r    *bufio.Reader
	done chan struct{}
	once atomic.Bool
}

func (c *bufConn) Read(b []byte) (int, error) { return c.r.Read(b) }

func (c *bufConn) Close() error {
	err := c.Conn.Close()
	if c.once.CompareAndSwap(false, true) {
		close(c.done)
	}
	return err
}

// countReader counts what is read through it.
type countReader struct {
	r io.ReadCloser
	f func(int64)
}

func (c *countReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if n > 0 {
		c.f(int64(n))
	}
	return n, err
}

func (c *countReader) Close() error { return c.r.Close() }

// countWriter counts the response body written through it.
type countWriter struct {
	http.ResponseWriter
	f func(int64)
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	if n > 0 {
		c.f(int64(n))
	}
	return n, err
}

// Unwrap lets http.ResponseController reach Flush and Hijack.
func (c *countWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// bufferPool gives ReverseProxy 256 KiB buffers rather than its 32 KiB:
// fewer system calls per byte relayed (measured: BenchmarkDownload).
type bufferPool struct{}

var buffers = sync.Pool{New: func() any { return make([]byte, 256<<10) }}

func (bufferPool) Get() []byte  { return buffers.Get().([]byte) }
func (bufferPool) Put(b []byte) { buffers.Put(b) } //nolint:staticcheck // a slice header is small
