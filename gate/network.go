package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentexec/agentexec/gate/facts"
	"github.com/agentexec/agentexec/internal/lazy"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// NetworkMode says how a sandboxed command reaches the network.
type NetworkMode string

// The network modes.
const (
	// NetworkOff cuts the network (policy "network": false, the default).
	NetworkOff NetworkMode = "off"
	// NetworkOpen leaves the host's network as it is ("network": true).
	NetworkOpen NetworkMode = "open"
	// NetworkProxy gives the command no route but agentexec's egress
	// proxy, which connects only to the hosts on the allowlist
	// ("network": {"allow": [...]}).
	NetworkProxy NetworkMode = "proxy"
)

// NetworkPolicy is the policy's sandbox.network: false (cut), true (open)
// or an object {"allow": [...], "deny": [...], "allow_local": false}
// (only through the egress proxy, to the allowed hosts). Its zero value
// is the cut.
//
// Host patterns (see [ParseHostPattern]): an exact name, "*." and a name
// for its subdomains (not the name itself), "*" for every name, an IP
// literal or a CIDR, each optionally with ":port" (an IPv6 literal or a
// CIDR in brackets then: "[::1]:8080"). Deny wins over allow. Names are
// allowed by name patterns only: the proxy resolves a name only once a
// name pattern allowed it, so an off-list name never reaches a DNS server.
// IP patterns match IP literals, and deny patterns also the addresses a
// name resolves to. Loopback, private, link-local, unique-local and
// metadata addresses are refused after resolution unless AllowLocal.
type NetworkPolicy struct {
	Mode       NetworkMode
	Allow      []string
	Deny       []string
	AllowLocal bool
}

// networkObject is the object form of NetworkPolicy in JSON.
type networkObject struct {
	Allow      []string `json:"allow,omitempty"`
	Deny       []string `json:"deny,omitempty"`
	AllowLocal bool     `json:"allow_local,omitempty"`
}

// UnmarshalJSON reads false, true or the object form; an unknown key in
// the object is an error naming it.
func (n *NetworkPolicy) UnmarshalJSON(b []byte) error {
	var open bool
	if err := json.Unmarshal(b, &open); err == nil {
		*n = NetworkPolicy{Mode: NetworkOff}
		if open {
			n.Mode = NetworkOpen
		}
		return nil
	}
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*n = NetworkPolicy{}
		return nil
	}
	var o networkObject
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		if msg, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return fmt.Errorf("sandbox.network: unknown field %s (known: allow, deny, allow_local)", msg)
		}
		return errors.New("sandbox.network: want false, true or {\"allow\": [hosts], \"deny\": [hosts], \"allow_local\": false}")
	}
	*n = NetworkPolicy{Mode: NetworkProxy, Allow: o.Allow, Deny: o.Deny, AllowLocal: o.AllowLocal}
	return nil
}

// MarshalJSON writes the form UnmarshalJSON reads.
func (n NetworkPolicy) MarshalJSON() ([]byte, error) {
	switch n.mode() {
	case NetworkOpen:
		return []byte("true"), nil
	case NetworkProxy:
		return json.Marshal(networkObject{Allow: n.Allow, Deny: n.Deny, AllowLocal: n.AllowLocal})
	}
	return []byte("false"), nil
}

// mode is n.Mode with the zero value read as off.
func (n NetworkPolicy) mode() NetworkMode {
	if n.Mode == "" {
		return NetworkOff
	}
	return n.Mode
}

// Open reports whether the network is left open.
func (n NetworkPolicy) Open() bool { return n.mode() == NetworkOpen }

// Proxied reports whether the network goes through the egress proxy.
func (n NetworkPolicy) Proxied() bool { return n.mode() == NetworkProxy }

// validate checks the mode and every pattern; field names the section in
// errors.
func (n NetworkPolicy) validate(field string) error {
	switch n.mode() {
	case NetworkOff, NetworkOpen, NetworkProxy:
	default:
		return fmt.Errorf("%s: unknown mode %q (want off, open or proxy)", field, n.Mode)
	}
	if _, err := ParseHostList(n.Allow, "", n.AllowLocal); err != nil {
		return fmt.Errorf("%s.allow%w", field, err)
	}
	if _, err := ParseHostList(n.Deny, "", true); err != nil {
		return fmt.Errorf("%s.deny%w", field, err)
	}
	return nil
}

