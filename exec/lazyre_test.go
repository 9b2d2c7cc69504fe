package exec

import (
	"testing"

	"github.com/agentexec/agentexec/internal/lazyre"
)

// TestPatterns compiles every expression the package compiles lazily.
func TestPatterns(t *testing.T) {
	if err := lazyre.Check(ansiRE, crRE); err != nil {
		t.Fatal(err)
	}
}
