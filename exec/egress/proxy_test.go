package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentexec/agentexec/gate"
	"golang.org/x/net/proxy"
)

// fixture is a proxy on loopback whose resolver maps test names to
// loopback servers.
type fixture struct {
	t       *testing.T
	p       *Proxy
	addr    string // the proxy's host:port
	names   map[string][]netip.Addr
	lookups atomic.Int32
	served  chan error
}

func rules(t *testing.T, allow, deny []string, local bool) Rules {
	t.Helper()
	a, err := gate.ParseHostList(allow, "test.allow", true)
	if err != nil {
		t.Fatal(err)
	}
	d, err := gate.ParseHostList(deny, "test.deny", true)
	if err != nil {
		t.Fatal(err)
	}
	return Rules{Allow: a, Deny: d, AllowLocal: local}
}

func newFixture(t *testing.T, r Rules, tweak ...func(*Config)) *fixture {
	t.Helper()
	lo := []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	f := &fixture{t: t, served: make(chan error, 1), names: map[string][]netip.Addr{
		"allowed.test": lo, "other.test": lo, "example.com": lo, "127.0.0.1.nip.io": lo,
		"rebind.test":   {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("127.0.0.1")},
		"metadata.test": {netip.MustParseAddr("169.254.169.254")},
	}}
	cfg := Config{Rules: r, Resolve: func(ctx context.Context, host string) ([]netip.Addr, error) {
		f.lookups.Add(1)
		if a, ok := f.names[host]; ok {
			return append([]netip.Addr(nil), a...), nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}}
	for _, tw := range tweak {
		tw(&cfg)
	}
	f.p = New(cfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.addr = ln.Addr().String()
	go func() { f.served <- f.p.Serve(ln) }()
	t.Cleanup(func() { f.close() })
	return f
}

func (f *fixture) close() Evidence {
	ev := f.p.Close()
	if err := <-f.served; err != nil && !errors.Is(err, ErrClosed) {
		f.t.Errorf("Serve: %v", err)
	}
	f.served <- ErrClosed // for a second close
	return ev
}

func (f *fixture) client(roots *x509.CertPool) *http.Client {
	u, _ := url.Parse("http://" + f.addr)
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u), TLSClientConfig: &tls.Config{RootCAs: roots}}, Timeout: 10 * time.Second}
}

func port(t *testing.T, hostport string) string {
	_, p, err := net.SplitHostPort(strings.TrimPrefix(strings.TrimPrefix(hostport, "http://"), "https://"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func okServer(t *testing.T, body string) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, "%s host=%s", body, r.Host)
	}))
	t.Cleanup(s.Close)
	return s
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestHTTPAllowedAndRefused(t *testing.T) {
	srv := okServer(t, "hello")
	p := port(t, srv.URL)
	f := newFixture(t, rules(t, []string{"allowed.test"}, nil, true))
	c := f.client(nil)
	if code, body := get(t, c, "http://allowed.test:"+p+"/x"); code != 200 || !strings.HasPrefix(body, "hello host=allowed.test:"+p) {
		t.Errorf("allowed: %d %q", code, body)
	}
	code, body := get(t, c, "http://other.test:"+p+"/x")
	if code != 403 || !strings.Contains(body, "other.test:"+p) || !strings.Contains(body, `"other.test:`+p+`"`) || !strings.Contains(body, "sandbox.network.allow") {
		t.Errorf("off-list: %d %q, want 403 naming the host and the entry to add", code, body)
	}
	if n := f.lookups.Load(); n != 1 {
		t.Errorf("resolver called %d times, want once (never for the refused name)", n)
	}
	ev := f.close()
	if len(ev.Connections) != 2 {
		t.Fatalf("evidence: %+v", ev)
	}
	a, r := ev.Connections[0], ev.Connections[1]
	if !a.Allowed || a.Host != "allowed.test" || a.Rule != "allowed.test" || a.RuleSource != "test.allow" || a.BytesIn == 0 {
		t.Errorf("allowed record: %+v", a)
	}
	if r.Allowed || r.Refused != RefusedNotAllowed || r.Suggest != "other.test:"+p {
		t.Errorf("refused record: %+v", r)
	}
}

