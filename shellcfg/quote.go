package shellcfg

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// QuoteError reports an argument Quote cannot represent exactly in a
// shell's syntax. It is always returned as a pointer: use
// errors.As(err, new(*QuoteError)).
type QuoteError struct {
	Shell  ShellType
	Index  int    // index in argv of the argument; -1 when argv as a whole is at fault
	Offset int    // byte offset in that argument of the character at fault
	Reason string // what cannot be represented, e.g. "newline"
	Err    error  // the underlying error, e.g. a *syntax.QuoteError; may be nil
}

// Error names the shell, the argument and what it cannot carry.
func (e *QuoteError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("shellcfg: cannot quote argv for %s: %s", e.Shell, e.Reason)
	}
	return fmt.Sprintf("shellcfg: cannot quote argv[%d] for %s: %s at byte %d", e.Index, e.Shell, e.Reason, e.Offset)
}

// Unwrap returns the underlying error, if any.
func (e *QuoteError) Unwrap() error { return e.Err }

// Quote turns argv into command text for shell s, words separated by single
// spaces, such that s runs argv[0] with exactly argv[1:] as its arguments:
// no expansion, globbing, splitting, comment or keyword applies.
//
// Per shell:
//
//   - bash: syntax.Quote with LangBash, except that where it would use
//     $'...' with \u escapes, Quote escapes the UTF-8 bytes as \xHH
//     instead, because bash expands \u according to the locale and leaves
//     it unexpanded in the C locale. Only NUL is refused. The text is
//     valid UTF-8 with nothing Scan reports, and mvdan's parser reads it
//     back as exactly argv.
//   - sh: syntax.Quote with LangPOSIX; where that refuses a non-printable
//     character, the argument is single-quoted, each ' inside closing
//     the quotes, appearing as \' and reopening them: POSIX (XCU 2.2.2)
//     has single quotes preserve every character literally, newlines and
//     control characters included, and only a single quote cannot occur
//     inside. Only NUL, which no argv can hold, is refused. Such text
//     holds raw bytes: invalid UTF-8 fails Validate and mvdan's parser,
//     and the parser reads a quoted CRLF as LF where sh keeps the CR;
//     Scan reports both CR kinds, so the gate escalates rather than
//     trusting that parse.
//   - cmd: each argument is quoted as CommandLineToArgvW reads it, then
//     every one of ^ & | < > ( ) % ! " gets a caret. Newline, CR, NUL,
//     other control characters and invalid UTF-8 are refused: cmd cannot
//     carry them. argv[0] is quoted with plain double quotes when it needs
//     quoting, and may then hold none of " % !. Sharp edges: the result is
//     exact only for programs that parse their command line as the C
//     runtime does, with delayed expansion off (the default unless the
//     registry turns it on) and no environment variable whose name ends
//     in ^.
//   - powershell: "& " then every argument single-quoted, with ' and its
//     Unicode variants U+2018, U+2019, U+201A and U+201B doubled, since
//     PowerShell ends a single-quoted string at any of them. NUL and
//     invalid UTF-8 are refused. Sharp edge: Windows PowerShell 5.1 passes
//     arguments to native programs without escaping embedded double quotes
//     and drops empty ones; the text is exact at the PowerShell level.
//
// An empty argv or an unknown shell is an error too. Every error is a
// *QuoteError.
func Quote(s ShellType, argv []string) (string, error) {
	quote, ok := quoterFor(s)
	if !ok {
		return "", &QuoteError{Shell: s, Index: -1, Reason: fmt.Sprintf("unknown shell %q", string(s))}
	}
	if len(argv) == 0 {
		return "", &QuoteError{Shell: s, Index: -1, Reason: "argv is empty"}
	}
	words := make([]string, len(argv))
	for i, arg := range argv {
		w, err := quote(i, arg)
		if err != nil {
			err.Shell, err.Index = s, i
			return "", err
		}
		words[i] = w
	}
	text := strings.Join(words, " ")
	if s == PowerShell {
		text = "& " + text
	}
	return text, nil
}

// A quoter quotes the argument at index i of argv. Its error needs only
// Offset, Reason and Err; Quote fills in Shell and Index.
type quoter func(i int, arg string) (string, *QuoteError)

// quoterFor returns the quoter of shell s; ok is false for an unknown shell.
func quoterFor(s ShellType) (q quoter, ok bool) {
	switch s {
	case Bash:
		return quoteBash, true
	case Sh:
		return quoteSh, true
	case Cmd:
		return quoteCmd, true
	case PowerShell:
		return quotePowerShell, true
	}
	return nil, false
}

func quoteBash(_ int, arg string) (string, *QuoteError) {
	q, err := syntax.Quote(arg, syntax.LangBash)
	if err != nil {
		return "", fromSyntax(err)
	}
	if strings.HasPrefix(q, "$'") {
		return dollarQuote(arg), nil
	}
	return q, nil
}

// dollarQuote writes arg as bash's $'...', with every byte that is not
// printable (alone or as part of a printable UTF-8 rune) as \xHH, which
// bash decodes to that byte in every locale. \x reads at most two hex
// digits, so a following hex digit needs no separation.
func dollarQuote(arg string) string {
	var b strings.Builder
	b.WriteString("$'")
	for rem := arg; len(rem) > 0; {
		r, size := utf8.DecodeRuneInString(rem)
		switch {
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r != utf8.RuneError && unicode.IsPrint(r):
			b.WriteString(rem[:size])
		default:
			for i := range size {
				fmt.Fprintf(&b, `\x%02x`, rem[i])
			}
		}
		rem = rem[size:]
	}
	b.WriteByte('\'')
	return b.String()
}

func quoteSh(_ int, arg string) (string, *QuoteError) {
	q, err := syntax.Quote(arg, syntax.LangPOSIX)
	if err == nil {
		return q, nil
	}
	if i := strings.IndexByte(arg, 0); i >= 0 {
		return "", &QuoteError{Offset: i, Reason: "NUL byte", Err: err}
	}
	return "'" + strings.ReplaceAll(arg, "'", `'\''`) + "'", nil
}

// fromSyntax converts mvdan's error, which it returns as a pointer.
func fromSyntax(err error) *QuoteError {
	var se *syntax.QuoteError
	if errors.As(err, &se) {
		return &QuoteError{Offset: se.ByteOffset, Reason: se.Message, Err: err}
	}
	return &QuoteError{Reason: err.Error(), Err: err}
}
