package shellcfg

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The problems Validate reports, for errors.Is on a *TextError.
var (
	ErrNUL         = errors.New("NUL byte")
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
	ErrEmpty       = errors.New("empty or blank command")
)

// TextError reports command text that must not run at all. It is always
// returned as a pointer: use errors.As(err, new(*TextError)), or errors.Is
// with ErrNUL, ErrInvalidUTF8 or ErrEmpty, which Unwrap returns.
type TextError struct {
	Problem string // Err's message, e.g. "NUL byte"
	Offset  int    // byte offset of the first offending byte; 0 for ErrEmpty
	Err     error  // ErrNUL, ErrInvalidUTF8 or ErrEmpty
}

// Error names the problem and its byte offset.
func (e *TextError) Error() string {
	return fmt.Sprintf("command text: %s at byte %d", e.Problem, e.Offset)
}

// Unwrap returns the sentinel naming the problem.
func (e *TextError) Unwrap() error { return e.Err }

func textError(err error, offset int) *TextError {
	return &TextError{Problem: err.Error(), Offset: offset, Err: err}
}

// Validate reports why text must not run: a NUL byte (no process argument
// can hold one, and a shell would silently cut the text there), invalid
// UTF-8 (what the gate parses and what the shell reads would differ), or
// nothing but blanks, where blanks are everything Normalize turns into a
// space plus ordinary whitespace. The first NUL or invalid byte, whichever
// comes first, is reported. The error is a *TextError; nil means the text
// may go on to the gate.
func Validate(text string) error {
	if plainASCII(text) {
		// Printable ASCII, tabs and line feeds (most commands): no NUL,
		// valid UTF-8, and Normalize's copy is the text itself.
		if strings.TrimSpace(text) == "" {
			return textError(ErrEmpty, 0)
		}
		return nil
	}
	for off := 0; off < len(text); {
		r, size := utf8.DecodeRuneInString(text[off:])
		switch {
		case r == 0:
			return textError(ErrNUL, off)
		case r == utf8.RuneError && size == 1:
			return textError(ErrInvalidUTF8, off)
		}
		off += size
	}
	if strings.TrimSpace(Normalize(text)) == "" {
		return textError(ErrEmpty, 0)
	}
	return nil
}
