package facts

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGlobMatchAgreesWithBash matches each pattern against a name in a
// scratch directory, and asks bash's own pathname expansion the same.
func TestGlobMatchAgreesWithBash(t *testing.T) {
	cases := []struct {
		pat, name string
		want      bool
	}{
		{"e[!x]c", "etc", true}, {"e[^x]c", "etc", true}, {"e[!t]c", "etc", false},
		{"[[:alpha:]]tc", "etc", true}, {"[[:digit:]]tc", "etc", false}, {"[![:digit:]]*", "etc", true},
		{"[[=e=]]tc", "etc", true}, {"[[.e.]]tc", "etc", true}, {"e?c", "etc", true}, {"e*", "etc", true},
		{"[a-f]tc", "etc", true}, {"[f-z]tc", "etc", false}, {"[]e]tc", "etc", true}, {`\etc`, "etc", true},
		{"[e", "[e", true}, {"x*", "etc", false}, {"*", ".x", true},
	}
	bash, err := exec.LookPath("bash")
	for _, c := range cases {
		if got := GlobMatch(c.pat, c.name); got != c.want {
			t.Errorf("GlobMatch(%q, %q) = %v, want %v", c.pat, c.name, got, c.want)
		}
		if err != nil || c.name == ".x" {
			continue // bash's * skips dot files; the gate's stricter reading does not
		}
		dir := t.TempDir()
		out, _ := exec.Command(bash, "-c", "cd \"$1\" && : > \"$2\" && shopt -s nullglob && for f in "+c.pat+"; do echo \"$f\"; done", "_", dir, c.name).Output()
		if bashSays := string(out) == c.name+"\n"; bashSays != c.want {
			t.Errorf("bash matches %q against %q: %v, the table says %v (%s)", c.pat, c.name, bashSays, c.want, filepath.Join(dir, c.name))
		}
	}
}
