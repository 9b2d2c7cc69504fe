package gate

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// globCases pair a rule pattern with candidates, each matched or not.
var globCases = []struct {
	pat     string
	m       Meaning
	match   []string
	nomatch []string
}{
	{"git push *", Exact, []string{"git push", "git push origin main", "git push \n x"}, []string{"git pushx", "git pus", "xgit push", "git  push"}},
	{"npm run build", Exact, []string{"npm run build"}, []string{"npm run build x", "npm run buil"}},
	{"git status", Prefix, []string{"git status", "git status -s"}, []string{"git statusx", "git"}},
	{"rm *", Exact, []string{"rm", "rm -rf /"}, []string{"rmdir x"}},
	{"git * main", Exact, []string{"git push main", "git a b main"}, []string{"git push main x", "git main"}},
	{"docker * --rm *", Exact, []string{"docker run --rm x", "docker run --rm", "docker a --rm b --rm"}, []string{"docker run --rmx y"}},
	{"a*b*a", Exact, []string{"aba", "abba", "a b a", "abab a"}, []string{"ab", "abab"}},
	{"x*", Exact, []string{"x", "xyz", "x\ny"}, []string{"y"}},
	{"make *test", Exact, []string{"make test", "make unit-test", "make a test"}, []string{"make tests", "make test x"}},
	{"ls * *", Exact, []string{"ls -la", "ls a b", "ls "}, []string{"lsx", "ls"}},
}

// The glob matcher matches exactly what the pattern's regexp matches.
func TestGlobPatternMatchesRegexp(t *testing.T) {
	for _, c := range globCases {
		g, re := newGlobPattern(c.pat, c.m), compilePattern(c.pat, c.m)
		for _, s := range c.match {
			if !g.match(s) || !re.MatchString(s) {
				t.Errorf("%q (%s) against %q: glob %v, regexp %v, want both true", c.pat, c.m, s, g.match(s), re.MatchString(s))
			}
		}
		for _, s := range c.nomatch {
			if g.match(s) || re.MatchString(s) {
				t.Errorf("%q (%s) against %q: glob %v, regexp %v, want both false", c.pat, c.m, s, g.match(s), re.MatchString(s))
			}
		}
	}
}

func FuzzGlobPattern(f *testing.F) {
	for _, c := range globCases {
		for _, s := range append(c.match, c.nomatch...) {
			f.Add(c.pat, s, c.m == Prefix)
		}
	}
	f.Fuzz(func(t *testing.T, pat, s string, prefix bool) {
		pat = strings.TrimSpace(pat)
		if pat == "" || strings.ContainsAny(pat, "\x00\r\n") || !utf8.ValidString(pat) || !utf8.ValidString(s) {
			return // rules and commands are valid UTF-8 by the time they meet
		}
		m := Exact
		if prefix {
			m = Prefix
		}
		s = normalizeBlanks(s)
		g, re := newGlobPattern(pat, m), compilePattern(pat, m)
		if got, want := g.match(s), re.MatchString(s); got != want {
			t.Fatalf("%q (%s) against %q: glob %v, regexp %v", pat, m, s, got, want)
		}
	})
}

// compilePattern turns a command pattern into an anchored regexp: the
// reference the glob matcher is held to (it was the matcher once). A
// trailing " *" (and, with the Prefix meaning, a pattern without any "*")
// matches at a word boundary: the bare prefix, or the prefix, a blank and
// anything. With the Exact meaning a pattern without "*" is the whole
// command.
func compilePattern(pat string, m Meaning) *regexp.Regexp {
	pat = normalizeBlanks(pat)
	var b strings.Builder
	b.WriteString(`(?s)^`)
	switch {
	case !strings.Contains(pat, "*") && m != Prefix:
		b.WriteString(regexp.QuoteMeta(pat))
	case !strings.Contains(pat, "*"):
		b.WriteString(regexp.QuoteMeta(pat))
		b.WriteString(`(?: .*)?`)
	case strings.HasSuffix(pat, " *"):
		writeGlob(&b, strings.TrimSuffix(pat, " *"))
		b.WriteString(`(?: .*)?`)
	default:
		writeGlob(&b, pat)
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}

func writeGlob(b *strings.Builder, pat string) {
	for i, part := range strings.Split(pat, "*") {
		if i > 0 {
			b.WriteString(`.*`)
		}
		b.WriteString(regexp.QuoteMeta(part))
	}
}
