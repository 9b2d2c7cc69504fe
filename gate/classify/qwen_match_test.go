package classify

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// jsSpace is JavaScript's \s class, as the peer's expressions use it.
const jsSpace = `[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`

// qwenExpressions are the peer's regular expressions (RE2 syntax) beside
// the hand matchers that stand for them in sed.go and awk.go.
var qwenExpressions = []struct {
	name  string
	re    string
	match func(string) bool
}{
	{"sed address", `^` + jsSpace + `*(?:(?:[0-9]+|\$)(?:` + jsSpace + `*,` + jsSpace + `*(?:[0-9]+|\$))?|/(?:\\(?s:.)|[^/\\])*/)?` + jsSpace + `*`, nil},
	{"sed compat", `(?:^|[^\\])[ewr]` + jsSpace, qwenSedCompat},
	{"sed safe option", `^(?:-[nElrsuz]|--(?:quiet|silent|line-length(?:=.*)?))$`, qwenSedSafeOption},
	{"sed attached -e", `^-[nErsuz]*e.+`, qwenSedAttachedE},
	{"sed in place", `^(?:-[nErsuz]*[iI]|--in-place(?:=|$))`, qwenSedInPlace},
	{"sed help", `(?i)^(?:--help|--version)$`, qwenSedHelp},
	{"sed line length", `^(?:-l|--line-length)$`, qwenSedLineLength},
	{"sed file", `^(?:-f|--file(?:=|$))`, qwenSedFile},
	{"sed expression value", `^(?:-e.+|--expression=)`, qwenSedExprValue},
	{"sed long line", `^--line-length(?:=|$)`, qwenSedLongLine},
	{"sed safe flags", `^[0-9gIpM]*$`, qwenSedSafeFlags},
	{"awk write tail", `^(?:"(?:\\(?s:.)|[^"\\])*"|[^">|])*>>?` + jsSpace + `*"[^"]*"` + jsSpace + `*$`, qwenAwkWriteTail},
	{"awk unknown op", `(?:system|close)` + jsSpace + `*\(|getline\b`, qwenAwkUnknownOp},
	{"awk print", `\b(?:print|printf)\b`, qwenAwkPrint},
	{"awk attached", `^-[Fv].+`, qwenAwkAttached},
}

// qwenPieces are what the inputs are made of: every byte the expressions
// name, blanks JavaScript has and ASCII lacks, a lone continuation byte,
// a truncated rune, case-folding look-alikes (ſ folds to s, K to k) and
// the words the expressions spell.
var qwenPieces = []string{
	"", " ", "\t", "\n", "\v", "\r", "\u00a0", "\u2028", "\u2005", "\ufeff", "\u200b", "\x80", "\xe2\x80", "\xff", "ſ", "K", "é",
	"\\", "/", "\"", ">", ">>", "|", ",", "$", "(", "=", "-", "--", "_",
	"0", "7", "e", "w", "r", "i", "I", "f", "F", "v", "n", "E", "l", "s", "u", "z", "g", "p", "M", "x", "S", "H",
	"print", "printf", "system", "close", "getline", "help", "version", "quiet", "silent", "line-length", "in-place",
	"file", "expression", "--help", "--VERSION", "--line-length=", "--in-place", "--file", "--expression=", "-e", "-i", "-n",
}

func qwenInputs(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 18))
	out := []string{}
	for _, a := range qwenPieces {
		for _, b := range qwenPieces {
			out = append(out, a+b)
		}
	}
	for range n {
		var b strings.Builder
		for k := r.IntN(9); k >= 0; k-- {
			b.WriteString(qwenPieces[r.IntN(len(qwenPieces))])
		}
		out = append(out, b.String())
	}
	return out
}

// TestQwenMatchers checks each hand matcher against the expression it
// stands for on every pair of pieces and on random strings of them.
func TestQwenMatchers(t *testing.T) {
	inputs := qwenInputs(1, 300000)
	for _, e := range qwenExpressions {
		re := regexp.MustCompile(e.re)
		bad := 0
		for _, s := range inputs {
			if e.match == nil {
				if got, want := qwenSedAddressLen(s), len(re.FindString(s)); got != want {
					t.Errorf("%s: %q: %d bytes, the expression %d", e.name, s, got, want)
					bad++
				}
			} else if got, want := e.match(s), re.MatchString(s); got != want {
				t.Errorf("%s: %q: %v, the expression %v", e.name, s, got, want)
				bad++
			}
			if bad > 10 {
				t.Fatalf("%s: too many differences", e.name)
			}
		}
	}
}

// FuzzQwenMatchers is TestQwenMatchers on the fuzzer's strings.
func FuzzQwenMatchers(f *testing.F) {
	for _, s := range qwenInputs(2, 200) {
		f.Add(s)
	}
	res := make([]*regexp.Regexp, len(qwenExpressions))
	for i, e := range qwenExpressions {
		res[i] = regexp.MustCompile(e.re)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, e := range qwenExpressions {
			if e.match == nil {
				if got, want := qwenSedAddressLen(s), len(res[i].FindString(s)); got != want {
					t.Fatalf("%s: %q: %d bytes, the expression %d", e.name, s, got, want)
				}
			} else if got, want := e.match(s), res[i].MatchString(s); got != want {
				t.Fatalf("%s: %q: %v, the expression %v", e.name, s, got, want)
			}
		}
	})
}
