package facts

import (
	"os/exec"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// A word Static calls static has the value bash gives it; a word whose
// value bash changes (a tilde it expands, a brace that expands) is not
// static. Confirmed by running bash on each word.
func TestStaticAgreesWithBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to confirm against:", err)
	}
	words := []string{
		"HEAD~1", "a=~", "a+=~", "a[1]=~", "_a=x:~", "a='q':~", "b:~", "--opt=~/z", "1a=~",
		"x=y", "{}", "{x}", "{a,b}", "{1..3}", "a{b}c", "file.{go,txt}", "~", "~/x", "a~b",
		"'~'", `\~`, "plain", "-la", "src/*.go", "a:b:c", "=~", "a=b=~",
	}
	for _, w := range words {
		f, err := syntax.NewParser().Parse(strings.NewReader("printf '%s\\n' "+w), "")
		if err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		word := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[2]
		v, ok := Static(word)
		cmd := exec.Command(bash, "-c", "printf '%s\\n' "+w)
		cmd.Env = []string{"HOME=/home/someone", "PATH=/usr/bin:/bin"}
		cmd.Dir = t.TempDir() // no file matches a glob: it stays as written
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash on %s: %v", w, err)
		}
		got := strings.TrimSuffix(string(out), "\n")
		if ok && v != got {
			t.Errorf("Static(%s) = %q, static, but bash gives %q", w, v, got)
		}
		if !ok && !strings.Contains(got, "\n") && !strings.Contains(got, "/home/someone") {
			// Not static although bash gives one unchanged word: allowed
			// (stricter), but note the words this test expects to be plain.
			for _, plain := range []string{"HEAD~1", "b:~", "--opt=~/z", "1a=~", "{}", "{x}", "a{b}c", "a~b", "plain", "-la", "src/*.go", "a:b:c"} {
				if w == plain {
					t.Errorf("Static(%s) not static; bash gives %q unchanged", w, got)
				}
			}
		}
	}
}

// HasGlob agrees with bash on which words are patterns: under failglob,
// bash refuses a pattern that matches nothing, and runs a word that is
// not one. A word HasGlob or Static does not call plain is stricter, and
// allowed; a plain word bash reads as a pattern is a defect, and so is a
// pattern claim on the words every agent writes (`[ -f x ]`).
func TestHasGlobAgreesWithBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to confirm against:", err)
	}
	words := map[string]bool{
		"[": false, "[[": false, "]": false, "[a": false, "a]": false, "]a[": false,
		`'['a]`: false, `[a"]"`: false, `"["a]`: false, `\[a]`: true, "x[": false,
		"[a]": true, "[]]": true, `["a"]`: true, "[!a]": true, "a*": true, "?": true,
		"[$x": true, "[${x}": true, "[$(echo a])": true, "@(a|b)": true, "[a]b[": true,
	}
	for w, want := range words {
		f, err := syntax.NewParser(syntax.KeepComments(false)).Parse(strings.NewReader("printf '%s\\n' "+w), "")
		if err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		word := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[2]
		got := HasGlob(word)
		if got != want {
			t.Errorf("HasGlob(%s) = %v, want %v", w, got, want)
		}
		cmd := exec.Command(bash, "-O", "extglob", "-O", "failglob", "-c", "x='a]'; printf '%s\\n' "+w)
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		cmd.Dir = t.TempDir() // nothing matches: a pattern fails
		pattern := cmd.Run() != nil
		if _, static := Static(word); pattern && !got && static {
			t.Errorf("bash reads %s as a pattern; HasGlob and Static call it plain", w)
		}
		if pattern && !want {
			t.Errorf("bash reads %s as a pattern; the table says it is not", w)
		}
		if !pattern && want {
			t.Logf("%s: bash does not read it as a pattern; HasGlob is stricter", w)
		}
	}
}

