// Package sandbox runs a command inside kernel-enforced limits on Linux:
// a re-exec trampoline of the current binary applies no_new_privs, drops
// capabilities, sets rlimits, applies Landlock, cuts the network and enters
// new namespaces before it execs the command. Elsewhere every profile but
// None is an error: nothing is ever reported as sandboxed that was not.
package sandbox


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
	Processes    uint64 // also the pids cgroup limit where one can be made
}

// Spec is an immutable description of one sandboxed run.
type Spec struct {
	Profile Profile
	// Network allows network access; false cuts it.
	Network bool
	// Cwd is the workspace: writable under WorkspaceWrite.
	Cwd string
	// TempDir is a per-run directory, writable under WorkspaceWrite and
	// exported to the command as TMPDIR. Empty: Prepare creates one and Close
	// removes it.
	TempDir string
	// WritableRoots are extra writable directories under WorkspaceWrite.
	WritableRoots []string
	// ReadableRoots restricts reads to these paths; empty means everything.
	ReadableRoots []string
	// ProtectedPaths stay read-only even inside a writable root (the policy
	// file, for example). .git directories of writable roots are added when
	// ProtectGit is set.
	ProtectedPaths []string
	ProtectGit     bool
	Limits         Limits
}

// Report says which layers a run got.
type Report struct {
	Profile     Profile  `json:"profile"`
	LandlockABI int      `json:"landlock_abi,omitempty"`
	Network     string   `json:"network,omitempty"` // "netns", "seccomp", "netns+seccomp", "on"
	Layers      []string `json:"layers,omitempty"`
}