// HostPattern is one compiled allow or deny entry of a network list.
type HostPattern struct {
	Text   string // as written, e.g. "*.github.com" or "10.0.0.0/8"
	Source string // where it came from: "sandbox.network.allow", "Bash(npm install *)", "flag", …
	Port   int    // 0: any port
	name   string // lower-case name ("" for an IP pattern); the parent name for a suffix
	suffix bool   // "*.name": names below name
	prefix netip.Prefix
}

// IsIP reports whether the pattern is an IP literal or a CIDR.
func (h HostPattern) IsIP() bool { return h.prefix.IsValid() }

// ParseHostPattern compiles one host pattern: "example.com",
// "*.example.com", "*", "10.1.2.3", "10.0.0.0/8", "::1", each optionally
// with ":port" ("example.com:443", "[::1]:8080", "[fd00::/8]:22").
func ParseHostPattern(text string) (HostPattern, error) {
	s := strings.TrimSpace(text)
	h := HostPattern{Text: s}
	host, port, err := splitPatternPort(s)
	if err != nil {
		return HostPattern{}, fmt.Errorf("%q: %v", text, err)
	}
	h.Port = port
	if p, ok := parseIPPattern(host); ok {
		h.prefix = p
		return h, nil
	}
	if strings.Contains(host, "/") {
		return HostPattern{}, fmt.Errorf("%q: not a CIDR such as 10.0.0.0/8", text)
	}
	if host == "*" {
		h.suffix = true
		return h, nil
	}
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		h.suffix, host = true, rest
	}
	name, ok := NormalizeHost(host)
	if !ok {
		return HostPattern{}, fmt.Errorf("%q: not a host name, *.name, IP address or CIDR (with an optional :port)", text)
	}
	h.name = name
	return h, nil
}

// splitPatternPort separates an optional ":port".
func splitPatternPort(s string) (host string, port int, err error) {
	if s == "" {
		return "", 0, errors.New("empty host")
	}
	var ps string
	switch {
	case s[0] == '[':
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", 0, errors.New("missing ]")
		}
		host, ps = s[1:end], s[end+1:]
		if ps != "" && !strings.HasPrefix(ps, ":") {
			return "", 0, errors.New("want [address]:port")
		}
		ps = strings.TrimPrefix(ps, ":")
	case strings.Count(s, ":") == 1:
		host, ps, _ = strings.Cut(s, ":")
	default: // a name, an IPv4 address or CIDR, or a bare IPv6 one
		return s, 0, nil
	}
	if ps == "" {
		return host, 0, nil
	}
	port, err = strconv.Atoi(ps)
	if err != nil || port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("port %q is not a number from 1 to 65535", ps)
	}
	return host, port, nil
}

// parseIPPattern reads an IP literal (as a one-address prefix) or a CIDR.
func parseIPPattern(s string) (netip.Prefix, bool) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, false
		}
		p = p.Masked()
		if p.Addr().Is4In6() {
			p = netip.PrefixFrom(p.Addr().Unmap(), max(p.Bits()-96, 0))
		}
		return p, true
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Prefix{}, false
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), true
}

// NormalizeHost returns a host name in the form patterns are matched
// against: lower case, without a trailing dot. ok is false for anything
// that is not a DNS name made of letters, digits, '-' and '_' in labels
// of at most 63 bytes (253 in all): a name outside that alphabet, an
// empty label or a non-ASCII name (send it in its xn-- form) is refused,
// never guessed at. An IP literal is not a name.
func NormalizeHost(host string) (string, bool) {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "" || len(h) > 253 {
		return "", false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" || len(label) > 63 {
			return "", false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return "", false
			}
		}
	}
	return h, true
}

// MatchName reports whether the pattern matches the name host (already
// normalized) on port. IP patterns never match names.
func (h HostPattern) MatchName(host string, port int) bool {
	if h.IsIP() || (h.Port != 0 && h.Port != port) {
		return false
	}
	if !h.suffix {
		return host == h.name
	}
	return h.name == "" || strings.HasSuffix(host, "."+h.name)
}

// MatchAddr reports whether the pattern, an IP pattern, contains addr on
// port. Name patterns never match addresses.
func (h HostPattern) MatchAddr(addr netip.Addr, port int) bool {
	if !h.IsIP() || (h.Port != 0 && h.Port != port) {
		return false
	}
	return h.prefix.Contains(addr.Unmap())
}

