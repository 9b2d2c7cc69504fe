package gate

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A bypass class found by review: forms that bash really runs (each is
// confirmed under bash with the stand-in rm), which the gate must never
// allow past Bash(rm *); catastrophes that yolo must never allow; and near
// misses on both sides that keep their decision.
type bypassClass struct {
	name string
	// refused run rm under bash (confirmed) and are never allowed with
	// allow Bash(*), deny Bash(rm *).
	refused []string
	// needs names a program a refused form runs besides bash; the confirm
	// step skips the class without it.
	needs string
	// unconfirmed are refused like refused, but bash cannot run them here
	// (a remote host, a cloud, a network): they are read from the
	// programs' documentation.
	unconfirmed []string
	// allowed are near misses that stay allowed under the same policy.
	allowed []string
	// yolo are catastrophes never allowed in yolo; yoloAllowed stay
	// allowed there.
	yolo, yoloAllowed []string
}

var bypassClasses = []bypassClass{
	{
		name: "declare re-reads a quoted compound assignment",
		refused: []string{
			"declare -a 'a=([0]=$(rm -f x))'",
			"declare -a a; declare 'a=($(rm -f x))'",
			"f(){ local -a 'a=([0]=$(rm -f x))'; }; f",
			"readonly -a 'a=([0]=$(rm -f x))'",
			"typeset -A 'a=([k]=$(rm -f x))'",
			"declare -a b='($(rm -f x))'",
			`declare -a "b=(\$(rm -f x))"`,
			`declare -a b=\(\$\(rm\ -f\ x\)\)`,
			"x='($(rm -f x))'; declare -a b=$x",
			`x='b=($(rm -f x))'; declare -a "$x"`,
			`x='($(rm -f x))'; b=(); declare b="$x"`,
			"builtin declare -a 'b=($(rm -f x))'",
			"command declare -a 'b=($(rm -f x))'",
			"declare -a 'b=(`rm -f x`)'",
			"declare -ai 'b=(1 x[$(rm -f x)])'",
		},
		allowed: []string{"declare -a 'a=(x y)'", `declare -a "a=(x y)"`, "declare -a a=(x $(ls))",
			"local x=$(pwd)", "declare x=$(pwd)", "readonly -a a=(1 2)"},
		yolo:        []string{"declare -a 'a=([0]=$(rm -rf /))'", "typeset -A 'm=([k]=`rm -rf ~`)'"},
		yoloAllowed: []string{"declare -a 'a=(x y)'", "declare -a a=($(ls))"},
	},
}

// TestBypassClasses: every refused form is never allowed (with and
// without an exec gate), every near miss stays allowed; in yolo every
// catastrophe is refused and its near misses stay allowed.
func TestBypassClasses(t *testing.T) {
	p := evasionPolicy(t)
	yolo := testPolicy(t, []string{"Bash"}, nil, nil)
	for _, c := range bypassClasses {
		for _, text := range append(append([]string(nil), c.refused...), c.unconfirmed...) {
			for _, gate := range []bool{false, true} {
				if d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: gate}); d.Action == Allow {
					t.Errorf("%s: %q (exec gate %v) allowed: %s", c.name, text, gate, d.Reason)
				}
			}
		}
		for _, text := range c.allowed {
			if d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: true}); d.Action != Allow {
				t.Errorf("%s: near miss %q: %v: %s", c.name, text, d.Action, d.Reason)
			}
		}
		for _, text := range c.yolo {
			if d := Decide(Input{Text: text, Policy: yolo, Mode: ModeYolo, Cwd: "/work"}); d.Action == Allow {
				t.Errorf("%s: %q allowed in yolo: %s", c.name, text, d.Reason)
			}
		}
		for _, text := range c.yoloAllowed {
			if d := Decide(Input{Text: text, Policy: yolo, Mode: ModeYolo, Cwd: "/work"}); d.Action != Allow {
				t.Errorf("%s: yolo near miss %q: %v: %s", c.name, text, d.Action, d.Reason)
			}
		}
	}
}

// TestBypassClassesConfirm runs every refused form under bash in a scratch
// directory with the stand-in rm first on PATH: each must really run rm
// there (else the form proves nothing).
func TestBypassClassesConfirm(t *testing.T) {
	bash := requireBash(t)
	for _, c := range bypassClasses {
		if c.needs != "" {
			if _, err := exec.LookPath(c.needs); err != nil {
				continue
			}
		}
		for _, text := range c.refused {
			dir := t.TempDir()
			bin, marker := standInRm(t, dir, false)
			cmd := exec.Command(bash, "-c", text)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir, "LC_ALL=C"}
			cmd.Stdin = strings.NewReader("")
			_ = cmd.Run()
			if _, err := os.Stat(marker); err != nil {
				t.Errorf("%s: %q: bash did not run the stand-in rm (the form is wrong here)", c.name, text)
			}
		}
	}
}
