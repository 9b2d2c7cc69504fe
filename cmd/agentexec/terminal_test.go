package main

import "testing"

func TestVerdict(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Denied by the rule Bash(rm *) (from p.json), which matches. Do not retry it.", "Denied by the rule Bash(rm *) (from p.json), which matches."},
		{`Needs approval: no allow rule matches "cat a. b". Wait for the user's answer.`, `Needs approval: no allow rule matches "cat a. b".`},
		{"Needs approval (see `x. y`). Prefer ls.", "Needs approval (see `x. y`)."},
		{"Allowed (v1.2 rule).  Next", "Allowed (v1.2 rule)."},
		{"One sentence only.", "One sentence only."},
		{"No period", "No period"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := verdict(tt.in); got != tt.want {
			t.Errorf("verdict(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
