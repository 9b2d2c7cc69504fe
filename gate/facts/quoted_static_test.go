package facts

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentexec/agentexec/internal/corpus"
)

// TestQuotedStaticIsExpand: the quote-removal shortcut gives the value
// expand gives, for every word it takes — quoted forms of every kind, near
// misses it must leave to expand (a tilde, braces, a backslash, $"…",
// $'…', an expansion), and every word of the agent corpus — and it takes
// the common quoted words.
func TestQuotedStaticIsExpand(t *testing.T) {
	texts := []string{
		`git commit -m "fix: the thing" 'a b' x"y"z "" '' a=" ~/x" --opt='{a,b}' "*.go" 'it''s' "a$"`,
		`echo "~" '~' a"~" ~"x" x~"y" {a,b}"c" "a\"b" 'a\b' a\ "b" $"loc" $'a\tb' "$x" "a$(b)" 'x'$y a=~"/x" "a"'b'"c"`,
	}
	cmds, err := corpus.AgentCommands()
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts, cmds...)
	taken := map[string]bool{}
	for _, text := range texts {
		f, err := syntax.NewParser().Parse(strings.NewReader(text), "")
		if err != nil {
			continue
		}
		syntax.Walk(f, func(n syntax.Node) bool {
			w, ok := n.(*syntax.Word)
			if !ok {
				return true
			}
			src := text[w.Pos().Offset():w.End().Offset()]
			if v, ok := quotedStatic(w); ok {
				taken[src] = true
				if want, wok := staticExpand(w); !wok || want != v {
					t.Errorf("%s: shortcut %q, expand %q (%v)", src, v, want, wok)
				}
			}
			return true
		})
	}
	for _, src := range []string{`"fix: the thing"`, `'a b'`, `x"y"z`, `""`, `--opt='{a,b}'`, `"a"'b'"c"`} {
		if !taken[src] {
			t.Errorf("%s: left to expand", src)
		}
	}
	for _, src := range []string{`~"x"`, `x~"y"`, `{a,b}"c"`, `"a\"b"`, `$"loc"`, `$'a\tb'`, `"$x"`, `a=~"/x"`, `a\ "b"`} {
		if taken[src] {
			t.Errorf("%s: taken by the shortcut", src)
		}
	}
}
