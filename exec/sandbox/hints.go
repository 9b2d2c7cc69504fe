package sandbox

import "strings"

// denialHints map an error text a sandboxed command printed to the layer
// that most likely refused it. The errno is the only trace a denial leaves
// in the command's output when the kernel audit log is off.
var denialHints = []struct{ text, hint string }{
	{"read-only file system", "EROFS: the path is outside the writable roots or protected (.git, the policy file); the sandbox mounts it read-only"},
	{"permission denied", "EACCES: Landlock refused the access (a write outside the writable roots, or a read outside the readable roots); file permissions can also say this"},
	{"operation not permitted", "EPERM: the seccomp filter (sockets with the network off, mount, ptrace, io_uring, namespaces) or a dropped capability (chown, chmod of others' files)"},
	{"network is unreachable", "ENETUNREACH: the network is off (network namespace); allow it with network: true"},
	{"resource temporarily unavailable", "EAGAIN: the process limit of the sandbox (pid_max or pids cgroup) was reached"},
	{"cannot fork", "the process limit of the sandbox (pid_max or pids cgroup) was reached"},
}

// DenialHints returns, for each kind of sandbox denial the output of a
// sandboxed command shows, one line naming the layer that most likely
// refused it. It returns nil when the output shows no denial.
func DenialHints(output string) []string {
	lower := strings.ToLower(output)
	var hints []string
	for _, h := range denialHints {
		if strings.Contains(lower, h.text) {
			hints = append(hints, h.hint)
		}
	}
	return hints
}
