package exec

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckJSONText(t *testing.T) {
	tests := []struct {
		in     string
		offset int // -1: valid
	}{
		{"{\"command\":\"echo \xff\"}", 17},
		{"{\"command\":\"echo \xe2\x82\"}", 17}, // a cut-off three-byte sequence
		{"{\"command\":\"ok\"}\xc0\xaf", 16},    // overlong, outside the string
		{`{"command":"echo \ud800"}`, 17},
		{`{"command":"echo \udc00\ud800"}`, 17},
		{`{"command":"echo \ud800\u0041"}`, 17},
		{`{"command":"echo \ud800"`, 17},
		// Near misses that stay valid.
		{`{"command":"echo é ☃ 😀"}`, -1},
		{`{"command":"echo \ud83d\ude00"}`, -1},
		{`{"command":"echo \\ud800"}`, -1}, // an escaped backslash, then text
		{`{"command":"\"\\\"\ud800"}`, 18},
		{`{"\ud800":1}`, 2},
		{`{"command":"echo \u00e9"}`, -1},
		{`{"command":"\u12"}`, -1}, // malformed escape: the decoder's error
	}
	for _, tt := range tests {
		err := CheckJSONText([]byte(tt.in))
		var te *JSONTextError
		switch {
		case tt.offset < 0 && err != nil:
			t.Errorf("CheckJSONText(%q) = %v, want nil", tt.in, err)
		case tt.offset >= 0 && !errors.As(err, &te):
			t.Errorf("CheckJSONText(%q) = %v, want a *JSONTextError", tt.in, err)
		case tt.offset >= 0 && te.Offset != tt.offset:
			t.Errorf("CheckJSONText(%q) offset %d, want %d (%v)", tt.in, te.Offset, tt.offset, err)
		}
	}
}

// TestDecodeRequestWords: errors name the field and what it should hold in
// the protocol's words, never a Go type, and invalid text is refused.
func TestDecodeRequestWords(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"ls"`, `request: want an object such as {"command": "ls -l"} or {"argv": ["ls", "-l"]}, got a string`},
		{`[1,2]`, `got an array`},
		{`{"argv":"ls"}`, `request: field "argv": want an array of strings, got a string`},
		{`{"argv":[1]}`, `field "argv": want a string, got a number`},
		{`{"rows":-1,"command":"ls"}`, `field "rows": want a whole number from 0 to 65535, got the number -1`},
		{`{"pty":"yes","command":"ls"}`, `field "pty": want true or false, got a string`},
		{`{"env":{"A":1},"command":"ls"}`, `want a string, got a number`},
		{`{"env":[],"command":"ls"}`, `field "env": want an object whose values are strings, got an array`},
		{`{"stdin":5,"command":"ls"}`, `field "stdin": want a string, got a number`},
		{`{"max_output_bytes":1.5,"command":"ls"}`, `field "max_output_bytes": want a whole number, got the number 1.5`},
		{`{"command":"ls"`, `request: invalid JSON: the text ends before the value does`},
		{`{"command":ls}`, `request: invalid JSON at byte 12: invalid character 'l'`},
		{"{\"command\":\"echo \xff\"}", `request: byte 17: invalid UTF-8`},
		{`{"command":"echo \udfff"}`, `request: byte 17: a \u escape names half of a UTF-16 surrogate pair`},
	}
	for _, tt := range tests {
		_, err := DecodeRequest([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("DecodeRequest(%s) = %v, want %q", tt.in, err, tt.want)
			continue
		}
		for _, internal := range []string{"exec.", "Go value", "json.", "uint16", "map[", "[]string", "*string"} {
			if strings.Contains(err.Error(), internal) {
				t.Errorf("DecodeRequest(%s) = %q: shows Go internals (%s)", tt.in, err, internal)
			}
		}
	}
	if _, err := DecodeRequest([]byte(`{"command":"echo \u00e9 \ud83d\ude00"}`)); err != nil {
		t.Errorf("valid escapes refused: %v", err)
	}
}
