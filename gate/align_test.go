package gate

import "testing"

// Deny rules see the commands find -exec runs, $"…" words as "…", and the
// whole text; allow rules keep $"…" dynamic.
func TestDenyCanonicalHidden(t *testing.T) {
	p := testPolicy(t, []string{"Bash(git status)", "Bash(ls)", "Bash(mv -f build)"}, nil,
		[]string{"Bash(rm *)", "Bash(git status && ls)"})
	tests := []struct {
		text string
		want Action
	}{
		{"find . -exec rm -rf {} +", Deny},
		{"find . -execdir rm {} \\;", Deny},
		{"find . -name \"$n\" -exec rm -f \"$n\" \\;", Deny},
		{"find . -exec ls {} +", Ask},
		{"$\"rm\" -rf build", Deny},
		{"x$\"rm\" -rf build", Ask},
		{"git status && ls", Deny},
		{"git status", Allow},
		{"ls", Allow},
		{"mv -f build", Allow},
		{"$\"mv\" -f build", Ask}, // allow rules keep $"…" dynamic
		{"$\"rm\" -rf build", Deny},
	}
	for _, tt := range tests {
		d := Decide(Input{Text: tt.text, Mode: ModeDefault, Policy: p})
		if d.Action != tt.want {
			t.Errorf("%q: %s, want %s: %s", tt.text, d.Action, tt.want, d.Reason)
		}
	}
}

// The blacklist reads $"…" as "…" too (stricter); a plain word stays as it was.
func TestBlacklistLocaleQuote(t *testing.T) {
	for _, tt := range []struct {
		text string
		want Action
	}{
		{"$\"rm\" -rf /", Deny},
		{"rm -rf $\"/\"", Deny},
		{"$\"rm\" -rf build", Ask},
		{"echo $\"rm -rf /\"", Allow},
	} {
		if d := Decide(Input{Text: tt.text, Mode: ModeYolo}); d.Action != tt.want {
			t.Errorf("%q: %s, want %s: %s", tt.text, d.Action, tt.want, d.Reason)
		}
	}
}
