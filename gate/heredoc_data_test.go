package gate

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestSplitData: the splitter names as data the segments it found only as
// here-doc body lines, never one that is also a command, nor a
// substitution inside an unquoted body.
func TestSplitData(t *testing.T) {
	for _, tt := range []struct {
		text string
		data []string
	}{
		{"cat <<'EOF'\nhello world\nEOF", []string{"hello world"}},
		{"cat <<-EOF\n\tx y\n\tEOF", []string{"x y"}},
		{"git commit -m \"$(cat <<'EOF'\nFix it\n\nBy: me\nEOF\n)\"", []string{"Fix it", "By: me"}},
		{"cat <<EOF\n$(date)\nEOF", []string{"$(date)"}},
		{"cat <<'EOF'\nrm x\nEOF\nrm x", nil},
		{"cat <<'EOF' ; ls\nbody\nEOF", []string{"body"}},
		{"ls; echo hi", nil},
	} {
		got := Split(tt.text, "bash").Data
		if !slices.Equal(got, tt.data) {
			t.Errorf("Split(%q).Data = %q, want %q", tt.text, got, tt.data)
		}
	}
}

// TestHeredocDataAllow: a here-doc's body is what a command reads, so an
// allow rule for the command covers it — Claude Code's way of writing a
// commit message, under Bash(git commit:*) and Bash(cat:*), runs without
// asking — while every command bash does run still needs its rule, and
// deny rules still read body lines. Each text is run under bash with a
// stub git: where the body holds `touch pwned`, no pwned appears for the
// texts allowed, and it does for each one that stays asked.
func TestHeredocDataAllow(t *testing.T) {
	p := testPolicy(t, []string{"Bash(git commit:*)", "Bash(cat:*)"}, nil, nil)
	for _, tt := range []struct {
		text  string
		allow bool
	}{
		{"git commit -m \"$(cat <<'EOF'\ntouch pwned\n\nCo-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)\"", true},
		{"git commit -F - <<'EOF'\ntouch pwned\nEOF", true},
		{"git commit -F - <<-EOF\n\ttouch pwned\n\tEOF", true},
		{"git commit -F - <<E\"O\"F\ntouch pwned\nEOF", true},
		{"cat <<EOF\n$(touch pwned)\nEOF", false},
		{"git commit -F - <<'EOF'\ntouch pwned\nEOF\ntouch pwned", false},
		{"git commit -F - <<'EOF' ; touch pwned\nbody\nEOF", false},
		{"git commit -F - <<EOF\n$(touch pwned)\nEOF", false},
		{"git commit -m \"$(cat <<EOF\n`touch pwned`\nEOF\n)\"", false},
	} {
		d := Decide(Input{Text: tt.text, Policy: p})
		if got := d.Action == Allow; got != tt.allow {
			t.Errorf("%q: %s (%s), want allow %v", tt.text, d.Action, d.Reason, tt.allow)
		}
		if ran, ok := runsTouch(t, tt.text); ok && ran == tt.allow {
			t.Errorf("%q: bash ran touch %v, yet the gate allows it %v", tt.text, ran, tt.allow)
		}
	}
	deny := testPolicy(t, []string{"Bash(cat:*)"}, nil, []string{"Bash(touch *)"})
	if d := Decide(Input{Text: "cat <<'EOF'\ntouch pwned\nEOF", Policy: deny}); d.Action != Deny {
		t.Errorf("a deny rule no longer reads body lines: %s (%s)", d.Action, d.Reason)
	}
}

// runsTouch runs text under bash in a scratch directory, git a stub that
// does nothing, and reports whether a pwned file appeared; ok is false
// without bash.
func runsTouch(t *testing.T, text string) (ran, ok bool) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Log("no bash to confirm against:", err)
		return false, false
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, "-c", text)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir}
	_ = cmd.Run()
	_, err = os.Stat(filepath.Join(dir, "pwned"))
	return err == nil, true
}
