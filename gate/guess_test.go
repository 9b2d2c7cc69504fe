package gate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnmodelledOperands: a program whose operands the table does not
// model may run the command they spell — one the table does not know
// (setarch's aliases, runcon, a vendor CLI), a package manager's or build
// tool's run/exec, a project script handed a command. With allow Bash(*)
// and deny Bash(rm *) none is allowed; spelled catastrophically, yolo
// refuses it. Near misses, whose operands name no program the rules deny
// or whose words are not commands, stay allowed.
func TestUnmodelledOperands(t *testing.T) {
	p := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)", "Bash(git push *)"})
	yolo := testPolicy(t, []string{"Bash"}, nil, nil)
	refused := []string{
		"i386 rm -f x", "x86_64 rm -f x", "runcon -t t rm -f x", "systemd-inhibit --what=idle rm -f x",
		"vendor-cli --retry 3 rm -f x", "i386 /bin/rm -f x", "i386 git push origin main",
		"nix-shell -p hello --run 'rm -f x'", "nix-shell --run='rm -f x'", "vendor-cli exec 'cd /tmp && rm -f x'",
		"npx rm -f x", "npm exec -- rm -f x", "uv run rm -f x", "poetry run rm -f x", "docker run img rm -f x",
		"./retry.sh rm -f x", "bash retry.sh rm -f x", "python3 retry.py rm -f x", "source retry.sh rm -f x",
		"vendor-cli sudo rm -f x", "vendor-cli env -i rm -f x",
		"i386 /bin/r? -f x", "Z=rm; i386 $Z -f x", "i386 {rm,} -f x", "vendor-cli /usr/*/rm -f x",
		// a guess inside a guess, read afresh
		"i386 su root -c 'i386 rm -f x'", "vendor-cli 'i386 rm -f x'",
		// static text fed to its standard input
		"echo 'rm -f x' | vendor-cli", "vendor-cli <<< 'rm -f x'", "vendor-cli <<'E'\nrm -f x\nE",
		// a variable the table has no fact about, given to any program
		"GH_PAGER='rm -f x' gh pr list", "AWS_PAGER='rm -f x' aws s3 ls", "RUSTC_WRAPPER=rm cargo build", "VENDOR_HOOK='rm -f x' vendor-cli",
	}
	for _, text := range refused {
		for _, gate := range []bool{false, true} {
			if d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: gate}); d.Action == Allow {
				t.Errorf("%q (exec gate %v) allowed under deny Bash(rm *): %s", text, gate, d.Reason)
			}
		}
		if !strings.Contains(text, "rm -f x") {
			continue
		}
		cat := strings.ReplaceAll(text, "rm -f x", "rm -rf /")
		if d := Decide(Input{Text: cat, Policy: yolo, Mode: ModeYolo, Cwd: "/work"}); d.Action == Allow {
			t.Errorf("%q allowed in yolo: %s", cat, d.Reason)
		}
	}
	for _, text := range []string{
		"vendor-cli ls", "vendor-cli 'build done'", "vendor-cli \"it's done\"", "npm install -D typescript @types/node",
		"i386 ls -la", "./retry.sh make test", "docker run --rm -it node:20 bash", "vendor-cli cd /", "vendor-cli src/rm",
		"vendor-cli *.txt", "vendor-cli ./*", "vendor-cli /tmp/*.log", `vendor-cli "$FILE"`,
		"echo hello | vendor-cli", "vendor-cli <<< 'hello world'",
		// a subcommand that is also a program's name, with the
		// subcommand's options: no evidence of anything
		"pip install -e .", "sudo apt-get install -y jq", "mvn clean install -DskipTests", "go install ./cmd/x@latest",
		// variables whose values name no program and are no command
		"GIT_COMMITTER_NAME='John Doe' git status", "CFLAGS='-O2 -g' make", "CC=gcc make", "CI=true npm test", "LANG=C sort f",
	} {
		if d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: true}); d.Action != Allow {
			t.Errorf("near miss %q: %s: %s", text, d.Action, d.Reason)
		}
		if d := Decide(Input{Text: text, Policy: yolo, Mode: ModeYolo, Cwd: "/work"}); d.Action != Allow {
			t.Errorf("near miss %q in yolo: %s: %s", text, d.Action, d.Reason)
		}
	}
	// A deny rule matched through a guess asks, and says which program
	// may run what.
	d := Decide(Input{Text: "i386 rm -f x", Policy: p, Cwd: "/work"})
	if d.Action != Ask || !strings.Contains(d.Reason, "`i386`") || !strings.Contains(d.Reason, "rm -f x") {
		t.Errorf("i386 rm -f x: %s: %s", d.Action, d.Reason)
	}
}

