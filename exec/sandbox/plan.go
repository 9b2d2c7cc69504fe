package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// plan is what one run gets, decided in the parent from the Spec and the
// host's Capabilities before anything starts, so that the Report states what
// the trampoline will do rather than what it hoped to do.
type plan struct {
	Thread      bool // started from a launcher thread, not the trampoline
	UserNS      bool // not root: the namespaces are made inside a user namespace
	MountNS     bool
	PIDNS       bool
	NetNS       bool
	IPCNS       bool
	LandlockNet bool // Landlock also denies TCP bind and connect (ABI 4)
	// LandlockUnix: Landlock refuses connect and sendmsg to pathname Unix
	// sockets outside the writable roots (ABI 9, network off).
	LandlockUnix bool
	// UnixMasks: without LandlockUnix, the pathname sockets bound outside
	// the writable roots when the run starts are masked (network off).
	UnixMasks   bool
	Seccomp     bool // arch guard and the always-denied syscalls
	SeccompNet  bool // socket families other than AF_UNIX refused
	Proxy       bool // only a listener at ProxyAddr is reachable (proxy.go)
	LandlockABI int
	PIDMax      int    // pid_max of the PID namespace, 0 for none
	Cgroup      string // "v1", "v2" or ""
	CgroupMem   bool   // the cgroup has the memory controller: the memory cap
	CgroupCPU   bool   // the cgroup has the cpu controller: the run weighs as one task
	Init        bool   // agentexec-init runs the command (init_linux.go)
	ExecGate    bool   // every exec of the run is checked (tracer_linux.go)
}

// makePlan decides the layers for spec on a host with caps, or returns an
// *UnavailableError naming what is missing. It fails closed: a layer the
// profile's promise rests on is required, never skipped.
func makePlan(spec Spec, caps Capabilities) (plan, error) {
	if err := checkSpec(spec); err != nil {
		return plan{}, err
	}
	missing := func(feature, reason string) (plan, error) {
		return plan{}, &UnavailableError{Profile: spec.Profile, Feature: feature, Reason: reason}
	}
	if caps.OS != "linux" {
		return missing("a Linux kernel", "no sandbox is implemented on "+caps.OS)
	}
	if caps.LandlockABI < 1 {
		return missing("landlock", "the kernel has no Landlock (needed to deny writes outside the writable roots)")
	}
	if !caps.MountNS {
		return missing("mount namespace", "needed to make the filesystem read-only outside the writable roots (Landlock does not stop chmod, chown or utimes) and to protect .git")
	}
	p := plan{
		UserNS:      !caps.Root,
		MountNS:     true,
		PIDNS:       caps.PIDNS,
		IPCNS:       caps.PIDNS, // made together with the PID namespace when allowed
		Seccomp:     caps.Seccomp,
		LandlockABI: landlockABI(caps.LandlockABI),
		Init:        caps.Init,
		ExecGate:    spec.ExecCheck != nil && caps.ExecGate,
	}
	// The launcher thread needs none of the trampoline's Go start (5-10 ms
	// here); it limits processes with a v1 pids cgroup that it joins alone,
	// cheaply. The trampoline moves a process into a cgroup, which costs
	// 40-100 ms here (an RCU grace period), while a per-namespace pid_max
	// costs nothing, so there the cgroup is only the fallback.
	switch {
	case caps.ThreadLaunch && !p.UserNS && caps.PIDNS && caps.Seccomp && caps.CgroupPids == "v1":
		p.Thread, p.Cgroup = true, "v1"
	case caps.PIDNS && caps.PIDMaxNS:
		p.PIDMax = pidMax(spec.Limits.Processes)
	default:
		p.Cgroup = caps.CgroupPids
	}
	p.CgroupMem = p.Cgroup != "" && caps.CgroupMemory
	p.CgroupCPU = p.Cgroup != "" && caps.CgroupCPU
	if spec.Proxy {
		if err := planProxy(&p, spec, caps); err != nil {
			return plan{}, err
		}
		p.unixCut() // the proxy is the only way out, no host socket either
		return p, nil
	}
	if !spec.Network {
		// The seccomp socket filter cuts the network for a few BPF
		// instructions; a network namespace adds about 5 ms to every
		// start here (BenchmarkNamespaces), so it is only the fallback.
		// Landlock's TCP rules, its abstract-socket scope and the masked
		// host sockets complete the cut either way.
		p.LandlockNet = p.LandlockABI >= 4
		p.unixCut()
		p.SeccompNet = caps.Seccomp
		p.NetNS = !caps.Seccomp && caps.NetNS
		if !p.NetNS && !p.SeccompNet {
			return missing("network cut", "neither a network namespace nor a seccomp filter is available")
		}
	}
	return p, nil
}

// unixCut puts pathname Unix sockets outside the writable roots out of
// reach: by Landlock where its ABI covers them (9), else by masks.
func (p *plan) unixCut() {
	p.LandlockUnix = p.LandlockABI >= 9
	p.UnixMasks = !p.LandlockUnix
}

