package facts

import (
	"slices"
	"testing"
)

// TestExpandSkipsRunSubstitutions: a word whose expansion runs a command
// substitution (a part, or one inside double quotes) expands to nothing
// the gate can spell; the same words without one still expand.
func TestExpandSkipsRunSubstitutions(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string // nil: not expandable
	}{
		{`x=a; echo $(date)`, nil},
		{`x=a; echo "$x$(date)"`, nil},
		{"x=a; echo `date`$x", nil},
		{`x=a; echo <(date)`, nil},
		{`x=a; echo $x`, []string{"a"}},
		{`x=a; echo "$x"-y`, []string{"a-y"}},
	} {
		tr := Build(tc.text, Options{})
		var c *Call
		for _, x := range tr.Calls {
			if x.Base == "echo" {
				c = x
			}
		}
		if c == nil || len(c.Argv) < 2 {
			t.Fatalf("%q: no echo call", tc.text)
		}
		w := c.Argv[1]
		got, _ := tr.Expand(w.Node, c.Span.Start, false)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: Expand = %q, want %q", tc.text, got, tc.want)
		}
		if f, ok := tr.Fields(w, c.Span.Start, false); tc.want == nil && (ok || f != nil) {
			t.Errorf("%q: Fields = %v, %v; want none", tc.text, f, ok)
		}
	}
}
