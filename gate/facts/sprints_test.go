package facts

import (
	"fmt"
	"testing"
)

type named string

type stringer struct{}

func (stringer) String() string { return "S" }

// TestSprintS holds sprintS to fmt.Sprintf: the same text for every
// format hide is given and for every other kind, which it hands on.
func TestSprintS(t *testing.T) {
	cases := []struct {
		format string
		args   []any
	}{
		{"plain", nil},
		{"`%s` runs %s", []any{"a", "b"}},
		{"%s", []any{""}},
		{"%s%s", []any{"x", "y"}},
		{"ends in %", []any{}},
		{"100%% of %s", []any{"it"}},
		{"%d files", []any{3}},
		{"%s and %s", []any{"one"}},
		{"%s", []any{"one", "two"}},
		{"%s", []any{named("n")}},
		{"%s", []any{stringer{}}},
		{"%q", []any{"q"}},
		{"%v", []any{"v"}},
		{"é %s ü", []any{"ß"}},
	}
	for _, c := range cases {
		if got, want := sprintS(c.format, c.args), fmt.Sprintf(c.format, c.args...); got != want {
			t.Errorf("sprintS(%q, %v) = %q, fmt.Sprintf %q", c.format, c.args, got, want)
		}
	}
}