func TestLocalAddressesRefused(t *testing.T) {
	srv := okServer(t, "secret")
	p := port(t, srv.URL)
	f := newFixture(t, rules(t, []string{"*"}, nil, false))
	c := f.client(nil)
	for _, host := range []string{"allowed.test", "127.0.0.1.nip.io", "rebind.test", "metadata.test"} {
		code, body := get(t, c, "http://"+host+":"+p+"/")
		if code != 403 || strings.Contains(body, "secret") || !strings.Contains(body, "allow_local") {
			t.Errorf("%s: %d %q, want 403 naming allow_local", host, code, body)
		}
	}
	// An IP literal needs an IP entry; "*" is for names.
	if code, body := get(t, c, "http://127.0.0.1:"+p+"/"); code != 403 || strings.Contains(body, "secret") {
		t.Errorf("127.0.0.1: %d %q", code, body)
	}
	g := newFixture(t, rules(t, []string{"*"}, nil, true))
	if code, body := get(t, g.client(nil), "http://127.0.0.1.nip.io:"+p+"/"); code != 200 || !strings.HasPrefix(body, "secret") {
		t.Errorf("with allow_local: %d %q", code, body)
	}
}

func TestDenyWins(t *testing.T) {
	srv := okServer(t, "x")
	p := port(t, srv.URL)
	f := newFixture(t, rules(t, []string{"*.test", "127.0.0.0/8"}, []string{"other.test", "127.0.0.2"}, true))
	c := f.client(nil)
	if code, _ := get(t, c, "http://allowed.test:"+p+"/"); code != 200 {
		t.Errorf("allowed.test: %d", code)
	}
	if code, body := get(t, c, "http://other.test:"+p+"/"); code != 403 || !strings.Contains(body, "denied") {
		t.Errorf("other.test: %d %q", code, body)
	}
	if code, _ := get(t, c, "http://127.0.0.1:"+p+"/"); code != 200 {
		t.Errorf("127.0.0.1 (in 127.0.0.0/8): %d", code)
	}
	f.names["deny-by-addr.test"] = []netip.Addr{netip.MustParseAddr("127.0.0.2")}
	if code, body := get(t, c, "http://deny-by-addr.test:"+p+"/"); code != 403 || !strings.Contains(body, "127.0.0.2") {
		t.Errorf("name resolving to a denied address: %d %q", code, body)
	}
}

// rawRequest sends text to the proxy and returns the first response line.
func rawRequest(t *testing.T, addr, text string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, text)
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line)
}

func TestHTTPRequestShapes(t *testing.T) {
	srv := okServer(t, "x")
	p := port(t, srv.URL)
	f := newFixture(t, rules(t, []string{"allowed.test"}, nil, true))
	cases := map[string]string{
		"GET http://allowed.test:" + p + "/ HTTP/1.1\r\nHost: allowed.test:" + p + "\r\nConnection: close\r\n\r\n": "HTTP/1.1 200 OK",
		"GET / HTTP/1.1\r\nHost: allowed.test:" + p + "\r\n\r\n":                                                   "HTTP/1.1 400 Bad Request",
		"GET ftp://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n":                                           "HTTP/1.1 400 Bad Request",
		"GET http://allowed.test@other.test:" + p + "/ HTTP/1.1\r\nHost: other.test:" + p + "\r\n\r\n":             "HTTP/1.1 403 Forbidden",
		"CONNECT other.test:" + p + " HTTP/1.1\r\nHost: other.test:" + p + "\r\n\r\n":                              "HTTP/1.1 403 Forbidden",
		"CONNECT allowed.test HTTP/1.1\r\nHost: allowed.test\r\n\r\n":                                              "HTTP/1.1 400 Bad Request",
	}
	for req, want := range cases {
		if got := rawRequest(t, f.addr, req); got != want {
			t.Errorf("%q: %q, want %q", req, got, want)
		}
	}
}

