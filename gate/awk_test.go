package gate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type awkCase struct {
	args []string
	want Safety
	// oracle: run the system awk (mawk or gawk) and require that it writes
	// a file exactly when want is Write. Only set for POSIX programs.
	oracle bool
}

var awkCases = []awkCase{
	// Read-only.
	{sedArgv("{print $1}", "f"), ReadOnly, true},
	{sedArgv("-F:", "{print $1}", "f"), ReadOnly, true},
	{sedArgv("-F", ",", "{print $2}", "f"), ReadOnly, true},
	{sedArgv("-v", "n=3", "NR<=n", "f"), ReadOnly, true},
	{sedArgv("-vn=3", "NR<=n", "f"), ReadOnly, true},
	{sedArgv("--", "{print}", "f"), ReadOnly, true},
	{sedArgv("{s+=$2} END {print s/NR}", "f"), ReadOnly, true},
	{sedArgv("{ print $1 / 2 }", "f"), ReadOnly, true},
	{sedArgv("{ x = a[1] / 2; print x }", "f"), ReadOnly, true},
	{sedArgv("{ print (NR + 1) / 2 }", "f"), ReadOnly, true},
	{sedArgv("{ n /= 2 }", "f"), ReadOnly, true},
	{sedArgv("/foo/ {print}", "f"), ReadOnly, true},
	{sedArgv("/a\\/b/", "f"), ReadOnly, true},
	{sedArgv("$0 ~ /x[0-9]+/ {c++} END {print c}", "f"), ReadOnly, true},
	{sedArgv("NR==1 {print; next} {print $2}", "f"), ReadOnly, true},
	{sedArgv("{ if ($1 > 3) print $1 }", "f"), ReadOnly, true},
	{sedArgv("$3 > 100 { print }", "f"), ReadOnly, true},
	{sedArgv("{ print ($1 > $2) }", "f"), ReadOnly, true},
	{sedArgv("{ print > \"/dev/stderr\" }", "f"), ReadOnly, true},
	{sedArgv("{ printf \"%s\\n\", $1 > \"/dev/stdout\" }", "f"), ReadOnly, true},
	{sedArgv("{ print \"x\" >> \"/dev/null\"; print }", "f"), ReadOnly, true},
	{sedArgv("BEGIN { while ((getline line < \"f\") > 0) n++; print n }"), ReadOnly, true},
	{sedArgv("{ getline; print }", "f"), ReadOnly, true},
	{sedArgv("{ getline x; print x }", "f"), ReadOnly, true},
	{sedArgv("{ getline a[1] < \"f\"; print a[1] }", "f"), ReadOnly, true},
	{sedArgv("BEGIN { FS = \":\" } { print $1 | \"\" ; }"), Write, false},
	{sedArgv("# print > \"out\"\n{ print }", "f"), ReadOnly, true},
	{sedArgv("{ print \"> out\" }", "f"), ReadOnly, true},
	{sedArgv("{ print \"a\" \\\n  \"b\" }", "f"), ReadOnly, true},
	{sedArgv("{ a[$1]++ } END { for (k in a) print k, a[k] }", "f"), ReadOnly, true},
	{sedArgv("length > 3", "f"), ReadOnly, true},
	{sedArgv("{ print length / 2 }", "f"), ReadOnly, true},
	{sedArgv("{ print ENVIRON[\"HOME\"] }", "f"), ReadOnly, true},
	{sedArgv("{ close(\"x\"); fflush() }", "f"), ReadOnly, true},
	{sedArgv("{ print }", "f", "n=1", "/dev/stdin"), ReadOnly, false},
	{sedArgv("{ print }", "-i"), ReadOnly, false},
	{sedArgv("function f(x) { return x / 2 } { print f($1) }", "f"), ReadOnly, true},
	{sedArgv("{ if (NR > 1) /x/ }", "f"), ReadOnly, false},
	{sedArgv("{ print substr($0, 2) }\n/x/ { print }", "f"), ReadOnly, true},
	{sedArgv("{ x = 1\n}\n/re/ { print }", "f"), ReadOnly, true},

	// Write.
	{sedArgv("BEGIN{system(\"touch out\")}"), Write, true},
	{sedArgv("{ system (\"touch out\") }", "f"), Write, true},
	{sedArgv("{ print > \"out\" }", "f"), Write, true},
	{sedArgv("{ print >> \"out\" }", "f"), Write, true},
	{sedArgv("{ print $2 > $1 }", "f"), Write, true},
	{sedArgv("{ print > \"/dev/stderr\" \"x\" }", "f"), Write, false},
	{sedArgv("{ printf(\"%s\\n\", $1) > \"out\" }", "f"), Write, true},
	{sedArgv("{ print(1) > \"out\" }", "f"), Write, true},
	{sedArgv("NR==1 {print; next} {print $2 > 3}", "f"), Write, true},
	{sedArgv("{ print a,\n b > \"out\" }", "f"), Write, true},
	{sedArgv("{ print | \"cat > out\" }", "f"), Write, true},
	{sedArgv("{ print | \"sort\" }", "f"), Write, false},
	{sedArgv("{ \"date\" |& getline d }", "f"), Write, false},
	{sedArgv("{ if (NR) print > \"out\"; else print }", "f"), Write, true},
	{sedArgv("-o", "{print}", "f"), Write, false},
	{sedArgv("-ofile", "{print}", "f"), Write, false},
	{sedArgv("-p", "{print}", "f"), Write, false},
	{sedArgv("-d", "{print}", "f"), Write, false},
	{sedArgv("--pretty-print=x", "{print}", "f"), Write, false},
	{sedArgv("--profile", "{print}", "f"), Write, false},
	{sedArgv("--dump-variables", "{print}", "f"), Write, false},
	{sedArgv("--dump", "{print}", "f"), Write, false},
	{sedArgv("-W", "dump-variables", "{print}", "f"), Write, false},
	{sedArgv("-bo", "{print}", "f"), Write, false},

	// Unknown.
	{sedArgv("BEGIN{\"date\" | getline d; print d}"), Unknown, false},
	{sedArgv("{ cmd | getline x }", "f"), Unknown, false},
	{sedArgv("{ while ((getline line < file) > 0) n++ }", "f"), Unknown, false},
	{sedArgv("BEGIN { getline < \"/inet/tcp/0/h/80\" }"), Unknown, false},
	{sedArgv("{ print }", "/inet/tcp/0/h/80"), Unknown, false},
	{sedArgv("-f", "prog.awk", "f"), Unknown, false},
	{sedArgv("-fprog.awk", "f"), Unknown, false},
	{sedArgv("-e", "{print}", "f"), Unknown, false},
	{sedArgv("-E", "prog.awk", "f"), Unknown, false},
	{sedArgv("-i", "lib.awk", "{print}", "f"), Unknown, false},
	{sedArgv("-l", "ext", "{print}", "f"), Unknown, false},
	{sedArgv("--load=ext", "{print}", "f"), Unknown, false},
	{sedArgv("--source={print}", "f"), Unknown, false},
	{sedArgv("-W", "version"), Unknown, false},
	{sedArgv("--version"), Unknown, false},
	{sedArgv("-S", "{print}", "f"), Unknown, false},
	{sedArgv("-F"), Unknown, false},
	{sedArgv(), Unknown, false},
	{sedArgv("-F:"), Unknown, false},
	{sedArgv("@include \"x\"\n{print}", "f"), Unknown, false},
	{sedArgv("BEGIN { f = \"system\"; @f(\"x\") }"), Unknown, false},
	{sedArgv("BEGIN { awk::x = 1 }"), Unknown, false},
	{sedArgv("{ x++ / 2 }", "f"), Unknown, false},
	{sedArgv("{ print $/x/ }", "f"), Unknown, false},
	{sedArgv("/[/]/ { print }", "f"), Unknown, false},
	{sedArgv("{ print \"unterminated }", "f"), Unknown, false},
	{sedArgv("{ print \"a\nb\" }", "f"), Unknown, false},
	{sedArgv("/unterminated", "f"), Unknown, false},
	{sedArgv("{ print ( }", "f"), Unknown, false},
	{sedArgv("{ print ) }", "f"), Unknown, false},
	{sedArgv("{ x = 1 \\ y }", "f"), Unknown, false},
	{sedArgv("{ print `x` }", "f"), Unknown, false},
	{sedArgv("{ x = 1 >> 2 }", "f"), Unknown, false},
	{sedArgv("{ x | y }", "f"), Unknown, false},
	{sedArgv("{ getline < \"a\\\"b\" }", "f"), Unknown, false},
}

