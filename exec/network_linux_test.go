package exec

import (
	"context"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"net/netip"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentexec/agentexec/audit"
	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/policy"
)

// netFixture is a loopback HTTP server, an HTTPS server (certificate for
// example.com) serving a git repository over smart HTTP, and a resolver
// that maps the test names to 127.0.0.1, as the egress proxy's hook.
type netFixture struct {
	httpPort, httpsPort string
	ca                  string // PEM of the HTTPS server's certificate
	token               string
}

func newNetFixture(t *testing.T) *netFixture {
	t.Helper()
	f := &netFixture{token: fmt.Sprintf("token-%d", os.Getpid())}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s host=%s\n", f.token, r.Host)
	}))
	t.Cleanup(srv.Close)
	f.httpPort = portOf(srv.Listener.Addr())
	root, src := t.TempDir(), t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "--bare", "--initial-branch=main", root + "/repo.git"},
		{"-C", src, "init", "-q"},
		{"-C", src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "fetched through the sandbox"},
		{"-C", src, "push", "-q", root + "/repo.git", "HEAD:refs/heads/main"},
	} {
		if out, err := osexec.Command("git", args...).CombinedOutput(); err != nil {
			t.Skipf("git: %v %s", err, out)
		}
	}
	execPath, _ := osexec.Command("git", "--exec-path").Output()
	tls := httptest.NewTLSServer(&cgi.Handler{Path: strings.TrimSpace(string(execPath)) + "/git-http-backend",
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}})
	t.Cleanup(tls.Close)
	f.httpsPort = portOf(tls.Listener.Addr())
	f.ca = filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(f.ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tls.Certificate().Raw}), 0o644)
	return f
}

func portOf(a net.Addr) string { _, p, _ := net.SplitHostPort(a.String()); return p }

// resolve maps every name under .test, and example.com, to loopback.
func resolveLoopback(_ context.Context, host string) ([]netip.Addr, error) {
	if strings.HasSuffix(host, ".test") || host == "example.com" {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func netRunner(t *testing.T, policy string, sink AuditSink) *Runner {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "policy.json")
	os.WriteFile(path, []byte(policy), 0o644)
	pol, err := gate.LoadPolicy(path)
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Policy: pol, Cwd: t.TempDir(), Resolve: resolveLoopback, Audit: sink,
		Environ: func() []string { return append(os.Environ(), "HOME="+dir) }}
	obs := runReq(t, r, Request{Argv: []string{"true"}})
	if obs.Status == StatusError && strings.Contains(obs.Error, "sandbox") {
		t.Skipf("sandbox unavailable: %s", obs.Error)
	}
	return r
}

func needTools(t *testing.T, tools ...string) {
	for _, tool := range tools {
		if _, err := osexec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
}

const allowLocal = `{"mode": "yolo", "sandbox": {"network": {"allow": ["allowed.test", "example.com"], "allow_local": true}}}`

// TestProxiedClients: curl, python3 urllib, git over HTTPS and a Go
// net/http client reach an allowed host through the sandbox's only route,
// and are refused one off the list with a 403 that names it.
func TestProxiedClients(t *testing.T) {
	needTools(t, "curl", "python3", "git")
	f := newNetFixture(t)
	r := netRunner(t, allowLocal, nil)
	goClient := buildGoClient(t)
	allowed, other := "http://allowed.test:"+f.httpPort+"/x", "http://other.test:"+f.httpPort+"/x"
	clients := map[string]string{
		"curl": "curl -sS --max-time 20 %s",
		"python3": `python3 -c 'import sys,urllib.request,urllib.error
try: print(urllib.request.urlopen(sys.argv[1], timeout=20).read().decode())
except urllib.error.HTTPError as e: print(e.code, e.read().decode())' %s`,
		"go": goClient + " %s",
	}
	for name, tmpl := range clients {
		obs := runReq(t, r, Request{Command: fmt.Sprintf(tmpl, allowed)})
		if !strings.Contains(obs.Stdout, f.token+" host=allowed.test:"+f.httpPort) || obs.Sandbox.Network != "proxy" {
			t.Errorf("%s, allowed: %s", name, obs.Text())
		}
		if obs.Network == nil || len(obs.Network.Allowed) != 1 || obs.Network.Allowed[0].Host != "allowed.test" {
			t.Errorf("%s, allowed: evidence %+v", name, obs.Network)
		}
		obs = runReq(t, r, Request{Command: fmt.Sprintf(tmpl, other)})
		if strings.Contains(obs.Stdout, f.token) || !strings.Contains(obs.Stdout, "other.test:"+f.httpPort+" is not on this run's network allowlist") {
			t.Errorf("%s, off the list: %s", name, obs.Text())
		}
		if obs.Network == nil || len(obs.Network.Refused) != 1 || obs.Network.Refused[0].Suggest != "other.test:"+f.httpPort {
			t.Errorf("%s, off the list: evidence %+v", name, obs.Network)
		}
		if !strings.Contains(obs.Text(), "Network: refused other.test:"+f.httpPort) {
			t.Errorf("%s: the text does not say what was refused:\n%s", name, obs.Text())
		}
	}
	clone := "GIT_SSL_CAINFO=" + f.ca + " git clone -q https://%s:" + f.httpsPort + "/repo.git \"$TMPDIR/$RANDOM\" && git -C \"$(ls -d \"$TMPDIR\"/*)\" log --format=%%s"
	obs := runReq(t, r, Request{Command: fmt.Sprintf(clone, "example.com")})
	if !strings.Contains(obs.Stdout, "fetched through the sandbox") {
		t.Errorf("git clone over HTTPS: %s", obs.Text())
	}
	obs = runReq(t, r, Request{Command: fmt.Sprintf(clone, "other.test")})
	if obs.ExitCode == nil || *obs.ExitCode == 0 || !strings.Contains(obs.Stderr, "403") {
		t.Errorf("git clone of an off-list host: %s", obs.Text())
	}
}

// buildGoClient builds a Go net/http client that prints the body.
func buildGoClient(t *testing.T) string {
	goClientOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agentexec-goclient-")
		if err != nil {
			goClientErr = err
			return
		}
		src := filepath.Join(dir, "main.go")
		os.WriteFile(src, []byte(`package main

import ("fmt"; "io"; "net/http"; "os")

func main() {
	resp, err := http.Get(os.Args[1])
	if err != nil { fmt.Println(err); os.Exit(1) }
	b, _ := io.ReadAll(resp.Body)
	fmt.Print(resp.StatusCode, " ", string(b))
}
`), 0o644)
		goClientPath = filepath.Join(dir, "goclient")
		if out, err := osexec.Command("go", "build", "-o", goClientPath, src).CombinedOutput(); err != nil {
			goClientErr = fmt.Errorf("%v: %s", err, out)
		}
	})
	if goClientErr != nil {
		t.Skipf("cannot build the Go client: %v", goClientErr)
	}
	return goClientPath
}

