package gate

import (
	"encoding/json"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func TestHostPatternMatch(t *testing.T) {
	cases := []struct {
		pattern string
		host    string
		port    int
		want    bool
	}{
		{"registry.npmjs.org", "registry.npmjs.org", 443, true},
		{"registry.npmjs.org", "REGISTRY.npmjs.org.", 80, true}, // normalized by the caller
		{"registry.npmjs.org", "evil-registry.npmjs.org", 443, false},
		{"registry.npmjs.org", "registry.npmjs.org.evil.example", 443, false},
		{"npmjs.org", "registry.npmjs.org", 443, false},
		{"*.github.com", "api.github.com", 443, true},
		{"*.github.com", "a.b.github.com", 443, true},
		{"*.github.com", "github.com", 443, false}, // subdomains only
		{"*.github.com", "evilgithub.com", 443, false},
		{"*", "anything.example", 8080, true},
		{"proxy.golang.org:443", "proxy.golang.org", 443, true},
		{"proxy.golang.org:443", "proxy.golang.org", 80, false},
		{"10.0.0.0/8", "10.1.2.3", 443, false}, // IP patterns never match names
	}
	for _, c := range cases {
		h, err := ParseHostPattern(c.pattern)
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		host, ok := NormalizeHost(c.host)
		if !ok {
			t.Fatalf("%s: not a host", c.host)
		}
		if got := h.MatchName(host, c.port); got != c.want {
			t.Errorf("%s matches %s:%d = %v, want %v", c.pattern, c.host, c.port, got, c.want)
		}
	}
}

func TestHostPatternAddr(t *testing.T) {
	cases := []struct {
		pattern, addr string
		port          int
		want          bool
	}{
		{"10.0.0.0/8", "10.200.1.1", 22, true},
		{"10.0.0.0/8", "11.0.0.1", 22, false},
		{"[10.0.0.0/8]:22", "10.0.0.1", 22, true},
		{"[10.0.0.0/8]:22", "10.0.0.1", 23, false},
		{"93.184.216.34", "93.184.216.34", 80, true},
		{"93.184.216.34", "::ffff:93.184.216.34", 80, true}, // mapped
		{"93.184.216.34:80", "93.184.216.34", 443, false},
		{"2001:db8::1", "2001:db8::1", 443, true},
		{"[2001:db8::1]:443", "2001:db8::1", 443, true},
		{"2001:db8::/32", "2001:db9::1", 443, false},
		{"example.com", "93.184.216.34", 80, false}, // names never match addresses
	}
	for _, c := range cases {
		h, err := ParseHostPattern(c.pattern)
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		if got := h.MatchAddr(netip.MustParseAddr(c.addr), c.port); got != c.want {
			t.Errorf("%s contains %s:%d = %v, want %v", c.pattern, c.addr, c.port, got, c.want)
		}
	}
}

func TestHostPatternErrors(t *testing.T) {
	for _, bad := range []string{"", "http://example.com", "example.com/path", "exa mple.com", "example.com:0",
		"example.com:99999", "example.com:http", "*example.com", "a.*.example.com", "[::1", "[::1]x",
		"10.0.0.0/33", "ex..ample.com", "bücher.example", "user@example.com"} {
		if _, err := ParseHostPattern(bad); err == nil {
			t.Errorf("ParseHostPattern(%q) = nil error, want one", bad)
		}
	}
	for _, good := range []string{"example.com", "EXAMPLE.com.", "*.example.com", "*", "_dmarc.example.com",
		"xn--bcher-kva.example", "[::1]:8080", "fd00::/8", "10.0.0.0/8", "localhost:3000"} {
		if _, err := ParseHostPattern(good); err != nil {
			t.Errorf("ParseHostPattern(%q): %v", good, err)
		}
	}
}

func TestLocalAddress(t *testing.T) {
	local := map[string]string{
		"127.0.0.1": "loopback", "127.9.9.9": "loopback", "::1": "loopback", "::ffff:127.0.0.1": "loopback",
		"10.1.1.1": "private", "172.16.0.1": "private", "192.168.1.1": "private", "fd12::1": "private",
		"169.254.169.254": "cloud metadata", "fd00:ec2::254": "cloud metadata", "169.254.1.1": "link-local",
		"fe80::1": "link-local", "0.0.0.0": "this-network", "::": "unspecified", "100.64.0.1": "shared (carrier-grade NAT)",
		"239.1.1.1": "multicast", "224.0.0.1": "link-local", "255.255.255.255": "reserved", "64:ff9b::7f00:1": "loopback",
	}
	for a, kind := range local {
		if got := LocalAddress(netip.MustParseAddr(a)); got != kind {
			t.Errorf("LocalAddress(%s) = %q, want %q", a, got, kind)
		}
	}
	for _, a := range []string{"93.184.216.34", "8.8.8.8", "2606:4700::1111", "172.32.0.1", "64:ff9b::808:808", "100.128.0.1"} {
		if got := LocalAddress(netip.MustParseAddr(a)); got != "" {
			t.Errorf("LocalAddress(%s) = %q, want public", a, got)
		}
	}
}

func TestHostListLocalNeedsAllowLocal(t *testing.T) {
	for _, p := range []string{"127.0.0.1:8080", "10.0.0.0/8", "0.0.0.0/0", "169.254.169.254", "[::1]:80", "fc00::/7"} {
		if _, err := ParseHostList([]string{p}, "", false); err == nil || !strings.Contains(err.Error(), "allow_local") {
			t.Errorf("%s without allow_local: err = %v, want one naming allow_local", p, err)
		}
		if _, err := ParseHostList([]string{p}, "", true); err != nil {
			t.Errorf("%s with allow_local: %v", p, err)
		}
	}
	if _, err := ParseHostList([]string{"93.184.216.0/24", "localhost"}, "", false); err != nil {
		t.Errorf("public CIDR and a name: %v", err) // a name is judged after resolution
	}
}

func TestNetworkPolicyJSON(t *testing.T) {
	cases := []struct {
		in   string
		want NetworkMode
		out  string
	}{
		{`false`, NetworkOff, `false`},
		{`true`, NetworkOpen, `true`},
		{`{"allow": ["registry.npmjs.org"], "deny": ["evil.example"], "allow_local": true}`, NetworkProxy,
			`{"allow":["registry.npmjs.org"],"deny":["evil.example"],"allow_local":true}`},
		{`{}`, NetworkProxy, `{}`},
	}
	for _, c := range cases {
		var n NetworkPolicy
		if err := json.Unmarshal([]byte(c.in), &n); err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if n.mode() != c.want {
			t.Errorf("%s: mode %s, want %s", c.in, n.mode(), c.want)
		}
		b, _ := json.Marshal(n)
		if string(b) != c.out {
			t.Errorf("%s: marshals as %s, want %s", c.in, b, c.out)
		}
	}
	var n NetworkPolicy
	if err := json.Unmarshal([]byte(`{"alow": []}`), &n); err == nil || !strings.Contains(err.Error(), `"alow"`) {
		t.Errorf("typo: err = %v, want one naming the field", err)
	}
	if err := json.Unmarshal([]byte(`"yes"`), &n); err == nil || !strings.Contains(err.Error(), "sandbox.network") {
		t.Errorf("string: err = %v, want one naming sandbox.network", err)
	}
}

func TestPolicyNetworkErrors(t *testing.T) {
	cases := map[string]string{
		`{"sandbox": {"network": {"allow": ["http://x.example"]}}}`:                     "sandbox.network.allow[0]",
		`{"sandbox": {"network": {"allow": ["ok.example"], "deny": ["bad host"]}}}`:     "sandbox.network.deny[0]",
		`{"sandbox": {"network": {"allow": ["127.0.0.1:80"]}}}`:                         "allow_local",
		`{"permissions": {"allow": [{"rule": "Bash(npm *)", "network": ["a b"]}]}}`:     "permissions.allow[0]",
		`{"permissions": {"allow": [{"rule": "Bash(npm *)", "hosts": ["x.example"]}]}}`: "permissions.allow[0]",
		`{"sandbox": {"network": {"allowed": ["x.example"]}}}`:                          `"allowed"`,
	}
	for in, want := range cases {
		_, err := ParsePolicy([]byte(in), "p.json")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want one containing %s", in, err, want)
		}
	}
}

