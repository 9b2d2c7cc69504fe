// Package sandbox runs a command inside kernel-enforced limits on Linux:
// no_new_privs, no capabilities, rlimits, Landlock, a network cut and new
// namespaces, all applied before the command's first instruction.
// Elsewhere every profile but None is an error: nothing is ever reported
// as sandboxed that was not.
//
// # Using it
//
//	cmd := exec.Command("/bin/sh", "-c", "make test")
//	h, err := sandbox.Prepare(cmd, sandbox.Spec{Profile: sandbox.WorkspaceWrite, Cwd: dir, ProtectGit: true})
//	if err != nil { ... }            // a promise this host cannot keep
//	defer h.Close()                  // after Wait: removes the cgroup and temp dir
//	if err := h.Start(); err != nil { ... } // the command is not running
//	err = cmd.Wait()
//
// A prepared command is started with [Handle.Start], never cmd.Start.
//
// # Two launchers
//
// Go cannot run code between fork and exec, and the layers belong to the
// process (or thread) that execs the command. Where this process is root
// in the initial user namespace with a v1 pids cgroup and Linux 6.15, a
// dedicated OS thread of this process (never the main thread) takes the
// layers on, forks the run's init (agentexec-init, see below) and is
// thrown away; the init waits for a go byte while a helper thread mounts
// its PID namespace's /proc and sets its rlimits, then forks the command.
// Once a process
// has started two runs, each start readies launchers in the background
// with the same layers (standbys: as many as runs go on at once, up to
// four), which a next Prepare adopts only if its run needs exactly those
// layers on an unchanged host; such a process also keeps the per-run temp
// dirs that came back empty and unchanged for later runs (a dir written
// to is removed); call [Release] before exiting to remove the standbys'
// and the kept temp dirs. A run
// costs about 1.7 times a plain os/exec of /bin/true, under 2 ms more
// (scripts/bench-sandbox.sh). Elsewhere (not root, cgroup v2 only,
// older kernels, architectures without a built init) the binary
// re-executes itself as a trampoline with argv[0] "agentexec-sandbox",
// which applies the layers and execs the init (or, without one, the
// command); that costs a Go runtime start, 5-15 ms. The trampoline needs
// [Main] called first thing in main (like moby's reexec); [Prepare]
// refuses to use it otherwise, because the re-executed binary would run
// its own main instead. Test binaries call Main from TestMain. A launcher
// thread that cannot take its layers on (nothing is forked yet) hands its
// run to the trampoline, and later runs go there directly. The [Report]
// says which launcher ran.
//
// # What it enforces on Linux
//
// The command runs in new mount, PID and IPC namespaces (plus a user
// namespace when not root, and a network namespace when the network is off
// and no seccomp filter can be installed: the filter cuts the network for
// nothing, a network namespace costs about 5 ms a run). Before its first
// instruction:
//   - the number of processes is bounded: the launcher thread joins a v1
//     pids cgroup alone for the fork; the trampoline sets its PID
//     namespace's pid_max (per namespace since Linux 6.14), or is moved
//     into a pids cgroup (v1 or v2) by the parent before it is released.
//     Where the host has them, the run's cgroup also carries the memory
//     controller (Limits.Memory, default [DefaultMemory]; an OOM kill is
//     reported by [Handle.OOMKilled]) and the cpu controller (the run
//     weighs as one task); [Handle.Kill] ends the namespace and the
//     cgroup as a unit;
//   - only the standard files and cmd.ExtraFiles reach the command:
//     every start marks this process's other descriptors close-on-exec
//     ([CloseInherited]);
//   - makes every mount read-only except the writable roots (bind mounts of
//     themselves); the protected paths (.git, a worktree's gitdir and its
//     commondir, Spec.ProtectedPaths) are bound read-only again on top, and
//     the directories between a root and a protected path are bound onto
//     themselves so that they cannot be renamed or removed (EBUSY) to move
//     a protected file aside. The read-only view stops chmod, chown and
//     utimes outside the roots, which Landlock does not govern;
//   - under workspace-write, mounts a private, empty, 64 MiB tmpfs on
//     /dev/shm, so POSIX shared memory works without touching the host's;
//   - masks well-known host daemon sockets (docker, containerd, podman,
//     D-Bus, systemd) with /dev/null, whatever the network: talking to
//     them can start a privileged container, a write anywhere; with the
//     network off (or behind the proxy), no pathname Unix socket outside
//     the writable roots answers: Landlock refuses the connect (ABI 9),
//     else every socket bound outside them when the run starts
//     (/proc/net/unix) is masked, and the variables naming agent and bus
//     sockets (SSH_AUTH_SOCK, DBUS_SESSION_BUS_ADDRESS, DOCKER_HOST,
//     XDG_RUNTIME_DIR, ...) are dropped;
//   - hides Spec.HiddenPaths (an empty read-only file or tmpfs in place);
//     the .git of every repository found under a writable root (a
//     bounded search, remembered between runs) is protected with
//     ProtectGit;
//   - mounts a fresh read-only /proc for its PID namespace (the launcher
//     thread always, with proc's pidns= option, while the command is held
//     at its exec; the trampoline best effort);
//   - sets rlimits, drops every capability (bounding, ambient, effective,
//     permitted, inheritable) and locks the securebits, then sets
//     no_new_privs;
//   - applies one Landlock ruleset (reads everywhere or under
//     Spec.ReadableRoots and the system directories, writes under the
//     writable roots, /dev/null, /dev/zero, /dev/full, /dev/tty and the
//     terminal on stdio; TCP bind/connect denied when the network is off;
//     signals and abstract Unix sockets scoped to the sandbox);
//   - installs a seccomp filter that refuses foreign-architecture syscalls
//     (the i386 int 0x80 bypass), io_uring, namespace and mount syscalls,
//     clone(2) with namespace flags (clone3 returns ENOSYS so the C library
//     falls back to clone), ptrace (PTRACE_TRACEME included: the exec
//     gate traces from outside), bpf, keyrings, kernel modules, the
//     TIOCSTI and TIOCLINUX ioctls (typing into a terminal the caller
//     shares) and, when the network is off, every socket family but
//     AF_UNIX;
//   - sets PR_SET_PDEATHSIG to SIGKILL and execs the command, whose
//     environment gains TMPDIR (workspace-write), AGENTEXEC_SANDBOX=<profile>
//     and, with the network off, AGENTEXEC_SANDBOX_NETWORK_DISABLED=1.
//
// Any failure stops the run before the command's first instruction:
// [Handle.Start] returns "sandbox: <step>: <error> (the command did not
// run)" for the launcher thread; the trampoline prints
// "agentexec-sandbox: <step>: <error> (the command did not run)" and exits
// 126.
//
// # The command is not PID 1
//
// The first process of a run is agentexec-init (init_linux.go), a static
// program of about 2 KiB built into this binary (amd64), run from a
// sealed memfd: PID 1 of the PID namespace, the command its child. A PID 1
// ignores every signal it has no handler for (the kernel drops them, from
// inside its namespace and, but for SIGKILL and SIGSTOP, from outside), so
// a shell as PID 1 went on to its next statement after a timeout's
// SIGTERM, and `kill -TERM $$` or abort() in it were lost. The init
// blocks every signal, forwards the ones a process sent it to the
// command's process group (the command gets its own group, with the
// terminal's foreground when the init's group had it, so that a signal to
// the run's group reaches it once), reaps, and exits with the command's
// status once the command has been reaped: the same code, or 128+N for a
// death by signal N (a PID 1 cannot die by it). Its exit ends the
// namespace: nothing of the command outlives it. [Handle.Outcome] gives
// the command's real status, which the init reports on its control
// socket. Without a PID namespace the init is a subreaper and dies by the
// command's signal itself. Without a built init (other architectures,
// vm.memfd_noexec 2) the trampoline execs the command, which is PID 1
// again, with the old cost: callers end a run by signalling the group
// with SIGTERM, then SIGKILL, which a PID 1 always receives from outside.
//
// # The exec gate
//
// With Spec.ExecCheck set (any profile, None included), every program the
// run starts after the command itself is stopped at its exec and judged
// before its first instruction (tracer_linux.go): the init's child puts a
// seccomp filter on itself before it execs the command, which makes every
// execve and execveat of the run wait for this process (user
// notification); a tracer thread attaches to the exec'ing thread
// (PTRACE_SEIZE) and judges the new program at its exec stop. Nothing but
// execs stops. A refused program is killed there, and the init with it,
// which ends the run. Programs of the run that try to trace get EPERM.
// The gate needs the init, seccomp user notification and ptrace: Yama
// ptrace_scope 3, a seccomp filter or security module that forbids
// ptrace, or a tracer of this process that follows forks make it
// unavailable (Capabilities.ExecGate), and Prepare refuses a Spec that
// asks for it there.
//
// # Sharp edges
//
//   - Landlock before ABI 9 does not govern connect(2) to a pathname Unix
//     socket, so the masks stand in: a socket bound by a relative path, in
//     another network namespace, or after the run started stays reachable
//     there. Unix sockets in the workspace work.
//   - RLIMIT_NPROC does nothing for root; the process limit is the pids
//     cgroup or pid_max. Moving a process into a cgroup costs 40-100 ms on
//     a loaded host (an RCU grace period); moving one thread (the launcher)
//     does not, and pid_max costs nothing, which is why the trampoline
//     prefers pid_max.
//   - A protected or hidden path that does not exist when the run starts
//     is not protected: a command may create .git in a workspace that had
//     none (the next run protects it). The search for nested .git stops
//     after 10000 directories per root, with a note in the Report.
//   - Without a user namespace as non-root, or a mount namespace, the
//     profiles are refused rather than weakened: Landlock alone would let a
//     root command chmod, chown and utime any file, and could not protect
//     .git inside a writable root.
//   - Which layer denied an access shows in the errno: EACCES (Landlock),
//     EROFS (read-only mounts), EPERM (seccomp, capabilities); see
//     [DenialHints]. Landlock denials are also written to the kernel audit
//     log on ABI 7 kernels (the ruleset asks for logging after exec), when
//     audit is enabled.
//   - A caller must call [Handle.Close] after Wait: the launcher thread is
//     the command's parent (its parent-death signal fires when the thread
//     ends), so it lives until Close.
package sandbox

