package jsonpos

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseErrorsNameLineAndColumn(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		opt      Options
	}{
		{"{\n  \"mode\": \"plan\",\n  \"permissions\": {\"allow\": [\"Bash(ls)\"],}\n}\n", "line 3, column 41: a comma before the closing brace", Options{}},
		{"{\"a\": [1,]}", "line 1, column 10: a comma before the closing bracket", Options{}},
		{"{\"a\" 1}", "line 1, column 6: unexpected '1' after the key \"a\"", Options{}},
		{"// c\n{}", "line 1, column 1: comments are not allowed", Options{}},
		{"", "the file is empty", Options{}},
		{"{} x", "line 1, column 4: unexpected text after", Options{}},
		{"{\"a\": \"x\ny\"}", "line 1, column 9: a control character", Options{}},
		{"{\"a\": /* open", "line 1, column 7: unterminated /* comment", Options{Comments: true}},
	} {
		_, err := Parse([]byte(tt.in), tt.opt)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestParseCommentsAndPositions(t *testing.T) {
	in := "// team settings\n{\n  \"a\": [\"x\", /* why */ \"y\"],\n  \"b\": {\"c\": 1.5e3, \"d\": null, \"e\": true}\n}\n"
	v, err := Parse([]byte(in), Options{Comments: true})
	if err != nil {
		t.Fatal(err)
	}
	a := v.Get("a")
	if a == nil || len(a.Items) != 2 || a.Items[1].Str != "y" || Line([]byte(in), a.Items[1].Offset) != 3 {
		t.Fatalf("a = %+v", a)
	}
	if got := string(v.Bytes()); got != `{"a":["x","y"],"b":{"c":1.5e3,"d":null,"e":true}}` {
		t.Errorf("Bytes = %s", got)
	}
	if _, err := Parse([]byte(in), Options{}); err == nil {
		t.Error("comments accepted without Options.Comments")
	}
}

type schema struct {
	Mode  string `json:"mode"`
	Perms struct {
		Allow []string `json:"allow"`
	} `json:"permissions"`
	Set  map[string]string `json:"set"`
	Skip int               `json:"-"`
}

func TestCheckSuggestsTheNearestKey(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"mdoe": "plan"}`, `line 1: unknown key "mdoe" at top level; did you mean "mode"?`},
		{"{\n\"permissions\": {\"alow\": []}}", `line 2: unknown key "alow" in permissions; did you mean "allow"?`},
		{`{"_comment": "x"}`, `unknown key "_comment" at top level (known keys: mode, permissions, set)`},
		{`{"mode": 3}`, `mode: want a string, got a number`},
		{`{"permissions": {"allow": [1]}}`, `permissions.allow[0]: want a string, got a number`},
		{`{"Skip": 1}`, `unknown key "Skip"`},
	} {
		v, err := Parse([]byte(tt.in), Options{})
		if err != nil {
			t.Fatal(err)
		}
		err = Check([]byte(tt.in), v, reflect.TypeFor[schema]())
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%s) = %v, want %q", tt.in, err, tt.want)
		}
	}
	ok := `{"mode": "plan", "set": {"ANY": "x"}, "permissions": {"allow": ["Bash"]}}`
	v, _ := Parse([]byte(ok), Options{})
	if err := Check([]byte(ok), v, reflect.TypeFor[schema]()); err != nil {
		t.Errorf("valid document refused: %v", err)
	}
}