// TestCommandNetwork checks how an allow rule's hosts reach a command,
// and how a compound's segments combine: every segment must be allowed by
// rules granting a host for the command to reach it.
func TestCommandNetwork(t *testing.T) {
	pol, err := ParsePolicy([]byte(`{"permissions": {"allow": [
		{"rule": "Bash(npm install *)", "network": ["registry.npmjs.org"]},
		{"rule": "Bash(npm ci)", "network": ["registry.npmjs.org", "nodejs.org"]},
		"Bash(curl *)",
		{"rule": "Bash(git fetch *)", "network": ["*.github.com", "github.com"]},
		{"rule": "Bash(git *)", "network": ["github.com"]}
	]}}`), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		cmd  string
		want []string
	}{
		{"npm install left-pad", []string{"registry.npmjs.org"}},
		{"npm ci", []string{"registry.npmjs.org", "nodejs.org"}},
		{"curl https://registry.npmjs.org", nil},
		{"npm install x && curl evil.example", nil}, // curl's rule grants nothing
		{"npm install x && npm ci", []string{"registry.npmjs.org"}},
		{"npm install x; ls", nil},                                   // ls is allowed by no rule: nothing is
		{"git fetch origin", []string{"*.github.com", "github.com"}}, // both rules match: union
		{"git status && git fetch origin", []string{"github.com"}},
		{"npm install $(curl x)", nil},
	}
	for _, c := range cases {
		d := Decide(Input{Text: c.cmd, Policy: pol, Mode: ModeDefault})
		if !slices.Equal(d.Network, c.want) {
			t.Errorf("%q: network %q (decision %s), want %q", c.cmd, d.Network, d.Action, c.want)
		}
	}
	b, _ := json.Marshal(pol.Permissions)
	if !strings.Contains(string(b), `{"rule":"Bash(npm install *)","network":["registry.npmjs.org"]}`) {
		t.Errorf("permissions marshal as %s, want the object form kept", b)
	}
	q, err := pol.With(Permissions{Allow: []string{"Bash(pip install *)"}, Network: map[string][]string{"Bash(pip install *)": {"pypi.org"}}}, nil, "flag")
	if err != nil {
		t.Fatal(err)
	}
	if d := Decide(Input{Text: "pip install x", Policy: q}); !slices.Equal(d.Network, []string{"pypi.org"}) {
		t.Errorf("inline rule: network %q, want [pypi.org]", d.Network)
	}
	if pol.Digest() == q.Digest() {
		t.Error("digest ignores the extra rule")
	}
}
