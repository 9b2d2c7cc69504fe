package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// init runs the trampoline (or the namespace probe) as soon as this
// package's few dependencies are initialized, before the rest of the
// program's packages: their initialization is work a trampoline does not
// need, paid on every sandboxed run (measured: 3-15 ms of package inits in
// the agentexec binary on a loaded host). Main remains the documented
// entry point and does the same for programs whose packages all
// initialized already.
func init() {
	if len(os.Args) > 0 && (os.Args[0] == trampolineName || os.Args[0] == probeName) {
		Main()
	}
}

// Main runs the trampoline when this process was started as one by
// [Prepare], and then never returns; otherwise it returns at once. Call it
// first thing in main (and in TestMain of tests that sandbox commands),
// like moby's reexec.Init.
func Main() {
	mainCalled.Store(true)
	if len(os.Args) == 0 {
		return
	}
	switch os.Args[0] {
	case trampolineName:
		os.Exit(trampoline(os.Args[1:]))
	case probeName:
		os.Exit(0)
	}
}

// Exit codes of a trampoline that did not run the command.
const (
	exitSetup    = 126 // a layer could not be applied: the command never ran
	exitNotFound = 127 // the command does not exist
)

// trampoline applies the layers in the order the kernel needs (mounts while
// CAP_SYS_ADMIN is held; no_new_privs before Landlock and seccomp; Landlock
// before seccomp so its syscalls are not filtered) on one locked OS thread,
// since capabilities, no_new_privs, Landlock and seccomp are per thread and
// the exec happens on this one.
func trampoline(args []string) int {
	runtime.LockOSThread()
	w, goFD, err := readSpec(args)
	if err != nil {
		return fail("reading the spec", err)
	}
	if err := waitGo(goFD); err != nil {
		return fail("waiting to be released", err)
	}
	if w.InitCtl > 0 {
		// Made before the layers: the rlimits may leave few descriptors.
		if _, err := initImage(); err != nil {
			return fail("agentexec-init", err)
		}
		// The init's control socket is the init's, unlike the other
		// descriptors after the command's (readSpec closes those on exec).
		if _, err := unix.FcntlInt(uintptr(w.InitCtl), unix.F_SETFD, 0); err != nil {
			return fail("the init's control socket", err)
		}
	}
	for _, s := range steps(w) {
		if err := s.apply(w); err != nil {
			return fail(s.name, err)
		}
	}
	if w.InitCtl > 0 {
		path, err := initPath()
		if err != nil {
			return fail("agentexec-init", err)
		}
		return fail("exec agentexec-init", syscall.Exec(path, initArgs(w.InitCtl, w.Path, w.Args), w.Env))
	}
	err = syscall.Exec(w.Path, w.Args, w.Env)
	if errors.Is(err, syscall.ENOENT) {
		fmt.Fprintf(os.Stderr, "agentexec-sandbox: %s: %v\n", w.Path, err)
		return exitNotFound
	}
	return fail("exec "+w.Path, err)
}

func fail(step string, err error) int {
	fmt.Fprintf(os.Stderr, "agentexec-sandbox: %s: %v (the command did not run)\n", step, err)
	return exitSetup
}

type step struct {
	name  string
	apply func(*wireSpec) error
}

func steps(w *wireSpec) []step {
	var s []step
	if w.Plan.Proxy {
		s = append(s, step{"proxy listener", makeProxyListener})
	}
	if w.Plan.PIDMax > 0 {
		s = append(s, step{"pid_max", setPIDMax})
	}
	if w.Plan.MountNS {
		s = append(s, step{"mounts", setupMounts})
	}
	s = append(s,
		step{"chdir", func(w *wireSpec) error { return unix.Chdir(w.Dir) }},
		step{"rlimits", setRlimits},
		step{"dropping capabilities", func(*wireSpec) error { return dropCaps() }},
		step{"no_new_privs", func(*wireSpec) error { return unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) }},
		step{"landlock", applyLandlock},
	)
	if w.Plan.Seccomp {
		s = append(s, step{"seccomp", func(w *wireSpec) error { return installSeccomp(w.Plan.SeccompNet) }})
		if w.Plan.Proxy {
			s = append(s, step{"proxy socket filter", installProxySocketFilter})
		}
	}
	return append(s, step{"parent death signal", func(*wireSpec) error {
		return unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0)
	}})
}

