package gate

import "testing"

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
	}
	for _, c := range cases {
		d := DecideExec(ExecInput{Argv: c.argv, Exe: c.exe, Cwd: c.cwd, Policy: p, ReadOnly: c.readOnly})
		if d.Action != c.want {
			t.Errorf("DecideExec(%q, exe %s, cwd %s, ro %v) = %s (%s), want %s", c.argv, c.exe, c.cwd, c.readOnly, d.Action, d.Reason, c.want)
		}
	}
}