var (
	goClientOnce sync.Once
	goClientPath string
	goClientErr  error
)

// TestProxyBypassGetsNothing: a client that ignores the proxy variables
// and dials the allowed server's address directly gets no connection,
// nor does a name resolved inside.
func TestProxyBypassGetsNothing(t *testing.T) {
	needTools(t, "python3", "curl")
	f := newNetFixture(t)
	r := netRunner(t, allowLocal, nil)
	obs := runReq(t, r, Request{Command: `python3 -c 'import socket,sys
try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5); s.sendall(b"GET / HTTP/1.0\r\n\r\n"); print("GOT", s.recv(100))
except OSError as e: print("NOCONN", e)' ` + f.httpPort + `; curl -sS --noproxy '*' --max-time 5 http://127.0.0.1:` + f.httpPort + `/ ; echo rc=$?; getent hosts example.com || echo noresolve`})
	if strings.Contains(obs.Stdout, f.token) || !strings.Contains(obs.Stdout, "NOCONN") || !strings.Contains(obs.Stdout, "noresolve") {
		t.Errorf("bypass: %s", obs.Text())
	}
}

// TestProxyRefusesLocalWithoutAllowLocal: a name that resolves to
// 127.0.0.1 is refused unless allow_local, and the observation says so.
func TestProxyRefusesLocalWithoutAllowLocal(t *testing.T) {
	needTools(t, "curl")
	f := newNetFixture(t)
	r := netRunner(t, `{"mode": "yolo", "sandbox": {"network": {"allow": ["allowed.test"]}}}`, nil)
	obs := runReq(t, r, Request{Command: "curl -sS --max-time 20 http://allowed.test:" + f.httpPort + "/"})
	if strings.Contains(obs.Stdout, f.token) || obs.Network == nil || len(obs.Network.Refused) != 1 || obs.Network.Refused[0].Refused != "local" {
		t.Fatalf("%s\n%+v", obs.Text(), obs.Network)
	}
	if !strings.Contains(obs.Text(), "allow_local") {
		t.Errorf("the text does not name allow_local:\n%s", obs.Text())
	}
}

