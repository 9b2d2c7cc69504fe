package gate

import (
	"testing"

	"github.com/agentexec/agentexec/shellcfg"
)

// The acceptance criteria of safe-bash-comment-splitting.txt, one test
// each.

const seedCommand = "echo 'a' # comment ; rm -rf /tmp/x"

// The #11815 command is one segment under bash and an allowed echo
// resolves to allow.
func TestSeedOneSegmentAllowed(t *testing.T) {
	p := testPolicy(t, []string{"Bash(echo *)"}, nil, nil)
	d := Decide(Input{Text: seedCommand, Shell: shellcfg.Bash, Policy: p})
	if len(d.Segments) != 1 || d.Segments[0] != seedCommand {
		t.Errorf("segments %q, want the whole line", d.Segments)
	}
	if d.RuleDecision != "allow" || d.Action != Allow {
		t.Errorf("rule_decision %s decision %s, want allow/allow (%s)", d.RuleDecision, d.Action, d.Reason)
	}
}

// The same text remains split for cmd and PowerShell.
func TestSeedSplitForCmdAndPowerShell(t *testing.T) {
	p := testPolicy(t, []string{"Bash(echo *)"}, nil, nil)
	for _, sh := range []shellcfg.ShellType{shellcfg.Cmd, shellcfg.PowerShell} {
		d := Decide(Input{Text: seedCommand, Shell: sh, Policy: p})
		if !hasSeg(d.Segments, "rm -rf /tmp/x") {
			t.Errorf("%s: segments %q, want rm -rf /tmp/x split out", sh, d.Segments)
		}
		if d.RuleDecision == "allow" || d.Action == Allow {
			t.Errorf("%s: %s/%s, want no allow", sh, d.RuleDecision, d.Action)
		}
		dd := Decide(Input{Text: seedCommand, Shell: sh, Policy: testPolicy(t, nil, nil, []string{"Bash(rm *)"})})
		if dd.Action != Deny {
			t.Errorf("%s: deny-only config gives %s, want deny", sh, dd.Action)
		}
	}
}

// Multi-line commands, commands containing substitution syntax, and
// commands with an operator before the comment keep the conservative
// split.
func TestSeedConservativeShapes(t *testing.T) {
	p := testPolicy(t, []string{"Bash(echo *)", "Bash(git status)"}, nil, []string{"Bash(rm *)"})
	for _, text := range []string{
		"git status # don't\nrm -rf /tmp/x",
		"echo 'a'\n# comment ; rm -rf /tmp/x",
		"echo $(id) # comment ; rm -rf /tmp/x",
		"echo `id` # comment ; rm -rf /tmp/x",
		"echo ${HOME} # comment ; rm -rf /tmp/x",
		"echo a; echo b # comment ; rm -rf /tmp/x",
		"echo a && echo b # comment ; rm -rf /tmp/x",
		"echo a | cat # comment ; rm -rf /tmp/x",
		"echo a > f # comment ; rm -rf /tmp/x",
		"(echo a) # comment ; rm -rf /tmp/x",
		"echo a\\ b # comment ; rm -rf /tmp/x",
		"echo a\r# comment ; rm -rf /tmp/x",
	} {
		d := Decide(Input{Text: text, Shell: shellcfg.Bash, Policy: p})
		if commentFastPath(text) || !hasSeg(d.Segments, "rm -rf /tmp/x") {
			t.Errorf("%q: segments %q, want the conservative split", text, d.Segments)
		}
		if d.Action != Deny {
			t.Errorf("%q: %s, want the deny rule to match the split-out rm", text, d.Action)
		}
	}
}

// A command whose first non-whitespace character is '#' keeps the split,
// at index 0 or behind blanks, with or without a later word-start '#',
// so an explicit deny rule still matches the text after the comment.
func TestSeedLeadingComment(t *testing.T) {
	p := testPolicy(t, nil, nil, []string{"Bash(rm *)"})
	for _, text := range []string{
		"# comment ; rm -rf /tmp/x",
		"   # comment ; rm -rf /tmp/x",
		"\t# comment ; rm -rf /tmp/x",
		"# a # b ; rm -rf /tmp/x",
		"  # a # b ; rm -rf /tmp/x",
	} {
		d := Decide(Input{Text: text, Shell: shellcfg.Bash, Policy: p})
		if !hasSeg(d.Segments, "rm -rf /tmp/x") || d.Action != Deny || d.RuleDecision != "deny" {
			t.Errorf("%q: %q %s/%s, want rm split out and denied", text, d.Segments, d.RuleDecision, d.Action)
		}
	}
}

// A '#' that only exists inside a wrapper's inner quotes still splits
// (the seed's monitor criterion: a quoted '#' is no comment).
func TestSeedQuotedHashSplits(t *testing.T) {
	p := testPolicy(t, []string{"Bash(bash -c *)"}, nil, []string{"Bash(rm *)"})
	for _, text := range []string{
		`bash -c "echo '#'" ; rm -rf /tmp/x`,
		`sh -c 'echo # x' ; rm -rf /tmp/x`,
		`echo "a # b" ; rm -rf /tmp/x`,
	} {
		d := Decide(Input{Text: text, Shell: shellcfg.Bash, Policy: p})
		if !hasSeg(d.Segments, "rm -rf /tmp/x") || d.Action != Deny {
			t.Errorf("%q: %q %s, want rm split out and denied", text, d.Segments, d.Action)
		}
	}
}

// Under a deny-only configuration the command is one segment and no rule
// matches it: the rules layer says none (the seed's tool default "ask"),
// and our mode allows the read-only echo in default and plan mode.
func TestSeedDenyOnly(t *testing.T) {
	p := testPolicy(t, nil, nil, []string{"Bash(rm *)"})
	for _, mode := range []Mode{ModeDefault, ModePlan} {
		d := Decide(Input{Text: seedCommand, Shell: shellcfg.Bash, Policy: p, Mode: mode})
		if d.RuleDecision != RuleNone {
			t.Errorf("%s: rule_decision %s, want none", mode, d.RuleDecision)
		}
		if d.Action != Allow || d.Safety != ReadOnly {
			t.Errorf("%s: %s (%s), want allow of the read-only echo: %s", mode, d.Action, d.Safety, d.Reason)
		}
	}
	// The seed's residual hazard: suggestions never come from the comment.
	d := Decide(Input{Text: "touch a # comment ; rm -rf /tmp/x", Shell: shellcfg.Bash, Policy: p})
	for _, s := range d.Suggestions {
		if s != "Bash(touch a)" {
			t.Errorf("suggestion %q derived from comment text (all: %q)", s, d.Suggestions)
		}
	}
	if d.Action != Ask || len(d.Suggestions) != 1 {
		t.Errorf("touch a # … : %s %q, want ask with one suggestion", d.Action, d.Suggestions)
	}
}
