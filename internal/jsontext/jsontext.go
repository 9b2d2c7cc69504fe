// Package jsontext checks that a JSON text's strings are valid Unicode,
// which encoding/json does not: it decodes an invalid UTF-8 sequence, or a
// \u escape naming half of a surrogate pair, as U+FFFD without a word, so
// a command would run with other bytes than were sent. Every JSON surface
// of agentexec (serve, check --batch, mcp, replay, hook, exec.DecodeRequest)
// checks its input with Check before decoding it.
package jsontext

import (
	"fmt"
	"unicode/utf8"
)

// Error is a JSON text whose strings are not valid Unicode: an invalid
// UTF-8 byte sequence, or a \u escape naming half of a UTF-16 surrogate
// pair. It is returned as a pointer.
type Error struct {
	Offset int    // byte offset of the bad sequence in the checked text
	Reason string // what is wrong there
}

func (e *Error) Error() string {
	return fmt.Sprintf("byte %d: %s", e.Offset, e.Reason)
}

// Check returns an *Error for the first invalid UTF-8
// sequence in data, or the first unpaired surrogate escape (\ud800) inside
// a JSON string; nil when every string is valid Unicode. It does not check
// the rest of the JSON syntax: a decoder does that.
func Check(data []byte) error {
	if i := invalidUTF8(data); i >= 0 {
		return &Error{Offset: i, Reason: "invalid UTF-8 (send text as UTF-8)"}
	}
	if i := loneSurrogate(data); i >= 0 {
		return &Error{Offset: i, Reason: "a \\u escape names half of a UTF-16 surrogate pair, which is not a character"}
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
