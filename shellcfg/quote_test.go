package shellcfg

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// helperEnv, when set in the environment, turns the test binary into a
// helper that prints its argv NUL-separated and exits, as os/exec's tests
// do: the shell under test starts it from the quoted text.
const helperEnv = "SHELLCFG_TEST_PRINT_ARGV"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Args[0] = filepath.Base(os.Args[0])
		os.Stdout.WriteString(strings.Join(os.Args, "\x00"))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// shells are the real shells quoting is confirmed against, each under a
// locale that makes a locale-dependent quoting fail.
var shells = []struct {
	shell           ShellType
	program, locale string
}{
	{Bash, "/bin/bash", "C"},
	{Bash, "/bin/bash", "C.UTF-8"},
	{Sh, "/bin/sh", "C"},
}

// runShell runs text with program -c under locale, with extra environment,
// and returns its standard output.
func runShell(t testing.TB, program, locale, text string, env ...string) string {
	t.Helper()
	if _, err := os.Stat(program); err != nil {
		t.Skipf("%s is not installed, cannot confirm quoting against it: %v", program, err)
	}
	// A shell that misparses the text might wait forever; fail instead.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	argv := Argv(Bash, text)
	cmd := exec.CommandContext(ctx, program, argv[1:]...)
	// A -race helper would otherwise sleep a second at exit.
	cmd.Env = append(os.Environ(), append(env, "LC_ALL="+locale, "GORACE=atexit_sleep_ms=0")...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s -c %q: %v: %s", program, text, err, stderr.String())
	}
	return string(out)
}

