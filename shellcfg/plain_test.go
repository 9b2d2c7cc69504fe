package shellcfg

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The word-at-a-time test agrees with the byte loop for every byte value
// at every place in a word and in the tail.
func TestPlainASCIIWordAtATime(t *testing.T) {
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 19; pos++ {
			b := []byte(strings.Repeat("a", 19))
			b[pos] = byte(c)
			s := string(b)
			if got, want := plainASCII(s), plainBytes(s); got != want {
				t.Fatalf("byte %#x at %d: plainASCII %v, byte loop %v", c, pos, got, want)
			}
		}
	}
	for _, s := range []string{"", "ls -la\n\tx", "echo \x7f", "caf\xc3\xa9 latte", "abcdefg\x01", "\x1f"} {
		if got, want := plainASCII(s), plainBytes(s); got != want {
			t.Errorf("%q: plainASCII %v, byte loop %v", s, got, want)
		}
	}
}

// TestValidatePlainShortcut holds Validate's plain-ASCII shortcut to the
// full reading it skips, over texts of every byte value in a few places.
func TestValidatePlainShortcut(t *testing.T) {
	full := func(text string) error {
		for off := 0; off < len(text); {
			r, size := utf8.DecodeRuneInString(text[off:])
			switch {
			case r == 0:
				return textError(ErrNUL, off)
			case r == utf8.RuneError && size == 1:
				return textError(ErrInvalidUTF8, off)
			}
			off += size
		}
		if strings.TrimSpace(Normalize(text)) == "" {
			return textError(ErrEmpty, 0)
		}
		return nil
	}
	texts := []string{"", " ", "\t\n", "ls -la", "  \n\t ", "echo \u00a0", "\u00a0", "caf\xc3\xa9"}
	for c := 0; c < 256; c++ {
		for _, pos := range []int{0, 3, 9} {
			b := []byte("  ls -la  ")
			b[pos] = byte(c)
			texts = append(texts, string(b), string(b[pos:pos+1]))
		}
	}
	for _, s := range texts {
		got, want := Validate(s), full(s)
		if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
			t.Errorf("Validate(%q) = %v, the full reading %v", s, got, want)
		}
	}
}