import (
	"fmt"
	"sync"
	"syscall"
)

// Profile names what a sandboxed command may write.
type Profile string

// The profiles.
const (
	ReadOnly       Profile = "read-only"
	WorkspaceWrite Profile = "workspace-write"
	None           Profile = "none"
)

// Limits are resource limits applied with setrlimit (0 means the default).
type Limits struct {
	CPUSeconds   uint64
	AddressSpace uint64
	FileSize     uint64
	OpenFiles    uint64
	// Memory caps the run's memory in bytes: the memory cgroup's limit
	// where the run has one (0: DefaultMemory), an OOM kill then reported.
	// Without one, a Memory set here becomes RLIMIT_AS of each process
	// (address space, not resident memory: a program that reserves more
	// than it uses, such as a -race or AddressSanitizer build, fails under
	// it), and 0 caps nothing, which the Report notes.
	Memory uint64
	// Processes limits the processes (and threads) of the run: RLIMIT_NPROC
	// when set (not enforced for root), and always the PID namespace's
	// pid_max (Linux 6.14+; it admits up to Processes+299 before pids wrap)
	// or else a pids cgroup, where one can be made.
	Processes uint64
}

// DefaultProcesses is the pids cgroup limit when Limits.Processes is 0: high
// enough for a parallel build, low enough that a fork bomb leaves a small
// machine responsive.
const DefaultProcesses = 512

