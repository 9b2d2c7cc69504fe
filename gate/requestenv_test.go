package gate

import (
	"os"
	"os/exec"
	"testing"
)

// TestRequestEnvIsGateInput: a variable the request sets that steers which
// program runs makes a read-only command unknown (so plan mode asks and
// no allow rule vouches for it); a harmless one, or the same variable
// inherited, does not.
func TestRequestEnvIsGateInput(t *testing.T) {
	allowLs := &Policy{Permissions: Permissions{Allow: []string{"Bash(ls)"}}}
	for _, tt := range []struct {
		env  map[string]string
		want Action
	}{
		{map[string]string{"PATH": "/work/bin:/usr/bin:/bin"}, Ask},
		{map[string]string{"LD_PRELOAD": "/tmp/x.so"}, Ask},
		{map[string]string{"BASH_ENV": "/tmp/rc"}, Ask},
		{map[string]string{"GIT_SSH_COMMAND": "sh -c evil"}, Ask},
		{map[string]string{"NODE_OPTIONS": "--require /tmp/x.js"}, Ask},
		{map[string]string{"PYTHONSTARTUP": "/tmp/x.py"}, Ask},
		{map[string]string{"PERL5OPT": "-Mx"}, Ask},
		{map[string]string{"RUBYOPT": "-rx"}, Ask},
		{map[string]string{"PAGER": "sh -c evil"}, Ask},
		{map[string]string{"FOO": "bar"}, Allow},
		{map[string]string{"LANG": "C.UTF-8", "TZ": "UTC"}, Allow},
		{nil, Allow},
	} {
		for _, mode := range []Mode{ModePlan, ModeDefault} {
			d := Decide(Input{Text: "ls", Mode: mode, Policy: allowLs, Env: []string{"PATH=/usr/bin:/bin"}, RequestEnv: tt.env})
			if d.Action != tt.want {
				t.Errorf("%s, env %v: %s, want %s (%s)", mode, tt.env, d.Action, tt.want, d.Reason)
			}
		}
	}
	// Inherited (not the request's): an absolute PATH stays as it was.
	if d := Decide(Input{Text: "ls", Mode: ModePlan, Env: []string{"PATH=/opt/bin:/usr/bin"}}); d.Action != Allow {
		t.Errorf("inherited PATH: %s", d.Action)
	}
}

// TestRequestEnvHelperCommand: a variable of the request's that a program
// of the text runs as its helper (GREP for zgrep, DIFF for zdiff) is read
// as the command it is — past Bash(rm *), and as a catastrophe in yolo —
// and makes any command unknown; the same program without it stays
// read-only.
func TestRequestEnvHelperCommand(t *testing.T) {
	p := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	yolo := testPolicy(t, []string{"Bash"}, nil, nil)
	for _, tt := range []struct {
		text string
		env  map[string]string
	}{
		{"zgrep hi f.gz", map[string]string{"GREP": "rm"}},
		{"zgrep hi f.gz", map[string]string{"GREP": "rm -f x;"}},
		{"bzgrep hi f.bz2", map[string]string{"FGREP": "rm"}},
		{"zdiff a.gz b.gz", map[string]string{"DIFF": "rm"}},
	} {
		for _, mode := range []Mode{ModeDefault, ModePlan} {
			if d := Decide(Input{Text: tt.text, Mode: mode, Policy: p, Cwd: "/work", RequestEnv: tt.env}); d.Action == Allow {
				t.Errorf("%s, env %v: %q allowed: %s", mode, tt.env, tt.text, d.Reason)
			}
		}
	}
	if d := Decide(Input{Text: "zgrep hi f.gz", Mode: ModeYolo, Policy: yolo, Cwd: "/work", RequestEnv: map[string]string{"GREP": "rm -rf / ;"}}); d.Action != Deny {
		t.Errorf("yolo, GREP='rm -rf / ;': zgrep %s: %s", d.Action, d.Reason)
	}
	for _, env := range []map[string]string{nil, {"FOO": "bar"}} {
		for _, text := range []string{"zgrep hi f.gz", "zdiff a.gz b.gz"} {
			if d := Decide(Input{Text: text, Mode: ModePlan, Policy: p, Cwd: "/work", RequestEnv: env}); d.Action != Allow {
				t.Errorf("near miss %q, env %v: %s: %s", text, env, d.Action, d.Reason)
			}
		}
	}
}

// TestRequestEnvHelperCommandConfirm runs zgrep under bash with GREP set to
// the stand-in rm in its environment: zgrep runs it.
func TestRequestEnvHelperCommandConfirm(t *testing.T) {
	bash := requireBash(t)
	for _, prog := range []string{"zgrep", "gzip"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not installed: the confirmation needs it", prog)
		}
	}
	dir := t.TempDir()
	bin, marker := standInRm(t, dir, false)
	for _, env := range []string{"GREP=rm", "GREP=rm -f x;"} {
		os.Remove(marker)
		cmd := exec.Command(bash, "-c", "echo hi | gzip > f.gz && zgrep hi f.gz")
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir, "LC_ALL=C", env}
		_ = cmd.Run()
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("%s: zgrep did not run the stand-in rm", env)
		}
	}
}

