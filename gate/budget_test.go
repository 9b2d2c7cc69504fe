package gate

import (
	"strings"
	"testing"

	"github.com/agentexec/agentexec/gate/facts"
)

// A text whose nested calls spell more than the rules are matched against
// is never allowed while deny or ask rules exist: it asks, in every mode,
// and says why. Real nesting stays well inside the budget and is decided
// as usual.
func TestSpellingBudgetFailsClosed(t *testing.T) {
	p := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	// 200 levels (the parser's bound is 256) around 60 KB: each level's
	// call spells the text inside it again.
	deep := "echo " + strings.Repeat("$(echo ", 200) + strings.Repeat("x", 60000) + strings.Repeat(")", 200)
	if n := len(deep); n > 64<<10 {
		t.Fatalf("the deep text is %d bytes, past the parse cap", n)
	}
	for _, mode := range []Mode{ModeDefault, ModeYolo, ModePlan} {
		d := Decide(Input{Text: deep, Policy: p, Mode: mode})
		if d.Action != Ask || !strings.Contains(d.Reason, "too long to match every deny and ask rule") {
			t.Errorf("%s: deep nesting: %s, %q; want ask for the unmatched spellings", mode, d.Action, d.Reason)
		}
	}
	// A deny rule found before the budget ends still denies.
	if d := Decide(Input{Text: "rm -rf x; " + deep, Policy: p}); d.Action != Deny {
		t.Errorf("rm before deep nesting: %s, want deny", d.Action)
	}
	// Without deny or ask rules, nothing is matched and nothing is cut:
	// yolo runs it.
	if d := Decide(Input{Text: deep, Policy: testPolicy(t, []string{"Bash(*)"}, nil, nil), Mode: ModeYolo}); d.Action != Allow {
		t.Errorf("deep nesting without deny rules, yolo: %s (%s), want allow", d.Action, d.Reason)
	}
	// What agents nest: a commit message from a heredoc in a substitution,
	// a few levels of $(…).
	msg := strings.Repeat("A line of the commit message.\n", 400)
	for _, text := range []string{
		"git commit -m \"$(cat <<'EOF'\n" + msg + "EOF\n)\"",
		"echo $(basename $(dirname $(pwd)))",
		"kill $(pgrep -f \"$(cat pidname)\") && echo done",
	} {
		d := Decide(Input{Text: text, Policy: p})
		if d.Action != Allow || strings.Contains(d.Reason, "too long") {
			t.Errorf("%.40q: %s (%s), want allow by Bash(*)", text, d.Action, d.Reason)
		}
		cands, complete := strictCandidates([]string{text}, facts.Build(text, facts.Options{Sub: subCommands}))
		if !complete || len(cands) == 0 {
			t.Errorf("%.40q: spellings cut (%d built)", text, len(cands))
		}
	}
}
