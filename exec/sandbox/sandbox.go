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
// layers on, forks the command and is thrown away; the command is held at
// its exec (PTRACE_TRACEME) while a helper thread mounts its PID
// namespace's /proc and sets its rlimits, then released. Once a process
// has started two runs, each start readies the next launcher in the
// background with the same layers (a standby), which the next Prepare
// adopts only if its run needs exactly those layers on an unchanged host;
// call [Release] before exiting to remove the standby's temp dir. A run
// costs about 1.7 times a plain os/exec of /bin/true, under 2 ms more
// (scripts/bench-sandbox.sh). Elsewhere (not root, cgroup v2 only,
// older kernels) the binary re-executes itself as a trampoline with
// argv[0] "agentexec-sandbox", which applies the layers and execs the
// command; that costs a Go runtime start, 5-15 ms. The trampoline needs
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
//     into a pids cgroup (v1 or v2) by the parent before it is released;
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
//     them can start a privileged container, a write anywhere;
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
//     falls back to clone), ptrace (but PTRACE_TRACEME and PTRACE_DETACH
//     under the launcher thread, which holds the command with them), bpf,
//     keyrings, kernel modules, the
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
// # The command is PID 1
//
// Neither launcher stays as an init, so the
// exit status (a code, or death by a signal) is the command's own: an init
// that waited for it could not die by the same signal, since a PID 1 cannot
// be killed by a signal sent from inside its namespace. When the command
// exits, the kernel kills every process it left behind. The cost: a PID 1
// ignores signals it has no handler for, SIGTERM included (measured: a
// sandboxed `sleep 100` with a 1 s timeout ends after the caller's grace
// period, 4.9 s; a shell with a TERM trap after 1.6 s). Callers end a run
// by signalling the process group with SIGTERM, then SIGKILL, which a PID
// namespace's init always receives from outside.
//
// # Sharp edges
//
//   - Landlock before ABI 9 does not govern connect(2) to a pathname Unix
//     socket: with the network off, a host daemon socket outside the masked
//     list stays reachable when file permissions allow it. Unix sockets in
//     the workspace work.
//   - RLIMIT_NPROC does nothing for root; the process limit is the pids
//     cgroup or pid_max. Moving a process into a cgroup costs 40-100 ms on
//     a loaded host (an RCU grace period); moving one thread (the launcher)
//     does not, and pid_max costs nothing, which is why the trampoline
//     prefers pid_max.
//   - A protected path that does not exist when the run starts is not
//     protected: a command may create .git in a workspace that had none.
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

import "fmt"

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
	// removes it.
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
}

// Report says which layers a run got.
type Report struct {
	Profile     Profile  `json:"profile"`
	LandlockABI int      `json:"landlock_abi,omitempty"`
	Network     string   `json:"network,omitempty"` // "netns", "seccomp", "netns+seccomp", "proxy", "on"
	Layers      []string `json:"layers,omitempty"`
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
	Seccomp     bool   `json:"seccomp"`               // seccomp filters for this architecture
	// ThreadLaunch is true when runs can start from a thread of this
	// process instead of the trampoline: root in the initial user
	// namespace, a v1 pids cgroup, seccomp, proc's pidns= option (Linux
	// 6.15) and PTRACE_TRACEME not forbidden by Yama.
	ThreadLaunch bool     `json:"thread_launch"`
	Problems     []string `json:"problems,omitempty"` // why a probe failed
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
