package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentexec/agentexec/exec/sandbox"
)

// detectOutput is what "sandbox detect --json" prints.
type detectOutput struct {
	Capabilities sandbox.Capabilities     `json:"capabilities"`
	Profiles     map[string]profileReport `json:"profiles"`
	// Network is what each network mode gets under workspace-write, and
	// the mode a policy (--policy) sets (network.go).
	Network networkDetect `json:"network"`
}

// profileReport is what one profile (with the network off) would get here.
type profileReport struct {
	OK     bool            `json:"ok"`
	Report *sandbox.Report `json:"report,omitempty"`
	Error  string          `json:"error,omitempty"`
}

var detectProfiles = []sandbox.Profile{sandbox.ReadOnly, sandbox.WorkspaceWrite, sandbox.None}

func sandboxMain(_ context.Context, c *cli, args []string) int {
	fs := newFlagSet("sandbox", "detect [--json]",
		"Print what this host's kernel can enforce (Landlock ABI, user, mount, network\nand PID namespaces, cgroup pids, seccomp, runs started from a thread) and what\neach profile would get here, with the network off.")
	asJSON := fs.Bool("json", false, "print JSON")
	policy := fs.String("policy", "", "also show the network mode this policy `FILE` sets")
	if len(args) > 0 && args[0] == "detect" {
		args = args[1:]
	} else if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(c.stderr, "agentexec sandbox: unknown subcommand %q (want detect)\n", args[0])
		return 2
	}
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(c.stderr, "agentexec sandbox: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	out := detectOutput{Capabilities: sandbox.Detect(), Profiles: map[string]profileReport{}}
	for _, p := range detectProfiles {
		out.Profiles[string(p)] = preview(p)
	}
	var err error
	if out.Network, err = detectNetwork(*policy); err != nil {
		fmt.Fprintf(c.stderr, "agentexec sandbox: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(c.stderr, "agentexec sandbox: %v\n", err)
			return 1
		}
		return 0
	}
	printDetect(c.stdout, out)
	return 0
}

func preview(p sandbox.Profile) profileReport {
	r, err := sandbox.Preview(sandbox.Spec{Profile: p})
	if err != nil {
		return profileReport{Error: err.Error()}
	}
	return profileReport{OK: true, Report: &r}
}

func printDetect(w io.Writer, out detectOutput) {
	c := out.Capabilities
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	landlock, cgroup := "no", "no"
	if c.LandlockABI > 0 {
		landlock = fmt.Sprintf("ABI %d", c.LandlockABI)
	}
	if c.CgroupPids != "" {
		cgroup = c.CgroupPids
	}
	fmt.Fprintf(w, "host (%s):\n", c.OS)
	for _, row := range [][2]string{
		{"root", yes(c.Root)}, {"landlock", landlock}, {"user namespace", yes(c.UserNS)},
		{"mount namespace", yes(c.MountNS)}, {"network namespace", yes(c.NetNS)},
		{"pid namespace", yes(c.PIDNS)}, {"pid_max per ns", yes(c.PIDMaxNS)},
		{"cgroup pids", cgroup}, {"seccomp", yes(c.Seccomp)}, {"thread launch", yes(c.ThreadLaunch)},
	} {
		fmt.Fprintf(w, "  %-18s %s\n", row[0], row[1])
	}
	fmt.Fprintln(w, "profiles (network off):")
	for _, p := range detectProfiles {
		r := out.Profiles[string(p)]
		switch {
		case !r.OK:
			fmt.Fprintf(w, "  %-16s unavailable: %s\n", p, r.Error)
		case p == sandbox.None:
			fmt.Fprintf(w, "  %-16s nothing enforced\n", p)
		default:
			fmt.Fprintf(w, "  %-16s launcher=%s network=%s layers=%s\n", p, r.Report.Launcher, r.Report.Network, strings.Join(r.Report.Layers, ","))
		}
	}
	printNetwork(w, out.Network)
	for _, p := range c.Problems {
		fmt.Fprintf(w, "note: %s\n", p)
	}
}