// The Host header of an absolute-URI request is replaced by the URI's
// host (RFC 9112 3.2.2), so the host sees the name that was checked.
func TestHostHeaderReplaced(t *testing.T) {
	srv := okServer(t, "x")
	p := port(t, srv.URL)
	f := newFixture(t, rules(t, []string{"allowed.test"}, nil, true))
	c, err := net.Dial("tcp", f.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET http://allowed.test:%s/ HTTP/1.1\r\nHost: other.test:%s\r\nConnection: close\r\n\r\n", p, p)
	b, _ := io.ReadAll(c)
	if !strings.Contains(string(b), "x host=allowed.test:"+p) {
		t.Errorf("response %q, want the host to see Host: allowed.test", b)
	}
}

// A second request on a kept-alive connection is checked too.
func TestKeepAliveEachRequestChecked(t *testing.T) {
	srv := okServer(t, "x")
	p := port(t, srv.URL)
	f := newFixture(t, rules(t, []string{"allowed.test"}, nil, true))
	c, err := net.Dial("tcp", f.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	fmt.Fprintf(c, "GET http://allowed.test:%s/ HTTP/1.1\r\nHost: allowed.test:%s\r\n\r\n", p, p)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("first: %v %v", resp, err)
	}
	io.Copy(io.Discard, resp.Body)
	fmt.Fprintf(c, "GET http://other.test:%s/ HTTP/1.1\r\nHost: other.test:%s\r\n\r\n", p, p)
	resp, err = http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 403 {
		t.Fatalf("second: %v %v", resp, err)
	}
}

func TestHTTPSConnect(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "tls ok") }))
	defer srv.Close()
	p := port(t, srv.URL)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	f := newFixture(t, rules(t, []string{"example.com"}, nil, true))
	c := f.client(roots)
	if code, body := get(t, c, "https://example.com:"+p+"/"); code != 200 || body != "tls ok" {
		t.Errorf("https through CONNECT: %d %q", code, body)
	}
	if code, body := get(t, c, "https://other.test:"+p+"/"); code != 0 || !strings.Contains(body, "Forbidden") {
		t.Errorf("off-list CONNECT: %d %q", code, body)
	}
	ev := f.close()
	if len(ev.Connections) != 2 || ev.Connections[0].Protocol != "connect" || ev.Connections[0].BytesIn == 0 || ev.Connections[0].BytesOut == 0 {
		t.Errorf("evidence: %+v", ev.Connections)
	}
}

// byteCounter is a raw TCP server that counts what it receives.
type byteCounter struct {
	ln   net.Listener
	got  atomic.Int64
	wg   sync.WaitGroup
	echo bool
}

func newByteCounter(t *testing.T, echo bool) *byteCounter {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &byteCounter{ln: ln, echo: echo}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.wg.Add(1)
			go func() {
				defer b.wg.Done()
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					b.got.Add(int64(n))
					if b.echo && n > 0 {
						c.Write(buf[:n])
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); b.wg.Wait() })
	return b
}

func (b *byteCounter) port() string { _, p, _ := net.SplitHostPort(b.ln.Addr().String()); return p }

// connectTunnel opens a CONNECT tunnel through the proxy.
func connectTunnel(t *testing.T, addr, target string) (net.Conn, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "CONNECT"})
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	return c, resp.Status
}

func TestConnectSNIMismatchClosed(t *testing.T) {
	up := newByteCounter(t, false)
	f := newFixture(t, rules(t, []string{"allowed.test", "127.0.0.1"}, nil, true))
	for _, tc := range []struct{ target, sni string }{
		{"allowed.test:" + up.port(), "evil.example"},
		{"allowed.test:" + up.port(), ""}, // a name asked for, none given
		{"127.0.0.1:" + up.port(), "evil.example"},
	} {
		c, status := connectTunnel(t, f.addr, tc.target)
		if status != "200 Connection established" {
			t.Fatalf("%s: %s", tc.target, status)
		}
		tc2 := tls.Client(c, &tls.Config{ServerName: tc.sni, InsecureSkipVerify: true})
		err := tc2.Handshake()
		c.Close()
		if err == nil {
			t.Errorf("%s with SNI %q: handshake succeeded", tc.target, tc.sni)
		}
	}
	ev := f.close()
	up.ln.Close()
	up.wg.Wait()
	if n := up.got.Load(); n != 0 {
		t.Errorf("the host received %d bytes of a refused tunnel, want 0", n)
	}
	for _, c := range ev.Connections {
		if c.Allowed || c.Refused != RefusedSNI {
			t.Errorf("record %+v, want refused sni", c)
		}
	}
}

