package gate

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentexec/agentexec/gate/facts"
	p "github.com/agentexec/agentexec/gate/programs"
)

// listedBareOptions is how a program without a grammar had its options
// listed: each option word without its dashes and, with one dash, each
// letter of it.
func listedBareOptions(args []facts.Word) p.Parsed {
	var out p.Parsed
	for _, a := range args {
		switch {
		case !a.Static || !strings.HasPrefix(a.Value, "-") || a.Value == "-":
		case a.Value == "--":
			return out
		default:
			out.Found = append(out.Found, p.Found{Name: strings.TrimLeft(a.Value, "-"), Long: strings.HasPrefix(a.Value, "--")})
			if !strings.HasPrefix(a.Value, "--") {
				for i := 1; i < len(a.Value); {
					_, n := utf8.DecodeRuneInString(a.Value[i:])
					out.Found = append(out.Found, p.Found{Name: a.Value[i : i+n]})
					i += n
				}
			}
		}
	}
	return out
}

// TestBareOptionsHave: read from the words, a program's options without
// a grammar are the ones the listing had — clusters, long options, `--`
// ending them, "-" and computed words not options.
func TestBareOptionsHave(t *testing.T) {
	w := func(vals ...string) []facts.Word {
		var out []facts.Word
		for _, v := range vals {
			out = append(out, facts.Word{Value: strings.TrimPrefix(v, "$"), Static: !strings.HasPrefix(v, "$")})
		}
		return out
	}
	names := [][]string{{"r"}, {"f"}, {"rf"}, {"recursive"}, {"no-preserve-root"}, {"x"}, {"é"}, {"k", "keep"}, {"-"}, {""}, {"a", "archive"}}
	for _, args := range [][]facts.Word{
		w("-rf", "/"), w("--recursive", "x"), w("--", "-r"), w("-", "-f"), w("$-r", "x"),
		w("---x"), w("-é"), w("--no-preserve-root"), w("-k", "--", "--keep"), w("--=", "-a"), w("x", "-"), nil,
	} {
		want := listedBareOptions(args)
		for _, n := range names {
			if got := bareOptionsHave(args, n); got != want.Has(n...) {
				t.Errorf("%v has %q: %v, the listing says %v", args, n, got, want.Has(n...))
			}
		}
	}
	if !bareOptionsHave(w("-rf"), []string{"r"}) || bareOptionsHave(w("--", "-rf"), []string{"r"}) {
		t.Error("-rf before `--` is -r, after it an operand")
	}
}

// TestBlacklistLeavesWordsAlone: the blacklist reads a call's words as
// its operands without copying them when all are operands (echo's
// thousands); no check may write into them — the tree's words are the
// same after the check as before, for calls with and without options.
func TestBlacklistLeavesWordsAlone(t *testing.T) {
	for _, text := range []string{
		"echo a b c; cp a b c /", "rm x y /; tar xf a.tar b", "git status && git clone https://x/y z",
		"cat a | tee b c", "find . -name x -delete", "mv a b /etc; ln -s a b", "dd if=a of=b", "chmod 777 a b",
	} {
		tree := facts.Build(text, facts.Options{Sub: subCommands})
		var before [][]facts.Word
		for _, c := range tree.Calls {
			before = append(before, append([]facts.Word(nil), c.Argv...))
		}
		Input{Text: text, Cwd: "/work"}.blacklist(tree, Split(text, "bash"), nil)
		for i, c := range tree.Calls {
			for j := range c.Argv {
				if c.Argv[j].Value != before[i][j].Value || c.Argv[j].Static != before[i][j].Static || len(c.Argv) != len(before[i]) {
					t.Fatalf("%q: call %d's words changed: %v → %v", text, i, before[i], c.Argv)
				}
			}
		}
	}
}
