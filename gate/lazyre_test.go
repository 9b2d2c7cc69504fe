package gate

import (
	"testing"

	"github.com/agentexec/agentexec/internal/lazyre"
)

// TestPatterns compiles every expression the package compiles lazily, so a
// bad pattern fails here rather than at a user's first command that needs it.
func TestPatterns(t *testing.T) {
	if err := lazyre.Check(blockDevice, procRoot, driveRoot, psAssign, psInvoke, psDownload, hiddenSubstRe, subcommandWordRe); err != nil {
		t.Fatal(err)
	}
}
