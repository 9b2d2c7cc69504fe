package classify

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type sedCase struct {
	args []string
	// want is classifySed's class: Qwen Code's rules as a floor over the
	// GNU-exact scan. Where the two differ the line says so, naming the
	// Qwen rule and the GNU scan's own class.
	want Safety
	// oracle: run GNU sed on it and require that it writes a file exactly
	// when the GNU-exact scan (classifySedGNU) says Write, and never when
	// want is ReadOnly (false where sed would reject the command line or
	// where the result is Unknown).
	oracle bool
}

// sedArgv builds an argument list for the tables.
func sedArgv(args ...string) []string { return args }

var sedCases = []sedCase{
	// Read-only: printing and stream editing.
	{sedArgv("-n", "1,5p", "f"), ReadOnly, true},
	{sedArgv("s/a/b/g", "f"), ReadOnly, true},
	{sedArgv("-E", `s/(x)/\1/`, "f"), ReadOnly, true},
	{sedArgv("-e", "p", "-e", "d", "f"), Unknown, true}, // Qwen: an operand has e, w or r before a blank and might be a script; GNU scan alone: read-only
	{sedArgv("-n", "/foo/,/bar/p", "f"), Unknown, true}, // Qwen: sed command , is not on its list; GNU scan alone: read-only
	{sedArgv("10q", "f"), ReadOnly, true},
	{sedArgv("-n", "$p", "f"), ReadOnly, true},
	{sedArgv("y/abc/xyz/", "f"), Unknown, true}, // Qwen: sed command y is not on its list; GNU scan alone: read-only
	{sedArgv("-n", "=", "f"), ReadOnly, true},
	{sedArgv("-n", "l", "f"), ReadOnly, true},
	{sedArgv("-n", "l 40", "f"), ReadOnly, true},
	{sedArgv("-s", "-n", "1p", "f", "g"), ReadOnly, true},
	{sedArgv("-z", "s/x/y/", "f"), ReadOnly, true},
	{sedArgv("--posix", "-n", "p", "f"), Unknown, true}, // Qwen: sed option --posix is not on its list; GNU scan alone: read-only
	{sedArgv("-l", "10", "-n", "l", "f"), ReadOnly, true},
	{sedArgv("--line-length=5", "-n", "l", "f"), ReadOnly, true},
	{sedArgv("--quiet", "p", "f"), Unknown, true},               // Qwen: sed option --quiet is not on its list; GNU scan alone: read-only
	{sedArgv("--silent", "--expression=p", "f"), Unknown, true}, // Qwen: sed option --silent is not on its list; GNU scan alone: read-only
	{sedArgv("--expression", "p", "f"), ReadOnly, true},
	{sedArgv("--null-data", "--separate", "--regexp-extended", "--unbuffered", "p", "f"), Unknown, true}, // Qwen: sed option --null-data is not on its list; GNU scan alone: read-only
	{sedArgv("--debug", "p", "f"), Unknown, true},                                                        // Qwen: sed option --debug is not on its list; GNU scan alone: read-only
	{sedArgv("--sandbox", "p", "f"), Unknown, true},                                                      // Qwen: sed option --sandbox is not on its list; GNU scan alone: read-only
	{sedArgv("-u", "-r", "p", "f"), Unknown, true},                                                       // Qwen: an operand has e, w or r before a blank and might be a script; GNU scan alone: read-only
	{sedArgv(`:a;N;$!ba;s/\n/ /g`, "f"), Unknown, true},                                                  // Qwen: sed command : is not on its list; GNU scan alone: read-only
	{sedArgv("a hello; w out", "f"), Unknown, true},                                                      // Qwen: sed command a is not on its list; GNU scan alone: read-only
	{sedArgv("1i\\\nw out", "f"), Unknown, true},                                                         // Qwen: sed command i is not on its list; GNU scan alone: read-only
	{sedArgv("$a\\text w out", "f"), Unknown, true},                                                      // Qwen: sed command a is not on its list; GNU scan alone: read-only
	{sedArgv("c\\\nline one\\\nw out", "f"), Unknown, true},                                              // Qwen: sed command c is not on its list; GNU scan alone: read-only
	{sedArgv("-e", "a\\", "-e", "w out", "f"), Write, true},                                              // Qwen: sed w command writes a file; GNU scan alone: read-only
	{sedArgv("-e", "a foo\\", "-e", "w out", "f"), Write, true},                                          // Qwen: sed w command writes a file; GNU scan alone: read-only
	{sedArgv("/x/{p;d}", "f"), Unknown, true},                                                            // Qwen: sed command { is not on its list; GNU scan alone: read-only
	{sedArgv("/x/{p;d};p", "f"), Unknown, true},                                                          // Qwen: sed command { is not on its list; GNU scan alone: read-only
	{sedArgv("s/a/b/3", "f"), ReadOnly, true},
	{sedArgv("s/a/b/gI", "f"), ReadOnly, true},
	{sedArgv("s/a/b/ p", "f"), ReadOnly, true},
	{sedArgv("s|/usr|/opt|g", "f"), ReadOnly, true},
	{sedArgv("s/[/]/x/", "f"), Unknown, true},          // Qwen: sed s flag is not on its list; GNU scan alone: read-only
	{sedArgv("s/[[:space:]/]/x/", "f"), Unknown, true}, // Qwen: sed s flag is not on its list; GNU scan alone: read-only
	{sedArgv("s/[]/]/x/", "f"), Unknown, true},         // Qwen: sed s flag is not on its list; GNU scan alone: read-only
	{sedArgv("s/a/b/ ; p", "f"), ReadOnly, true},
	{sedArgv("-n", "2~3p", "f"), Unknown, true},     // Qwen: sed command ~ is not on its list; GNU scan alone: read-only
	{sedArgv("0,/re/d", "f"), Unknown, true},        // Qwen: sed command , is not on its list; GNU scan alone: read-only
	{sedArgv("-n", "/a/I,+2p", "f"), Unknown, true}, // Qwen: sed command I is not on its list; GNU scan alone: read-only
	{sedArgv("-n", `\%x%p`, "f"), Unknown, true},    // Qwen: sed command \ is not on its list; GNU scan alone: read-only
	{sedArgv("-n", `\,a,p`, "f"), Unknown, true},    // Qwen: sed command \ is not on its list; GNU scan alone: read-only
	{sedArgv("p", "--", "-i"), ReadOnly, false},
	{sedArgv("p", "--", "w"), ReadOnly, false},
	{sedArgv("-n", "--", "1p", "f"), ReadOnly, true},
	{sedArgv("w /dev/stdout", "f"), Write, true},       // Qwen: sed w command writes a file; GNU scan alone: read-only
	{sedArgv("s/x/y/w /dev/stderr", "f"), Write, true}, // Qwen: sed s///w flag writes a file; GNU scan alone: read-only
	{sedArgv("# w out\np", "f"), Unknown, true},        // Qwen: sed command # is not on its list; GNU scan alone: read-only
	{sedArgv("p # w out", "f"), Unknown, true},         // Qwen: e, w or r before a blank might be a command (compatibility rule); GNU scan alone: read-only
	{sedArgv("v 4.2", "f"), Unknown, true},             // Qwen: sed command v is not on its list; GNU scan alone: read-only
	{sedArgv("-n", "F", "f"), Unknown, true},           // Qwen: sed command F is not on its list; GNU scan alone: read-only
	{sedArgv("z;p", "f"), ReadOnly, true},
	{sedArgv("q5", "f"), ReadOnly, true},
	{sedArgv("Q 1", "f"), ReadOnly, true},
	{sedArgv("b end; p; :end", "f"), Unknown, true}, // Qwen: sed command b is not on its list; GNU scan alone: read-only
	{sedArgv("T;p", "f"), Unknown, true},            // Qwen: sed command T is not on its list; GNU scan alone: read-only
	{sedArgv(`s/x/\n/`, "f"), ReadOnly, true},
	{sedArgv("s/a/b\\\nc/", "f"), ReadOnly, true},
	{sedArgv("1!G;h;$!d", "f"), Unknown, true},                    // Qwen: sed command ! is not on its list; GNU scan alone: read-only
	{sedArgv("$!N;/^\\(.*\\)\\n\\1$/!P;D", "f"), Unknown, true},   // Qwen: sed command ! is not on its list; GNU scan alone: read-only
	{sedArgv("-n", "/start/,/end/{/end/!p}", "f"), Unknown, true}, // Qwen: sed command , is not on its list; GNU scan alone: read-only
	{sedArgv("-n", "1 ! p", "f"), Unknown, true},                  // Qwen: sed command ! is not on its list; GNU scan alone: read-only
	{sedArgv("s/x/y/;s/w/v/", "f"), ReadOnly, true},
	{sedArgv("-n", "/w out/p", "f"), Unknown, true}, // Qwen: e, w or r before a blank might be a command (compatibility rule); GNU scan alone: read-only
	{sedArgv("s/e/r/", "f"), ReadOnly, true},
	{sedArgv("y/w/e/", "f"), Unknown, true}, // Qwen: sed command y is not on its list; GNU scan alone: read-only

	// Write: in-place editing, w/W commands and the s///w flag.
	{sedArgv("-i", "s/a/b/", "f"), Write, true},
	{sedArgv("-i.bak", "s/a/b/", "f"), Write, true},
	{sedArgv("-ibak", "p", "f"), Write, true},
	{sedArgv("-ni", "p", "f"), Write, true},
	{sedArgv("-Ei", "s/a/b/", "f"), Write, true},
	{sedArgv("-in", "p", "f"), Write, true},
	{sedArgv("-n", "p", "f", "-i"), Write, true},
	{sedArgv("s/a/b/", "f", "-i.orig"), Write, true},
	{sedArgv("--in-place", "p", "f"), Write, true},
	{sedArgv("--in-place=.bak", "p", "f"), Write, true},
	{sedArgv("--in=.bak", "p", "f"), Unknown, true},    // Qwen: sed option --in=.bak is not on its list; GNU scan alone: write
	{sedArgv("--i", "p", "f"), Unknown, true},          // Qwen: sed option --i is not on its list; GNU scan alone: write
	{sedArgv("--in-pl=.bak", "p", "f"), Unknown, true}, // Qwen: sed option --in-pl=.bak is not on its list; GNU scan alone: write
	{sedArgv("-I", "p", "f"), Write, false},
	{sedArgv("-s", "-i", "-e", "p", "f"), Write, true},
	{sedArgv("1w out", "f"), Write, true},
	{sedArgv("/re/w out", "f"), Write, true},
	{sedArgv("$w out", "f"), Write, true},
	{sedArgv("w out", "f"), Write, true},
	{sedArgv("W out", "f"), Write, true},
	{sedArgv("1,$ w out", "f"), Write, true},
	{sedArgv("1!w out", "f"), Unknown, true}, // Qwen: sed command ! is not on its list; GNU scan alone: write
	{sedArgv("s/a/b/w out", "f"), Write, true},
	{sedArgv("s/a/b/gw out", "f"), Write, true},
	{sedArgv("s/a/b/ w out", "f"), Write, true},
	{sedArgv("p;w out", "f"), Write, true},
	{sedArgv("s/a/;/;w out", "f"), Write, true},
	{sedArgv("/x/{w out\n}", "f"), Unknown, true}, // Qwen: sed command { is not on its list; GNU scan alone: write
	{sedArgv("1!{w out\n}", "f"), Unknown, true},  // Qwen: sed command ! is not on its list; GNU scan alone: write
	{sedArgv("-e", "p", "-e", "w out", "f"), Write, true},
	{sedArgv("-n", "/x/w out", "f"), Write, true},
	{sedArgv("s/[/]/x/w out", "f"), Write, true},
	{sedArgv("y/a/b/;w out", "f"), Unknown, true},  // Qwen: sed command y is not on its list; GNU scan alone: write
	{sedArgv(": x ; w out", "f"), Unknown, true},   // Qwen: sed command : is not on its list; GNU scan alone: write
	{sedArgv("b x;w out\n:x", "f"), Unknown, true}, // Qwen: sed command b is not on its list; GNU scan alone: write
	{sedArgv("-e", "a foo", "-e", "w out", "f"), Write, true},
	{sedArgv("a\\\nx\nw out", "f"), Unknown, true}, // Qwen: sed command a is not on its list; GNU scan alone: write
	{sedArgv("1i\\\\\nw out", "f"), Unknown, true}, // Qwen: sed command i is not on its list; GNU scan alone: write
	{sedArgv("e ls", "-i", "f"), Write, false},
	{sedArgv("-n", "p", "--in-place", "f"), Write, true},
	{sedArgv("w out\nr f", "f"), Write, true},

	// Unknown: commands that run or read something, external scripts,
	// options the scanner does not model, malformed programs.
	{sedArgv("e", "f"), Unknown, false},
	{sedArgv("e ls", "f"), Unknown, false},
	{sedArgv("s/a/b/e", "f"), Unknown, false},
	{sedArgv("r f", "f"), Unknown, false},
	{sedArgv("R f", "f"), Unknown, false},
	{sedArgv("1r /etc/passwd", "f"), Unknown, false},
	{sedArgv("w", "f"), Unknown, false},
	{sedArgv("s/a/b/w", "f"), Unknown, false},
	{sedArgv("-f", "script.sed", "f"), Unknown, false},
	{sedArgv("-fscript.sed", "f"), Unknown, false},
	{sedArgv("--file=script.sed", "f"), Unknown, false},
	{sedArgv("--file", "script.sed", "f"), Unknown, false},
	{sedArgv("--help"), Unknown, false},
	{sedArgv("--version"), Unknown, false},
	{sedArgv("--in-plx", "p", "f"), Unknown, false},
	{sedArgv("--foo", "p", "f"), Unknown, false},
	{sedArgv("--posix=x", "p", "f"), Unknown, false},
	{sedArgv("-x", "p", "f"), Unknown, false},
	{sedArgv("-e"), Unknown, false},
	{sedArgv("--expression"), Unknown, false},
	{sedArgv("-l", "x", "p", "f"), Unknown, false},
	{sedArgv("s/a/b/x", "f"), Unknown, false},
	{sedArgv(`s\a\b\`, "f"), Unknown, false},
	{sedArgv("s\na\nb\n", "f"), Unknown, false},
	{sedArgv("s/a/b", "f"), Unknown, false},
	{sedArgv("s/a/b/\xc3\xa9", "f"), Unknown, false},
	{sedArgv("s\xc3\xa9a\xc3\xa9b\xc3\xa9", "f"), Unknown, false},
	{sedArgv("{p", "f"), Unknown, false},
	{sedArgv("p}", "f"), Unknown, false},
	{sedArgv("1}", "f"), Unknown, false},
	{sedArgv("k", "f"), Unknown, false},
	{sedArgv("p x", "f"), Unknown, false},
	{sedArgv("1#c", "f"), Unknown, false},
	{sedArgv("1:a", "f"), Unknown, false},
	{sedArgv(":", "f"), Unknown, false},
	{sedArgv("1!!p", "f"), Unknown, false},
	{sedArgv("1,p", "f"), Unknown, false},
	{sedArgv("1", "f"), Unknown, false},
	{sedArgv(), Unknown, false},
	{sedArgv("-n"), Unknown, false},
	{sedArgv("-e", "-i", "f"), Unknown, false},
	{sedArgv("--", "-i", "f"), Unknown, false},
	{sedArgv("w out", "-e", "p", "f"), Write, false}, // Qwen: sed w command writes a file; GNU scan alone: unknown
	{sedArgv("/[abc/p", "f"), Unknown, false},
	{sedArgv("a", "f"), Unknown, false},
}

func TestClassifySed(t *testing.T) {
	for _, tt := range sedCases {
		got, why := classifySed(tt.args)
		if got != tt.want {
			t.Errorf("classifySed(%q) = %s (%s), want %s", tt.args, got, why, tt.want)
		}
		if why == "" {
			t.Errorf("classifySed(%q): empty reason", tt.args)
		}
	}
}

// TestSedOracle runs GNU sed on every case marked oracle in a scratch
// directory and checks that it writes a file exactly when the GNU-exact
// scan says Write, and never when classifySed says read-only. It confirms the scanner's reading of scripts against the real
// parser (for example that "a text; w out" is text, not a w command).
func TestSedOracle(t *testing.T) {
	sed, err := exec.LookPath("sed")
	if err != nil {
		t.Skip("sed not installed:", err)
	}
	if out, _ := exec.Command(sed, "--version").Output(); !strings.Contains(string(out), "GNU sed") {
		t.Skip("sed is not GNU sed")
	}
	for _, tt := range sedCases {
		if !tt.oracle {
			continue
		}
		wrote, out, err := runWrites(t, sed, tt.args, "a/b\nfoo x w\nstart\nend\n", "f", "g")
		if gnu, _ := classifySedGNU(tt.args); wrote != (gnu == Write) {
			t.Errorf("sed %q: real sed wrote=%v (err %v, %q), GNU scan says %s", tt.args, wrote, err, out, gnu)
		}
		if wrote && tt.want == ReadOnly {
			t.Errorf("sed %q: real sed wrote, classifySed says read-only", tt.args)
		}
	}
}

// runWrites runs tool with args in a scratch directory holding the named
// files (each with content) and reports whether it changed the directory,
// with the tool's combined output and error.
func runWrites(t *testing.T, tool string, args []string, content string, files ...string) (bool, []byte, error) {
	t.Helper()
	dir := t.TempDir()
	for _, name := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := dirState(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	return dirState(t, dir) != before, out, err
}

// dirState summarises names, sizes, modes, mtimes and contents of a
// directory.
func dirState(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		fmt.Fprintf(&b, "%s %d %v %v %q\n", e.Name(), fi.Size(), fi.Mode(), fi.ModTime(), data)
	}
	return b.String()
}

// TestSedLinear checks hostile scripts finish (the benchmarks measure the
// time; this only makes sure nothing blows up), through both layers.
func TestSedLinear(t *testing.T) {
	n := 1 << 17
	cases := []struct {
		script    string
		want, gnu Safety
	}{
		{strings.Repeat("s/a/b/;", n), ReadOnly, ReadOnly},
		// Qwen: { is not on its list.
		{strings.Repeat("{", 100000) + strings.Repeat("}", 100000), Unknown, ReadOnly},
		{"s/" + strings.Repeat("[", 100000) + "/x/", Unknown, Unknown},
		// Qwen: ; is not a command it knows.
		{strings.Repeat(";", 100000) + "w x", Unknown, Write},
		{strings.Repeat("p;", n) + "w x", Write, Write},
		{strings.Repeat("/x/p;", n), ReadOnly, ReadOnly},
		{"/" + strings.Repeat(`\/`, n), Unknown, Unknown},
		{strings.Repeat("s/w /x/;", n), Unknown, ReadOnly},
	}
	for i, c := range cases {
		if got, why := classifySed(sedArgv(c.script)); got != c.want {
			t.Errorf("case %d: %s (%s), want %s", i, got, why, c.want)
		}
		if got, why := classifySedGNU(sedArgv(c.script)); got != c.gnu {
			t.Errorf("case %d: GNU scan %s (%s), want %s", i, got, why, c.gnu)
		}
	}
}

// FuzzSed checks the sed scanner never panics, is deterministic, that
// in-place editing or a leading w command always prevents read-only (and
// is Write to the GNU scan), and that read-only is proved by both layers. The
// input is the argument list joined with NUL bytes.
func FuzzSed(f *testing.F) {
	for _, tt := range sedCases {
		f.Add(strings.Join(tt.args, "\x00"))
	}
	f.Fuzz(func(t *testing.T, in string) {
		args := strings.Split(in, "\x00")
		checkScanner(t, args, classifySed, classifySedGNU, qwenSed, "-i")
		if r, _ := classifySed([]string{"-e", "w /tmp/x", "-e", args[0]}); r == ReadOnly {
			t.Fatalf("w /tmp/x then %q classified read-only", args[0])
		}
		if r, _ := classifySed([]string{"w /tmp/x\n" + args[0]}); r == ReadOnly {
			t.Fatalf("w /tmp/x newline %q classified read-only", args[0])
		}
	})
}

// TestSedSandboxDifferential generates random scripts from sed's special
// characters and asks GNU sed's own parser about each one the scanner
// calls read-only: "sed --sandbox" refuses to compile any script with an
// e, r, R, w or W command or an s///e or s///w flag, so it must accept
// them. Scripts the scanner calls Write must be refused. (The atoms never
// form "w /dev/stdout", the one write target the scanner allows.)
func TestSedSandboxDifferential(t *testing.T) {
	sed, err := exec.LookPath("sed")
	if err != nil {
		t.Skip("sed not installed:", err)
	}
	if out, _ := exec.Command(sed, "--version").Output(); !strings.Contains(string(out), "GNU sed") {
		t.Skip("sed is not GNU sed")
	}
	atoms := []string{"s", "/", "a", "b", "w", " ", "x", ";", "\n", "\\", "[", "]", "{", "}",
		"p", "e", "r", "R", "W", "#", ":", "i", "c", "y", "1", "$", "!", ",", "g", "I", "M",
		"q", "l", "=", "t", "|", "^", ".", "*", "n", "v", "F", "z"}
	rng := rand.New(rand.NewSource(1))
	checked := 0
	for n := 0; n < 1200; n++ {
		var sb strings.Builder
		for k := 1 + rng.Intn(12); k > 0; k-- {
			sb.WriteString(atoms[rng.Intn(len(atoms))])
		}
		script := sb.String()
		got, _ := classifySed(sedArgv("-n", script))
		if got == Unknown {
			continue
		}
		checked++
		cmd := exec.Command(sed, "--sandbox", "-n", "-e", script)
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		refused := strings.Contains(string(out), "sandbox")
		if got == ReadOnly && refused {
			t.Errorf("scanner says read-only, sed --sandbox refuses %q: %s", script, out)
		}
		if got == Write && err == nil {
			t.Errorf("scanner says write, sed --sandbox accepts %q", script)
		}
	}
	t.Logf("%d scripts checked against sed --sandbox", checked)
}

// checkScanner holds the properties FuzzSed and FuzzAwk share for a
// scanner: full is the classifier entry point, own our linear scan and qwen
// the peer's rules it is floored by. It is deterministic and returns a valid
// class; prefixing the poison option (a file-writing one) never yields
// read-only and is Write to our own scan; and read-only is proved by both
// layers.
func checkScanner(t *testing.T, args []string, full, own, qwen func([]string) (Safety, string), poison string) {
	t.Helper()
	got, why := full(args)
	if again, why2 := full(args); again != got || why2 != why {
		t.Fatalf("not deterministic: %s (%s) then %s (%s)", got, why, again, why2)
	}
	if got != ReadOnly && got != Write && got != Unknown {
		t.Fatalf("invalid class %q", got)
	}
	poisoned := append([]string{poison}, args...)
	if r, _ := full(poisoned); r == ReadOnly {
		t.Fatalf("%s %q classified %s", poison, args, r)
	}
	if r, _ := own(poisoned); r != Write {
		t.Fatalf("our scan: %s %q classified %s", poison, args, r)
	}
	if got == ReadOnly {
		if s, _ := own(args); s != ReadOnly {
			t.Fatalf("%q read-only, our scan says %s", args, s)
		}
		if q, _ := qwen(args); q != ReadOnly {
			t.Fatalf("%q read-only, Qwen's rules say %s", args, q)
		}
	}
}