func TestClassifyAwk(t *testing.T) {
	for _, tt := range awkCases {
		got, why := classifyAwk(tt.args)
		if got != tt.want {
			t.Errorf("classifyAwk(%q) = %s (%s), want %s", tt.args, got, why, tt.want)
		}
		if why == "" {
			t.Errorf("classifyAwk(%q): empty reason", tt.args)
		}
	}
}

// TestAwkOracle runs the system awk on the POSIX cases in a scratch
// directory and checks that it writes a file exactly when the scanner says
// Write.
func TestAwkOracle(t *testing.T) {
	awk, err := exec.LookPath("awk")
	if err != nil {
		t.Skip("awk not installed:", err)
	}
	for _, tt := range awkCases {
		if !tt.oracle {
			continue
		}
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "f"), []byte("out 1 2\nb 3 4\nx 5 6\n"), 0o644)
		before := dirState(t, dir)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, awk, tt.args...)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		cancel()
		wrote := dirState(t, dir) != before
		if wrote != (tt.want == Write) {
			t.Errorf("awk %q: real awk wrote=%v (err %v, %q), scanner says %s", tt.args, wrote, err, out, tt.want)
		}
	}
}

func TestAwkLinear(t *testing.T) {
	big := "{" + strings.Repeat("x = x / 2; y = \"s\" ; z = /re/ ;", 1<<15) + "}"
	if got, why := classifyAwk(sedArgv(big)); got != ReadOnly {
		t.Errorf("long program: %s (%s)", got, why)
	}
	deep := strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000)
	if got, why := classifyAwk(sedArgv("BEGIN { x = " + deep + " }")); got != ReadOnly {
		t.Errorf("deep parens: %s (%s)", got, why)
	}
}

