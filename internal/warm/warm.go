// Package warm starts building the gate's table of programs while the
// process is still initializing its packages, when the subcommand it was
// started for decides (run, check, mcp, serve, replay, hook).
//
// The table takes most of a millisecond to build and the first decision
// waits for it. Started from main it overlapped only the flags, policy
// files and request a subcommand reads first; started here it also
// overlaps the package initialization of the dependencies that sort
// after this package (the MCP SDK and its JSON schema, Starlark, x/net,
// mvdan's shell packages…), which run on one thread: Go initializes the
// packages whose dependencies are done in the order of their import
// paths, and github.com/agentexec/… comes before them. A process that
// does not decide (version, audit, policy, sandbox, the sandbox's own
// re-executed helpers, a test binary) never builds it.
package warm

import (
	"os"

	"github.com/agentexec/agentexec/gate/programs"
)

// Decides reports whether the subcommand named name runs the gate.
func Decides(name string) bool {
	switch name {
	case "run", "check", "mcp", "serve", "replay", "hook":
		return true
	}
	return false
}

func init() {
	if len(os.Args) > 1 && Decides(os.Args[1]) {
		go programs.Warm()
	}
}
