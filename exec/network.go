package exec

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentexec/agentexec/audit"
	"github.com/agentexec/agentexec/exec/egress"
	"github.com/agentexec/agentexec/exec/sandbox"
	"github.com/agentexec/agentexec/gate"
)

// NetworkReport is the egress proxy's evidence for one run: every
// connection it allowed and refused (for plain HTTP, every request). A
// refused one names the allow entry that would admit it (Suggest).
type NetworkReport struct {
	Allowed []egress.Connection `json:"allowed,omitempty"`
	Refused []egress.Connection `json:"refused,omitempty"`
	// Dropped counts connections past the proxy's record limit.
	Dropped int `json:"dropped,omitempty"`
}

// netRules decides a run's network: open (Runner.Network, a policy's
// "network": true, or the sandbox profile none, which enforces nothing),
// the egress proxy (the policy's allowlist, hosts the deciding allow rules
// grant, Runner.NetworkHosts), or cut. It returns the proxy's rules, nil
// unless proxied.
func (r *Runner) netRules(p *plan, prof sandbox.Profile) (mode gate.NetworkMode, rules *egress.Rules, err error) {
	np := p.pol.Sandbox.Network
	switch {
	case prof == sandbox.None && !r.Network && (np.Proxied() || len(p.dec.Network) > 0 || len(r.NetworkHosts) > 0):
		// Without the sandbox nothing confines the command to the proxy:
		// an allowlist that cannot be kept refuses the run, never opens up.
		return "", nil, errors.New("network: the allowlist needs a sandbox profile (read-only or workspace-write); under none nothing would hold the command to it")
	case prof == sandbox.None || r.Network || np.Open():
		return gate.NetworkOpen, nil, nil
	case !np.Proxied() && len(p.dec.Network) == 0 && len(r.NetworkHosts) == 0:
		return gate.NetworkOff, nil, nil
	}
	src := "sandbox.network"
	if pol := p.pol.Source; pol != "" {
		src = filepath.Base(pol) + ": " + src
	}
	var all []gate.HostList
	add := func(texts []string, source string) {
		if err == nil {
			var l gate.HostList
			l, err = gate.ParseHostList(texts, source, np.AllowLocal)
			all = append(all, l)
		}
	}
	add(np.Allow, src+".allow")
	add(p.dec.Network, "the network list of the allow rule "+ruleText(p.dec))
	add(r.NetworkHosts, "--network")
	deny, derr := gate.ParseHostList(np.Deny, src+".deny", true)
	if err == nil {
		err = derr
	}
	if err != nil {
		return "", nil, fmt.Errorf("network: %w", err)
	}
	rules = &egress.Rules{Deny: deny, AllowLocal: np.AllowLocal}
	for _, l := range all {
		rules.Allow = append(rules.Allow, l...)
	}
	return gate.NetworkProxy, rules, nil
}

func ruleText(d gate.Decision) string {
	if d.Rule == nil {
		return "(none)"
	}
	return d.Rule.Text
}

// startProxy serves the run's egress proxy on the listener the sandbox
// made inside the command's network namespace. Without it the command has
// no route at all, so a failure is reported, not fatal.
func (rn *run) startProxy(r *Runner, p *plan) error {
	if p.egress == nil || rn.sb == nil {
		return nil
	}
	l, err := rn.sb.ProxyListener()
	if err != nil {
		return fmt.Errorf("egress proxy: %w (the command has no network)", err)
	}
	rn.proxy = egress.New(egress.Config{Rules: *p.egress, Resolve: r.Resolve})
	go rn.proxy.Serve(l)
	return nil
}

// stopProxy ends the proxy, every connection with it, and keeps its
// evidence for the observation.
func (rn *run) stopProxy() {
	if rn.proxy == nil {
		return
	}
	ev := rn.proxy.Close()
	rn.proxy = nil
	rep := &NetworkReport{Dropped: ev.Dropped}
	for _, c := range ev.Connections {
		if c.Allowed {
			rep.Allowed = append(rep.Allowed, c)
		} else {
			rep.Refused = append(rep.Refused, c)
		}
	}
	rn.network = rep
}

// auditConnections is the evidence as the audit log keeps it.
func auditConnections(n *NetworkReport) []audit.Connection {
	if n == nil {
		return nil
	}
	var out []audit.Connection
	for _, list := range [][]egress.Connection{n.Allowed, n.Refused} {
		for _, c := range list {
			out = append(out, audit.Connection{Protocol: c.Protocol, Host: c.Host, Port: c.Port, Allowed: c.Allowed,
				Rule: c.Rule, RuleSource: c.RuleSource, Addr: c.Addr, Refused: c.Refused, Suggest: c.Suggest,
				Error: c.Error, BytesOut: c.BytesOut, BytesIn: c.BytesIn})
		}
	}
	return out
}

// maxNetworkLines bounds the connections Text lists of each kind.
const maxNetworkLines = 5

// text tells the model which hosts were refused, and what would allow
// each, so that it can ask for that rather than guess at the errors its
// clients print; and which hosts were reached.
func (n *NetworkReport) text(b *strings.Builder) {
	if n == nil {
		return
	}
	seen := map[string]bool{}
	shown := 0
	for _, c := range n.Refused {
		key := c.Host + ":" + strconv.Itoa(c.Port) + c.Refused
		if seen[key] {
			continue
		}
		seen[key] = true
		if shown++; shown > maxNetworkLines {
			fmt.Fprintf(b, "Network: more connections refused (%d in all)\n", len(n.Refused))
			break
		}
		fmt.Fprintf(b, "Network: refused %s:%d (%s): %s\n", c.Host, c.Port, c.Protocol, oneLine(c.Reason))
	}
	var reached []string
	for _, c := range n.Allowed {
		s := c.Host + ":" + strconv.Itoa(c.Port)
		if c.Error != "" {
			s += " (failed: " + oneLine(c.Error) + ")"
		}
		if !slices.Contains(reached, s) && len(reached) < maxNetworkLines {
			reached = append(reached, s)
		}
	}
	if len(reached) > 0 {
		fmt.Fprintf(b, "Network: allowed %s\n", strings.Join(reached, ", "))
	}
}
