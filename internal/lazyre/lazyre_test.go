package lazyre

import "testing"

func TestLazy(t *testing.T) {
	r := New(`^a+b$`)
	if !r.MatchString("aab") || r.MatchString("ab ") || r.FindString("xx") != "" || r.ReplaceAllString("aab", "x") != "x" {
		t.Errorf("the lazy expression does not behave as regexp does")
	}
	if got := New(`(\d+)-(\d+)`).FindStringSubmatch("a 12-34"); len(got) != 3 || got[2] != "34" {
		t.Errorf("FindStringSubmatch: %q", got)
	}
	if Check(New(`ok`), New(`(`)) == nil {
		t.Errorf("Check passed a bad pattern")
	}
}

func TestBadPatternPanicsAtEveryUse(t *testing.T) {
	r := New(`(`)
	for i := range 2 {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("use %d of a bad pattern did not panic", i)
				}
			}()
			r.MatchString("x")
		}()
	}
}
