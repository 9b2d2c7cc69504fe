package gate

import (
	"testing"

	"github.com/agentexec/agentexec/internal/corpus"
)

// benchPolicy is a realistic 20-rule policy of the kind agent users write.
func benchPolicy(tb testing.TB) *Policy {
	return testPolicy(tb,
		[]string{
			"Bash(git status)", "Bash(git diff *)", "Bash(git log *)", "Bash(git add *)",
			"Bash(git commit *)", "Bash(npm run test:*)", "Bash(npm run build)", "Bash(npm run lint)",
			"Bash(go test *)", "Bash(go build *)", "Bash(go vet *)", "Bash(make *)",
			"Bash(cargo test *)", "Bash(* --version)",
		},
		[]string{"Bash(git push *)", "Bash(npm publish *)", "Bash(docker *)"},
		[]string{"Bash(rm -rf *)", "Bash(curl *)", "Bash(git push --force *)"},
	)
}

// agentCorpus is the corpus of agent commands (internal/corpus).
func agentCorpus(tb testing.TB) []string {
	tb.Helper()
	cmds, err := corpus.AgentCommands()
	if err != nil {
		tb.Fatal(err)
	}
	return cmds
}

// BenchmarkDecide is one full decision (validate, split, parse, blacklist,
// rules, classify, mode) per op, cycling through the agent corpus under a
// 20-rule policy.
func BenchmarkDecide(b *testing.B) {
	cmds := agentCorpus(b)
	p := benchPolicy(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Decide(Input{Text: cmds[i%len(cmds)], Policy: p})
	}
}

// TestCorpusDecides: every corpus command gets a decision with a reason,
// and none that writes is allowed in default mode without an allow rule.
func TestCorpusDecides(t *testing.T) {
	for _, c := range agentCorpus(t) {
		d := Decide(Input{Text: c})
		if d.Reason == "" || d.Action == "" {
			t.Errorf("%q: empty decision %+v", c, d)
		}
		if d.Safety == Write && d.Action == Allow {
			t.Errorf("%q: write allowed with no rule", c)
		}
	}
}
