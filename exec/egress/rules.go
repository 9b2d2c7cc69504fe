package egress

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/agentexec/agentexec/gate"
)

// Rules is what the proxy lets through: deny wins over allow; names are
// allowed by name patterns only, and resolved only once allowed; every
// address dialled is checked against the deny list's IP patterns and,
// unless AllowLocal, refused when it is local (gate.LocalAddress).
type Rules struct {
	Allow      gate.HostList
	Deny       gate.HostList
	AllowLocal bool
}

// The kinds of refusal.
const (
	RefusedNotAllowed = "not-allowed" // no allow entry matches
	RefusedDenied     = "denied"      // a deny entry matches
	RefusedLocal      = "local"       // the address is local and allow_local is off
	RefusedBadRequest = "bad-request" // not a host, or a request the proxy does not relay
	RefusedSNI        = "sni"         // the TLS server name differs from the host asked for
	RefusedLimit      = "limit"       // too many connections
)

// Refusal says why a connection was refused, and what would allow it.
type Refusal struct {
	Kind   string
	Reason string // one sentence for the model
	// Suggest is the allow entry that would admit the connection (for
	// RefusedNotAllowed), "allow_local" (RefusedLocal) or "".
	Suggest string
}

// Error implements error.
func (r *Refusal) Error() string { return r.Reason }

// verdict is the outcome of checking one target.
type verdict struct {
	host  string // normalized name, or the IP literal
	port  int
	addrs []netip.Addr // what to dial, all checked
	rule  gate.HostPattern
}

// target parses host (a name or an IP literal, IPv6 with or without
// brackets) and checks it against r without resolving anything.
func (r Rules) target(host string, port int) (verdict, *Refusal) {
	v := verdict{port: port}
	if port < 1 || port > 65535 {
		return v, badRequest(fmt.Sprintf("port %d is not a TCP port", port))
	}
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if a, err := netip.ParseAddr(h); err == nil && a.Zone() == "" {
		a = a.Unmap()
		v.host, v.addrs = a.String(), []netip.Addr{a}
		return r.literal(v, a)
	}
	name, ok := gate.NormalizeHost(host)
	if !ok {
		return v, badRequest(fmt.Sprintf("%q is not a host name or IP address (send a non-ASCII name in its xn-- form)", host))
	}
	v.host = name
	if d, ok := r.Deny.MatchName(name, port); ok {
		return v, denied(v, d)
	}
	a, ok := r.Allow.MatchName(name, port)
	if !ok {
		return v, notAllowed(v)
	}
	v.rule = a
	return v, nil
}

// literal checks an IP literal target.
func (r Rules) literal(v verdict, a netip.Addr) (verdict, *Refusal) {
	if d, ok := r.Deny.MatchAddr(a, v.port); ok {
		return v, denied(v, d)
	}
	p, ok := r.Allow.MatchAddr(a, v.port)
	if !ok {
		return v, notAllowed(v)
	}
	v.rule = p
	return v, r.checkAddr(v, a)
}

// Resolver returns the addresses of a host name. It is called only for
// names an allow entry matched.
type Resolver func(ctx context.Context, host string) ([]netip.Addr, error)

// resolve fills v.addrs for an allowed name and checks every address: one
// denied or local address refuses the name, so a DNS answer mixing a
// public and a private address (rebinding) reaches neither.
func (r Rules) resolve(ctx context.Context, v verdict, res Resolver) (verdict, *Refusal, error) {
	if len(v.addrs) > 0 {
		return v, nil, nil // a literal, checked already
	}
	addrs, err := res(ctx, v.host)
	if err != nil {
		return v, nil, fmt.Errorf("could not resolve %s: %w", v.host, err)
	}
	if len(addrs) == 0 {
		return v, nil, fmt.Errorf("could not resolve %s: no addresses", v.host)
	}
	for i := range addrs {
		addrs[i] = addrs[i].Unmap()
	}
	v.addrs = addrs // kept on refusal, to name the deny entry
	for _, a := range addrs {
		if d, ok := r.Deny.MatchAddr(a, v.port); ok {
			return v, denied(v, d), nil
		}
		if ref := r.checkAddr(v, a); ref != nil {
			return v, ref, nil
		}
	}
	return v, nil, nil
}

// checkAddr refuses a local address unless AllowLocal.
func (r Rules) checkAddr(v verdict, a netip.Addr) *Refusal {
	kind := gate.LocalAddress(a)
	if kind == "" || r.AllowLocal {
		return nil
	}
	what := v.host
	if what != a.String() {
		what += " resolves to " + a.String() + ", which"
	}
	return &Refusal{Kind: RefusedLocal, Suggest: "allow_local",
		Reason: fmt.Sprintf("%s is a %s address: the proxy does not connect to local addresses unless sandbox.network.allow_local is true", what, kind)}
}

func badRequest(reason string) *Refusal {
	return &Refusal{Kind: RefusedBadRequest, Reason: reason}
}

func denied(v verdict, d gate.HostPattern) *Refusal {
	return &Refusal{Kind: RefusedDenied, Reason: fmt.Sprintf("%s is denied by the entry %q of %s", hostPort(v.host, v.port), d.Text, sourceOf(d))}
}

func notAllowed(v verdict) *Refusal {
	s := suggestion(v.host, v.port)
	return &Refusal{Kind: RefusedNotAllowed, Suggest: s, Reason: fmt.Sprintf(
		"%s is not on this run's network allowlist. To allow it, add %q to sandbox.network.allow in the policy, "+
			"or to the network list of the allow rule for this command ({\"rule\": \"Bash(...)\", \"network\": [%q]}), "+
			"or for one run: agentexec run --network %s", hostPort(v.host, v.port), s, s, s)}
}

// suggestion is the allow entry for host:port: the name alone for the
// web's ports, else with the port.
func suggestion(host string, port int) string {
	if port == 80 || port == 443 {
		if strings.Contains(host, ":") {
			return "[" + host + "]:" + strconv.Itoa(port)
		}
		return host
	}
	return hostPort(host, port)
}

func hostPort(host string, port int) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]:" + strconv.Itoa(port)
	}
	return host + ":" + strconv.Itoa(port)
}

func sourceOf(h gate.HostPattern) string {
	if h.Source == "" {
		return "the policy"
	}
	return h.Source
}

// splitTarget splits "host:port" (brackets around IPv6) with a default
// port.
func splitTarget(hp string, defPort int) (string, int, error) {
	if hp == "" {
		return "", 0, errors.New("no host")
	}
	host, ps := hp, ""
	if i := strings.LastIndexByte(hp, ':'); i >= 0 && !strings.HasSuffix(hp, "]") && (strings.Count(hp, ":") == 1 || strings.HasPrefix(hp, "[")) {
		host, ps = hp[:i], hp[i+1:]
	}
	if ps == "" {
		if defPort == 0 {
			return "", 0, fmt.Errorf("%q has no port", hp)
		}
		return host, defPort, nil
	}
	port, err := strconv.Atoi(ps)
	if err != nil || port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("%q: bad port", hp)
	}
	return host, port, nil
}
