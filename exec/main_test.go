package exec

import (
	"os"
	"testing"

	"github.com/agentexec/agentexec/exec/sandbox"
)

// TestMain lets the test binary be the sandbox trampoline, as agentexec's
// own main is.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}