// TestRequestEnvExportedFunction: a function the request exports
// (BASH_FUNC_NAME%%) is defined before the text runs, so its body is the
// text's: refused past Bash(rm *) and as a catastrophe in yolo; a
// harmless body stays allowed in yolo.
func TestRequestEnvExportedFunction(t *testing.T) {
	p := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	yolo := testPolicy(t, []string{"Bash"}, nil, nil)
	fn := func(body string) map[string]string {
		return map[string]string{"BASH_FUNC_ls%%": "() { " + body + "; }"}
	}
	for _, mode := range []Mode{ModeDefault, ModePlan, ModeYolo} {
		if d := Decide(Input{Text: "ls", Mode: mode, Policy: p, Cwd: "/work", RequestEnv: fn("rm -f x")}); d.Action == Allow {
			t.Errorf("%s: ls with an exported ls running rm allowed: %s", mode, d.Reason)
		}
	}
	if d := Decide(Input{Text: "ls", Mode: ModeYolo, Policy: yolo, Cwd: "/work", RequestEnv: fn("rm -rf /")}); d.Action != Deny {
		t.Errorf("yolo: ls with an exported ls running rm -rf /: %s: %s", d.Action, d.Reason)
	}
	if d := Decide(Input{Text: "ls", Mode: ModeYolo, Policy: yolo, Cwd: "/work", RequestEnv: fn("echo hi")}); d.Action != Allow {
		t.Errorf("yolo near miss: an exported ls running echo: %s: %s", d.Action, d.Reason)
	}
}

// TestRequestEnvExportedFunctionConfirm: bash defines a function from its
// environment and `ls` runs it (the stand-in rm ran).
func TestRequestEnvExportedFunctionConfirm(t *testing.T) {
	bash := requireBash(t)
	dir := t.TempDir()
	bin, marker := standInRm(t, dir, false)
	cmd := exec.Command(bash, "-c", "ls")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir, "BASH_FUNC_ls%%=() { rm -f x; }"}
	_ = cmd.Run()
	if _, err := os.Stat(marker); err != nil {
		t.Error("bash did not run the exported function's rm for ls")
	}
}

// TestRequestEnvPrompt: a prompt the request sets is expanded as the
// text's own is — PS4 with SHELLOPTS=xtrace runs its substitutions in
// every command — so yolo does not allow it; a plain prompt stays allowed.
func TestRequestEnvPrompt(t *testing.T) {
	yolo := testPolicy(t, []string{"Bash"}, nil, nil)
	for _, env := range []map[string]string{{"PS4": "$(rm -rf /)", "SHELLOPTS": "xtrace"}, {"PS4": "`rm -rf /`"}} {
		if d := Decide(Input{Text: "ls", Mode: ModeYolo, Policy: yolo, Cwd: "/work", RequestEnv: env}); d.Action == Allow {
			t.Errorf("yolo, env %v: ls allowed: %s", env, d.Reason)
		}
	}
	if d := Decide(Input{Text: "ls", Mode: ModeYolo, Policy: yolo, Cwd: "/work", RequestEnv: map[string]string{"PS4": "+ "}}); d.Action != Allow {
		t.Errorf("yolo near miss PS4='+ ': %s: %s", d.Action, d.Reason)
	}
}

