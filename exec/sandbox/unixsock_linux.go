package sandbox

import (
	"os"
	"strings"

	"github.com/agentexec/agentexec/internal/procfs"
)

// unixSocketsOutside lists the pathname Unix sockets bound in this
// network namespace (/proc/net/unix) that lie outside the writable roots
// and exist now as sockets, for masking with /dev/null when the network is
// off and Landlock cannot refuse the connect (before ABI 9): a connect to
// a mask fails with ECONNREFUSED, whoever listens behind it. Sockets in
// the writable roots keep working. What this cannot see: a socket bound by
// a relative path (listed as given), one bound in another network
// namespace, and one bound after the run started.
func unixSocketsOutside(writable []string) []string {
	b, err := procfs.ReadFile("/proc/net/unix")
	if err != nil {
		return nil
	}
	var out []string
	for line := range strings.SplitSeq(string(b), "\n") {
		p, ok := unixSocketPath(line)
		if !ok || withinAny(p, writable) {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			if r := resolve(p); !withinAny(r, writable) {
				out = append(out, r)
			}
		}
	}
	return dedupe(out)
}

// unixSocketPath is the path of one /proc/net/unix line (Num RefCount
// Protocol Flags Type St Inode Path) when it is an absolute pathname:
// the eighth field to the end of the line, spaces included.
func unixSocketPath(line string) (string, bool) {
	rest := line
	for range 7 {
		rest = strings.TrimLeft(rest, " ")
		i := strings.IndexByte(rest, ' ')
		if i < 0 {
			return "", false
		}
		rest = rest[i:]
	}
	p := strings.TrimLeft(rest, " ")
	return p, strings.HasPrefix(p, "/")
}

// agentEnv are variables that name a host socket or session bus (an SSH
// or GPG agent, D-Bus, Docker, a display or terminal multiplexer, an
// editor's IPC): dropped with the network off, so that programs do not
// try the sockets the sandbox cut.
var agentEnv = []string{
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "GNOME_KEYRING_CONTROL",
	"DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "DOCKER_HOST", "CONTAINER_HOST",
	"XDG_RUNTIME_DIR", "WAYLAND_DISPLAY", "DISPLAY", "PULSE_SERVER", "TMUX", "TMUX_PANE", "STY",
	"KITTY_LISTEN_ON", "VSCODE_IPC_HOOK_CLI", "VSCODE_GIT_IPC_HANDLE", "GIT_ASKPASS", "SSH_ASKPASS",
}

// dropAgentEnv removes agentEnv from env.
func dropAgentEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, a := range agentEnv {
			drop = drop || k == a
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}
