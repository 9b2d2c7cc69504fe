package exec

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/agentexec/agentexec/internal/jsontext"
)

// JSONTextError is a JSON text whose strings are not valid Unicode: an
// invalid UTF-8 byte sequence, or a \u escape naming half of a UTF-16
// surrogate pair. encoding/json would decode either silently as U+FFFD, so
// a command would run with other bytes than were sent; every JSON surface
// refuses such text instead, before anything runs. It is returned as a
// pointer.
type JSONTextError = jsontext.Error

// CheckJSONText returns a *JSONTextError for the first invalid UTF-8
// sequence in data, or the first unpaired surrogate escape (\ud800) inside
// a JSON string; nil when every string is valid Unicode. It does not check
// the rest of the JSON syntax: a decoder does that.
func CheckJSONText(data []byte) error { return jsontext.Check(data) }

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
