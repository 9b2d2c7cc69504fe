package shellcfg

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestScan(t *testing.T) {
	tests := []struct {
		text string
		want []Suspicious
	}{
		{"ls -la\n\tpwd", nil},
		{"echo é 日本 😀 \ufffd", nil},
		{"a\rb", []Suspicious{{1, '\r', NameLoneCR}}},
		{"a\r", []Suspicious{{1, '\r', NameLoneCR}}},
		{"a\r\nb\r\r\n", []Suspicious{{1, '\r', NameCRLF}, {4, '\r', NameLoneCR}, {5, '\r', NameCRLF}}},
		{"\v\f", []Suspicious{{0, '\v', NameVT}, {1, '\f', NameFF}}},
		{"\x1b[2K", []Suspicious{{0, 0x1b, NameESC}}},
		{"\x01\x08\x7f", []Suspicious{{0, 1, NameControl}, {1, 8, NameControl}, {2, 0x7f, NameControl}}},
		{"\x00", []Suspicious{{0, 0, NameControl}}},
		{"\u0085\u0080\u009f", []Suspicious{{0, 0x85, NameNEL}, {2, 0x80, NameControl}, {4, 0x9f, NameControl}}},
		{"rm\u00a0-rf", []Suspicious{{2, 0xa0, NameNBSP}}},
		{"\u2000\u2009\u202f\u205f\u3000\u1680", []Suspicious{{0, 0x2000, NameUnicodeSpace}, {3, 0x2009, NameUnicodeSpace},
			{6, 0x202f, NameUnicodeSpace}, {9, 0x205f, NameUnicodeSpace}, {12, 0x3000, NameUnicodeSpace}, {15, 0x1680, NameUnicodeSpace}}},
		{"a\u2028b\u2029", []Suspicious{{1, 0x2028, NameLineSep}, {5, 0x2029, NameParaSep}}},
		{"\u200b\u200c\u200d\u2060\ufeff", []Suspicious{{0, 0x200b, NameZeroWidth}, {3, 0x200c, NameZeroWidth},
			{6, 0x200d, NameZeroWidth}, {9, 0x2060, NameZeroWidth}, {12, 0xfeff, NameZeroWidth}}},
		{"\u202ex\u2066\u200e\u061c", []Suspicious{{0, 0x202e, NameBidi}, {4, 0x2066, NameBidi}, {7, 0x200e, NameBidi}, {10, 0x061c, NameBidi}}},
		{"\u00ad\U000e0041\u180e", []Suspicious{{0, 0xad, NameFormat}, {2, 0xe0041, NameFormat}, {6, 0x180e, NameFormat}}},
		{"\u3164\u2800", []Suspicious{{0, 0x3164, NameFiller}, {3, 0x2800, NameFiller}}},
		{"a\xffb\xc3", []Suspicious{{1, utf8.RuneError, NameInvalidUTF8}, {3, utf8.RuneError, NameInvalidUTF8}}},
	}
	for _, tt := range tests {
		if got := Scan(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Scan(%q)\n got %+v\nwant %+v", tt.text, got, tt.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ text, want string }{
		{"ls -la\n", "ls -la\n"},
		{"rm\u00a0-rf\u2009/", "rm -rf /"},
		{"rm -rf /\rls", "rm -rf / ls"},
		{"a\r\nb", "a \nb"},
		{"r\u200bm -r\u202ef", "r m -r f"},
		{"\x1b[31mx", " [31mx"},
		{"a\xff\xfeb", "a  b"},
		{"\t\u3000\u2028", "\t  "},
		{"é日本", "é日本"},
	}
	for _, tt := range tests {
		if got := Normalize(tt.text); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestNormalizeNoAlloc checks that clean text comes back without a copy:
// Normalize runs on every command.
func TestNormalizeNoAlloc(t *testing.T) {
	text := "git status && go test ./..."
	if n := testing.AllocsPerRun(10, func() { _ = Normalize(text) }); n != 0 {
		t.Errorf("Normalize of clean text allocates %v times", n)
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range []string{"", "ls", "a\r\nb\rc", "\u202erm\u200b", "\xff\xc3", "\u00a0\u3000\x1b\x85",
		"\xc2\x85", "\u2028\u2029", "\U000e0001", "\r", "\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		found := Scan(text)
		norm := Normalize(text)
		checkScan(t, text, found, norm)
		if len(Scan(norm)) != 0 {
			t.Errorf("Normalize(%q) = %q still has suspicious characters: %+v", text, norm, Scan(norm))
		}
		if (Validate(text) == nil) && strings.TrimSpace(norm) == "" {
			t.Errorf("Validate(%q) passed a text that normalizes to blanks", text)
		}
	})
}

// checkScan checks Scan's findings against text and Normalize's output:
// offsets increase and are in range, each finding is the rune at its
// offset, and norm has a space at each finding and the original rune
// everywhere else.
func checkScan(t *testing.T, text string, found []Suspicious, norm string) {
	t.Helper()
	if got, want := runeCount(norm), runeCount(text); got != want {
		t.Fatalf("Normalize(%q) = %q has %d runes, want %d", text, norm, got, want)
	}
	at := map[int]Suspicious{}
	last := -1
	for _, s := range found {
		if s.Offset <= last || s.Offset >= len(text) || s.Name == "" {
			t.Fatalf("Scan(%q): bad finding %+v after offset %d", text, s, last)
		}
		if r, _ := utf8.DecodeRuneInString(text[s.Offset:]); r != s.Rune {
			t.Fatalf("Scan(%q): finding %+v, but the rune there is %U", text, s, r)
		}
		last = s.Offset
		at[s.Offset] = s
	}
	n := 0
	for off := 0; off < len(text); n++ {
		r, size := utf8.DecodeRuneInString(text[off:])
		nr, nsize := utf8.DecodeRuneInString(norm)
		_, bad := at[off]
		if (bad && nr != ' ') || (!bad && (nr != r || norm[:nsize] != text[off:off+size])) {
			t.Fatalf("Normalize(%q) = %q: rune %d is %q, original %q, suspicious %v", text, norm, n, nr, r, bad)
		}
		off += size
		norm = norm[nsize:]
	}
}

// runeCount counts runes, each invalid byte as one, as range does.
func runeCount(s string) int {
	n := 0
	for range s {
		n++
	}
	return n
}

func BenchmarkScan(b *testing.B) {
	clean := strings.Repeat("git log --oneline | grep -v fixup && go test ./... ; ", 20)
	dirty := strings.Repeat("rm\u00a0-rf \u202e/ \u200b; echo\r\n", 50)
	for _, c := range []struct{ name, text string }{{"clean", clean}, {"dirty", dirty}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				_ = Scan(c.text)
			}
		})
		b.Run(c.name+"/Normalize", func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				_ = Normalize(c.text)
			}
		})
	}
}
