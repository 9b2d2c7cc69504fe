package gate

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/gate/facts"
	"github.com/agentexec/agentexec/shellcfg"
)

// TestStrictCandidatesOnceInOrder: the spellings rules are matched
// against are every segment's and call's spellings, each once, in the
// order first seen — the same list as spelling everything and then
// dropping repeats — for a few calls (compared one by one) and for many
// (past the map's threshold), repeated or not.
func TestStrictCandidatesOnceInOrder(t *testing.T) {
	var many []string
	for i := range 40 {
		many = append(many, fmt.Sprintf("git log -n %d", i%25), "A=1 rm -rf x", "cat f | grep -v x")
	}
	for _, text := range []string{
		"ls -la && ls -la; ls  -la",
		"FOO=1 make test && make test",
		strings.Join(many, " && "),
	} {
		seg := Split(text, "bash")
		tree := facts.Build(text, facts.Options{Sub: subCommands})
		got, complete := strictCandidates(seg.Segments, tree)
		if !complete {
			t.Fatalf("%q: spelled incompletely", text)
		}
		var all []spelling
		for _, s := range seg.Segments {
			for _, x := range []string{s, shellcfg.Normalize(s)} {
				n := normalizeBlanks(x)
				all = append(all, spelling{text: n})
				if k := assignmentPrefix(n); k > 0 {
					all = append(all, spelling{text: strings.TrimLeft(n[k:], " \t")})
				}
			}
		}
		for _, c := range tree.Calls {
			all = appendSpellings(all, c)
		}
		var want []spelling
		for _, s := range all {
			if !slices.Contains(want, s) {
				want = append(want, s)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q:\n got %v\nwant %v", text, got, want)
		}
	}
}