// HostList is a compiled allow or deny list.
type HostList []HostPattern

// ParseHostList compiles texts, each remembering source. Unless
// allowLocal, an IP pattern that reaches a local address (loopback,
// private, link-local, …) is an error that says to set allow_local: the
// proxy would refuse it anyway. Errors start with "[i]: ".
func ParseHostList(texts []string, source string, allowLocal bool) (HostList, error) {
	out := make(HostList, 0, len(texts))
	for i, t := range texts {
		h, err := ParseHostPattern(t)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %v", i, err)
		}
		if kind := localPrefix(h.prefix); h.IsIP() && kind != "" && !allowLocal {
			return nil, fmt.Errorf("[%d]: %q is a %s address, which the proxy refuses unless sandbox.network.allow_local is true", i, t, kind)
		}
		h.Source = source
		out = append(out, h)
	}
	return out, nil
}

// MatchName returns the first pattern matching the name host on port.
func (l HostList) MatchName(host string, port int) (HostPattern, bool) {
	for _, h := range l {
		if h.MatchName(host, port) {
			return h, true
		}
	}
	return HostPattern{}, false
}

// MatchAddr returns the first IP pattern containing addr on port.
func (l HostList) MatchAddr(addr netip.Addr, port int) (HostPattern, bool) {
	for _, h := range l {
		if h.MatchAddr(addr, port) {
			return h, true
		}
	}
	return HostPattern{}, false
}

