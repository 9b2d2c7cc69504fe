package hook

import (
	"errors"
	"slices"
	"testing"
)

// TestAgentsTable: Names is sorted and every name looks up its own agent,
// in any case; a near-miss is an unknown agent.
func TestAgentsTable(t *testing.T) {
	names := Names()
	if len(names) != 5 || !slices.IsSorted(names) {
		t.Errorf("Names() = %q, want the five agents sorted", names)
	}
	for _, n := range names {
		a, err := Lookup(" " + n + " ")
		if err != nil || a.Name() != n {
			t.Errorf("Lookup(%q) = %v, %v", n, a, err)
		}
	}
	if a, err := Lookup("CLAUDE"); err != nil || a.Name() != "claude" {
		t.Errorf("Lookup(CLAUDE) = %v, %v", a, err)
	}
	if _, err := Lookup("claud"); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("Lookup(claud) = %v, want ErrUnknownAgent", err)
	}
}