// A tunnel that does not start with TLS is relayed, to the allowed host.
func TestConnectRawAndSNIMatch(t *testing.T) {
	up := newByteCounter(t, true)
	f := newFixture(t, rules(t, []string{"allowed.test"}, nil, true))
	c, status := connectTunnel(t, f.addr, "allowed.test:"+up.port())
	if status != "200 Connection established" {
		t.Fatal(status)
	}
	io.WriteString(c, "ping")
	buf := make([]byte, 4)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
		t.Errorf("raw tunnel echo: %q %v", buf, err)
	}
	c.Close()
}

func TestSOCKS5(t *testing.T) {
	srv := okServer(t, "via socks")
	p := port(t, srv.URL)
	f := newFixture(t, rules(t, []string{"allowed.test"}, nil, true))
	d, err := proxy.SOCKS5("tcp", f.addr, nil, proxy.Direct)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: &http.Transport{DialContext: d.(proxy.ContextDialer).DialContext}, Timeout: 10 * time.Second}
	if code, body := get(t, c, "http://allowed.test:"+p+"/"); code != 200 || !strings.HasPrefix(body, "via socks") {
		t.Errorf("socks allowed: %d %q", code, body)
	}
	if _, err := d.Dial("tcp", "other.test:"+p); err == nil || !strings.Contains(err.Error(), "not allowed") {
		t.Errorf("socks off-list: %v, want refused by ruleset", err)
	}
	if _, err := d.Dial("tcp", "127.0.0.1:"+p); err == nil {
		t.Error("socks to an IP literal off the list succeeded")
	}
	ev := f.close()
	if len(ev.Connections) != 3 || !ev.Connections[0].Allowed || ev.Connections[0].Protocol != "socks5" || ev.Connections[1].Allowed {
		t.Errorf("evidence: %+v", ev.Connections)
	}
}

func TestUnresolvableAllowedName(t *testing.T) {
	f := newFixture(t, rules(t, []string{"nowhere.invalid"}, nil, false))
	code, body := get(t, f.client(nil), "http://nowhere.invalid/x")
	if code != 502 || !strings.Contains(body, "resolve") {
		t.Errorf("%d %q, want 502 saying it did not resolve", code, body)
	}
	ev := f.close()
	if len(ev.Connections) != 1 || !ev.Connections[0].Allowed || ev.Connections[0].Error == "" {
		t.Errorf("evidence: %+v", ev.Connections)
	}
}

// More clients than MaxConns wait; Close ends every connection.
func TestLimitsAndClose(t *testing.T) {
	up := newByteCounter(t, true)
	f := newFixture(t, rules(t, []string{"allowed.test"}, nil, true), func(c *Config) { c.MaxConns = 2 })
	var held []net.Conn
	for range 2 {
		c, status := connectTunnel(t, f.addr, "allowed.test:"+up.port())
		if status != "200 Connection established" {
			t.Fatal(status)
		}
		held = append(held, c)
	}
	third, err := net.Dial("tcp", f.addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(third, "CONNECT allowed.test:%s HTTP/1.1\r\nHost: x\r\n\r\n", up.port())
	third.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	br := bufio.NewReader(third)
	if _, err := br.ReadByte(); err == nil {
		t.Error("a third connection was served past MaxConns=2")
	}
	held[0].Close()
	third.SetReadDeadline(time.Now().Add(10 * time.Second))
	if line, err := br.ReadString('\n'); err != nil || !strings.Contains(line, "200") {
		t.Errorf("third after one closed: %q %v", line, err)
	}
	done := make(chan struct{})
	go func() {
		held[1].SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err := held[1].Read(make([]byte, 1))
		if err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("held tunnel after Close: %v, want closed", err)
		}
		close(done)
	}()
	f.close()
	<-done
}

