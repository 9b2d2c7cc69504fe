package gate

import (
	"strings"
	"testing"
)

// normalizeBlanksRef is normalizeBlanks without its no-copy fast path: the
// fast path must never change the result.
func normalizeBlanksRef(s string) string {
	s = strings.ReplaceAll(s, "\\\n", "")
	s = strings.Trim(s, " \t")
	var b strings.Builder
	var quote byte
	blank := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote == 0 && (c == ' ' || c == '\t') {
			blank = true
			continue
		}
		if blank {
			b.WriteByte(' ')
			blank = false
		}
		var n int
		quote, n = quoteStep(s, i, quote)
		b.WriteString(s[i : i+n])
		i += n - 1
	}
	return b.String()
}

func FuzzNormalizeBlanks(f *testing.F) {
	for _, s := range []string{"", "ls", " ls  -la\t", "grep \"a  b\"  c", "echo 'x\t y'  z", "a \\\n b",
		"echo $'a\\'  b'  c", "x\\  y", "\"unclosed  a", "a\t", "a \t b", "$(a  b)  c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := normalizeBlanks(s), normalizeBlanksRef(s); got != want {
			t.Fatalf("normalizeBlanks(%q) = %q, want %q", s, got, want)
		}
	})
}
