package sandbox

// The proxy network mode (Spec.Proxy): the command gets a network
// namespace of its own with only loopback up and one listening socket in
// it, at ProxyAddr, which the caller serves from outside (agentexec's
// egress proxy, exec/egress) through Handle.ProxyListener. Nothing else is
// reachable from inside: no interface but lo, no resolver, Landlock (ABI
// 4 and later) admits TCP connect to ProxyPort only and binds none, and a
// seccomp filter refuses every socket family but AF_UNIX, AF_INET and
// AF_INET6 (AF_VSOCK, which no network namespace confines, among them).

// ProxyPort is the proxy's port inside the command's network namespace,
// which is the command's own, so the port is always free.
const ProxyPort = 3128

// ProxyAddr is the proxy's address inside the command's network namespace.
const ProxyAddr = "127.0.0.1:3128"

// proxyEnv are the variables that point clients at the proxy; NO_PROXY
// is emptied so that an inherited exception cannot send a client around
// it (it would find no route anyway).
var proxyEnv = []string{
	"HTTP_PROXY=http://" + ProxyAddr, "http_proxy=http://" + ProxyAddr,
	"HTTPS_PROXY=http://" + ProxyAddr, "https_proxy=http://" + ProxyAddr,
	"ALL_PROXY=socks5h://" + ProxyAddr, "all_proxy=socks5h://" + ProxyAddr,
	"NO_PROXY=", "no_proxy=",
}

// planProxy adds the proxy mode's layers to p: a network namespace is
// required (there is no proxy-only cut without one), and the TCP and
// socket-family limits go on top where the kernel has them.
func planProxy(p *plan, spec Spec, caps Capabilities) error {
	if spec.Network {
		return &UnavailableError{Profile: spec.Profile, Feature: "one network mode", Reason: "Spec.Network and Spec.Proxy are exclusive"}
	}
	if !caps.NetNS {
		return &UnavailableError{Profile: spec.Profile, Feature: "network namespace",
			Reason: "the network allowlist gives the command a network namespace whose only route is the proxy"}
	}
	p.Proxy, p.NetNS = true, true
	p.LandlockNet = p.LandlockABI >= 4
	return nil
}