// TestUnmodelledOperandsConfirm runs unmodelled programs that really run
// their operands under bash, with a stand-in rm first on PATH: setarch's
// i386 and x86_64 aliases and a project script that runs "$@". Each runs
// rm, and the gate does not allow it under deny Bash(rm *).
func TestUnmodelledOperandsConfirm(t *testing.T) {
	bash := requireBash(t)
	p := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	for _, text := range []string{"i386 rm -f x", "x86_64 rm -f x", "./retry.sh rm -f x", "bash retry.sh rm -f x"} {
		name := strings.Fields(text)[0]
		if !strings.Contains(text, "retry") {
			if _, err := exec.LookPath(name); err != nil {
				continue
			}
		}
		t.Run(text, func(t *testing.T) {
			dir := t.TempDir()
			bin, marker := standInRm(t, dir, false)
			if err := os.WriteFile(filepath.Join(dir, "retry.sh"), []byte("#!/bin/sh\n\"$@\"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bash, "-c", text)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir, "LC_ALL=C"}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Skipf("%q does not run here: %v %s", text, err, out)
			}
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("%q: bash did not run the stand-in rm (the form is wrong here)", text)
			}
			if d := Decide(Input{Text: text, Policy: p, Cwd: dir}); d.Action == Allow {
				t.Errorf("%q ran rm under bash, and the gate allowed it: %s", text, d.Reason)
			}
		})
	}
}

// TestTracerOutputPipe: strace -o '|CMD' (or '!CMD') pipes the trace into
// CMD, run by a shell — under deny Bash(rm *) it is refused, in yolo a
// catastrophic CMD is; an ordinary trace file stays allowed. Confirmed
// with strace under bash when it can trace here.
func TestTracerOutputPipe(t *testing.T) {
	p := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	yolo := testPolicy(t, []string{"Bash"}, nil, nil)
	for _, text := range []string{"strace -o '|rm -f x' true", "strace -o'!rm -f x' true", "strace --output='|rm -f x' true",
		"strace -fo'|rm -f x' true", "strace --out='|rm -f x' true", `strace -o "$OUT" true`} {
		if d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: true}); d.Action == Allow {
			t.Errorf("%q allowed under deny Bash(rm *): %s", text, d.Reason)
		}
	}
	if d := Decide(Input{Text: "strace -o '|rm -rf /' true", Policy: yolo, Mode: ModeYolo, Cwd: "/work"}); d.Action != Deny {
		t.Errorf("strace -o '|rm -rf /' in yolo: %s: %s", d.Action, d.Reason)
	}
	for _, text := range []string{"strace -o trace.txt true", "strace -f -o trace.txt -e trace=open true", "strace -o '|cat' true"} {
		if d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: true}); d.Action != Allow {
			t.Errorf("near miss %q: %s: %s", text, d.Action, d.Reason)
		}
	}

	bash := requireBash(t)
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace not installed: the bash confirmation needs it")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "RAN")
	text := "strace -o '|cat > " + marker + "' true"
	cmd := exec.Command(bash, "-c", text)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("strace cannot trace here: %v %s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("%q: strace did not run the piped command", text)
	}
}