// plainLitSpec is plainLit as its doc comment says it, with the standard
// library's string functions: the one-pass loop must agree with it.
func plainLitSpec(v string) bool {
	if v == "" || v[0] == '~' || strings.ContainsAny(v, "\\$'\"`") {
		return false
	}
	if strings.Contains(v, "=~") || strings.Contains(v, ":~") {
		return false
	}
	return !strings.ContainsAny(v, "{}") || !strings.Contains(v, ",") && !strings.Contains(v, "..")
}

// TestPlainLit: each rule of plainLit in both directions.
func TestPlainLit(t *testing.T) {
	for v, want := range map[string]bool{
		"": false, "x": true, "~": false, "~/x": false, "a~b": true, "HEAD~1": true,
		"a=~": false, "PATH=a:~/b": false, "a\\b": false, "$x": false, "a'b": false, `a"b`: false, "a`b": false,
		"{}": true, "{x}": true, "{a,b}": false, "{1..3}": false, "a,b": true, "a..b": true, "{a.b}": true,
		"x.": true, "..": true, "{.}": true, "{..": false,
	} {
		if got := plainLit(v); got != want {
			t.Errorf("plainLit(%q) = %v, want %v", v, got, want)
		}
		if got := plainLitSpec(v); got != want {
			t.Errorf("plainLitSpec(%q) = %v, want %v", v, got, want)
		}
	}
}

// FuzzPlainLit holds the one-pass plainLit and hasGlobByte to their
// specifications.
func FuzzPlainLit(f *testing.F) {
	for _, s := range []string{"x", "a=~", "{a,b}", "{1..3}", "HEAD~1", "a*b", "[x]", "a\\b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if plainLit(v) != plainLitSpec(v) {
			t.Errorf("plainLit(%q) = %v, spec %v", v, plainLit(v), plainLitSpec(v))
		}
		if hasGlobByte(v) != strings.ContainsAny(v, "*?[") {
			t.Errorf("hasGlobByte(%q) = %v", v, hasGlobByte(v))
		}
	})
}

// FuzzPrescanPerByte holds the claim Parse's shortcut rests on: Prescan's
// counts grow by at most one per byte, so a text no longer than the least
// bound is never over the bounds.
func FuzzPrescanPerByte(f *testing.F) {
	for _, s := range []string{"$(((", "${{{", "[[ [[", "if if if", "time coproc time", "a;b|c&d\n", "<<E\nx\nE\n", "`a`b`", "$'a\\'b'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		huge := Bounds{Depth: 1 << 30, Openers: 1 << 30, Operators: 1 << 30}
		b := Prescan(text, huge)
		if b.Depth > len(text) || b.Openers > len(text) || b.Operators > len(text) {
			t.Errorf("%q (%d bytes): %+v", text, len(text), b)
		}
	})
}

// TestPrescanShortcut: a text at the least bound parses without a scan, one
// byte more is scanned and refused when over.
func TestPrescanShortcut(t *testing.T) {
	lim := Limits(0, 0)
	n := lim.Least()
	k := (n - 4) / 2
	if _, err := Parse(strings.Repeat("(", k)+"true"+strings.Repeat(")", k), false); err != nil {
		t.Errorf("%d bytes of nesting within the bounds: %v", n, err)
	}
	deep := strings.Repeat("(", lim.Depth+1) + "true" + strings.Repeat(")", lim.Depth+1)
	if _, err := Parse(deep, false); err != ErrTooDeep {
		t.Errorf("nesting of %d: %v, want ErrTooDeep", lim.Depth+1, err)
	}
}

// TestMaySplit: which words bash may make several words (or none) of.
func TestMaySplit(t *testing.T) {
	for w, want := range map[string]bool{
		"$x": true, "${x}": true, "a$x": true, "$(x)": true, "`x`": true, "$((1))": true,
		"{a,b}": true, "a*": true, "[ab]": true,
		`"$x"`: false, `"$(x)"`: false, "plain": false, "'$x'": false, "{a}": false, "[": false, "~": false,
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader("echo "+w), "")
		if err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		if got := MaySplit(f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]); got != want {
			t.Errorf("MaySplit(%s) = %v, want %v", w, got, want)
		}
	}
}
