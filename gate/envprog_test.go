package gate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProgramEnvironment: variables a program reads as its options
// (tar's TAR_OPTIONS, split as a shell would) or as the helper command it
// runs (zgrep's GREP, zdiff's DIFF and CMP) carry what they run to the
// rules and the blacklist, inline, through env and exported; harmless
// values stay allowed.
func TestProgramEnvironment(t *testing.T) {
	p := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	yolo := testPolicy(t, []string{"Bash"}, nil, nil)
	for _, text := range []string{
		"TAR_OPTIONS=--to-command=rm tar xf a.tar", "TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=rm' tar tf a.tar",
		"env TAR_OPTIONS=--to-command=rm tar xf a.tar", "export TAR_OPTIONS=--to-command=rm; tar xf a.tar",
		`TAR_OPTIONS=$X tar tf a.tar`, "TAR_OPTIONS=--to-comm=rm tar xf a.tar",
		"GREP='rm -f' zgrep x f.gz", "GREP=rm xzgrep -f x", "EGREP=rm bzegrep x f.bz2", "DIFF=rm zdiff x y",
		"CMP=rm xzcmp x y", "export GREP=rm; zgrep -f x",
	} {
		if d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: true}); d.Action == Allow {
			t.Errorf("%q allowed under deny Bash(rm *): %s", text, d.Reason)
		}
	}
	for _, text := range []string{
		`TAR_OPTIONS="--checkpoint-action='exec=rm -rf /'" tar tf a.tar`, "GREP='rm -rf' zgrep / f.gz",
	} {
		if d := Decide(Input{Text: text, Policy: yolo, Mode: ModeYolo, Cwd: "/work"}); d.Action != Deny {
			t.Errorf("%q in yolo: %s: %s", text, d.Action, d.Reason)
		}
	}
	for _, text := range []string{
		"TAR_OPTIONS=--numeric-owner tar xf a.tar", "TAR_OPTIONS='-v --wildcards' tar tf a.tar", "GREP=grep zgrep x f.gz",
		"zgrep x f.gz", "zdiff a.gz b.gz", "DIFF_OPTS=-u zdiff a.gz b.gz",
	} {
		if d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: true}); d.Action != Allow {
			t.Errorf("near miss %q: %s: %s", text, d.Action, d.Reason)
		}
	}
	if c := Classify("zgrep x f.gz", ClassifyOptions{}); c.Safety.Norm() != ReadOnly {
		t.Errorf("zgrep x f.gz: %s, want read-only", c.Safety)
	}
}

// TestProgramEnvironmentConfirm runs the forms under bash with a stand-in
// rm first on PATH: tar runs TAR_OPTIONS' --to-command and checkpoint
// action, zgrep and zdiff run GREP and DIFF.
func TestProgramEnvironmentConfirm(t *testing.T) {
	bash := requireBash(t)
	p := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	for _, c := range []struct{ text, tool string }{
		{"TAR_OPTIONS=--to-command=rm tar xf a.tar", "tar"},
		{"TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=rm' tar tf a.tar", "tar"},
		{"GREP=rm zgrep -e pat a.tar", "zgrep"},
		{"DIFF=rm zdiff a.tar a.tar", "zdiff"},
	} {
		if _, err := exec.LookPath(c.tool); err != nil {
			continue
		}
		t.Run(c.text, func(t *testing.T) {
			dir := t.TempDir()
			bin, marker := standInRm(t, dir, true)
			if err := os.WriteFile(filepath.Join(dir, "f"), []byte("hi\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			mk := exec.Command("tar", "cf", "a.tar", "f")
			mk.Dir = dir
			if out, err := mk.CombinedOutput(); err != nil {
				t.Skipf("tar cf: %v %s", err, out)
			}
			cmd := exec.Command(bash, "-c", c.text)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir, "LC_ALL=C"}
			cmd.Stdin = strings.NewReader("")
			_ = cmd.Run()
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("%q: bash did not run the stand-in rm (the form is wrong here)", c.text)
			}
			if d := Decide(Input{Text: c.text, Policy: p, Cwd: dir}); d.Action == Allow {
				t.Errorf("%q ran rm under bash, and the gate allowed it: %s", c.text, d.Reason)
			}
		})
	}
}
