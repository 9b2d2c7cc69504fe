package shellcfg

import (
	"strings"
	"testing"
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