// TestCommandNetworkFromRule: hosts on an allow rule reach that command
// only; the policy's network stays cut for the rest.
func TestCommandNetworkFromRule(t *testing.T) {
	needTools(t, "curl")
	f := newNetFixture(t)
	r := netRunner(t, `{"permissions": {"allow": [{"rule": "Bash(curl *)", "network": ["allowed.test"]}, "Bash(wget *)"]},
		"sandbox": {"network": {"allow_local": true}}}`, nil)
	u := "http://allowed.test:" + f.httpPort + "/"
	obs := runReq(t, r, Request{Command: "curl -sS --max-time 20 " + u})
	if !strings.Contains(obs.Stdout, f.token) || obs.Network.Allowed[0].RuleSource == "" || !strings.Contains(obs.Network.Allowed[0].RuleSource, "Bash(curl *)") {
		t.Errorf("curl with its rule's host: %s %+v", obs.Text(), obs.Network)
	}
	obs = runReq(t, r, Request{Command: "curl -sS --max-time 20 http://other.test:" + f.httpPort + "/"})
	if strings.Contains(obs.Stdout, f.token) || !strings.Contains(obs.Stdout, "403") && !strings.Contains(obs.Stdout, "allowlist") {
		t.Errorf("curl to a host its rule does not grant: %s", obs.Text())
	}
	// A compound whose second part no host-granting rule allows gets none.
	obs = runReq(t, r, Request{Command: "curl -sS --max-time 20 " + u + " && wget -q -O- " + u})
	if obs.Status == StatusExited && strings.Contains(obs.Stdout, f.token) {
		t.Errorf("compound: %s", obs.Text())
	}
	r2 := *r
	r2.NetworkHosts = []string{"other.test"}
	obs = runReq(t, &r2, Request{Command: "curl -sS --max-time 20 http://other.test:" + f.httpPort + "/"})
	if !strings.Contains(obs.Stdout, f.token) || obs.Network.Allowed[0].RuleSource != "--network" {
		t.Errorf("one-off --network host: %s %+v", obs.Text(), obs.Network)
	}
}

// TestClaudeWebFetchAllowlist loads a real .claude/settings.json: a
// WebFetch(domain:…) allow rule admits its name past the list (refused
// then only as a local address, settings having no allow_local), an
// unlisted name is refused by the list.
func TestClaudeWebFetchAllowlist(t *testing.T) {
	needTools(t, "curl")
	f := newNetFixture(t)
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".claude"), 0o755)
	settings := filepath.Join(ws, ".claude", "settings.json")
	os.WriteFile(settings, []byte(`{"permissions": {"allow": ["Bash(curl *)", "WebFetch(domain:allowed.test)"]}}`), 0o644)
	l, err := policy.Load(policy.Options{Path: settings, Managed: "-"})
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Policy: l.Policy, Cwd: ws, Resolve: resolveLoopback}
	kinds := map[string]string{"allowed.test": "local", "other.test": "not-allowed"}
	for host, kind := range kinds {
		obs := runReq(t, r, Request{Command: "curl -sS --max-time 20 http://" + host + ":" + f.httpPort + "/"})
		if obs.Network == nil || len(obs.Network.Refused) != 1 || obs.Network.Refused[0].Refused != kind {
			t.Errorf("%s: want refused %s: %s %+v", host, kind, obs.Text(), obs.Network)
		}
	}
}

// TestNetworkEvidenceAudited: each connection lands in the run record,
// and the chain still verifies.
func TestNetworkEvidenceAudited(t *testing.T) {
	needTools(t, "curl")
	f := newNetFixture(t)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := audit.Open(audit.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	r := netRunner(t, allowLocal, log)
	runReq(t, r, Request{Command: "curl -sS http://allowed.test:" + f.httpPort + "/ http://other.test:" + f.httpPort + "/"})
	log.Close()
	if rep, err := audit.Verify(path, audit.VerifyOptions{}); err != nil {
		t.Fatalf("verify: %v %v", rep, err)
	}
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	last := lines[len(lines)-1]
	for _, want := range []string{`"connections":[`, `"host":"allowed.test","port":` + f.httpPort + `,"allowed":true`, `"host":"other.test","port":` + f.httpPort + `,"allowed":false`, `"refused":"not-allowed"`} {
		if !strings.Contains(last, want) {
			t.Errorf("run record lacks %s:\n%s", want, last)
		}
	}
}

// TestSNIMismatchThroughSandbox: a real TLS client (openssl s_client)
// opens a CONNECT tunnel to an allowed host but names another server in
// its ClientHello: the tunnel is closed and recorded as refused; the same
// client naming the host it asked for gets through.
func TestSNIMismatchThroughSandbox(t *testing.T) {
	needTools(t, "openssl")
	f := newNetFixture(t)
	r := netRunner(t, allowLocal, nil)
	sclient := "echo | openssl s_client -proxy 127.0.0.1:3128 -connect example.com:" + f.httpsPort + " -servername %s 2>&1 | grep -c 'BEGIN CERTIFICATE'"
	obs := runReq(t, r, Request{Command: fmt.Sprintf(sclient, "evil.example")})
	if strings.TrimSpace(obs.Stdout) != "0" || obs.Network == nil || len(obs.Network.Refused) != 1 || obs.Network.Refused[0].Refused != "sni" {
		t.Errorf("mismatched SNI: %s %+v", obs.Text(), obs.Network)
	}
	obs = runReq(t, r, Request{Command: fmt.Sprintf(sclient, "example.com")})
	if strings.TrimSpace(obs.Stdout) != "1" || obs.Network == nil || len(obs.Network.Allowed) != 1 {
		t.Errorf("matching SNI: %s %+v", obs.Text(), obs.Network)
	}
}
