package classify

import (
	"testing"

	"github.com/agentexec/agentexec/internal/lazyre"
)

// TestPatterns compiles every expression the package compiles lazily, so a
// bad pattern fails here rather than at a user's first command that needs it.
func TestPatterns(t *testing.T) {
	if err := lazyre.Check(qwenAwkWriteTail, qwenAwkUnknownOp, qwenAwkPrint, qwenAwkAttached, qwenSedAddress, qwenSedCompat, qwenSedSafeOption, qwenSedAttachedE, qwenSedInPlace, qwenSedHelp, qwenSedLineLength, qwenSedFile, qwenSedExprValue, qwenSedLongLine, qwenSedSafeFlags); err != nil {
		t.Fatal(err)
	}
}