// DefaultMemory is the memory cap of a run whose Limits.Memory is 0: three
// quarters of the host's memory (MemTotal), so that one run cannot take it
// all; 12 GiB where the total is unknown.
func DefaultMemory() uint64 {
	defaultMemOnce.Do(func() { defaultMem = hostMemory() * 3 / 4 })
	return defaultMem
}

var (
	defaultMemOnce sync.Once
	defaultMem     uint64
)

// Spec is an immutable description of one sandboxed run.
type Spec struct {
	Profile Profile
	// Network allows network access; false cuts it.
	Network bool
	// Proxy cuts the network but for a listening socket at ProxyAddr in
	// the command's own network namespace, served by the caller through
	// Handle.ProxyListener (proxy.go). Exclusive with Network.
	Proxy bool
	// Cwd is the workspace: writable under WorkspaceWrite. Empty: the
	// command's directory (cmd.Dir, else this process's) is the
	// workspace. A cmd.Dir elsewhere stays as the profile leaves it
	// (read-only outside the writable roots).
	Cwd string
	// TempDir is a per-run directory, writable under WorkspaceWrite and
	// exported to the command as TMPDIR. Empty: Prepare creates one and Close
	// removes it (a server keeps one left empty and unchanged for a later
	// run: see Release).
	TempDir string
	// WritableRoots are extra writable directories under WorkspaceWrite.
	WritableRoots []string
	// ReadableRoots restricts reads to these paths; empty means everything.
	// The system directories (/bin, /sbin, /usr, /lib*, /etc, /dev, /proc)
	// stay readable so that the command can start.
	ReadableRoots []string
	// ProtectedPaths stay read-only even inside a writable root (the policy
	// file, for example). .git directories of writable roots are added when
	// ProtectGit is set.
	ProtectedPaths []string
	ProtectGit     bool
	// HiddenPaths are masked wherever they are, under every profile: a
	// directory by an empty read-only tmpfs, anything else by an empty
	// read-only file, so that no program can read them (a denied Read
	// rule, the audit key). A symbolic link hides what it points to. A
	// path that does not exist when the run starts is not masked.
	HiddenPaths []string
	// Notes are the caller's notes on what it could not fully express in
	// the Spec; they are copied to the Report.
	Notes  []string
	Limits Limits
	// ExecCheck, when set, is the exec gate: it is called for every
	// program the run starts after the command itself (execve and
	// execveat in its whole process tree), at the kernel's exec stop,
	// before the new program's first instruction, and decides whether it
	// may run. It is called from one thread at a time, the run's tracer,
	// which services no other process of the run while it runs: it must
	// be quick, and hand anything slow (asking a person) to a
	// ExecVerdict.Wait channel. A refused program is killed and the run
	// is ended. It applies to profile None too; Prepare returns an
	// *UnavailableError when this host cannot trace (see
	// Capabilities.ExecGate).
	ExecCheck func(ExecEvent) ExecVerdict
}

