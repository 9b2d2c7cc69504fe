// Package egress is agentexec's egress proxy: the only way out of a
// sandbox whose network is limited to an allowlist. One listener serves
// three protocols, told apart by the first byte a client sends: HTTP
// proxy requests (absolute URIs), HTTP CONNECT tunnels and SOCKS5 (with
// host names, so the proxy resolves them). Every connection is checked
// against [Rules] before anything is dialled, and recorded.
//
// # What it guarantees
//
//   - A name is resolved only after an allow entry matched it, so a name
//     off the list never reaches a DNS server (no DNS exfiltration through
//     the proxy's resolver); the command itself has no resolver.
//   - The addresses a name resolves to are checked, all of them, and the
//     connection goes to those very addresses (no second lookup): a name
//     that resolves to a loopback, private, link-local, unique-local or
//     metadata address is refused unless Rules.AllowLocal, whatever the
//     name (DNS rebinding, 127.0.0.1.nip.io).
//   - Plain HTTP: the request must carry an absolute URI whose host is
//     the Host header's; each request on a connection is checked.
//   - Tunnels (CONNECT, SOCKS5): when the client starts TLS, its
//     ClientHello's server name must be the host it asked for (absent for
//     an IP literal); otherwise the tunnel is closed before a byte reaches
//     the server. A tunnel that does not start with TLS is relayed as is,
//     to the allowed host and port only.
//   - Connections are bounded in number (Config.MaxConns; more wait in the
//     listen queue) and idle time (Config.IdleTimeout), and all of them end
//     at [Proxy.Close].
//
// # What it does not
//
// An allowed host receives whatever the command sends it: the allowlist
// limits where data can go, not what. A host shared by many sites (a
// CDN) may route a request to another site by the Host header inside TLS,
// which the proxy cannot read (domain fronting); allow such hosts only
// when that is acceptable. UDP (QUIC, DNS) is not relayed.
package egress

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"time"
)

// Config configures a Proxy. The zero value of each field but Rules has a
// default.
type Config struct {
	Rules Rules
	// Resolve resolves allowed names; nil uses the system resolver (of
	// this process, outside any sandbox). Tests map names to loopback
	// servers with it.
	Resolve Resolver
	// Dial connects to one checked address ("ip:port"); nil uses a
	// net.Dialer with DialTimeout.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// MaxConns bounds the client connections served at once (default 64);
	// more wait in the listen queue until one ends.
	MaxConns int
	// IdleTimeout ends a connection that moved no byte either way for
	// this long (default 2 minutes).
	IdleTimeout time.Duration
	// HandshakeTimeout bounds reading a client's request or greeting and,
	// in a tunnel, its TLS ClientHello (default 30 s).
	HandshakeTimeout time.Duration
	// DialTimeout bounds one connection attempt to a host (default 15 s).
	DialTimeout time.Duration
	// MaxRecords bounds the evidence kept (default 1000); connections past
	// it are counted in [Evidence].Dropped.
	MaxRecords int
}

// Connection is the evidence of one connection (for plain HTTP, one
// request): what was asked for, what was decided, and what moved.
type Connection struct {
	Protocol string `json:"protocol"` // "http", "connect" or "socks5"
	Host     string `json:"host"`     // name or IP literal, as checked
	Port     int    `json:"port"`
	Allowed  bool   `json:"allowed"`
	// Rule is the allow entry that matched (Allowed) or the deny entry
	// that refused; RuleSource says where it came from.
	Rule       string `json:"rule,omitempty"`
	RuleSource string `json:"rule_source,omitempty"`
	Addr       string `json:"addr,omitempty"`    // the address connected to
	Refused    string `json:"refused,omitempty"` // the kind of refusal
	Reason     string `json:"reason,omitempty"`  // why refused
	// Suggest is the allow entry that would admit a refused connection.
	Suggest  string `json:"suggest,omitempty"`
	Error    string `json:"error,omitempty"`     // an allowed connection that failed (no such host, refused by the host)
	BytesOut int64  `json:"bytes_out,omitempty"` // command → host
	BytesIn  int64  `json:"bytes_in,omitempty"`  // host → command
}

// Evidence is everything a proxy recorded.
type Evidence struct {
	Connections []Connection
	Dropped     int // records past Config.MaxRecords
}

// Proxy is an egress proxy for one run. Serve it on one listener; Close
// ends it. It is safe for concurrent use.
type Proxy struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc
	http   *httpFront
	slots  chan struct{} // one per connection served

	mu      sync.Mutex
	ln      net.Listener
	conns   map[net.Conn]struct{}
	records []*Connection
	dropped int
	closed  bool
	wg      sync.WaitGroup
}