// Preview returns the Report a run with spec would get on this host, or
// the *UnavailableError Prepare would return. It starts nothing but the
// one-time namespace probe of [Detect].
func Preview(spec Spec) (Report, error) {
	if spec.Profile == None {
		r := Report{Profile: None, Network: "on"}
		if spec.ExecCheck != nil {
			caps := Detect()
			if !caps.ExecGate {
				return Report{}, execGateUnavailable(None, caps)
			}
			r.Init, r.Layers = true, []string{"exec-gate"}
		}
		return r, nil
	}
	p, err := makePlan(spec, Detect())
	if err != nil {
		return Report{}, err
	}
	return p.report(spec), nil
}

// pidMax is the pid_max that lets a PID namespace hold at least n
// processes: after the first wrap the kernel hands out pids from 300 up
// (RESERVED_PIDS), so up to n+299 fit before it and n after.
func pidMax(n uint64) int {
	if n == 0 {
		n = DefaultProcesses
	}
	return int(min(n, 1<<22)) + reservedPIDs
}

const reservedPIDs = 300

// landlockABIWanted is the newest Landlock ABI this package asks for.
const landlockABIWanted = 9

// landlockABI is the ABI whose ruleset a run gets on a kernel with abi:
// 9 (pathname Unix sockets) when the kernel has it, else up to 7 (8 adds
// nothing a ruleset asks for).
func landlockABI(abi int) int {
	if abi >= landlockABIWanted {
		return landlockABIWanted
	}
	return min(abi, 7)
}

// checkSpec rejects a Spec that names no known profile or relative paths.
func checkSpec(spec Spec) error {
	switch spec.Profile {
	case ReadOnly, WorkspaceWrite:
	case None:
		return errors.New("sandbox: profile none has no plan")
	default:
		return fmt.Errorf("sandbox: Spec.Profile: unknown profile %q (want read-only, workspace-write or none)", spec.Profile)
	}
	for field, paths := range map[string][]string{
		"WritableRoots":  spec.WritableRoots,
		"ReadableRoots":  spec.ReadableRoots,
		"ProtectedPaths": spec.ProtectedPaths,
		"HiddenPaths":    spec.HiddenPaths,
	} {
		for _, p := range paths {
			if !filepath.IsAbs(p) {
				return fmt.Errorf("sandbox: Spec.%s: %q is not an absolute path", field, p)
			}
		}
	}
	return nil
}

// report is the Report for a run with plan p.
func (p plan) report(spec Spec) Report {
	r := Report{Profile: spec.Profile, LandlockABI: p.LandlockABI, Network: p.network(), Launcher: "trampoline", Init: p.Init}
	if p.Thread {
		r.Launcher = "thread"
	}
	r.Layers = p.layers()
	r.Notes = append([]string(nil), spec.Notes...)
	switch {
	case p.CgroupMem:
		r.Memory, r.MemoryBy = memoryLimit(spec.Limits), "cgroup"
	case spec.Limits.Memory > 0:
		r.Memory, r.MemoryBy = spec.Limits.Memory, "rlimit-as"
	default:
		r.Notes = append(r.Notes, "memory: no memory cgroup, so no default cap (an address-space limit would break -race and AddressSanitizer builds); sandbox.limits.memory sets one")
	}
	return r
}

func (p plan) network() string {
	switch {
	case p.Proxy:
		return "proxy"
	case p.NetNS && p.SeccompNet:
		return "netns+seccomp"
	case p.NetNS:
		return "netns"
	case p.SeccompNet:
		return "seccomp"
	}
	return "on"
}

func (p plan) layers() []string {
	l := []string{"no_new_privs", "caps", "rlimits", fmt.Sprintf("landlock-abi%d", p.LandlockABI)}
	add := func(ok bool, name string) {
		if ok {
			l = append(l, name)
		}
	}
	add(p.UserNS, "userns")
	add(p.MountNS, "mountns-ro")
	add(p.NetNS, "netns")
	add(p.LandlockNet, "landlock-net")
	add(p.LandlockUnix, "landlock-unix")
	add(p.UnixMasks, "unix-socket-masks")
	add(p.Seccomp, "seccomp")
	add(p.SeccompNet, "seccomp-net")
	add(p.Proxy, "egress-proxy")
	add(p.PIDNS, "pidns")
	add(p.PIDMax > 0, "pid-max")
	add(p.Cgroup != "", "cgroup-pids")
	add(p.CgroupMem, "cgroup-memory")
	add(p.CgroupCPU, "cgroup-cpu")
	add(p.ExecGate, "exec-gate")
	return l
}

// releaseAtLeast compares a kernel release string with major.minor.
func releaseAtLeast(release string, major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(release, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// execGateUnavailable is Prepare's error for a Spec with an exec gate on a
// host that cannot trace.
func execGateUnavailable(p Profile, caps Capabilities) error {
	reason := "this host cannot trace the commands it runs"
	for _, pr := range caps.Problems {
		if strings.HasPrefix(pr, "exec gate: ") || strings.HasPrefix(pr, "init: ") {
			reason = pr
			break
		}
	}
	return &UnavailableError{Profile: p, Feature: "the exec gate", Reason: reason}
}

// dedupe drops repeated strings, keeping the first of each.
func dedupe(s []string) []string {
	seen := map[string]bool{}
	out := s[:0:0]
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// memoryLimit is the run's memory cap: Limits.Memory, else DefaultMemory.
func memoryLimit(l Limits) uint64 {
	if l.Memory > 0 {
		return l.Memory
	}
	return DefaultMemory()
}