// ExecEvent is one program start inside a run, read at the kernel's exec
// stop: the new program has one thread and a fresh memory map and has run
// no instruction, so nothing can change what is read here before the
// verdict.
type ExecEvent struct {
	PID  int      // in this process's PID namespace
	Argv []string // the new program's argv, as the kernel passed it
	Exe  string   // the executable the kernel ran (symlinks followed)
	Cwd  string   // the process's working directory
	// Unjudged says why the gate could not read the program (another
	// tracer holds the process; its executable could not be read): the
	// check must refuse it, whatever the rules say. "" for every exec
	// the gate could read; then Argv, Exe and Cwd are set.
	Unjudged string
	// parent reads the parent process's pid and argv when first asked
	// (Parent): reading them for every exec would cost more than the
	// verdict.
	parent func() (int, []string)
}

// Parent is the process that started the program (its parent at the
// exec) and the argv of what that process runs: the shell of a script
// that runs rm, say. 0 and nil when it cannot be read.
func (ev *ExecEvent) Parent() (int, []string) {
	if ev.parent == nil {
		return 0, nil
	}
	return ev.parent()
}

// ExecVerdict is the exec gate's answer to an ExecEvent.
type ExecVerdict struct {
	Allow bool
	// Wait, when not nil, holds the program at its exec until one value
	// arrives: true lets it run, false refuses it. The rest of the run
	// goes on meanwhile. Allow is ignored.
	Wait <-chan bool
}