// New returns a proxy configured by cfg.
func New(cfg Config) *Proxy {
	if cfg.Resolve == nil {
		cfg.Resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 64
	}
	cfg.IdleTimeout = orDefault(cfg.IdleTimeout, 2*time.Minute)
	cfg.HandshakeTimeout = orDefault(cfg.HandshakeTimeout, 30*time.Second)
	cfg.DialTimeout = orDefault(cfg.DialTimeout, 15*time.Second)
	if cfg.Dial == nil {
		d := &net.Dialer{Timeout: cfg.DialTimeout}
		cfg.Dial = d.DialContext
	}
	if cfg.MaxRecords <= 0 {
		cfg.MaxRecords = 1000
	}
	p := &Proxy{cfg: cfg, conns: map[net.Conn]struct{}{}, slots: make(chan struct{}, cfg.MaxConns)}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.http = newHTTPFront(p)
	return p
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// ErrClosed is returned by Serve after Close.
var ErrClosed = errors.New("egress: proxy closed")

// Serve accepts connections on l until Close, and returns ErrClosed then
// (or the listener's error). The proxy owns l: Close closes it.
func (p *Proxy) Serve(l net.Listener) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		l.Close()
		return ErrClosed
	}
	p.ln = l
	p.mu.Unlock()
	for {
		select {
		case p.slots <- struct{}{}: // released by untrack
		case <-p.ctx.Done():
			return ErrClosed
		}
		c, err := l.Accept()
		if err != nil {
			<-p.slots
			if p.isClosed() {
				return ErrClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		if !p.track(c) {
			<-p.slots
			c.Close()
			return ErrClosed
		}
		go p.serveConn(c)
	}
}

// track registers c for Close; false once closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	p.wg.Add(1)
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
	<-p.slots
	p.wg.Done()
}

// hold registers a tunnel's host side for Close; false once closed.
func (p *Proxy) hold(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) release(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

func (p *Proxy) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// serveConn tells the protocol by the first byte: 5 is SOCKS5, anything
// else is read as HTTP.
func (p *Proxy) serveConn(c net.Conn) {
	defer p.untrack(c)
	c.SetReadDeadline(time.Now().Add(p.cfg.HandshakeTimeout))
	br := bufio.NewReader(c)
	b, err := br.Peek(1)
	if err != nil {
		return
	}
	if b[0] == socksVersion {
		p.serveSOCKS(c, br)
		return
	}
	p.http.serve(c, br)
}

// Close stops the proxy: the listener and every connection are closed,
// and it returns, once every handler has ended, the evidence.
func (p *Proxy) Close() Evidence {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		p.cancel()
		if p.ln != nil {
			p.ln.Close()
		}
		for c := range p.conns {
			c.Close()
		}
	}
	p.mu.Unlock()
	p.wg.Wait()
	return p.Evidence()
}

// Evidence returns a copy of what has been recorded so far.
func (p *Proxy) Evidence() Evidence {
	p.mu.Lock()
	defer p.mu.Unlock()
	ev := Evidence{Dropped: p.dropped, Connections: make([]Connection, len(p.records))}
	for i, r := range p.records {
		ev.Connections[i] = *r
	}
	return ev
}

// record starts the evidence of one connection; the caller fills it in
// under p.mu through update.
func (p *Proxy) record(c Connection) *Connection {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.records) >= p.cfg.MaxRecords {
		p.dropped++
		return &Connection{} // filled in, never kept
	}
	r := &c
	p.records = append(p.records, r)
	return r
}

// update changes a record under the lock.
func (p *Proxy) update(r *Connection, f func(*Connection)) {
	p.mu.Lock()
	f(r)
	p.mu.Unlock()
}

// refusedRecord records a refusal.
func (p *Proxy) refusedRecord(proto, host string, port int, ref *Refusal, rule string, source string) {
	p.record(Connection{Protocol: proto, Host: host, Port: port, Refused: ref.Kind, Reason: ref.Reason,
		Suggest: ref.Suggest, Rule: rule, RuleSource: source})
}

// check decides a target and, when allowed, resolves it. A refusal is
// recorded here; err is a failure of an allowed target (a name that does
// not resolve), recorded too. The returned record (nil when refused) is
// filled in by the caller: Addr, bytes, a dial error.
func (p *Proxy) check(ctx context.Context, proto, host string, port int) (verdict, *Connection, *Refusal, error) {
	v, ref := p.cfg.Rules.target(host, port)
	var err error
	if ref == nil {
		rctx, cancel := context.WithTimeout(ctx, p.cfg.DialTimeout)
		v, ref, err = p.cfg.Rules.resolve(rctx, v, p.cfg.Resolve)
		cancel()
	}
	shown := v.host
	if shown == "" {
		shown = host
	}
	if ref != nil {
		rule, src := refusingRule(p.cfg.Rules, v)
		p.refusedRecord(proto, shown, port, ref, rule, src)
		return v, nil, ref, nil
	}
	rec := p.record(Connection{Protocol: proto, Host: shown, Port: port, Allowed: true, Rule: v.rule.Text, RuleSource: v.rule.Source})
	if err != nil {
		p.update(rec, func(c *Connection) { c.Error = err.Error() })
	}
	return v, rec, nil, err
}

// refusingRule names the deny entry behind a refusal, if any.
func refusingRule(r Rules, v verdict) (string, string) {
	if d, ok := r.Deny.MatchName(v.host, v.port); ok {
		return d.Text, sourceOf(d)
	}
	for _, a := range v.addrs {
		if d, ok := r.Deny.MatchAddr(a, v.port); ok {
			return d.Text, sourceOf(d)
		}
	}
	return "", ""
}

// dial connects to the first of v's addresses that answers.
func (p *Proxy) dial(ctx context.Context, v verdict) (net.Conn, netip.AddrPort, error) {
	var errs []error
	for _, a := range v.addrs {
		ap := netip.AddrPortFrom(a, uint16(v.port))
		c, err := p.cfg.Dial(ctx, "tcp", ap.String())
		if err == nil {
			return c, ap, nil
		}
		errs = append(errs, err)
	}
	return nil, netip.AddrPort{}, errors.Join(errs...)
}
