package classify

import (
	"os/exec"
	"strings"
	"testing"
)

type awkCase struct {
	args []string
	// want is classifyAwk's class: Qwen Code's rules as a floor over the
	// lexer scan. Where the two differ the line says so, naming the Qwen
	// rule and the scan's own class.
	want Safety
	// oracle: run the system awk (mawk or gawk) and require that it writes
	// a file exactly when the lexer scan (classifyAwkScan) says Write, and
	// never when want is ReadOnly. Only set for POSIX programs.
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
	{sedArgv("{ if ($1 > 3) print $1 }", "f"), Unknown, true},                             // Qwen: print with a > or | it cannot prove harmless; GNU scan alone: read-only
	{sedArgv("$3 > 100 { print }", "f"), Unknown, true},                                   // Qwen: print with a > or | it cannot prove harmless; GNU scan alone: read-only
	{sedArgv("{ print ($1 > $2) }", "f"), Unknown, true},                                  // Qwen: print with a > or | it cannot prove harmless; GNU scan alone: read-only
	{sedArgv("{ print > \"/dev/stderr\" }", "f"), Write, true},                            // Qwen: awk print > "file" writes a file; GNU scan alone: read-only
	{sedArgv("{ printf \"%s\\n\", $1 > \"/dev/stdout\" }", "f"), Write, true},             // Qwen: awk print > "file" writes a file; GNU scan alone: read-only
	{sedArgv("{ print \"x\" >> \"/dev/null\"; print }", "f"), Write, true},                // Qwen: awk print > "file" writes a file; GNU scan alone: read-only
	{sedArgv("BEGIN { while ((getline line < \"f\") > 0) n++; print n }"), Unknown, true}, // Qwen: system(), close() or getline; GNU scan alone: read-only
	{sedArgv("{ getline; print }", "f"), Unknown, true},                                   // Qwen: system(), close() or getline; GNU scan alone: read-only
	{sedArgv("{ getline x; print x }", "f"), Unknown, true},                               // Qwen: system(), close() or getline; GNU scan alone: read-only
	{sedArgv("{ getline a[1] < \"f\"; print a[1] }", "f"), Unknown, true},                 // Qwen: system(), close() or getline; GNU scan alone: read-only
	{sedArgv("BEGIN { FS = \":\" } { print $1 | \"\" ; }"), Unknown, false},               // Qwen: print with a > or | it cannot prove harmless; GNU scan alone: write
	{sedArgv("# print > \"out\"\n{ print }", "f"), Unknown, true},                         // Qwen: print with a > or | it cannot prove harmless; GNU scan alone: read-only
	{sedArgv("{ print \"> out\" }", "f"), Unknown, true},                                  // Qwen: print with a > or | it cannot prove harmless; GNU scan alone: read-only
	{sedArgv("{ print \"a\" \\\n  \"b\" }", "f"), ReadOnly, true},
	{sedArgv("{ a[$1]++ } END { for (k in a) print k, a[k] }", "f"), ReadOnly, true},
	{sedArgv("length > 3", "f"), ReadOnly, true},
	{sedArgv("{ print length / 2 }", "f"), ReadOnly, true},
	{sedArgv("{ print ENVIRON[\"HOME\"] }", "f"), ReadOnly, true},
	{sedArgv("{ close(\"x\"); fflush() }", "f"), Unknown, true}, // Qwen: system(), close() or getline; GNU scan alone: read-only
	{sedArgv("{ print }", "f", "n=1", "/dev/stdin"), ReadOnly, false},
	{sedArgv("{ print }", "-i"), ReadOnly, false},
	{sedArgv("function f(x) { return x / 2 } { print f($1) }", "f"), ReadOnly, true},
	{sedArgv("{ if (NR > 1) /x/ }", "f"), ReadOnly, false},
	{sedArgv("{ print substr($0, 2) }\n/x/ { print }", "f"), ReadOnly, true},
	{sedArgv("{ x = 1\n}\n/re/ { print }", "f"), ReadOnly, true},

	// Write.
	{sedArgv("BEGIN{system(\"touch out\")}"), Unknown, true},    // Qwen: system(), close() or getline; GNU scan alone: write
	{sedArgv("{ system (\"touch out\") }", "f"), Unknown, true}, // Qwen: system(), close() or getline; GNU scan alone: write
	{sedArgv("{ print > \"out\" }", "f"), Write, true},
	{sedArgv("{ print >> \"out\" }", "f"), Write, true},
	{sedArgv("{ print $2 > $1 }", "f"), Unknown, true},                       // Qwen: print with a > or | it cannot prove harmless; GNU scan alone: write
	{sedArgv("{ print > \"/dev/stderr\" \"x\" }", "f"), Unknown, false},      // Qwen: print with a > or | it cannot prove harmless; GNU scan alone: write
	{sedArgv("{ printf(\"%s\\n\", $1) > \"out\" }", "f"), Unknown, true},     // Qwen: print with a > or | it cannot prove harmless; GNU scan alone: write
	{sedArgv("{ print(1) > \"out\" }", "f"), Unknown, true},                  // Qwen: print with a > or | it cannot prove harmless; GNU scan alone: write
	{sedArgv("NR==1 {print; next} {print $2 > 3}", "f"), Unknown, true},      // Qwen: print with a > or | it cannot prove harmless; GNU scan alone: write
	{sedArgv("{ print a,\n b > \"out\" }", "f"), Unknown, true},              // Qwen: print with a > or | it cannot prove harmless; GNU scan alone: write
	{sedArgv("{ print | \"cat > out\" }", "f"), Unknown, true},               // Qwen: print with a > or | it cannot prove harmless; GNU scan alone: write
	{sedArgv("{ print | \"sort\" }", "f"), Unknown, false},                   // Qwen: print with a > or | it cannot prove harmless; GNU scan alone: write
	{sedArgv("{ \"date\" |& getline d }", "f"), Unknown, false},              // Qwen: system(), close() or getline; GNU scan alone: write
	{sedArgv("{ if (NR) print > \"out\"; else print }", "f"), Unknown, true}, // Qwen: print with a > or | it cannot prove harmless; GNU scan alone: write
	{sedArgv("-o", "{print}", "f"), Unknown, false},                          // Qwen: awk option -o is not on its list; GNU scan alone: write
	{sedArgv("-ofile", "{print}", "f"), Unknown, false},                      // Qwen: awk option -ofile is not on its list; GNU scan alone: write
	{sedArgv("-p", "{print}", "f"), Unknown, false},                          // Qwen: awk option -p is not on its list; GNU scan alone: write
	{sedArgv("-d", "{print}", "f"), Unknown, false},                          // Qwen: awk option -d is not on its list; GNU scan alone: write
	{sedArgv("--pretty-print=x", "{print}", "f"), Unknown, false},            // Qwen: awk option --pretty-print=x is not on its list; GNU scan alone: write
	{sedArgv("--profile", "{print}", "f"), Unknown, false},                   // Qwen: awk option --profile is not on its list; GNU scan alone: write
	{sedArgv("--dump-variables", "{print}", "f"), Unknown, false},            // Qwen: awk option --dump-variables is not on its list; GNU scan alone: write
	{sedArgv("--dump", "{print}", "f"), Unknown, false},                      // Qwen: awk option --dump is not on its list; GNU scan alone: write
	{sedArgv("-W", "dump-variables", "{print}", "f"), Unknown, false},        // Qwen: awk option -W is not on its list; GNU scan alone: write
	{sedArgv("-bo", "{print}", "f"), Unknown, false},                         // Qwen: awk option -bo is not on its list; GNU scan alone: write

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
// directory and checks that it writes a file exactly when the lexer scan
// says Write, and never when classifyAwk says read-only.
func TestAwkOracle(t *testing.T) {
	awk, err := exec.LookPath("awk")
	if err != nil {
		t.Skip("awk not installed:", err)
	}
	for _, tt := range awkCases {
		if !tt.oracle {
			continue
		}
		wrote, out, err := runWrites(t, awk, tt.args, "out 1 2\nb 3 4\nx 5 6\n", "f")
		if scan, _ := classifyAwkScan(tt.args); wrote != (scan == Write) {
			t.Errorf("awk %q: real awk wrote=%v (err %v, %q), scanner says %s", tt.args, wrote, err, out, scan)
		}
		if wrote && tt.want == ReadOnly {
			t.Errorf("awk %q: real awk wrote, classifyAwk says read-only", tt.args)
		}
	}
}

func TestAwkLinear(t *testing.T) {
	big := "{" + strings.Repeat("x = x / 2; y = \"s\" ; z = /re/ ;", 1<<15) + "}"
	if got, why := classifyAwk(sedArgv(big)); got != ReadOnly {
		t.Errorf("long program: %s (%s)", got, why)
	}
	stmts := strings.Repeat("print \"a\" \"b\" x / 2; ", 1<<15)
	if got, why := classifyAwk(sedArgv("{" + stmts + "}")); got != ReadOnly {
		t.Errorf("many print statements: %s (%s)", got, why)
	}
	if got, why := classifyAwk(sedArgv("{" + stmts + "print > \"out\" }")); got != Unknown {
		// Qwen: a "/" it cannot place turns off its write rule, and print
		// with > is then unknown.
		t.Errorf("many print statements then a write: %s (%s)", got, why)
	}
	deep := strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000)
	if got, why := classifyAwk(sedArgv("BEGIN { x = " + deep + " }")); got != ReadOnly {
		t.Errorf("deep parens: %s (%s)", got, why)
	}
}

// FuzzAwk checks the awk scanner never panics, is deterministic, that a
// system() call or a file-writing option always prevents read-only (and -o
// is Write to the scan), and that read-only is proved by both layers. The
// input is the argument list joined with NUL bytes.
func FuzzAwk(f *testing.F) {
	for _, tt := range awkCases {
		f.Add(strings.Join(tt.args, "\x00"))
	}
	f.Fuzz(func(t *testing.T, in string) {
		args := strings.Split(in, "\x00")
		checkScanner(t, args, classifyAwk, classifyAwkScan, qwenAwk, "-o")
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
