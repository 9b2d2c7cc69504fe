package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentexec/agentexec/exec"
	"github.com/agentexec/agentexec/exec/sandbox"
	"github.com/agentexec/agentexec/policy"
)

// detectOutput is what "sandbox detect --json" prints.
type detectOutput struct {
	Capabilities sandbox.Capabilities     `json:"capabilities"`
	Profiles     map[string]profileReport `json:"profiles"`
	// Network is what each network mode gets under workspace-write, and
	// the mode a policy (--policy) sets (network.go).
	Network networkDetect `json:"network"`
	// Files are the masks a policy's file rules (--policy) make now.
	Files *policyFiles `json:"files,omitempty"`
}

// policyFiles is what a policy's Read/Edit/Write rules do in the sandbox
// if a run started now.
type policyFiles struct {
	Source string          `json:"source"`
	Masks  []exec.FileMask `json:"masks"`
	Notes  []string        `json:"notes,omitempty"`
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
	policy := fs.String("policy", "", "also show the network mode and the file masks this policy `FILE` sets")
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
	if *policy != "" {
		if out.Files, err = detectFiles(*policy, c.getenv("HOME")); err != nil {
			fmt.Fprintf(c.stderr, "agentexec sandbox: %v\n", err)
			return 1
		}
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

// detectFiles expands the file rules of the policy at path as a run
// would now.
func detectFiles(path, home string) (*policyFiles, error) {
	l, err := policy.Load(policy.Options{Path: path, Home: home})
	if err != nil {
		return nil, err
	}
	masks, notes := exec.FileMasks(l.Policy.Files, home)
	return &policyFiles{Source: path, Masks: masks, Notes: notes}, nil
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
	landlock, cgroup, unixCut := "no", "no", "masks over the sockets bound outside the writable roots at start (Landlock before ABI 9)"
	if c.LandlockABI > 0 {
		landlock = fmt.Sprintf("ABI %d", c.LandlockABI)
	}
	if c.LandlockABI >= 9 {
		unixCut = "Landlock (ABI 9): connect outside the writable roots refused"
	}
	if c.CgroupPids != "" {
		cgroup = c.CgroupPids
		if c.CgroupMemory {
			cgroup += ", memory"
		}
		if c.CgroupCPU {
			cgroup += ", cpu"
		}
	}
	fmt.Fprintf(w, "host (%s):\n", c.OS)
	for _, row := range [][2]string{
		{"root", yes(c.Root)}, {"landlock", landlock}, {"user namespace", yes(c.UserNS)},
		{"mount namespace", yes(c.MountNS)}, {"network namespace", yes(c.NetNS)},
		{"pid namespace", yes(c.PIDNS)}, {"pid_max per ns", yes(c.PIDMaxNS)},
		{"cgroup", cgroup}, {"seccomp", yes(c.Seccomp)}, {"thread launch", yes(c.ThreadLaunch)},
		{"unix sockets", unixCut},
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
			fmt.Fprintf(w, "  %-16s nothing enforced by the kernel (only fds 0-2 still pass in)\n", p)
		default:
			fmt.Fprintf(w, "  %-16s launcher=%s network=%s layers=%s\n", p, r.Report.Launcher, r.Report.Network, strings.Join(r.Report.Layers, ","))
			fmt.Fprintf(w, "  %-16s %s\n", "", promises(p, r.Report))
		}
	}
	printNetwork(w, out.Network)
	if f := out.Files; f != nil {
		fmt.Fprintf(w, "files (%s, if a run started now):\n", f.Source)
		if len(f.Masks) == 0 {
			fmt.Fprintln(w, "  no deny or ask file rule names an existing path")
		}
		for _, m := range f.Masks {
			what := "read-only"
			if m.Hide {
				what = "hidden"
			}
			fmt.Fprintf(w, "  %-9s %s  (%s)\n", what, m.Path, m.Rule)
		}
		for _, n := range f.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
	}
	for _, p := range c.Problems {
		fmt.Fprintf(w, "note: %s\n", p)
	}
}

// promises says in one line what a profile's run gets here, beyond its
// layers: what it may write, the memory cap and the process limit.
func promises(p sandbox.Profile, r *sandbox.Report) string {
	write := "writes nowhere but /dev/null and its terminal"
	if p == sandbox.WorkspaceWrite {
		write = "writes only the workspace, its TMPDIR and writable_roots (.git of every repository found there, the policy and audit files read-only)"
	}
	mem := "memory uncapped (set sandbox.limits.memory)"
	if r.Memory > 0 {
		mem = fmt.Sprintf("memory cap %d MiB (%s)", r.Memory>>20, r.MemoryBy)
	}
	return fmt.Sprintf("%s; %s; only fds 0-2 pass in", write, mem)
}
