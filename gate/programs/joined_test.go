package programs

import (
	"strings"
	"testing"
)

// TestJoinedIs holds joinedIs to comparing with strings.Join.
func TestJoinedIs(t *testing.T) {
	words := []string{"", " ", "-v", "--version", "a b", "help"}
	forms := []string{"", " ", "-v", "--version", "-v --version", "--version -v", " -v", "-v ", "a b", "a b help", "help", "  "}
	for _, a := range words {
		for _, b := range words {
			for _, vals := range [][]string{nil, {a}, {a, b}, {a, b, a}} {
				for _, f := range forms {
					if got, want := joinedIs(len(vals), func(i int) string { return vals[i] }, f), strings.Join(vals, " ") == f; got != want {
						t.Errorf("joinedIs(%q, %q) = %v, want %v", vals, f, got, want)
					}
				}
			}
		}
	}
}
