package programs

import "testing"

// TestFamilyLowerLettersAlone: a name of lower-case letters only has no
// other spelling, so Family's shortcut for it returns what the full list
// of spellings would; the near misses take the long way and still find
// their program.
func TestFamilyLowerLettersAlone(t *testing.T) {
	for _, n := range []string{"a", "zz", "frobnicate", "gitx", "python", "ls"} {
		if !lowerLetters(n) {
			t.Fatalf("%q: not read as lower-case letters", n)
		}
		if got := familyNames(n); len(got) != 1 {
			t.Errorf("%q: familyNames lists %q, the shortcut assumes only the name", n, got)
		}
	}
	for n, want := range map[string]string{"Python3": "python3", "python3.12": "python3", "bash.exe": "bash", "node20": "node", "php8.3-cli": "php"} {
		if lowerLetters(n) {
			t.Errorf("%q: read as lower-case letters only", n)
		}
		if p := Family(n); p == nil || p != Lookup(want) {
			t.Errorf("Family(%q) = %v, want %s's entry", n, p, want)
		}
	}
}
