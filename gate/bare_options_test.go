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
