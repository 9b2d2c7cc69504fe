package gate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// setVarForms give GIT_EXTERNAL_DIFF the command `rm` without an
// assignment word, then export it and run git diff, which runs it for
// each changed file.
var setVarForms = []string{
	": ${GIT_EXTERNAL_DIFF:=rm}",
	": ${GIT_EXTERNAL_DIFF=rm}",
	"read -r GIT_EXTERNAL_DIFF <<< rm",
	"printf -v GIT_EXTERNAL_DIFF %s rm",
	"declare -n r=GIT_EXTERNAL_DIFF; r=rm",
}

// TestSetVarByBuiltin: a variable that carries a command, set by an
// expansion, a loop, a builtin or a nameref, is shell state the rules
// cannot read: never allowed under deny Bash(rm *). Plain variables set
// the same ways stay allowed.
func TestSetVarByBuiltin(t *testing.T) {
	p := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	refused := append([]string{
		"for GIT_EXTERNAL_DIFF in rm; do export GIT_EXTERNAL_DIFF; git diff; done",
		"for PATH in .; do ls; done", "read -a PATH <<< .", `read -r "$V" <<< x`, "wait -n -p PATH",
		"declare -n r; r=PATH", "typeset -n r=$X", "getopts x PATH", "select PATH in .; do ls; done",
		// arrays are not exported, but the shell's own lookup reads PATH's
		"read -ra PATH <<< .; ls", "mapfile -t PATH <<< .; ls", "mapfile -t GIT_EXTERNAL_DIFF <<< rm",
	}, func() []string {
		var out []string
		for _, f := range setVarForms {
			out = append(out, f+"; export GIT_EXTERNAL_DIFF; git diff")
		}
		return out
	}()...)
	for _, text := range refused {
		if d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: true}); d.Action == Allow {
			t.Errorf("%q allowed under deny Bash(rm *): %s", text, d.Reason)
		}
	}
	for _, text := range []string{
		"read -r line < f", "while read -r a b; do echo $a; done < f", "printf -v out %s x", "echo ${X:=3}",
		"for f in *.go; do echo $f; done", "declare -n r=arr; r=1", "mapfile -t lines < f", "getopts ab opt",
		"for PATH in /usr/bin; do ls; done",
	} {
		if d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: true}); d.Action != Allow {
			t.Errorf("near miss %q: %s: %s", text, d.Action, d.Reason)
		}
	}
}

// TestSetVarByBuiltinConfirm proves each form really makes git diff run
// the stand-in rm under bash, in a scratch repository with a change.
func TestSetVarByBuiltinConfirm(t *testing.T) {
	bash := requireBash(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	p := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	for _, form := range setVarForms {
		text := form + "; export GIT_EXTERNAL_DIFF; git diff"
		t.Run(form, func(t *testing.T) {
			dir := t.TempDir()
			bin, marker := standInRm(t, dir, false)
			env := []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir, "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1"}
			repo := filepath.Join(dir, "repo")
			setup := "git init -q repo && cd repo && echo a > f && git add f && " +
				"git -c user.name=t -c user.email=t@t commit -qm f && echo b > f"
			mk := exec.Command(bash, "-c", setup)
			mk.Dir, mk.Env = dir, env
			if out, err := mk.CombinedOutput(); err != nil {
				t.Skipf("repository setup: %v %s", err, out)
			}
			cmd := exec.Command(bash, "-c", text)
			cmd.Dir = repo
			cmd.Env = env
			cmd.Stdin = strings.NewReader("")
			out, _ := cmd.CombinedOutput()
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("%q (%s): git diff did not run the stand-in rm (the form is wrong here)", text, out)
			}
			if d := Decide(Input{Text: text, Policy: p, Cwd: repo}); d.Action == Allow {
				t.Errorf("%q ran rm under bash, and the gate allowed it: %s", text, d.Reason)
			}
		})
	}
}

// TestSubscriptCode: bash evaluates a quoted array subscript as
// arithmetic — running its command substitutions — when unset, let,
// test -v, printf -v or read is handed it, and each time a nameref to such
// an element is used. A catastrophic payload there is denied in yolo; a
// nameref to one is never allowed under deny Bash(rm *). Confirmed under
// bash for unset and the nameref.
func TestSubscriptCode(t *testing.T) {
	yolo := testPolicy(t, []string{"Bash"}, nil, nil)
	p := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	for _, text := range []string{"unset 'a[$(rm -rf /)]'", "a=(1); unset -v 'a[$(rm -rf ~)]'", "let 'a[$(rm -rf /)]'",
		"test -v 'a[$(rm -rf /)]'", "printf -v 'a[$(rm -rf /)]' x", "read 'a[`rm -rf /`]' <<< x"} {
		if d := Decide(Input{Text: text, Policy: yolo, Mode: ModeYolo, Cwd: "/work"}); d.Action != Deny {
			t.Errorf("%q in yolo: %s: %s", text, d.Action, d.Reason)
		}
	}
	// A nameref is shell state the blacklist cannot follow: yolo asks.
	if d := Decide(Input{Text: "typeset -n r='a[$(rm -rf /)]'; echo $r", Policy: yolo, Mode: ModeYolo, Cwd: "/work"}); d.Action == Allow {
		t.Errorf("nameref to a subscript running rm -rf / allowed in yolo: %s", d.Reason)
	}
	for _, text := range []string{"typeset -n 'r=a[$(rm -f x)]'; echo $r", "declare -n r=a[$i]; echo $r", "local -n r='a[`rm -f x`]'"} {
		if d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: true}); d.Action == Allow {
			t.Errorf("%q allowed under deny Bash(rm *): %s", text, d.Reason)
		}
	}
	for _, text := range []string{"unset 'a[1]'", "let 'x = 1 + 2'", "unset a", "grep 'x[0-9]' f", "declare -n r=arr; r=1", "declare -n r='a[1]'"} {
		if d := Decide(Input{Text: text, Policy: yolo, Mode: ModeYolo, Cwd: "/work"}); d.Action != Allow {
			t.Errorf("near miss %q in yolo: %s: %s", text, d.Action, d.Reason)
		}
	}

	bash := requireBash(t)
	for _, form := range []string{"a=(1); unset 'a[$(touch M)]'", "typeset -n 'r=a[$(touch M)]'; echo $r"} {
		dir := t.TempDir()
		marker := filepath.Join(dir, "M")
		cmd := exec.Command(bash, "-c", form)
		cmd.Dir = dir
		_ = cmd.Run()
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("%q: bash did not run the subscript's command", form)
		}
	}
}
