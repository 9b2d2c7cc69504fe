package classify

import (
	"github.com/agentexec/agentexec/gate/facts"
	"strings"
	"testing"
)

// adversarialCase is hostile input that must come back (Unknown, with the
// named rule) without taking the process down.
type adversarialCase struct {
	name string
	text string
	opt  Options
	want Safety
	rule string // the deciding rule, "" to skip the check
}

func adversarialCases() []adversarialCase {
	big := Options{MaxBytes: 8 << 20}
	deep := Options{MaxBytes: 8 << 20, MaxDepth: 1 << 20}
	return []adversarialCase{
		{"1MiB word, default cap", "echo " + strings.Repeat("a", 1<<20), Options{}, un, "too-long"},
		{"1MiB word, raised cap", "echo " + strings.Repeat("a", 1<<20), big, ro, ""},
		{"1MiB single-quoted", "echo '" + strings.Repeat("a;", 1<<19) + "'", big, ro, ""},
		{"1MiB unclosed quote", "echo '" + strings.Repeat("a", 1<<20), big, un, "parse-error"},
		{"1MiB heredoc body", "cat <<'E'\n" + strings.Repeat("x$(rm)\n", 1<<17) + "E\n", big, ro, ""},
		{"10k parens", strings.Repeat("(", 10000) + "true" + strings.Repeat(")", 10000), Options{}, un, "too-deep"},
		{"10k cmdsubst", "echo " + strings.Repeat("$(", 10000) + "echo" + strings.Repeat(")", 10000), Options{}, un, "too-deep"},
		{"10k braces", strings.Repeat("{ ", 10000) + "true" + strings.Repeat("; }", 10000), Options{}, un, "too-deep"},
		{"10k if", strings.Repeat("if ", 10000) + "true" + strings.Repeat("; then :; fi", 10000), big, un, "too-deep"},
		{"10k param default", "echo " + strings.Repeat("${a:-", 10000) + "x" + strings.Repeat("}", 10000), Options{}, un, "too-deep"},
		{"10k [[ (", "[[ " + strings.Repeat("( ", 10000) + "a" + strings.Repeat(" )", 10000) + " ]]", big, un, "too-deep"},
		{"1M parens", strings.Repeat("(", 1000000) + "true" + strings.Repeat(")", 1000000), big, un, "too-deep"},
		{"1M parens, depth limit raised", strings.Repeat("(", 1000000) + "true" + strings.Repeat(")", 1000000), deep, un, "too-deep"},
		{"1M unclosed cmdsubst", strings.Repeat("$(", 1000000), big, un, "too-deep"},
		{"400k pipeline", strings.Repeat("a|", 400000) + "a", big, un, "too-many-operators"},
		{"400k and-list", strings.Repeat("a&&", 400000) + "a", big, un, "too-many-operators"},
		{"140k statements", strings.Repeat("echo a;", 140000), big, un, "too-many-operators"},
		{"case-pattern closers", strings.Repeat("(case x in a) ", 3000) + "ls", big, un, "too-deep"},
		{"stray braces", strings.Repeat("(echo }; ", 3000) + "ls", big, un, "too-deep"},
		{"quoted closers", strings.Repeat("$(echo \")\" ", 3000) + "ls", big, un, "too-deep"},
		{"4 nested backquotes", "echo `echo \\`echo \\\\\\`echo \\\\\\\\\\\\\\`rm\\\\\\\\\\\\\\`\\\\\\`\\``", Options{}, un, ""},
		{"10k escaped braces", "git status " + strings.Repeat("\\{", 10000), Options{}, ro, ""},
		{"5k time keywords", strings.Repeat("time ", 5000) + "ls", big, un, "too-deep"},
		{"300 timed statements", strings.Repeat("time ls; ", 300), Options{}, un, "wrapper"},
		{"500k args", "echo" + strings.Repeat(" a", 500000), big, ro, ""},
	}
}

func TestAdversarial(t *testing.T) {
	for _, c := range adversarialCases() {
		t.Run(c.name, func(t *testing.T) {
			r := Classify(c.text, c.opt)
			if r.Safety != c.want {
				t.Fatalf("safety = %s, want %s: %s", r.Safety, c.want, r.Reason)
			}
			if c.rule != "" && !strings.Contains(r.Reason, "(rule: "+c.rule+")") {
				t.Errorf("reason = %q, want rule %s", r.Reason, c.rule)
			}
		})
	}
}

// TestWalkDepthBound raises every pre-scan limit so that deep input reaches
// the parser and the walker, and checks the walker's own bound answers.
func TestWalkDepthBound(t *testing.T) {
	opt := Options{MaxBytes: 8 << 20, MaxDepth: 1 << 20, MaxOperators: 1 << 20}
	text := "echo " + strings.Repeat("$(", 5000) + "echo" + strings.Repeat(")", 5000)
	r := Classify(text, opt)
	if r.Safety != Unknown {
		t.Fatalf("5k nested substitutions = %s, want unknown", r.Safety)
	}
	text = strings.Repeat("a|", 20000) + "rm x"
	opt.MaxOperators = 30000
	if r := Classify(text, opt); r.Safety != Write {
		t.Fatalf("20k-stage pipeline ending in rm = %s, want write: %s", r.Safety, r.Reason)
	}
}

func TestPrescan(t *testing.T) {
	for _, c := range []struct {
		text  string
		depth int
		ops   int
	}{
		{"ls", 0, 0},
		{"(ls)", 1, 0},
		{"((ls))", 2, 0},
		{"echo $(a $(b))", 2, 0},
		{"echo '((((('", 0, 0},
		{"echo \"$(a \"$(b)\")\"", 2, 0},
		{"echo ${a:-${b}}", 2, 0},
		{"[[ a ]] && [[ b ]]", 1, 2},
		{"a | b; c & d\ne", 0, 4},
		{"echo ')' ; (ls)", 1, 1},
		{"echo $'\\'' ; (ls)", 1, 1},
		{"if if true; then :; fi; then :; fi", 2, 4},
		{"cat <<E\n((((\nE\n(ls)", 1, 1},
		{"echo `a` `b`", 1, 0},
	} {
		r := facts.Prescan(c.text, facts.Bounds{Depth: 1000, Openers: 1000, Operators: 1000})
		if r.Depth != c.depth || r.Operators != c.ops {
			t.Errorf("prescan(%q) = depth %d ops %d, want %d %d", c.text, r.Depth, r.Operators, c.depth, c.ops)
		}
	}
}

func BenchmarkAdversarial(b *testing.B) {
	for _, c := range adversarialCases() {
		b.Run(strings.ReplaceAll(c.name, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Classify(c.text, c.opt)
			}
		})
	}
}
