package exec

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"
)

// JSONTextError is a JSON text whose strings are not valid Unicode: an
// invalid UTF-8 byte sequence, or a \u escape naming half of a UTF-16
// surrogate pair. encoding/json would decode either silently as U+FFFD, so
// a command would run with other bytes than were sent; every JSON surface
// refuses such text instead, before anything runs. It is returned as a
// pointer.
type JSONTextError struct {
	Offset int    // byte offset of the bad sequence in the checked text
	Reason string // what is wrong there
}

func (e *JSONTextError) Error() string {
	return fmt.Sprintf("byte %d: %s", e.Offset, e.Reason)
}

// CheckJSONText returns a *JSONTextError for the first invalid UTF-8
// sequence in data, or the first unpaired surrogate escape (\ud800) inside
// a JSON string; nil when every string is valid Unicode. It does not check
// the rest of the JSON syntax: a decoder does that.
func CheckJSONText(data []byte) error {
	if i := invalidUTF8(data); i >= 0 {
		return &JSONTextError{Offset: i, Reason: "invalid UTF-8 (send text as UTF-8)"}
	}
	if i := loneSurrogate(data); i >= 0 {
		return &JSONTextError{Offset: i, Reason: "a \\u escape names half of a UTF-16 surrogate pair, which is not a character"}
	}
	return nil
}

// invalidUTF8 is the offset of the first invalid UTF-8 sequence, or -1.
func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// loneSurrogate is the offset of the first \u escape inside a string that
// is a surrogate not paired as high then low, or -1.
func loneSurrogate(b []byte) int {
	inString := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(b) && b[i+1] == 'u':
			r, ok := hex4(b, i+2)
			switch {
			case !ok || r < 0xd800 || r > 0xdfff:
			case r >= 0xdc00:
				return i // a low half with no high half before it
			default:
				low, ok := lowHalf(b, i+6)
				if !ok || low < 0xdc00 || low > 0xdfff {
					return i
				}
				i += 6
			}
			i += 5
		case c == '\\':
			i++
		}
	}
	return -1
}

// lowHalf reads the \uXXXX escape at b[i:], if there is one.
func lowHalf(b []byte, i int) (rune, bool) {
	if i+1 >= len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return 0, false
	}
	return hex4(b, i+2)
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// JSONErrorText says what is wrong with a JSON text in the words of the
// protocol rather than of Go: a syntax error with its byte offset, a value
// of the wrong kind naming the field and what it should be ("field "argv":
// want an array of strings, got a string"), an unknown field. Other errors
// are returned as they are.
func JSONErrorText(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var xe *JSONTextError
	switch {
	case errors.As(err, &xe):
		return xe.Error()
	case errors.Is(err, io.ErrUnexpectedEOF) || strings.HasSuffix(err.Error(), "unexpected end of JSON input"):
		return "invalid JSON: the text ends before the value does"
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	case errors.As(err, &te):
		return typeErrorText(te)
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return "unknown field " + name
	}
	return strings.TrimPrefix(msg, "json: ")
}

func typeErrorText(te *json.UnmarshalTypeError) string {
	want, got := valueKind(te.Type), jsonKind(te.Value)
	if te.Field == "" {
		return fmt.Sprintf("want %s, got %s", want, got)
	}
	return fmt.Sprintf("field %q: want %s, got %s", te.Field, want, got)
}

// valueKind names what a Go type accepts in JSON terms.
func valueKind(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return fmt.Sprintf("a whole number from 0 to %d", uint64(1)<<(t.Bits())-1)
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return "a whole number, 0 or more"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if e := t.Elem(); e.Kind() != reflect.Uint8 || t.Kind() == reflect.Array {
			return "an array of " + plural(valueKind(e))
		}
		return "a base64 string"
	case reflect.Map:
		return "an object whose values are " + plural(valueKind(t.Elem()))
	case reflect.Struct:
		return "an object"
	}
	return "another kind of value"
}

// plural turns "a string" into "strings", for "an array of strings".
func plural(kind string) string {
	switch kind {
	case "true or false":
		return "true or false values"
	case "another kind of value":
		return "values"
	}
	for _, art := range []string{"a ", "an "} {
		if rest, ok := strings.CutPrefix(kind, art); ok {
			word, tail, _ := strings.Cut(rest, " ")
			if tail != "" {
				tail = " " + tail
			}
			return word + "s" + tail
		}
	}
	return kind
}

// jsonKind names the kind of JSON value encoding/json reports in
// UnmarshalTypeError.Value ("string", "number", "number -1", "array" ...).
func jsonKind(v string) string {
	kind, detail, _ := strings.Cut(v, " ")
	switch kind {
	case "string":
		return "a string"
	case "number":
		if detail != "" {
			return "the number " + detail
		}
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "an array"
	case "object":
		return "an object"
	case "null":
		return "null"
	}
	return v
}
