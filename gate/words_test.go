package gate

import (
	"regexp"
	"testing"

	"github.com/agentexec/agentexec/internal/hostile"
)

// goSpelling finds Go's own words in text meant for people: type names,
// formatting errors, nil values.
var goSpelling = regexp.MustCompile(`\*?syntax\.[A-Z]|%!|<nil>|\*[a-z]+\.[A-Z][a-zA-Z]+|\[\]string|map\[`)

// Every reason and every piece of evidence over the agent corpus and the
// hostile shapes is in our words.
func TestReasonsInOurWords(t *testing.T) {
	p := benchPolicy(t)
	texts := agentCorpus(t)
	for _, s := range hostile.Shapes() {
		texts = append(texts, s.Build(2048))
	}
	for _, text := range texts {
		for _, mode := range []Mode{ModeDefault, ModeYolo, ModePlan} {
			d := Decide(Input{Text: text, Policy: p, Mode: mode})
			if m := goSpelling.FindString(d.Reason); m != "" {
				t.Errorf("%.60q (%s): reason spells %q: %s", text, mode, m, d.Reason)
			}
			for _, e := range d.Class.Evidence {
				if m := goSpelling.FindString(e.Detail); m != "" {
					t.Errorf("%.60q: evidence %s spells %q: %s", text, e.Rule, m, e.Detail)
				}
			}
		}
	}
	if m := goSpelling.FindString("the classifier has no rule for *syntax.CoprocClause"); m == "" {
		t.Error("the Go-spelling pattern misses a type name")
	}
}