// Report says which layers a run got.
type Report struct {
	Profile     Profile  `json:"profile"`
	LandlockABI int      `json:"landlock_abi,omitempty"`
	Network     string   `json:"network,omitempty"` // "netns", "seccomp", "netns+seccomp", "proxy", "on"
	Layers      []string `json:"layers,omitempty"`
	// Memory is the run's memory cap in bytes, and MemoryBy what enforces
	// it: "cgroup" or "rlimit-as".
	Memory   uint64 `json:"memory,omitempty"`
	MemoryBy string `json:"memory_by,omitempty"`
	// Launcher says how the layers were applied: "thread" (by a thread of
	// this process, the fast way) or "trampoline" (by this binary started
	// again). Empty for profile None.
	Launcher string `json:"launcher,omitempty"`
	// Masks are the paths hidden (Spec.HiddenPaths that existed), and
	// ReadOnly the Spec.ProtectedPaths bound read-only inside a writable
	// root.
	Masks    []string `json:"masks,omitempty"`
	ReadOnly []string `json:"read_only,omitempty"`
	// Notes say what the run's sandbox covers less than its profile
	// promises (a bounded search that stopped, say).
	Notes []string `json:"notes,omitempty"`
	// Init is true when agentexec-init is the run's first process (PID 1
	// of its PID namespace, when it has one) and the command its child.
	Init bool `json:"init,omitempty"`
}

// Outcome is what the sandbox knows of a finished run beyond os/exec's
// ProcessState ([Handle.Outcome]).
type Outcome struct {
	// Known is set when the run's init reported the command's own wait
	// status: an init that is PID 1 cannot die by the command's signal,
	// so it exits 128+N, and ProcessState says so; this says Signaled.
	Known    bool
	Code     int // exit code; -1 when Signaled
	Signaled bool
	Signal   syscall.Signal
	// StartErr is set when the command never ran: it could not be
	// executed, or the exec gate could not attach to it.
	StartErr error
}

// Capabilities is what this host lets the sandbox enforce, as found by
// [Detect]. A zero value means nothing can be enforced.
type Capabilities struct {
	OS          string `json:"os"`
	Root        bool   `json:"root"`                  // effective uid 0 with CAP_SYS_ADMIN
	LandlockABI int    `json:"landlock_abi"`          // 0: no Landlock
	UserNS      bool   `json:"userns"`                // an unprivileged user namespace can be made
	MountNS     bool   `json:"mountns"`               // directly (root) or inside a user namespace
	NetNS       bool   `json:"netns"`                 // a network namespace can be made
	PIDNS       bool   `json:"pidns"`                 // PID (and IPC) namespaces can be made
	PIDMaxNS    bool   `json:"pid_max_ns"`            // pid_max is per PID namespace (Linux 6.14)
	CgroupPids  string `json:"cgroup_pids,omitempty"` // "v1", "v2" or ""
	// CgroupMemory and CgroupCPU: a run's cgroup (in CgroupPids's
	// hierarchy) also gets the memory controller (its memory cap, OOM
	// kills seen) and the cpu controller (it weighs as one task).
	CgroupMemory bool `json:"cgroup_memory,omitempty"`
	CgroupCPU    bool `json:"cgroup_cpu,omitempty"`
	Seccomp      bool `json:"seccomp"` // seccomp filters for this architecture
	// ThreadLaunch is true when runs can start from a thread of this
	// process instead of the trampoline: root in the initial user
	// namespace, a v1 pids cgroup, seccomp, proc's pidns= option (Linux
	// 6.15) and agentexec-init.
	ThreadLaunch bool `json:"thread_launch"`
	// Init is true when runs start agentexec-init first, so that the
	// command is never PID 1 of its PID namespace (a PID 1 ignores every
	// signal it has no handler for): a small static program built into
	// this binary for amd64, run from a sealed memfd.
	Init bool `json:"init"`
	// ExecGate is true when every program a run starts can be stopped at
	// its exec and checked (Spec.ExecCheck); ExecGateMechanism says how.
	ExecGate          bool     `json:"exec_gate"`
	ExecGateMechanism string   `json:"exec_gate_mechanism,omitempty"`
	Problems          []string `json:"problems,omitempty"` // why a probe failed
}

// UnavailableError is returned by [Prepare] when the profile's promise cannot
// be kept on this host. Feature names what is missing ("landlock",
// "mount namespace", ...); Reason says why.
type UnavailableError struct {
	Profile Profile
	Feature string
	Reason  string
}

// Error implements error.
func (e *UnavailableError) Error() string {
	msg := fmt.Sprintf("sandbox: %s needs %s", e.Profile, e.Feature)
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg + " (choose sandbox none to run without it)"
}
