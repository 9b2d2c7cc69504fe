package shellcfg

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// These tests check cmd and PowerShell quoting against models of how each
// reads a command line, since neither runs here: cmd's caret phase followed
// by the C runtime's argument splitting, and PowerShell's single-quoted
// string tokenizer. The exact-string tables in quote_test.go pin the
// output; these check that the output means the input.

// cmdArgs models how cmd.exe and then the started program read the
// arguments after the program name: a caret makes the next character
// literal, an unescaped metacharacter means the quoting failed, and the
// result is split as CommandLineToArgvW does.
func cmdArgs(text string) (args []string, ok bool) {
	var line strings.Builder
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '^' && i+1 < len(text):
			i++
			line.WriteByte(text[i])
		case strings.IndexByte(`^&|<>()%!"`, c) >= 0:
			return nil, false
		default:
			line.WriteByte(c)
		}
	}
	return splitArgv(line.String()), true
}

// splitArgv splits a command line as CommandLineToArgvW does for the
// arguments after the program name.
func splitArgv(line string) []string {
	var args []string
	var cur strings.Builder
	inArg, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case (c == ' ' || c == '\t') && !quoted:
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
			}
			inArg = false
			continue
		case c == '\\':
			n := 0
			for i < len(line) && line[i] == '\\' {
				n++
				i++
			}
			if i < len(line) && line[i] == '"' {
				cur.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					cur.WriteByte('"')
				} else {
					quoted = !quoted
				}
			} else {
				cur.WriteString(strings.Repeat(`\`, n))
				i--
			}
		case c == '"' && quoted && i+1 < len(line) && line[i+1] == '"':
			cur.WriteByte('"')
			i++
		case c == '"':
			quoted = !quoted
		default:
			cur.WriteByte(c)
		}
		inArg = true
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args
}

// psArgs models PowerShell reading "& 'a' 'b' ...": inside a single-quoted
// string, a quote character followed by another one stands for the second.
func psArgs(text string) (args []string, ok bool) {
	rest, ok := strings.CutPrefix(text, "& ")
	if !ok {
		return nil, false
	}
	for {
		arg, after, ok := psString(rest)
		if !ok {
			return nil, false
		}
		args = append(args, arg)
		if after == "" {
			return args, true
		}
		if rest, ok = strings.CutPrefix(after, " "); !ok {
			return nil, false
		}
	}
}

func psString(s string) (arg, rest string, ok bool) {
	rs := []rune(s)
	if len(rs) == 0 || !isPSQuote(rs[0]) {
		return "", "", false
	}
	var b strings.Builder
	for i := 1; i < len(rs); i++ {
		if isPSQuote(rs[i]) {
			if i+1 < len(rs) && isPSQuote(rs[i+1]) {
				i++
			} else {
				return b.String(), string(rs[i+1:]), true
			}
		}
		b.WriteRune(rs[i])
	}
	return "", "", false
}

func isPSQuote(r rune) bool { return strings.ContainsRune("'\u2018\u2019\u201a\u201b", r) }

// checkWindowsQuote quotes argv for cmd and PowerShell and checks the
// models read it back; refused arguments must hold what the shell refuses.
func checkWindowsQuote(t *testing.T, args []string) {
	t.Helper()
	argv := append([]string{"prog"}, args...)
	if text, err := Quote(Cmd, argv); err != nil {
		if !anyArg(args, func(r rune) bool { return r == '\uFFFD' || isControl(r) && r != '\t' }) {
			t.Errorf("Quote(cmd, %q) refused: %v", argv, err)
		}
	} else if got, ok := cmdArgs(strings.TrimPrefix(text, "prog")); !ok || !slices.Equal(got, args) {
		t.Errorf("cmd reads %q as %q (ok %v), want %q", text, got, ok, args)
	}
	if text, err := Quote(PowerShell, argv); err != nil {
		if !anyArg(args, func(r rune) bool { return r == 0 || r == '\uFFFD' }) {
			t.Errorf("Quote(powershell, %q) refused: %v", argv, err)
		}
	} else if got, ok := psArgs(text); !ok || !slices.Equal(got, argv) {
		t.Errorf("PowerShell reads %q as %q (ok %v), want %q", text, got, ok, argv)
	}
}

// anyArg reports whether f holds for a rune of some argument; an invalid
// byte is seen as U+FFFD.
func anyArg(args []string, f func(rune) bool) bool {
	return slices.ContainsFunc(args, func(a string) bool { return strings.ContainsFunc(a, f) })
}

var windowsFragments = []string{
	"a", " ", "\t", `"`, `\`, `\\`, `\"`, "^", "&", "|", "<", ">", "(", ")", "%", "%PATH%",
	"!", "!x!", "'", "\u2018", "\u2019", "\u201a", "\u201b", "''", "$x", "`", ";", ",", "=",
	"é", "😀", "\n", "\x00",
}

func TestQuoteWindowsModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		args := make([]string, 1+rng.IntN(4))
		for i := range args {
			var b strings.Builder
			for range rng.IntN(6) {
				b.WriteString(windowsFragments[rng.IntN(len(windowsFragments))])
			}
			args[i] = b.String()
		}
		checkWindowsQuote(t, args)
		if t.Failed() {
			return
		}
	}
}

func FuzzQuoteWindows(f *testing.F) {
	for _, s := range []string{"", "a b", `a\"b\`, "100% !x! ^&|<>()", "it's \u2018x\u2019", "\n"} {
		f.Add(s, `"`)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		checkWindowsQuote(t, []string{a, b})
	})
}
