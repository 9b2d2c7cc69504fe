package gate

import (
	"strconv"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/gate/facts"
	"github.com/agentexec/agentexec/shellcfg"
)

// TestWholeTextSpelled holds evalRules' shortcut: a text that is its first
// segment has its whole-text candidate spelled already, first.
func TestWholeTextSpelled(t *testing.T) {
	for _, text := range append(agentCorpus(t), "  ls  -l ", "a\tb", "x=1 git push", "echo $(rm -rf /)") {
		seg := Split(text, shellcfg.Bash)
		if len(seg.Segments) == 0 || seg.Segments[0] != text {
			continue
		}
		cands, _ := strictCandidates(seg.Segments, facts.Build(text, facts.Options{Sub: subCommands}))
		if len(cands) == 0 || cands[0] != (spelling{text: normalizeBlanks(text)}) {
			t.Errorf("%q: candidates %v do not start with the whole text", text, cands)
		}
	}
}

// TestQuote holds quote to strconv.Quote.
func TestQuote(t *testing.T) {
	for _, s := range []string{"", "git push origin main", `a "b"`, `a\b`, "tab\there", "new\nline", "é", "\x7f", "\x1f", "~!@#$%^&*()_+{}|:<>?`-=[];',./", "\xff"} {
		if got, want := quote(s), strconv.Quote(s); got != want {
			t.Errorf("quote(%q) = %s, strconv.Quote %s", s, got, want)
		}
	}
}

// TestTrimBlanks holds trimBlanks and trimLeftBlanks to strings.Trim and
// strings.TrimLeft with the cutset " \t".
func TestTrimBlanks(t *testing.T) {
	for _, s := range []string{"", " ", "\t", " \t a b \t ", "a", "\u00a0a\u00a0", " \xff ", "\t\tx\t", "x  "} {
		if got, want := trimBlanks(s), strings.Trim(s, " \t"); got != want {
			t.Errorf("trimBlanks(%q) = %q, want %q", s, got, want)
		}
		if got, want := trimLeftBlanks(s), strings.TrimLeft(s, " \t"); got != want {
			t.Errorf("trimLeftBlanks(%q) = %q, want %q", s, got, want)
		}
	}
}
