package audit

import (
	"testing"

	"github.com/agentexec/agentexec/internal/lazyre"
)

// TestPatterns compiles every expression the package compiles lazily.
func TestPatterns(t *testing.T) {
	rs := []*lazyre.Regexp{secretFlagRE, secretAssignRE, secretName}
	for _, p := range patterns {
		rs = append(rs, p.re)
	}
	if err := lazyre.Check(rs...); err != nil {
		t.Fatal(err)
	}
}