// readSpec reads the spec from the fd named by args[0]; args[1] is the go
// fd. Both are closed on exec.
func readSpec(args []string) (*wireSpec, int, error) {
	if len(args) != 2 {
		return nil, 0, errors.New("not started by sandbox.Prepare (want two fd arguments)")
	}
	specFD, err1 := strconv.Atoi(args[0])
	goFD, err2 := strconv.Atoi(args[1])
	if err := errors.Join(err1, err2); err != nil {
		return nil, 0, err
	}
	unix.CloseOnExec(goFD)
	// The spec and go fds come after the command's ExtraFiles; nothing
	// above them is the command's (the parent closed the rest on exec).
	unix.CloseRange(uint(min(specFD, goFD)), ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	f := os.NewFile(uintptr(specFD), "spec")
	if f == nil {
		return nil, 0, errors.New("bad spec fd")
	}
	defer f.Close()
	var w wireSpec
	if err := json.NewDecoder(f).Decode(&w); err != nil {
		return nil, 0, err
	}
	if w.Path == "" || len(w.Args) == 0 {
		return nil, 0, errors.New("spec has no command")
	}
	return &w, goFD, nil
}

// waitGo blocks until the parent writes the go byte; end of file means the
// parent refused (Started failed) or died.
func waitGo(fd int) error {
	var b [1]byte
	for {
		n, err := unix.Read(fd, b[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return io.ErrUnexpectedEOF
		}
		return nil
	}
}

// rlimit is one resource limit to apply.
type rlimit struct {
	name     string
	resource int
	cur, max uint64
}

// rlimits lists the limits l sets, and no core dumps. RLIMIT_CPU's hard
// limit is a second above the soft one: SIGXCPU first, SIGKILL after.
func rlimits(l Limits) []rlimit {
	out := []rlimit{{"core", unix.RLIMIT_CORE, 0, 0}}
	add := func(name string, res int, v, hard uint64) {
		if v != 0 {
			out = append(out, rlimit{name, res, v, hard})
		}
	}
	add("cpu", unix.RLIMIT_CPU, l.CPUSeconds, l.CPUSeconds+1)
	add("address space", unix.RLIMIT_AS, l.AddressSpace, l.AddressSpace)
	add("file size", unix.RLIMIT_FSIZE, l.FileSize, l.FileSize)
	add("open files", unix.RLIMIT_NOFILE, l.OpenFiles, l.OpenFiles)
	add("processes", unix.RLIMIT_NPROC, l.Processes, l.Processes)
	return out
}

// setRlimits applies w's limits to this process. syscall.Setrlimit rather
// than unix's keeps Go from restoring its saved RLIMIT_NOFILE at exec.
func setRlimits(w *wireSpec) error {
	var errs []error
	for _, r := range rlimits(w.Limits) {
		if err := syscall.Setrlimit(r.resource, &syscall.Rlimit{Cur: r.cur, Max: r.max}); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.name, err))
		}
	}
	return errors.Join(errs...)
}

// Securebits locked so that uid 0 gains no capabilities at exec and none
// can be raised again (capability.h).
const lockedSecurebits = 1<<0 | 1<<1 | // NOROOT, locked
	1<<2 | 1<<3 | // NO_SETUID_FIXUP, locked
	1<<5 | // KEEP_CAPS off, locked
	1<<6 | 1<<7 // NO_CAP_AMBIENT_RAISE, locked

// dropCaps empties the bounding and ambient sets, locks the securebits and
// clears the effective, permitted and inheritable sets, in that order:
// each step but the last needs CAP_SETPCAP.
func dropCaps() error {
	for c := 0; c <= capLastCap(); c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("bounding set: %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("ambient set: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, lockedSecurebits, 0, 0, 0); err != nil {
		return fmt.Errorf("securebits: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// capLastCap is the highest capability this kernel knows, read once: the
// first read of a /proc/sys file costs hundreds of microseconds here.
var capLastCap = sync.OnceValue(func() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return 63 // drop everything that could exist; EINVAL past the end is ignored
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 63
	}
	return n
})

// applyLandlock enforces one ruleset on this thread. Denials of the
// exec'd command are logged to the kernel audit log (ABI 7).
func applyLandlock(w *wireSpec) error {
	cfg := landlock.V7.BestEffort().EnableLoggingForSubprocesses()
	if w.Plan.LandlockUnix { // pathname Unix sockets too (ABI 9), granted in the writable roots only
		cfg = landlock.V9.BestEffort().EnableLoggingForSubprocesses()
	}
	if w.Network {
		cfg.HandledAccessNet = 0
	}
	fd, flags, err := cfg.NewRulesetFD(landlockRules(w)...)
	if err != nil {
		return err
	}
	if fd < 0 {
		return errors.New("the kernel enforces nothing (Landlock unavailable)")
	}
	defer unix.Close(fd)
	return ll.LandlockRestrictSelf(fd, flags)
}

// systemDirs stay readable when Spec.ReadableRoots restricts reads.
var systemDirs = []string{"/bin", "/sbin", "/usr", "/lib", "/lib64", "/lib32", "/etc", "/dev", "/proc"}

// devFiles are writable in every profile.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

func landlockRules(w *wireSpec) []landlock.Rule {
	var rules []landlock.Rule
	if len(w.Readable) == 0 {
		rules = append(rules, landlock.RODirs("/"))
	} else {
		rules = append(rules, landlock.RODirs(systemDirs...).IgnoreIfMissing())
		dirs, files := splitDirs(append(w.Readable, w.Writable...))
		rules = append(rules, landlock.RODirs(dirs...).IgnoreIfMissing(), landlock.ROFiles(files...).IgnoreIfMissing())
	}
	if len(w.Writable) > 0 {
		rw := landlock.RWDirs(w.Writable...).WithRefer()
		if w.Plan.LandlockUnix {
			rw = rw.WithResolveUnix()
		}
		rules = append(rules, rw)
	}
	if w.PrivateShm {
		rules = append(rules, landlock.RWDirs("/dev/shm"))
	}
	if w.Plan.Proxy {
		rules = append(rules, landlock.ConnectTCP(ProxyPort)) // the only TCP port it may connect to
	}
	dev := append(append([]string(nil), devFiles...), w.Terminals...)
	return append(rules, landlock.RWFiles(dev...).WithIoctlDev().IgnoreIfMissing())
}

func splitDirs(paths []string) (dirs, files []string) {
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			files = append(files, p)
		} else {
			dirs = append(dirs, p)
		}
	}
	return dirs, files
}

// setPIDMax limits the pids of the new PID namespace (pid_max is per
// namespace since Linux 6.14; the write goes to the writer's namespace).
func setPIDMax(w *wireSpec) error {
	return os.WriteFile("/proc/sys/kernel/pid_max", []byte(strconv.Itoa(w.Plan.PIDMax)), 0)
}