func TestIdleTimeout(t *testing.T) {
	up := newByteCounter(t, true)
	f := newFixture(t, rules(t, []string{"allowed.test"}, nil, true), func(c *Config) { c.IdleTimeout = 50 * time.Millisecond })
	c, status := connectTunnel(t, f.addr, "allowed.test:"+up.port())
	if status != "200 Connection established" {
		t.Fatal(status)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("idle tunnel: %v, want closed by the proxy", err)
	}
}

// Real clients, with the proxy variables they read.
func TestRealClients(t *testing.T) {
	srv := okServer(t, "real")
	p := port(t, srv.URL)
	f := newFixture(t, rules(t, []string{"allowed.test"}, nil, true))
	env := append(os.Environ(), "http_proxy=http://"+f.addr, "HTTPS_PROXY=http://"+f.addr, "NO_PROXY=", "no_proxy=")
	clients := map[string][]string{
		"curl":    {"curl", "-sS", "--max-time", "10"},
		"python3": {"python3", "-c", "import sys,urllib.request;print(urllib.request.urlopen(sys.argv[1],timeout=10).read().decode())"},
	}
	for name, argv := range clients {
		if _, err := exec.LookPath(argv[0]); err != nil {
			t.Skipf("%s not installed", argv[0])
		}
		run := func(u string) string {
			cmd := exec.Command(argv[0], append(argv[1:], u)...)
			cmd.Env = env
			out, _ := cmd.CombinedOutput()
			return string(out)
		}
		if out := run("http://allowed.test:" + p + "/"); !strings.Contains(out, "real host=allowed.test") {
			t.Errorf("%s allowed: %q", name, out)
		}
		if out := run("http://other.test:" + p + "/"); strings.Contains(out, "real host") || !strings.Contains(out, "403") && !strings.Contains(out, "not on this run's network allowlist") {
			t.Errorf("%s off-list: %q", name, out)
		}
	}
}

// gitServer serves a bare repository over smart HTTP (git http-backend
// as CGI) behind TLS, with a certificate for example.com.
func gitServer(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	backend := strings.TrimSpace(string(out)) + "/git-http-backend"
	root := t.TempDir()
	src := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "--bare", "--initial-branch=main", root + "/repo.git"},
		{"-C", src, "init", "-q"},
		{"-C", src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first through the proxy"},
		{"-C", src, "push", "-q", root + "/repo.git", "HEAD:refs/heads/main"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	h := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	ca := t.TempDir() + "/ca.pem"
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644)
	return srv, ca
}

func TestGitOverHTTPS(t *testing.T) {
	srv, ca := gitServer(t)
	p := port(t, srv.URL)
	f := newFixture(t, rules(t, []string{"example.com"}, nil, true))
	clone := func(host string) (string, error) {
		dst := t.TempDir() + "/clone"
		cmd := exec.Command("git", "-c", "http.sslCAInfo="+ca, "clone", "-q", "https://"+host+":"+p+"/repo.git", dst)
		cmd.Env = append(os.Environ(), "https_proxy=http://"+f.addr, "HTTPS_PROXY=http://"+f.addr, "NO_PROXY=", "no_proxy=", "GIT_TERMINAL_PROMPT=0", "GIT_SSL_CAINFO="+ca)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return string(out), err
		}
		log, err := exec.Command("git", "-C", dst, "log", "--format=%s").Output()
		return string(log), err
	}
	if out, err := clone("example.com"); err != nil || !strings.Contains(out, "first through the proxy") {
		t.Errorf("clone through the proxy: %v %s", err, out)
	}
	if out, err := clone("other.test"); err == nil || !strings.Contains(out, "403") {
		t.Errorf("clone of an off-list host: %v %s, want a 403", err, out)
	}
}
