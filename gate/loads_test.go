package gate

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// openssl engine ID… loads an ID that is an absolute path as a shared
// object, whose code runs (a relative one is looked up in the engines
// directory: read as a path too, the stricter): project code, as -engine
// PATH is — asked for past a deny rule where no exec gate watches,
// allowed where one does; a bare engine id is one of the system's.
var loadForms = []struct {
	text             string
	noGate, withGate Action
}{
	{"openssl engine ./e.so", Ask, Allow},
	{"openssl engine \"$PWD/e.so\"", Ask, Ask},
	{"openssl engine -t /tmp/e.so", Ask, Allow},
	{"openssl engine -t $LIB", Ask, Ask}, // $LIB may be any option too
	{"openssl req -engine ./e.so -new", Ask, Allow},
	{"openssl engine -c pkcs11", Allow, Allow},
	{"openssl engine", Allow, Allow},
	{"openssl x509 -in c.pem -noout -text", Allow, Allow},
}

func TestLoadedCode(t *testing.T) {
	pol := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	for _, c := range loadForms {
		for _, g := range []struct {
			gate bool
			want Action
		}{{false, c.noGate}, {true, c.withGate}} {
			if d := Decide(Input{Text: c.text, Policy: pol, Cwd: "/work", ExecGate: g.gate}); d.Action != g.want {
				t.Errorf("%q (exec gate %v): %v, want %v: %s", c.text, g.gate, d.Action, g.want, d.Reason)
			}
		}
	}
}

// TestLoadedCodeConfirm: openssl really runs the code of an engine named
// by its path (a constructor that runs the stand-in rm).
func TestLoadedCodeConfirm(t *testing.T) {
	bash := requireBash(t)
	for _, tool := range []string{"openssl", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the engine form is not confirmed here", tool)
		}
	}
	dir := t.TempDir()
	bin, marker := standInRm(t, dir, false)
	src := filepath.Join(dir, "e.c")
	if err := os.WriteFile(src, []byte("#include <stdlib.h>\n__attribute__((constructor)) static void f(void) { system(\"rm -f x\"); }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-shared", "-fPIC", "-o", filepath.Join(dir, "e.so"), src).CombinedOutput(); err != nil {
		t.Skipf("gcc cannot build a shared object here: %v %s", err, out)
	}
	cmd := exec.Command(bash, "-c", `openssl engine "$PWD/e.so"`)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir, "LC_ALL=C", "PWD=" + dir}
	_ = cmd.Run()
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("openssl engine $PWD/e.so did not run the engine's code")
	}
}
