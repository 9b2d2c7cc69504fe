package gate

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Options that load code (ar and nm --plugin), the files of more options
// such programs read (@FILE), and cpio's remote shell command are seen by
// deny rules: without a run-time exec gate nothing vouches for what the
// loaded code does, and cpio --rsh-command runs its program. Near misses
// stay allowed.
func TestCodeLoadingOptionsAndResponseFiles(t *testing.T) {
	p := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	for _, c := range []struct {
		text string
		want Action
	}{
		{"ar --plugin ./evil.so rcs lib.a o.o", Ask},
		{"ar @opts rcs lib.a o.o", Ask},
		{"nm @opts x.o", Ask},
		{`nm "$F" x.o`, Ask},
		{"cpio --rsh-command=rm -i -F host:a.cpio", Deny},
		{"cpio --rsh-command rm -o -F host:a.cpio", Deny},
		{"ar rcs lib.a o.o", Allow},
		{"ar t lib.a", Allow},
		{"nm -C x.o", Allow},
		{"cpio -i -F a.cpio", Allow},
	} {
		if d := Decide(Input{Text: c.text, Policy: p}); d.Action != c.want {
			t.Errorf("%s: %s (%s), want %s", c.text, d.Action, d.Reason, c.want)
		}
	}
}

// ar --plugin runs the plugin's code when ar builds an archive's index:
// confirmed with a plugin whose constructor leaves a file behind.
func TestArPluginRunsCode(t *testing.T) {
	gcc, errC := exec.LookPath("gcc")
	ar, errA := exec.LookPath("ar")
	if errC != nil || errA != nil {
		t.Skip("gcc and ar are needed to build and load a plugin")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "RAN")
	src := filepath.Join(dir, "pl.c")
	code := "#include <stdio.h>\n__attribute__((constructor)) static void ran(void) { FILE *f = fopen(\"" + marker + "\", \"w\"); if (f) fclose(f); }\nint onload(void *tv) { return 0; }\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	obj := filepath.Join(dir, "o.c")
	if err := os.WriteFile(obj, []byte("int f(void) { return 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{gcc, "-shared", "-fPIC", "-o", filepath.Join(dir, "pl.so"), src},
		{gcc, "-c", "-o", filepath.Join(dir, "o.o"), obj},
	} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Skipf("cannot build the plugin here: %v: %s", err, out)
		}
	}
	if out, err := exec.Command(ar, "--plugin", filepath.Join(dir, "pl.so"), "rcs", filepath.Join(dir, "lib.a"), filepath.Join(dir, "o.o")).CombinedOutput(); err != nil {
		t.Fatalf("ar --plugin: %v: %s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("ar did not run the plugin's code (the premise of the rule): %v", err)
	}
	p := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	if d := Decide(Input{Text: "ar --plugin ./pl.so rcs lib.a o.o", Policy: p, Cwd: dir}); d.Action == Allow {
		t.Errorf("ar --plugin allowed without an exec gate: %s", d.Reason)
	}
}