// FuzzAwk checks the awk scanner never panics, is deterministic, and that
// a system() call or a file-writing option always prevents read-only. The
// input is the argument list joined with NUL bytes.
func FuzzAwk(f *testing.F) {
	for _, tt := range awkCases {
		f.Add(strings.Join(tt.args, "\x00"))
	}
	f.Fuzz(func(t *testing.T, in string) {
		args := strings.Split(in, "\x00")
		got, why := classifyAwk(args)
		if again, why2 := classifyAwk(args); again != got || why2 != why {
			t.Fatalf("not deterministic: %s (%s) then %s (%s)", got, why, again, why2)
		}
		if got != ReadOnly && got != Write && got != Unknown {
			t.Fatalf("invalid class %q", got)
		}
		if r, _ := classifyAwk(append([]string{"-o"}, args...)); r != Write {
			t.Fatalf("-o %q classified %s", args, r)
		}
		prog := "BEGIN { system(\"touch x\") }\n" + args[0]
		if r, _ := classifyAwk([]string{prog}); r == ReadOnly {
			t.Fatalf("system() before %q classified read-only", args[0])
		}
		prog = args[0] + "\nBEGIN { print > \"out\" }"
		if r, _ := classifyAwk([]string{prog}); r == ReadOnly {
			t.Fatalf("%q then print > file classified read-only", args[0])
		}
	})
}