// helperDir makes a directory for PATH in which each name is a symlink to
// the test binary, so a quoted argv[0] is looked up and run as a command.
func helperDir(t testing.TB, names ...string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the bash and sh confirmation needs a Unix host")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range names {
		if err := os.Symlink(exe, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// confirmHelper quotes argv for each real shell, runs it, and checks that
// the helper started under the name argv[0] received exactly argv[1:].
func confirmHelper(t *testing.T, dir string, argv []string) {
	t.Helper()
	for _, sh := range shells {
		text, err := Quote(sh.shell, argv)
		if err != nil {
			t.Fatalf("Quote(%s, %q): %v", sh.shell, argv, err)
		}
		out := runShell(t, sh.program, sh.locale, text, helperEnv+"=1", "PATH="+dir+":"+os.Getenv("PATH"))
		if got := strings.Split(out, "\x00"); !slices.Equal(got, argv) {
			t.Errorf("%s (LC_ALL=%s) -c %q:\n got %q\nwant %q", sh.program, sh.locale, text, got, argv)
		}
	}
}

// quoteFragments are the pieces random arguments are built from: every
// kind of character a shell might interpret, plus bytes dash uses
// internally (0x81..0x8a) and invalid UTF-8.
var quoteFragments = []string{
	"a", "Z", "0", "f", " ", "  ", "\t", "\n", "\r", "'", `"`, "\\", "$", "$HOME", "${x}",
	"$(id)", "`id`", "*", "?", "[a]", "[!a]", "!", "!!", "#", "~", "~root", "{a,b}", "{1..3}",
	"-", "--", "-rf", "=", "a=b", ";", "&", "&&", "|", "||", "<", ">", ">>", "(", ")",
	"%", "^", "@(x)", "é", "日本", "😀", "\u00a0", "\u200b", "\u2028", "\u202e", "\ufeff",
	"\x01", "\x1b[31m", "\x7f", "\u0085", "\xff", "\xc3", "\x81", "\u0101", "\u0109",
	"if", "!", "{", "}", "[[", "time", "\\'", "'\\''", "\\x41", "$'a'", `"$x"`,
}

func randomArgv(rng *rand.Rand) []string {
	argv := make([]string, 1+rng.IntN(5))
	for i := range argv {
		var b strings.Builder
		for range rng.IntN(5) {
			b.WriteString(quoteFragments[rng.IntN(len(quoteFragments))])
		}
		argv[i] = b.String()
	}
	return argv
}

// TestQuoteConfirm quotes random argv for bash and sh and checks that the
// real shells parse the text back into exactly that argv. So that hundreds
// of cases cost one process per shell, each argv goes to the printf
// builtin, which prints each argument NUL-terminated;
// TestQuoteConfirmHelper checks the same through a started program.
func TestQuoteConfirm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := make([][]string, 400)
	for i := range cases {
		cases[i] = randomArgv(rng)
	}
	for _, sh := range shells {
		var script strings.Builder
		for _, argv := range cases {
			text, err := Quote(sh.shell, argv)
			if err != nil {
				t.Fatalf("Quote(%s, %q): %v", sh.shell, argv, err)
			}
			fmt.Fprintf(&script, "printf '%%s\\0' %s\n", text)
		}
		for _, argv := range cases {
			checkParse(t, sh.shell, argv)
		}
		out := strings.Split(runShell(t, sh.program, sh.locale, script.String()), "\x00")
		for _, argv := range cases {
			n := min(len(argv), len(out))
			if got := out[:n]; !slices.Equal(got, argv) {
				text, _ := Quote(sh.shell, argv)
				t.Fatalf("%s (LC_ALL=%s): printf of %s:\n got %q\nwant %q", sh.program, sh.locale, text, got, argv)
			}
			out = out[n:]
		}
		if !slices.Equal(out, []string{""}) {
			t.Fatalf("%s (LC_ALL=%s): %d unexpected fields after the last case: %q", sh.program, sh.locale, len(out)-1, out)
		}
	}
}

// checkParse checks that mvdan's parser, which the gate reads command text
// with, sees the quoted argv as one simple command whose words are plain or
// quoted literals that expand back to argv.
func checkParse(t *testing.T, s ShellType, argv []string) {
	t.Helper()
	text, err := Quote(s, argv)
	if err != nil {
		t.Fatalf("Quote(%s, %q): %v", s, argv, err)
	}
	// bash text escapes every byte Scan or Validate would object to, so
	// an argv request reaches the gate as clean text.
	if sus := Scan(text); s == Bash && (len(sus) > 0 || Validate(text) != nil) {
		t.Fatalf("bash text %q: Scan %+v, Validate %v", text, sus, Validate(text))
	}
	lang := syntax.LangBash
	if s == Sh {
		// sh text carries invalid UTF-8 and CR raw: the parser refuses
		// the one and reads CRLF as LF; Validate and Scan stop both
		// before the gate relies on the parse.
		if !utf8.ValidString(text) {
			return
		}
		lang = syntax.LangPOSIX
		argv = slices.Clone(argv)
		for i := range argv {
			argv[i] = strings.ReplaceAll(argv[i], "\r\n", "\n")
		}
	}
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(text), "")
	if err != nil {
		t.Fatalf("parsing %s text %q: %v", s, text, err)
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if len(f.Stmts) != 1 || !ok || len(call.Assigns) != 0 || len(call.Args) != len(argv) {
		t.Fatalf("%s text %q does not parse as one simple command of %d words", s, text, len(argv))
	}
	for i, w := range call.Args {
		syntax.Walk(w, func(n syntax.Node) bool {
			switch n.(type) {
			case nil, *syntax.Word, *syntax.Lit, *syntax.SglQuoted, *syntax.DblQuoted:
			default:
				t.Fatalf("%s text %q: word %d holds a %T", s, text, i, n)
			}
			return true
		})
		if got, err := expand.Fields(nil, w); err != nil || len(got) != 1 || got[0] != argv[i] {
			t.Fatalf("%s text %q: word %d expands to %q, %v; want %q", s, text, i, got, err, argv[i])
		}
	}
}

// TestQuoteConfirmHelper runs quoted argv as real commands, including
// command names that are keywords, assignments or need quoting.
func TestQuoteConfirmHelper(t *testing.T) {
	names := []string{"helper", "if", "!", "{", "}", "[[", "time", "a=b", "~x", "#c", "-x", "x y", "it's", "é", "$x", "*"}
	dir := helperDir(t, names...)
	rng := rand.New(rand.NewPCG(3, 4))
	for i, name := range names {
		argv := append([]string{name}, randomArgv(rng)...)
		if i == 0 {
			argv = []string{name}
		}
		confirmHelper(t, dir, argv)
	}
}

func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "a b", "it's", "$HOME`id`", "a\nb", "!x #c ~/x", "{a,b}*",
		"-rf", "é\u2028", "\x1b\x0b", "\xff\xfe", "\u0101\x81"} {
		f.Add(s, "x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		argv := []string{"helper", a, b}
		for _, s := range []ShellType{Bash, Sh} {
			if _, err := Quote(s, argv); err != nil {
				if !strings.ContainsRune(a+b, 0) {
					t.Fatalf("Quote(%s, %q) refused an argv without NUL: %v", s, argv, err)
				}
				return
			}
		}
		checkParse(t, Bash, argv)
		checkParse(t, Sh, argv)
		confirmHelper(t, helperDir(t, "helper"), argv)
	})
}