// Special-purpose ranges the proxy refuses unless allow_local, with the
// word used in refusals. Loopback, RFC 1918/4193 private, link-local and
// unspecified come from netip's predicates; these are the rest.
var localRanges = &lazy.Value[[]localRange]{Build: func() []localRange {
	return []localRange{
		{netip.MustParsePrefix("169.254.169.254/32"), "cloud metadata"},
		{netip.MustParsePrefix("fd00:ec2::254/128"), "cloud metadata"},
		{netip.MustParsePrefix("0.0.0.0/8"), "this-network"},
		{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
		{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol"},
		{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
		{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	}
}}

// localRange is a special-purpose range and its word.
type localRange struct {
	prefix netip.Prefix
	kind   string
}

// nat64 is the well-known NAT64 prefix: its last 32 bits are an IPv4
// address, reached through a translator.
var nat64 = &lazy.Value[netip.Prefix]{Build: func() netip.Prefix { return netip.MustParsePrefix("64:ff9b::/96") }}

// LocalAddress names the kind of a local address — "loopback",
// "private", "link-local", "cloud metadata", "unspecified", "multicast",
// … — or returns "" for a public one. IPv4-mapped and NAT64 addresses are
// judged by the IPv4 address they carry.
func LocalAddress(a netip.Addr) string {
	a = a.Unmap()
	if nat64.Get().Contains(a) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	for _, r := range localRanges.Get() {
		if r.prefix.Contains(a) {
			return r.kind
		}
	}
	switch {
	case !a.IsValid():
		return "invalid"
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	case a.Is4() && a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	}
	return ""
}

// localPrefix names the kind of local address a prefix reaches: its first
// or last address, or any local range inside it.
func localPrefix(p netip.Prefix) string {
	if !p.IsValid() {
		return ""
	}
	if k := LocalAddress(p.Addr()); k != "" {
		return k
	}
	if k := LocalAddress(lastAddr(p)); k != "" {
		return k
	}
	for _, r := range localRanges.Get() {
		if p.Overlaps(r.prefix) {
			return r.kind
		}
	}
	for _, s := range []string{"127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "::1/128", "fc00::/7", "fe80::/10"} {
		if p.Overlaps(netip.MustParsePrefix(s)) {
			return LocalAddress(netip.MustParsePrefix(s).Addr())
		}
	}
	return ""
}

func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// ruleNetwork is one allow entry in agentexec's object form:
// {"rule": "Bash(npm install *)", "network": ["registry.npmjs.org"]}.
type ruleNetwork struct {
	Rule    string   `json:"rule"`
	Network []string `json:"network"`
}

// UnmarshalJSON reads the three lists. An allow entry may be a rule text
// or {"rule": "Bash(...)", "network": [hosts]}: a command that allow rules
// allow may reach the hosts of those rules (see [Decision.Network]).
// Unknown keys are errors naming them.
func (p *Permissions) UnmarshalJSON(b []byte) error {
	var raw struct {
		Allow []json.RawMessage `json:"allow"`
		Ask   []string          `json:"ask"`
		Deny  []string          `json:"deny"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		if msg, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return fmt.Errorf("permissions: unknown field %s (known: allow, ask, deny)", msg)
		}
		return fmt.Errorf("permissions: %v", jsonError(err))
	}
	*p = Permissions{Ask: raw.Ask, Deny: raw.Deny}
	for i, r := range raw.Allow {
		if err := p.addAllow(r); err != nil {
			return fmt.Errorf("permissions.allow[%d]: %v", i, err)
		}
	}
	return nil
}

func (p *Permissions) addAllow(raw json.RawMessage) error {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		p.Allow = append(p.Allow, text)
		return nil
	}
	var rn ruleNetwork
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rn); err != nil || rn.Rule == "" {
		return errors.New(`want a rule text or {"rule": "Bash(...)", "network": [hosts]}`)
	}
	if _, err := ParseHostList(rn.Network, "", true); err != nil {
		return fmt.Errorf("network%v", err)
	}
	p.Allow = append(p.Allow, rn.Rule)
	if p.Network == nil {
		p.Network = map[string][]string{}
	}
	p.Network[rn.Rule] = append(p.Network[rn.Rule], rn.Network...)
	return nil
}

// MarshalJSON writes the form UnmarshalJSON reads: an allow rule with
// hosts as an object, once, at its first place.
func (p Permissions) MarshalJSON() ([]byte, error) {
	var out struct {
		Allow []any    `json:"allow,omitempty"`
		Ask   []string `json:"ask,omitempty"`
		Deny  []string `json:"deny,omitempty"`
	}
	out.Ask, out.Deny = p.Ask, p.Deny
	done := map[string]bool{}
	for _, r := range p.Allow {
		hosts, ok := p.Network[r]
		switch {
		case !ok:
			out.Allow = append(out.Allow, r)
		case !done[r]:
			done[r] = true
			out.Allow = append(out.Allow, ruleNetwork{Rule: r, Network: hosts})
		}
	}
	return json.Marshal(out)
}

// mergeNetwork returns the union of two rule → hosts maps.
func mergeNetwork(a, b map[string][]string) map[string][]string {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := map[string][]string{}
	for _, m := range []map[string][]string{a, b} {
		for k, v := range m {
			out[k] = append(out[k], v...)
		}
	}
	return out
}

// commandHosts is what the allow rules let a command reach, for a
// command whose every segment and parsed command they allowed: for each
// of those, the union of the network lists of every allow rule matching
// it, intersected over all of them. So a compound reaches a host only
// when each of its parts is allowed by a rule that grants it:
// `npm install && curl x` with a network list on `Bash(npm install *)`
// alone gets none.
func commandHosts(allow []Rule, shell interface{ IsPOSIX() bool }, seg Segmentation, t *facts.Tree) []string {
	if !slices.ContainsFunc(allow, func(r Rule) bool { return len(r.Network) > 0 }) {
		return nil
	}
	var acc []string
	first := true
	meet := func(hosts []string) {
		if first {
			acc, first = hosts, false
			return
		}
		acc = slices.DeleteFunc(acc, func(h string) bool { return !slices.Contains(hosts, h) })
	}
	for _, s := range seg.Segments {
		meet(grantedHosts(allow, normalizeBlanks(s), false))
	}
	if shell.IsPOSIX() {
		for _, c := range topCalls(t) {
			meet(grantedHosts(allow, normalizeBlanks(c.Text), c.WriteRedir))
		}
	}
	return acc
}

// grantedHosts is the union of the network lists of the allow rules that
// match candidate (for a command writing into a file, only the rules a
// write redirect may match, as coveringIndex has it).
func grantedHosts(allow []Rule, candidate string, writeRedir bool) []string {
	var out []string
	for i := range allow {
		r := &allow[i]
		if writeRedir && !r.bare() && !strings.Contains(r.Pattern, ">") {
			continue
		}
		if r.Match(candidate) {
			for _, h := range r.Network {
				if !slices.Contains(out, h) {
					out = append(out, h)
				}
			}
		}
	}
	return out
}