// TestSqliteStdin: sqlite3 given no SQL on its command line reads SQL and
// dot commands from standard input, where .shell, .system and .output |CMD
// run programs — read there as on the command line. Confirmed with
// sqlite3 under bash when it is installed.
func TestSqliteStdin(t *testing.T) {
	p := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	yolo := testPolicy(t, []string{"Bash"}, nil, nil)
	for _, text := range []string{"sqlite3 x.db <<< '.shell rm -f x'", "echo '.system rm -f x' | sqlite3 x.db",
		"sqlite3 -separator , x.db <<< '.shell rm -f x'", "cat q.sql | sqlite3 x.db", "sqlite3 x.db <<'E'\n.output |rm -f x\nselect 1;\nE"} {
		if d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: true}); d.Action == Allow {
			t.Errorf("%q allowed under deny Bash(rm *): %s", text, d.Reason)
		}
	}
	if d := Decide(Input{Text: "echo '.system rm -rf /' | sqlite3", Policy: yolo, Mode: ModeYolo, Cwd: "/work"}); d.Action != Deny {
		t.Errorf("sqlite3 fed .system rm -rf / in yolo: %s: %s", d.Action, d.Reason)
	}
	for _, text := range []string{"sqlite3 x.db 'select 1'", "sqlite3 -header -csv x.db 'select 1'", "echo 'select 1;' | sqlite3 x.db",
		"sqlite3 x.db <<< 'select 1;'", "sqlite3 x.db < schema.sql", "sqlite3 x.db .tables"} {
		if d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: true}); d.Action != Allow {
			t.Errorf("near miss %q: %s: %s", text, d.Action, d.Reason)
		}
	}

	bash := requireBash(t)
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("sqlite3 not installed: the bash confirmation needs it")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "RAN")
	for _, form := range []string{"sqlite3 <<< '.shell touch M'", "echo '.system touch M' | sqlite3 :memory:"} {
		_ = os.Remove(marker)
		cmd := exec.Command(bash, "-c", strings.ReplaceAll(form, "M", "'"+marker+"'"))
		cmd.Dir = dir
		_ = cmd.Run()
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("%q: sqlite3 did not run the dot command from its standard input", form)
		}
	}
}

// TestWriterCommandOptions: writers whose options run a command — split
// --filter (a shell command per piece), install --strip-program — in
// every spelling getopt_long accepts, under deny Bash(rm *) and in yolo;
// their ordinary forms stay allowed. Confirmed under bash with a stand-in.
func TestWriterCommandOptions(t *testing.T) {
	p := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	yolo := testPolicy(t, []string{"Bash"}, nil, nil)
	for _, text := range []string{"split --filter='rm -f x' f", "split --fil='rm -f x' f", "split -n 2 --filter 'rm -f x' f",
		"install -s --strip-program=rm a b", "install --strip-prog=rm -s a b", "split --bogus f"} {
		if d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: true}); d.Action == Allow {
			t.Errorf("%q allowed under deny Bash(rm *): %s", text, d.Reason)
		}
	}
	if d := Decide(Input{Text: "split -n 2 --filter 'rm -rf /' f", Policy: yolo, Mode: ModeYolo, Cwd: "/work"}); d.Action != Deny {
		t.Errorf("split --filter 'rm -rf /' in yolo: %s: %s", d.Action, d.Reason)
	}
	for _, text := range []string{"split -b 1M f part-", "split -l 1000 -d --additional-suffix=.txt f p", "split -1000 f",
		"install -m 644 a b", "install -D -m 0755 a /usr/local/bin/a", "install -Dm644 a b", "install -d dir"} {
		if d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: true}); d.Action != Allow {
			t.Errorf("near miss %q: %s: %s", text, d.Action, d.Reason)
		}
	}

	bash := requireBash(t)
	for _, c := range []struct{ text, tool string }{
		{"echo hi > f && split --filter='rm -f x' f", "split"},
		{"echo hi > a && install -s --strip-program=rm a b", "install"},
	} {
		if _, err := exec.LookPath(c.tool); err != nil {
			continue
		}
		dir := t.TempDir()
		bin, marker := standInRm(t, dir, true)
		cmd := exec.Command(bash, "-c", c.text)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "LC_ALL=C"}
		cmd.Stdin = strings.NewReader("")
		_ = cmd.Run()
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("%q: bash did not run the stand-in rm", c.text)
		}
		if d := Decide(Input{Text: c.text, Policy: p, Cwd: dir}); d.Action == Allow {
			t.Errorf("%q ran rm under bash, and the gate allowed it: %s", c.text, d.Reason)
		}
	}
}
