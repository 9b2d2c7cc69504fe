package exec

import (
	"maps"
	"testing"
)

// TestInheritedEnvKept checks the kept answer of inheritedEnv against the
// matching itself, call after call, as inputs repeat and change: another
// variable, a value changed in the caller's own slice, another mode or
// exclusion list; and that a caller changing its map changes no later
// answer.
func TestInheritedEnvKept(t *testing.T) {
	base := []string{"PATH=/bin", "HOME=/root", "GITHUB_TOKEN=t", "LC_ALL=C", "EDITOR=vi", "NOEQUALS"}
	other := append([]string{"MY_SECRET=s", "USER=u"}, base...)
	excl := []string{"*_TOKEN", "*SECRET*"}
	steps := []struct {
		name    string
		base    []string
		mode    string
		exclude []string
	}{
		{"first", base, "", excl},
		{"same again", base, "", excl},
		{"another variable", other, "", excl},
		{"back", base, "", excl},
		{"core", base, "core", excl},
		{"none", base, "none", excl},
		{"nothing excluded", base, "", nil},
		{"another exclusion", base, "", []string{"PATH"}},
		{"same again 2", base, "", []string{"PATH"}},
	}
	for _, s := range steps {
		for i := range 2 { // the second call is answered from the kept set
			got := inheritedEnv(s.base, s.mode, s.exclude)
			if want := filterEnv(s.base, s.mode, s.exclude); !maps.Equal(got, want) {
				t.Errorf("%s, call %d: %v, want %v", s.name, i+1, got, want)
			}
			got["INJECTED"] = "x" // the caller's map: no later answer has it
		}
	}
	inheritedEnv(base, "", excl)
	base[1] = "HOME=/changed" // the same slice, another value
	if got := inheritedEnv(base, "", excl); got["HOME"] != "/changed" {
		t.Errorf("after the caller changed its slice: %v", got)
	}
}
