package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

var (
	detectOnce sync.Once
	detected   Capabilities
)

// Detect reports what this host lets the sandbox enforce. It looks once per
// process and returns the cached answer afterwards. Root in the initial user
// namespace is not probed; otherwise the namespace probe starts this binary
// again, so [Main] must have been called.
func Detect() Capabilities {
	detectOnce.Do(func() {
		detected = detect()
		if detected.ThreadLaunch {
			go warmLauncher()
		}
	})
	return detected
}

func detect() Capabilities {
	c := Capabilities{OS: "linux", Root: isRoot()}
	c.LandlockABI, _ = ll.LandlockGetABIVersion()
	c.Seccomp = seccompSupported()
	if !c.Seccomp {
		c.Problems = append(c.Problems, "seccomp: no filter support for this kernel or architecture")
	}
	c.PIDMaxNS = kernelAtLeast(6, 14)
	view := readCgroupView()
	c.CgroupPids = detectCgroup(view)
	findExtras(func() cgroupView { return view })
	c.CgroupMemory, c.CgroupCPU = cgroupExtras(c.CgroupPids)
	if c.CgroupPids == "" {
		c.Problems = append(c.Problems, "cgroup pids: no writable pids controller (v1 or v2)")
	}
	detectNamespaces(&c)
	var why string
	if c.Init, why = initAvailable(); !c.Init {
		c.Problems = append(c.Problems, why)
	}
	if c.ExecGate, why = execGateAvailable(c.Init); c.ExecGate {
		c.ExecGateMechanism = execGateMechanism
	} else {
		c.Problems = append(c.Problems, why)
	}
	c.ThreadLaunch = threadLaunch(c)
	return c
}

// threadLaunch reports whether runs can start from a launcher thread:
// its run's init holds itself while the sandbox is completed.
func threadLaunch(c Capabilities) bool {
	if !c.Root || !initialUserNS() || !c.MountNS || !c.PIDNS || !c.Seccomp || c.CgroupPids != "v1" || !c.Init {
		return false
	}
	return procPIDNSSupported()
}

// isRoot is true when this process may make namespaces without a user
// namespace: effective uid 0 holding CAP_SYS_ADMIN.
func isRoot() bool {
	if os.Geteuid() != 0 {
		return false
	}
	eff, err := capEff()
	return err == nil && eff&(1<<unix.CAP_SYS_ADMIN) != 0
}

// capEff reads CapEff from /proc/self/status.
func capEff() (uint64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	return 0, fmt.Errorf("no CapEff in /proc/self/status")
}

func seccompSupported() bool {
	if auditArch == 0 {
		return false
	}
	_, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	if err != nil {
		return false
	}
	_, err = os.Stat("/proc/sys/kernel/seccomp/actions_avail")
	return err == nil
}

// detectNamespaces records which namespaces a run can make. Root in the
// initial user namespace can make them all unless a sysctl forbids it, so
// it is not probed (a probe is two process starts, paid by every CLI run);
// otherwise this binary is started as a probe that exits at once, in the
// namespaces a run would use. A wrong guess fails closed: cmd.Start fails.
func detectNamespaces(c *Capabilities) {
	if c.Root && initialUserNS() {
		c.MountNS = nsAllowed("mnt")
		c.PIDNS = nsAllowed("pid") && nsAllowed("ipc")
		c.NetNS = nsAllowed("net")
		c.UserNS = nsAllowed("user")
		return
	}
	if !mainCalled.Load() {
		c.Problems = append(c.Problems, "namespaces: not probed because sandbox.Main was not called at the top of main")
		return
	}
	if err := probe(unix.CLONE_NEWUSER); err != nil {
		c.Problems = append(c.Problems, "user namespace: "+err.Error())
		if !c.Root {
			return
		}
	} else {
		c.UserNS = true
	}
	try := func(flag uintptr, name string) bool {
		err := probe(flag)
		if err != nil {
			c.Problems = append(c.Problems, name+": "+err.Error())
		}
		return err == nil
	}
	all := uintptr(unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWIPC)
	if probe(all) == nil {
		c.MountNS, c.PIDNS, c.NetNS = true, true, true
		return
	}
	c.MountNS = try(unix.CLONE_NEWNS, "mount namespace")
	c.PIDNS = try(unix.CLONE_NEWPID|unix.CLONE_NEWIPC, "pid namespace")
	c.NetNS = try(unix.CLONE_NEWNET, "network namespace")
}

// initialUserNS is true when this process is in the initial user
// namespace, whose uid_map is the identity over the full range.
func initialUserNS() bool {
	b, err := os.ReadFile("/proc/self/uid_map")
	return err == nil && strings.Join(strings.Fields(string(b)), " ") == "0 0 4294967295"
}

// nsAllowed is false when /proc/sys/user/max_<kind>_namespaces is 0.
func nsAllowed(kind string) bool {
	b, err := os.ReadFile("/proc/sys/user/max_" + kind + "_namespaces")
	if err != nil {
		return true // no such limit on this kernel
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return err == nil && n > 0
}

// probe starts this binary with argv[0] probeName in new namespaces.
func probe(flags uintptr) error {
	cmd := exec.Command("/proc/self/exe")
	cmd.Args = []string{probeName}
	cmd.Env = []string{}
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: flags}
	if flags&unix.CLONE_NEWUSER != 0 || !isRoot() {
		cmd.SysProcAttr.Cloneflags |= unix.CLONE_NEWUSER
		setIDMaps(cmd.SysProcAttr)
	}
	return cmd.Run()
}

// setIDMaps maps the caller's uid and gid to themselves in a new user
// namespace, so that files keep their owners.
func setIDMaps(a *syscall.SysProcAttr) {
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false
}

// kernelAtLeast compares the running kernel's release with major.minor.
// Per-namespace pid_max is known by version only: writing pid_max in a PID
// namespace of an older kernel would change the host's.
func kernelAtLeast(major, minor int) bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	return releaseAtLeast(unix.ByteSliceToString(u.Release[:]), major, minor)
}
