package jsonpos

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// FieldError is a value that does not fit the schema: an unknown key or a
// value of the wrong type, named by its path and line.
type FieldError struct {
	Path string // dotted path, "" for the top level
	Line int
	Msg  string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// Check walks v against the Go type t (a struct with json tags, as
// encoding/json reads it) and returns the first key t does not have, with
// the nearest known key suggested, or the first value of the wrong JSON
// type. Types implementing json.Unmarshaler accept any value (their own
// decoding reports errors); map keys are free.
func Check(data []byte, v *Value, t reflect.Type) error {
	c := checker{data: data}
	return c.walk(v, t, "")
}

type checker struct{ data []byte }

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

func (c checker) walk(v *Value, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		if v.Kind == Null {
			return nil
		}
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshaler) || t.Kind() == reflect.Interface {
		return nil
	}
	want := kindOf(t)
	if v.Kind == Null && (want == Object || want == Array) {
		return nil
	}
	if v.Kind != want {
		return c.errf(v.Offset, path, "%s: want %s, got %s", where(path), want, v.Kind)
	}
	switch t.Kind() {
	case reflect.Struct:
		return c.walkStruct(v, t, path)
	case reflect.Map:
		for _, m := range v.Members {
			if err := c.walk(m.Value, t.Elem(), join(path, m.Key)); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i, it := range v.Items {
			if err := c.walk(it, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c checker) walkStruct(v *Value, t reflect.Type, path string) error {
	fields := structFields(t)
	for _, m := range v.Members {
		ft, ok := fields[m.Key]
		if !ok {
			return c.unknown(m, fields, path)
		}
		if err := c.walk(m.Value, ft, join(path, m.Key)); err != nil {
			return err
		}
	}
	return nil
}

func (c checker) unknown(m Member, fields map[string]reflect.Type, path string) error {
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	msg := fmt.Sprintf("unknown key %q %s", m.Key, at(path))
	if s := Nearest(m.Key, names); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	} else {
		sort.Strings(names)
		msg += fmt.Sprintf(" (known keys: %s)", strings.Join(names, ", "))
	}
	return c.errf(m.KeyOffset, join(path, m.Key), "%s", msg)
}

func (c checker) errf(off int, path, format string, args ...any) error {
	return &FieldError{Path: path, Line: Line(c.data, off), Msg: fmt.Sprintf(format, args...)}
}

// structFields maps each JSON key of t to its field type ("-" skipped).
func structFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			for k, v := range structFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

func kindOf(t reflect.Type) Kind {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return Object
	case reflect.Slice, reflect.Array:
		return Array
	case reflect.String:
		return String
	case reflect.Bool:
		return Bool
	}
	return Number
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func where(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

func at(path string) string {
	if path == "" {
		return "at top level"
	}
	return "in " + path
}

// Nearest returns the candidate closest to s by edit distance (case
// folded), or "" when none is close enough to be a plausible typo.
func Nearest(s string, candidates []string) string {
	best, bestD := "", 0
	for _, c := range candidates {
		d := distance(strings.ToLower(s), strings.ToLower(c))
		if best == "" || d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	limit := max(2, len(s)/3)
	if best == "" || bestD > limit {
		return ""
	}
	return best
}

// distance is the Damerau–Levenshtein (optimal string alignment) distance,
// so that a swap of two letters ("mdoe") counts as one edit.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
