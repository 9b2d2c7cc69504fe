package shellcfg

import (
	"errors"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		text   string
		want   error // nil: valid
		offset int
	}{
		{"ls -la", nil, 0},
		{"echo é日本😀\n", nil, 0},
		{"  x  ", nil, 0},
		{"echo a\u200bb", nil, 0}, // suspicious is not invalid: Scan's job
		{"\xef\xbf\xbd", nil, 0},  // a real U+FFFD is valid UTF-8
		{"", ErrEmpty, 0},
		{" \t\n\r\n ", ErrEmpty, 0},
		{"\u00a0\u2028\u200b\ufeff\u3000", ErrEmpty, 0},
		{"\x0b\x0c", ErrEmpty, 0},
		{"\x00", ErrNUL, 0},
		{"ls\x00rm -rf /", ErrNUL, 2},
		{"ls \xff", ErrInvalidUTF8, 3},
		{"é\xc3", ErrInvalidUTF8, 2},
		{"\xed\xa0\x80", ErrInvalidUTF8, 0}, // a UTF-16 surrogate
		{"ab\xc3\x00", ErrInvalidUTF8, 2},   // the first problem wins
		{"a\x00\xff", ErrNUL, 1},
		{"   \x00", ErrNUL, 3}, // NUL before blank
	}
	for _, tt := range tests {
		err := Validate(tt.text)
		if tt.want == nil {
			if err != nil {
				t.Errorf("Validate(%q) = %v, want nil", tt.text, err)
			}
			continue
		}
		var te *TextError
		if !errors.As(err, &te) {
			t.Errorf("Validate(%q) = %v, want a *TextError", tt.text, err)
			continue
		}
		if !errors.Is(err, tt.want) || te.Err != tt.want || te.Offset != tt.offset || te.Problem != tt.want.Error() {
			t.Errorf("Validate(%q) = %+v, want %v at %d", tt.text, te, tt.want, tt.offset)
		}
		if msg := err.Error(); !strings.Contains(msg, tt.want.Error()) || !strings.Contains(msg, "byte ") {
			t.Errorf("Validate(%q): message %q does not name the problem and offset", tt.text, msg)
		}
	}
}

func TestTextErrorMessage(t *testing.T) {
	err := Validate("ls\x00")
	if got, want := err.Error(), "command text: NUL byte at byte 2"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