func TestQuoteExact(t *testing.T) {
	tests := []struct {
		shell ShellType
		argv  []string
		want  string
	}{
		{Bash, []string{"echo", "hi"}, "echo hi"},
		{Bash, []string{"echo", ""}, "echo ''"},
		{Bash, []string{"echo", "a b", "$x"}, "echo 'a b' '$x'"},
		{Bash, []string{"echo", "it's"}, `echo "it's"`},
		{Bash, []string{"echo", "!x"}, "echo !x"},
		{Bash, []string{"if"}, "'if'"},
		{Bash, []string{"echo", "a\nb"}, `echo $'a\nb'`},
		{Bash, []string{"echo", "a\x1bb"}, `echo $'a\x1bb'`},
		{Bash, []string{"echo", "\u2028é"}, `echo $'\xe2\x80\xa8é'`},
		{Bash, []string{"echo", "\xff'"}, `echo $'\xff\''`},
		{Sh, []string{"echo", "a\x1b'b"}, `echo 'a` + "\x1b" + `'\''b'`},
		{Sh, []string{"echo", "a\rb"}, "echo 'a\rb'"},
		{Sh, []string{"echo", "é"}, "echo é"},
		{PowerShell, []string{"Get-ChildItem", `C:\x y`}, `& 'Get-ChildItem' 'C:\x y'`},
		{PowerShell, []string{"echo", "it's"}, `& 'echo' 'it''s'`},
		{PowerShell, []string{"echo", ""}, `& 'echo' ''`},
		{PowerShell, []string{"echo", "$env:PATH", "`n", "a\nb"}, "& 'echo' '$env:PATH' '`n' 'a\nb'"},
		{PowerShell, []string{"echo", "\u2018x\u2019 \u201ay\u201b"}, "& 'echo' '\u2018\u2018x\u2019\u2019 \u201a\u201ay\u201b\u201b'"},
		{PowerShell, []string{"echo", `"q" ; rm`}, `& 'echo' '"q" ; rm'`},
		{Cmd, []string{"echo", "hello"}, "echo hello"},
		{Cmd, []string{"echo", "a b"}, `echo ^"a b^"`},
		{Cmd, []string{"echo", ""}, `echo ^"^"`},
		{Cmd, []string{"echo", "100%"}, "echo 100^%"},
		{Cmd, []string{"echo", "%PATH%"}, "echo ^%PATH^%"},
		{Cmd, []string{"echo", "hi!"}, "echo hi^!"},
		{Cmd, []string{"echo", "a&b|c<d>e(f)g^h"}, "echo a^&b^|c^<d^>e^(f^)g^^h"},
		{Cmd, []string{"echo", `say "hi"`}, `echo ^"say \^"hi\^"^"`},
		{Cmd, []string{"echo", `a\b`}, `echo a\b`},
		{Cmd, []string{"echo", `a b\`}, `echo ^"a b\\^"`},
		{Cmd, []string{"echo", `a\"b`}, `echo ^"a\\\^"b^"`},
		{Cmd, []string{"echo", "tab\there"}, "echo ^\"tab\there^\""},
		{Cmd, []string{`C:\Program Files\x.exe`, "a"}, `"C:\Program Files\x.exe" a`},
		{Cmd, []string{`C:\bin\a&b.exe`}, `"C:\bin\a&b.exe"`},
		{Cmd, []string{"dir", "/s"}, "dir /s"},
	}
	for _, tt := range tests {
		got, err := Quote(tt.shell, tt.argv)
		if err != nil {
			t.Errorf("Quote(%s, %q): %v", tt.shell, tt.argv, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Quote(%s, %q)\n got %q\nwant %q", tt.shell, tt.argv, got, tt.want)
		}
	}
}

func TestQuoteErrors(t *testing.T) {
	tests := []struct {
		shell         ShellType
		argv          []string
		index, offset int
		reason        string
	}{
		{Bash, []string{"echo", "a\x00b"}, 1, 1, "null bytes"},
		{Sh, []string{"a\x00"}, 0, 1, "NUL"},
		{Sh, []string{"echo", "\x1b\x00"}, 1, 1, "NUL"},
		{Cmd, []string{"echo", "a\nb"}, 1, 1, "newline"},
		{Cmd, []string{"echo", "ok", "a\rb"}, 2, 1, "carriage return"},
		{Cmd, []string{"echo", "\x00"}, 1, 0, "NUL"},
		{Cmd, []string{"echo", "a\x1b"}, 1, 1, "control character"},
		{Cmd, []string{"echo", "a\xff"}, 1, 1, "invalid UTF-8"},
		{Cmd, []string{"%x%.exe"}, 0, 0, "program name"},
		{Cmd, []string{`C:\a b\%x%.exe`}, 0, 7, "program name"},
		{Cmd, []string{`C:\a b\`}, 0, 6, "trailing backslash"},
		{Cmd, []string{""}, 0, 0, "empty program"},
		{PowerShell, []string{"echo", "a\x00"}, 1, 1, "NUL"},
		{PowerShell, []string{"echo", "\xc3"}, 1, 0, "invalid UTF-8"},
		{Bash, nil, -1, 0, "empty"},
		{"zsh", []string{"echo"}, -1, 0, "unknown shell"},
	}
	for _, tt := range tests {
		_, err := Quote(tt.shell, tt.argv)
		var qe *QuoteError
		if !errors.As(err, &qe) {
			t.Errorf("Quote(%s, %q) = %v, want a *QuoteError", tt.shell, tt.argv, err)
			continue
		}
		if qe.Shell != tt.shell || qe.Index != tt.index || qe.Offset != tt.offset || !strings.Contains(qe.Reason, tt.reason) {
			t.Errorf("Quote(%s, %q) = %+v, want index %d offset %d reason ~%q", tt.shell, tt.argv, qe, tt.index, tt.offset, tt.reason)
		}
		if !strings.Contains(err.Error(), string(tt.shell)) {
			t.Errorf("error %q does not name the shell", err)
		}
	}
}

// TestQuoteErrorUnwrap checks that mvdan's *syntax.QuoteError, returned
// by pointer, stays reachable through ours.
func TestQuoteErrorUnwrap(t *testing.T) {
	_, err := Quote(Bash, []string{"\x00"})
	var se *syntax.QuoteError
	if !errors.As(err, &se) {
		t.Fatalf("errors.As(%v, *syntax.QuoteError) failed", err)
	}
	want := "shellcfg: cannot quote argv[0] for bash: " + se.Message + " at byte 0"
	if err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
}

func TestArgv(t *testing.T) {
	tests := []struct {
		shell ShellType
		want  []string
	}{
		{Bash, []string{"bash", "-c", "--", "ls -la"}},
		{Sh, []string{"sh", "-c", "--", "ls -la"}},
		{Cmd, []string{"cmd.exe", "/d", "/s", "/c", `"ls -la"`}},
		{PowerShell, []string{"powershell", "-NoLogo", "-NoProfile", "-NonInteractive", "-Command", "ls -la"}},
		{"zsh", nil},
	}
	for _, tt := range tests {
		if got := Argv(tt.shell, "ls -la"); !slices.Equal(got, tt.want) {
			t.Errorf("Argv(%s) = %q, want %q", tt.shell, got, tt.want)
		}
		if got, want := Program(tt.shell), strings.Join(tt.want[:min(1, len(tt.want))], ""); got != want {
			t.Errorf("Program(%s) = %q, want %q", tt.shell, got, want)
		}
	}
}

// TestArgvRuns runs Argv's result for the shells present here and checks
// that the text, not an rc file or login profile, is what runs.
func TestArgvRuns(t *testing.T) {
	for _, s := range []ShellType{Bash, Sh} {
		argv := Argv(s, `printf '%s|' "$0" "$-"`)
		path, err := exec.LookPath(argv[0])
		if err != nil {
			t.Logf("skipping %s: not on PATH: %v", s, err)
			continue
		}
		cmd := exec.Command(path, argv[1:]...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "BASH_ENV=/nonexistent/rc", "ENV=/nonexistent/rc"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v: %s", argv, err, out)
		}
		if strings.ContainsAny(strings.Split(string(out), "|")[1], "il") {
			t.Errorf("%s runs interactive or login: $- is %q", s, out)
		}
	}
}

func BenchmarkQuote(b *testing.B) {
	for _, s := range []ShellType{Bash, Sh, Cmd, PowerShell} {
		argv := []string{"git", "commit", "-m", "fix: it's $HOME's `id` 100% bug!", "--author", "A <a@b.c>", "é\u2028x"}
		b.Run(string(s), func(b *testing.B) {
			for b.Loop() {
				if _, err := Quote(s, argv); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func ExampleQuote() {
	for _, s := range []ShellType{Bash, Cmd, PowerShell} {
		text, err := Quote(s, []string{"echo", "it's 100% $HOME"})
		fmt.Println(text, err)
	}
	// Output:
	// echo "it's 100% \$HOME" <nil>
	// echo ^"it's 100^% $HOME^" <nil>
	// & 'echo' 'it''s 100% $HOME' <nil>
}
