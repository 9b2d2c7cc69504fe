package lazy

import (
	"sync"
	"testing"
)

var (
	testSet   = NewSet("a", "bc", "")
	testValue = &Value[map[string]int]{Build: func() map[string]int { return map[string]int{"x": 1} }}
)

func TestSet(t *testing.T) {
	for _, c := range []struct {
		w    string
		want bool
	}{{"a", true}, {"bc", true}, {"", true}, {"b", false}, {"A", false}, {"abc", false}} {
		if got := testSet.Has(c.w); got != c.want {
			t.Errorf("Has(%q) = %v, want %v", c.w, got, c.want)
		}
	}
	if w := testSet.Words(); len(w) != 3 || w[1] != "bc" {
		t.Errorf("Words() = %q", w)
	}
	f := FieldSet(` b  c
		d `)
	if !f.Has("b") || !f.Has("d") || f.Has("") || f.Has(" b") || len(f.Words()) != 3 {
		t.Errorf("FieldSet: %q", f.Words())
	}
	if NewSet().Has("") {
		t.Errorf("an empty set has the empty word")
	}
}

func TestValueBuildsOnce(t *testing.T) {
	n := 0
	v := &Value[int]{Build: func() int { n++; return 7 }}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); _ = v.Get() }()
	}
	wg.Wait()
	if v.Get() != 7 || n != 1 {
		t.Errorf("Get() = %d after %d builds, want 7 after 1", v.Get(), n)
	}
	if testValue.Get()["x"] != 1 {
		t.Errorf("package-level value not built")
	}
}

func TestValuePanicsAgain(t *testing.T) {
	v := &Value[int]{Build: func() int { panic("broken table") }}
	for i := range 2 {
		func() {
			defer func() {
				if p := recover(); p != "broken table" {
					t.Errorf("call %d: recovered %v, want the build's panic", i, p)
				}
			}()
			v.Get()
			t.Errorf("call %d: Get returned", i)
		}()
	}
}
