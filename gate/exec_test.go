package gate

import (
	"strings"
	"testing"
)

func TestDecideExec(t *testing.T) {
	p, err := ParsePolicy([]byte(`{"permissions":{"allow":["Bash(*)"],"ask":["Bash(git commit *)"],"deny":["Bash(rm *)","Bash(git push *)"]}}`), "test")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		argv     []string
		exe, cwd string
		readOnly bool
		want     Action
	}{
		{[]string{"rm", "-f", "keep.txt"}, "/usr/bin/rm", "/w", false, Deny},
		{[]string{"./zap", "-f", "keep.txt"}, "/usr/bin/rm", "/w", false, Deny},
		{[]string{"zz", "-f", "keep.txt"}, "/w/zz", "/w", false, Allow},
		{[]string{"cp", "a", "b"}, "/usr/bin/cp", "/w", false, Allow},
		{[]string{"git", "push", "origin"}, "/usr/bin/git", "/w", false, Deny},
		{[]string{"git", "status"}, "/usr/bin/git", "/w", false, Allow},
		{[]string{"git", "commit", "-m", "x"}, "/usr/bin/git", "/w", false, Ask},
		{[]string{"chmod", "-R", "000", ".."}, "/usr/bin/chmod", "/tmp", false, Deny},
		{[]string{"cat", "f"}, "/usr/bin/cat", "/w", true, Allow},
		{[]string{"cp", "a", "b"}, "/usr/bin/cp", "/w", true, Deny},
		{nil, "", "/w", false, Deny},
		// argv[0] as a path: how git runs an alias, and a glob's match.
		{[]string{"/usr/lib/git-core/git", "push", "origin", "main"}, "/usr/lib/git-core/git", "/w", false, Deny},
		{[]string{"/usr/lib/git-core/git", "status"}, "/usr/lib/git-core/git", "/w", false, Allow},
		{[]string{"/bin/rm", "-f", "keep.txt"}, "/usr/bin/rm", "/w", false, Deny},
		{[]string{"/bin/cat", "keep.txt"}, "/usr/bin/cat", "/w", false, Allow},
		// Absolute targets are cleaned before the blacklist reads them.
		{[]string{"rm", "-rf", "/tmp/.."}, "/usr/bin/rm", "/w", false, Deny},
		{[]string{"chmod", "-R", "000", "/tmp/.."}, "/usr/bin/chmod", "/w", false, Deny},
		{[]string{"chmod", "-R", "000", "/tmp/x/.."}, "/usr/bin/chmod", "/w", false, Allow},
		// A read-only run: the program under each of its names.
		{[]string{"ls", "made"}, "/usr/bin/touch", "/w", true, Deny},
		{[]string{"ls", "keep.txt"}, "/usr/bin/cat", "/w", true, Allow},
	}
	for _, c := range cases {
		d := DecideExec(ExecInput{Argv: c.argv, Exe: c.exe, Cwd: c.cwd, Policy: p, ReadOnly: c.readOnly})
		if d.Action != c.want {
			t.Errorf("DecideExec(%q, exe %s, cwd %s, ro %v) = %s (%s), want %s", c.argv, c.exe, c.cwd, c.readOnly, d.Action, d.Reason, c.want)
		}
	}
}

// TestExecGatePolicyField checks sandbox.exec_gate: on, off, or an error
// naming the field.
func TestExecGatePolicyField(t *testing.T) {
	for _, v := range []string{`"on"`, `"off"`} {
		if _, err := ParsePolicy([]byte(`{"sandbox":{"exec_gate":`+v+`}}`), "p.json"); err != nil {
			t.Errorf("exec_gate %s: %v", v, err)
		}
	}
	_, err := ParsePolicy([]byte(`{"sandbox":{"exec_gate":"maybe"}}`), "p.json")
	if err == nil || !strings.Contains(err.Error(), "sandbox.exec_gate") {
		t.Errorf("exec_gate maybe: %v, want an error naming sandbox.exec_gate", err)
	}
}