// TestRequestEnvPromptConfirm: bash run by a user other than root takes PS4
// and SHELLOPTS=xtrace from its environment and runs PS4's substitution
// (root's bash ignores PS4 there: the gate refuses both alike).
func TestRequestEnvPromptConfirm(t *testing.T) {
	bash := requireBash(t)
	// Under /tmp itself: the test's own temporary directories are the
	// test user's only, and the other user must write the marker.
	dir, err := os.MkdirTemp("", "ps4-confirm-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	marker := dir + "/ran"
	argv := []string{bash, "-c", "true"}
	if os.Geteuid() == 0 {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			t.Skip("running as root without setpriv: root's bash ignores PS4 from its environment")
		}
		argv = append([]string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "PS4=$(touch " + marker + ")", "SHELLOPTS=xtrace"}
	if out, err := cmd.CombinedOutput(); err != nil && len(out) == 0 {
		t.Skipf("cannot run bash as another user here: %v", err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Error("bash did not run PS4's substitution from its environment")
	}
}

// TestRequestEnvFileWrites: a variable of the request's that names a file
// a program of the text writes (git's GIT_TRACE family) is that write's
// target, as the text's own assignment is: an account file there is
// refused in yolo; another file, or a non-path value, is not.
func TestRequestEnvFileWrites(t *testing.T) {
	yolo := testPolicy(t, []string{"Bash"}, nil, nil)
	for _, tt := range []struct {
		env  map[string]string
		want Action
	}{
		{map[string]string{"GIT_TRACE": "/etc/sudoers"}, Deny},
		{map[string]string{"GIT_TRACE2_EVENT": "/etc/passwd"}, Deny},
		{map[string]string{"GIT_TRACE": "/tmp/git.trace"}, Allow},
		{map[string]string{"GIT_TRACE": "1"}, Allow},
	} {
		if d := Decide(Input{Text: "git status", Mode: ModeYolo, Policy: yolo, Cwd: "/work", RequestEnv: tt.env}); d.Action != tt.want {
			t.Errorf("yolo, env %v: git status %s, want %s: %s", tt.env, d.Action, tt.want, d.Reason)
		}
	}
	if d := Decide(Input{Text: "ls", Mode: ModeYolo, Policy: yolo, Cwd: "/work", RequestEnv: map[string]string{"GIT_TRACE": "/etc/sudoers"}}); d.Action != Allow {
		t.Errorf("yolo near miss: ls with GIT_TRACE: %s: %s", d.Action, d.Reason)
	}
}

// TestRequestEnvOptions: a variable a program reads its options from
// (Program.EnvOptions: TAR_OPTIONS, MANOPT, UNZIP) is a program's option
// line, from the request as from the text: what its options run is
// refused past Bash(rm *), what they write is the blacklist's in yolo,
// and the request setting one makes the command unknown (plan asks).
func TestRequestEnvOptions(t *testing.T) {
	p := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	yolo := testPolicy(t, []string{"Bash"}, nil, nil)
	for _, tt := range []struct {
		text string
		env  map[string]string
	}{
		{"tar -tf a.tar", map[string]string{"TAR_OPTIONS": "--use-compress-program=rm"}},
		{"tar -tf a.tar", map[string]string{"TAR_OPTIONS": "-I 'rm -f x'"}},
		{"man -l x.1", map[string]string{"MANOPT": "--pager=rm"}},
	} {
		for _, mode := range []Mode{ModeDefault, ModePlan, ModeYolo} {
			if d := Decide(Input{Text: tt.text, Mode: mode, Policy: p, Cwd: "/work", RequestEnv: tt.env}); d.Action == Allow {
				t.Errorf("%s, env %v: %q allowed past Bash(rm *): %s", mode, tt.env, tt.text, d.Reason)
			}
		}
		if d := Decide(Input{Text: tt.text, Mode: ModePlan, Cwd: "/work", RequestEnv: tt.env}); d.Action == Allow {
			t.Errorf("plan, env %v: %q allowed: %s", tt.env, tt.text, d.Reason)
		}
	}
	for _, tt := range []struct {
		text string
		env  map[string]string
		want Action
	}{
		{"tar -tf a.tar", map[string]string{"TAR_OPTIONS": `-I "rm -rf /"`}, Deny},
		{"unzip -o a.zip passwd", map[string]string{"UNZIP": "-d /etc"}, Deny},
		{"tar -xf a.tar", map[string]string{"TAR_OPTIONS": "-C /"}, Ask},
		{"TAR_OPTIONS='-C /' tar -xf a.tar", nil, Ask},
		{"export UNZIP='-d /etc'; unzip -o a.zip shadow", nil, Deny},
		{"tar -tf a.tar", map[string]string{"TAR_OPTIONS": "-v"}, Allow},
		{"unzip -o a.zip passwd", map[string]string{"UNZIP": "-d out"}, Allow},
	} {
		if d := Decide(Input{Text: tt.text, Mode: ModeYolo, Policy: yolo, Cwd: "/work", RequestEnv: tt.env}); d.Action != tt.want {
			t.Errorf("yolo, env %v: %q %s, want %s: %s", tt.env, tt.text, d.Action, tt.want, d.Reason)
		}
	}
}

// TestRequestEnvOptionsConfirm: tar takes TAR_OPTIONS and unzip UNZIP
// from the environment as options: tar -tf ran the stand-in rm as its
// decompressor, unzip extracted into UNZIP's -d directory.
func TestRequestEnvOptionsConfirm(t *testing.T) {
	bash := requireBash(t)
	for _, prog := range []string{"tar", "zip", "unzip"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not installed: the confirmation needs it", prog)
		}
	}
	dir := t.TempDir()
	bin, marker := standInRm(t, dir, true)
	run := func(text string, env ...string) {
		cmd := exec.Command(bash, "-c", text)
		cmd.Dir = dir
		cmd.Env = append([]string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir, "LC_ALL=C"}, env...)
		_ = cmd.Run()
	}
	run("echo hi > m.txt && tar -cf a.tar m.txt && zip -q a.zip m.txt && mkdir out")
	run("tar -tf a.tar", "TAR_OPTIONS=--use-compress-program=rm")
	if _, err := os.Stat(marker); err != nil {
		t.Error("tar -tf did not run TAR_OPTIONS' decompressor")
	}
	run("unzip -q a.zip", "UNZIP=-d out")
	if _, err := os.Stat(dir + "/out/m.txt"); err != nil {
		t.Error("unzip did not extract into UNZIP's -d directory")
	}
}
