package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestTestSplitConfirm runs each test/[ form under real bash with hostile
// values set first: a refused form must really run the payload (touch
// P), and each near miss (the same values, quoted) must not, while the
// classifier keeps it read-only.
func TestTestSplitConfirm(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("confirming against bash needs a POSIX host")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found on PATH; cannot confirm against the real shell")
	}
	const setup = `x=-v; y='a[$(touch>P)]'; z='-v a[$(touch>P)]'; f='x -o -v a[$(touch>P)]'; `
	tests := []struct {
		cmd  string
		want Safety
	}{
		{`test $x $y`, Unknown},
		{`test $z`, Unknown},
		{`[ $z ]`, Unknown},
		{`[ -e $f ]`, Unknown},
		{`test ! $z`, Unknown},
		{`test "$x" $y`, Unknown},
		{`[ $x "$y" ]`, Unknown},
		// Near misses: quoted, each expansion is one word.
		{`test -n "$z"`, ReadOnly},
		{`[ -e "$f" ]`, ReadOnly},
		{`test "$z"`, ReadOnly},
		{`[ "$y" = "$z" ]`, ReadOnly},
		{`test -f "$y"`, ReadOnly},
	}
	for _, tt := range tests {
		if r := Classify(tt.cmd, Options{}); r.Safety != tt.want {
			t.Errorf("Classify(%q) = %s (%s), want %s", tt.cmd, r.Safety, r.Reason, tt.want)
		}
		dir := t.TempDir()
		cmd := exec.Command("bash", "-c", setup+tt.cmd)
		cmd.Dir, cmd.Env = dir, confirmEnv(t.TempDir())
		cmd.Run()
		_, err := os.Stat(filepath.Join(dir, "P"))
		if ran := err == nil; ran != (tt.want != ReadOnly) {
			t.Errorf("bash: %s%s ran the payload = %v, want %v", setup, tt.cmd, ran, tt.want != ReadOnly)
		}
	}
}

// TestHostnameResolveConfirm shows, under strace in a UTS namespace whose
// host name is in no hosts file, that `hostname -f` sends a DNS query
// (a connect to port 53) while `hostname -s` does not: the first is not
// read-only, the second is.
func TestHostnameResolveConfirm(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the confirmation uses Linux namespaces")
	}
	for _, p := range []string{"unshare", "strace", "hostname"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip(p + " not found on PATH; cannot confirm the lookup")
		}
	}
	for _, tt := range []struct {
		opt  string
		want Safety
	}{{"-f", Unknown}, {"-i", Unknown}, {"-s", ReadOnly}} {
		if r := Classify("hostname "+tt.opt, Options{}); r.Safety != tt.want {
			t.Errorf("Classify(hostname %s) = %s (%s), want %s", tt.opt, r.Safety, r.Reason, tt.want)
		}
		script := "hostname agentexec-no-such-host-x && strace -f -e trace=connect hostname " + tt.opt
		out, err := exec.Command("unshare", "-u", "sh", "-c", script).CombinedOutput()
		if err != nil && !strings.Contains(string(out), "connect(") && !strings.Contains(string(out), "exited") {
			t.Skipf("cannot run hostname in a UTS namespace under strace here: %v\n%s", err, out)
		}
		dns := strings.Contains(string(out), "htons(53)")
		if dns != (tt.want != ReadOnly) {
			t.Errorf("hostname %s: DNS query sent = %v, want %v\n%s", tt.opt, dns, tt.want != ReadOnly, out)
		}
	}
}
