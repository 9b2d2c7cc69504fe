package shellcfg

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// This file quotes for the two Windows shells. It is not a _windows.go
// file: the text is built, and tested, on any host.

// cmdMeta are the characters cmd.exe interprets on a command line; each
// gets a caret so cmd passes it through literally.
const cmdMeta = `^&|<>()%!"`

// cmdProgramQuote are the characters that make argv[0] need quotes: the
// metacharacters plus the separators cmd ends a command name at.
const cmdProgramQuote = " \t;,=&|<>()^"

func quoteCmd(i int, arg string) (string, *QuoteError) {
	if err := checkWindowsArg(arg, true); err != nil {
		return "", err
	}
	if i == 0 {
		return quoteCmdProgram(arg)
	}
	var b strings.Builder
	for _, r := range argvQuote(arg) {
		if strings.ContainsRune(cmdMeta, r) {
			b.WriteByte('^')
		}
		b.WriteRune(r)
	}
	return b.String(), nil
}

// quoteCmdProgram quotes the command name. cmd reads it before carets
// matter, so a name that needs quoting gets plain double quotes, inside
// which cmd takes & | < > ( ) ^ literally but still expands % and !, and
// in which a trailing backslash would escape the closing quote. No file
// name holds a double quote.
func quoteCmdProgram(arg string) (string, *QuoteError) {
	switch i := strings.IndexAny(arg, `%!"`); {
	case arg == "":
		return "", &QuoteError{Reason: "empty program name"}
	case i >= 0:
		return "", &QuoteError{Offset: i, Reason: fmt.Sprintf("%q in the program name", arg[i])}
	case !strings.ContainsAny(arg, cmdProgramQuote):
		return arg, nil
	case strings.HasSuffix(arg, `\`):
		return "", &QuoteError{Offset: len(arg) - 1, Reason: "trailing backslash in a quoted program name"}
	}
	return `"` + arg + `"`, nil
}

// argvQuote quotes arg as CommandLineToArgvW and the C runtime read it:
// quotes around an argument that is empty or holds a space, tab or quote;
// inside, a quote and the backslashes before it, and backslashes before
// the closing quote, are escaped.
func argvQuote(arg string) string {
	if arg != "" && !strings.ContainsAny(arg, " \t\"") {
		return arg
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for _, r := range arg {
		switch r {
		case '\\':
			slashes++
			continue
		case '"':
			b.WriteString(strings.Repeat(`\`, 2*slashes+1))
		default:
			b.WriteString(strings.Repeat(`\`, slashes))
		}
		slashes = 0
		b.WriteRune(r)
	}
	b.WriteString(strings.Repeat(`\`, 2*slashes))
	b.WriteByte('"')
	return b.String()
}

// psQuotes are the characters PowerShell accepts as a single quote.
const psQuotes = "'\u2018\u2019\u201a\u201b"

func quotePowerShell(_ int, arg string) (string, *QuoteError) {
	if err := checkWindowsArg(arg, false); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range arg {
		if strings.ContainsRune(psQuotes, r) {
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String(), nil
}

// checkWindowsArg refuses what cannot reach a Windows program intact:
// NUL, invalid UTF-8 (the command line is UTF-16) and, for cmd, any
// control character but tab, since cmd ends a command line at a newline.
func checkWindowsArg(arg string, cmd bool) *QuoteError {
	for off, r := range arg {
		switch {
		case r == 0:
			return &QuoteError{Offset: off, Reason: "NUL byte"}
		case r == utf8.RuneError && !strings.HasPrefix(arg[off:], "\uFFFD"):
			return &QuoteError{Offset: off, Reason: "invalid UTF-8"}
		case cmd && r == '\n':
			return &QuoteError{Offset: off, Reason: "newline"}
		case cmd && r == '\r':
			return &QuoteError{Offset: off, Reason: "carriage return"}
		case cmd && r != '\t' && isControl(r):
			return &QuoteError{Offset: off, Reason: fmt.Sprintf("control character %U", r)}
		}
	}
	return nil
}
