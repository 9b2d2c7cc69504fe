package sandbox

import "sync/atomic"

const (
	// trampolineName is argv[0] of the trampoline: Main runs it when the
	// process was started under this name.
	trampolineName = "agentexec-sandbox"
	// probeName is argv[0] of the namespace probe, which exits at once.
	probeName = "agentexec-sandbox-probe"
)

// mainCalled records that Main ran, so that Prepare can refuse to start a
// trampoline that would run the program's own main instead.
var mainCalled atomic.Bool
