package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/agentexec/agentexec/exec/sandbox"
	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/policy"
)

// networkFlag is --network: bare or "on" opens the network; a
// comma-separated host list (patterns as in sandbox.network.allow) is a
// one-off allowlist through the egress proxy; "off" leaves the policy's
// setting.
type networkFlag struct {
	open  bool
	hosts []string
}

func (n *networkFlag) String() string {
	if n == nil || (!n.open && len(n.hosts) == 0) {
		return ""
	}
	if n.open {
		return "on"
	}
	return strings.Join(n.hosts, ",")
}

// IsBoolFlag lets --network stand alone (then it means on).
func (n *networkFlag) IsBoolFlag() bool { return true }

func (n *networkFlag) Set(v string) error {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "on", "open":
		n.open, n.hosts = true, nil
		return nil
	case "false", "off":
		n.open, n.hosts = false, nil
		return nil
	case "":
		return errors.New("want on, off or HOST,... (for example registry.npmjs.org,*.github.com)")
	}
	var hosts []string
	for h := range strings.SplitSeq(v, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	if _, err := gate.ParseHostList(hosts, "", true); err != nil {
		return fmt.Errorf("host %v", strings.TrimPrefix(err.Error(), "[0]: "))
	}
	n.open, n.hosts = false, append(n.hosts, hosts...)
	return nil
}

// joinNetworkValue lets --network take its value as the next argument
// (--network registry.npmjs.org) as well as after "=": a boolean flag
// would leave it as the command. The next argument is the value unless
// it starts with "-" (another flag, or "--" before the command), so a
// bare --network before those still means on. Only the flags are looked
// at: scanning stops at the first argument that is not a flag or a
// flag's value, as flag.Parse does.
func joinNetworkValue(fs *flag.FlagSet, args []string) []string {
	if fs.Lookup("network") == nil {
		return args
	}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			return append(out, args[i:]...)
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		out = append(out, a)
		f := fs.Lookup(name)
		if hasValue || f == nil || i+1 >= len(args) {
			continue
		}
		next := args[i+1]
		switch {
		case name == "network" && !strings.HasPrefix(next, "-"):
			out[len(out)-1] = a + "=" + next
			i++
		case !isBoolFlag(f):
			out = append(out, next) // its value, whatever it looks like
			i++
		}
	}
	return out
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// networkDetect is "sandbox detect"'s network section: what each mode
// gets here (workspace-write), and a policy's mode when one was given.
type networkDetect struct {
	Modes  map[string]profileReport `json:"modes"`
	Policy *policyNetwork           `json:"policy,omitempty"`
}

// policyNetwork is the network a policy file sets.
type policyNetwork struct {
	Source     string   `json:"source"`
	Mode       string   `json:"mode"` // off, open or proxy
	Allow      []string `json:"allow,omitempty"`
	Deny       []string `json:"deny,omitempty"`
	AllowLocal bool     `json:"allow_local,omitempty"`
	// Rules lists the allow rules that carry hosts of their own.
	Rules map[string][]string `json:"rules,omitempty"`
}

var networkModes = []struct {
	name string
	spec sandbox.Spec
}{
	{"off", sandbox.Spec{Profile: sandbox.WorkspaceWrite}},
	{"proxy", sandbox.Spec{Profile: sandbox.WorkspaceWrite, Proxy: true}},
	{"open", sandbox.Spec{Profile: sandbox.WorkspaceWrite, Network: true}},
}

func detectNetwork(policyPath string) (networkDetect, error) {
	nd := networkDetect{Modes: map[string]profileReport{}}
	for _, m := range networkModes {
		r, err := sandbox.Preview(m.spec)
		if err != nil {
			nd.Modes[m.name] = profileReport{Error: err.Error()}
			continue
		}
		nd.Modes[m.name] = profileReport{OK: true, Report: &r}
	}
	if policyPath == "" {
		return nd, nil
	}
	l, err := policy.Load(policy.Options{Path: policyPath})
	if err != nil {
		return nd, err
	}
	pol := l.Policy
	n := pol.Sandbox.Network
	pn := &policyNetwork{Source: policyPath, Mode: "off", Allow: n.Allow, Deny: n.Deny, AllowLocal: n.AllowLocal, Rules: pol.Permissions.Network}
	switch {
	case n.Open():
		pn.Mode = "open"
	case n.Proxied():
		pn.Mode = "proxy"
	}
	nd.Policy = pn
	return nd, nil
}

func printNetwork(w io.Writer, nd networkDetect) {
	fmt.Fprintln(w, "network modes (workspace-write):")
	for _, m := range networkModes {
		r := nd.Modes[m.name]
		switch {
		case !r.OK:
			fmt.Fprintf(w, "  %-16s unavailable: %s\n", m.name, r.Error)
		case m.name == "proxy":
			fmt.Fprintf(w, "  %-16s network=%s: own network namespace, only route the egress proxy at %s inside\n", m.name, r.Report.Network, sandbox.ProxyAddr)
		default:
			fmt.Fprintf(w, "  %-16s network=%s\n", m.name, r.Report.Network)
		}
	}
	p := nd.Policy
	if p == nil {
		return
	}
	fmt.Fprintf(w, "policy %s: network %s", p.Source, p.Mode)
	if p.Mode == "proxy" {
		fmt.Fprintf(w, " (allow: %s; deny: %s; allow_local: %v)", listOrNone(p.Allow), listOrNone(p.Deny), p.AllowLocal)
	}
	fmt.Fprintln(w)
	for rule, hosts := range p.Rules {
		fmt.Fprintf(w, "  %s may also reach %s\n", rule, strings.Join(hosts, ", "))
	}
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
