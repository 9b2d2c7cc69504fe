package gate

import (
	"errors"
	"io"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

var errDynamic = errors.New("dynamic word")

// staticConfig expands words with nothing from the host: no environment,
// no command or process substitution, no globbing, and unset variables are
// errors. It is only used on words already proven structurally static.
var staticConfig = &expand.Config{
	Env:       expand.ListEnviron(),
	CmdSubst:  func(io.Writer, *syntax.CmdSubst) error { return errDynamic },
	ProcSubst: func(*syntax.ProcSubst) (string, error) { return "", errDynamic },
	NoUnset:   true,
}

// staticWord returns the value bash gives w after quote removal when that
// value is known without running anything: w is made only of literals,
// single quotes, ANSI-C $'…' quotes and double quotes holding only literals,
// does not start with an unquoted ~, and does not brace-expand into more or
// fewer than one word. Glob characters are kept as they are; callers that
// care must look for them. ok is false for every other word.
//
// Staticness is decided from the structure, never from expand succeeding:
// expand turns an unset variable into "" without an error.
func staticWord(w *syntax.Word) (string, bool) {
	if w == nil || len(w.Parts) == 0 {
		return "", false
	}
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				return "", false
			}
		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			if p.Dollar { // $"…" is locale translation
				return "", false
			}
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return "", false
				}
			}
		default:
			return "", false
		}
	}
	fields, err := fieldsSafe(w)
	if err != nil || len(fields) != 1 {
		return "", false
	}
	return fields[0], true
}

// fieldsSafe runs expand.Fields, turning a panic inside mvdan's expander
// into an error so a crafted word can never take the process down.
func fieldsSafe(words ...*syntax.Word) (fields []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			fields, err = nil, errDynamic
		}
	}()
	return expand.Fields(staticConfig, words...)
}
