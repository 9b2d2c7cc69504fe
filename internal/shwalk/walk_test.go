package shwalk

import (
	"fmt"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentexec/agentexec/internal/hostile"

	"github.com/agentexec/agentexec/internal/corpus"
)

// forms covers every node type, comments in each place syntax.Walk puts
// them, and both dialects' constructs.
var forms = []string{
	`b[2]=x c=(1 [3]=y); a=1 echo "$x ${y:-z} ${#a} ${a[i]} ${s:1:2} ${p/o/w} ${!n} ${x@Q}" 'q' $'e' $"l" >out 2>&1 <<EOF
body $(date) ` + "`w`" + `
EOF`,
	`if a; then b; elif c; then d; else e; fi # c1`,
	"while x # c\ndo y; done; until z; do :; done",
	`for i in a b; do echo $i; done; for ((i=0; i<3; i++)); do :; done; for ((;;)); do break; done`,
	"f() { local x=$1; return; }; function g { (sub; shell) }",
	"case $x in # c0\n a|b) one ;; # c1\n *) two ;&\n c) ;;& esac",
	`[[ -f a && ( b == c || ! -z $d ) && e =~ f ]]; (( x = y + -z * (2 ** 3), w++ )); let a=1+2 b++`,
	`declare -a x=(1 2); export y=$(z); readonly q; time ls; coproc C { cat; }; coproc cat`,
	`echo <(a) >(b) @(x|y) !(z) *(w) $((1 ? 2 : 3)) $[4]`,
	"x=( # c\n a # d\n b\n)",
	"a | b |& c && d || e & f; ! g",
	"echo hi # trailing\n# alone\n",
	"{ a; } # after block\n( b ) # after subshell",
	"if a # ca\nthen b\n# tb\nelse c\n# ec\nfi",
	"while a\n# cw\ndo b\n# db\ndone; for i in x; do y\n# dy\ndone",
}

// order records what f sees, pruning below every second command
// substitution and every parameter expansion of x, so that a skipped
// subtree and the nil after a node are both compared.
func order(walk func(syntax.Node, func(syntax.Node) bool), n syntax.Node) string {
	var b strings.Builder
	k := 0
	walk(n, func(x syntax.Node) bool {
		if x == nil {
			b.WriteString(")")
			return true
		}
		fmt.Fprintf(&b, "(%T@%d", x, x.Pos().Offset())
		switch x := x.(type) {
		case *syntax.CmdSubst:
			k++
			if k%2 == 0 {
				b.WriteString("!)")
				return false
			}
		case *syntax.ParamExp:
			if x.Param != nil && x.Param.Value == "x" {
				b.WriteString("!)")
				return false
			}
		}
		return true
	})
	return b.String()
}

func same(t *testing.T, text string) {
	t.Helper()
	for _, lang := range []syntax.LangVariant{syntax.LangBash, syntax.LangPOSIX} {
		for _, keep := range []bool{false, true} {
			f, err := syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(keep)).Parse(strings.NewReader(text), "")
			if err != nil {
				continue
			}
			if want, got := order(syntax.Walk, f), order(Walk, f); got != want {
				t.Fatalf("%v comments=%v: %q\nsyntax.Walk %s\nshwalk.Walk %s", lang, keep, text, want, got)
			}
		}
	}
}

// TestWalkMatchesSyntax: the same visits as syntax.Walk over every form,
// the agent corpus and the hostile shapes.
func TestWalkMatchesSyntax(t *testing.T) {
	parsed := 0
	for _, s := range forms {
		if _, err := syntax.NewParser().Parse(strings.NewReader(s), ""); err != nil {
			t.Fatalf("form does not parse: %q: %v", s, err)
		}
		parsed++
		same(t, s)
	}
	cmds, err := corpus.AgentCommands()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range cmds {
		same(t, l)
	}
	for _, s := range hostile.Shapes() {
		same(t, s.Build(1<<10))
	}
	if parsed != len(forms) {
		t.Fatal("forms skipped")
	}
}
