package classify

import (
	"fmt"
	"github.com/agentexec/agentexec/gate/facts"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// mayMultiField reports whether a word can expand to a number of words
// other than one: an unquoted parameter, command or arithmetic expansion
// (field splitting on IFS, then globbing), a glob, a brace expansion, or
// "$@"-style expansions inside double quotes. Only double-quoted
// expansions that yield one string, literals and single quotes are one
// word.
func mayMultiField(wd *syntax.Word) bool {
	if facts.HasGlob(wd) {
		return true
	}
	for _, p := range wd.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsRune(p.Value, '{') {
				return true
			}
		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if pe, ok := q.(*syntax.ParamExp); ok && paramMayMulti(pe) {
					return true
				}
			}
		default:
			return true
		}
	}
	return false
}

// paramMayMulti reports a parameter expansion that yields several words
// even inside double quotes: $@, ${a[@]}, ${!prefix@} and their forms.
func paramMayMulti(pe *syntax.ParamExp) bool {
	if pe.Param != nil && pe.Param.Value == "@" {
		return true
	}
	if pe.Names != 0 {
		return true
	}
	if pe.Index != nil {
		if w, ok := pe.Index.(*syntax.Word); ok {
			if v, ok := facts.Static(w); ok && v == "@" {
				return true
			}
		} else {
			return true
		}
	}
	return false
}

// testSplitRisk refuses test and [ when a computed argument may become
// several words: the argument count, and so which words are operators,
// is then unknown, and `x=-v y='a[$(cmd)]'; test $x $y` (or `test $y`
// with y='-v a[$(cmd)]') has bash evaluate the subscript, running cmd
// (confirmed under bash in TestTestSplitConfirm). A nil multi (an argv
// built without words) counts every computed argument.
func testSplitRisk(a argv) (finding, bool) {
	for i, d := range a.dyn {
		if d && (a.multi == nil || a.multi[i]) {
			return finding{Unknown, "test-split", fmt.Sprintf("an unquoted expansion in `%s` may become several words, such as `-v a[$(cmd)]`, which runs cmd", a.name)}, true
		}
	}
	return finding{}, false
}
