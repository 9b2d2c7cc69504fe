package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestLz4catRemoves: lz4cat still reads lz4's options, and --rm deletes
// the file it decompresses even to standard output — a write; plain
// lz4cat only reads. Both confirmed under bash with the real lz4.
func TestLz4catRemoves(t *testing.T) {
	for text, want := range map[string]Safety{"lz4cat --rm a.lz4": Write, "lz4cat a.lz4": ReadOnly, "lz4cat -v a.lz4 b.lz4": ReadOnly} {
		if r := Classify(text, Options{}); r.Safety != want {
			t.Errorf("%q: %s, want %s: %s", text, r.Safety, want, r.Reason)
		}
	}
	if runtime.GOOS == "windows" {
		t.Skip("confirming against bash needs a POSIX host")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found on PATH")
	}
	if _, err := exec.LookPath("lz4"); err != nil {
		t.Skip("lz4 not installed: the bash confirmation needs it")
	}
	for text, gone := range map[string]bool{"lz4cat --rm a.lz4": true, "lz4cat a.lz4": false} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "a"), []byte("hi\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		mk := exec.Command(bash, "-c", "lz4 -q a a.lz4 && "+text+" > /dev/null")
		mk.Dir = dir
		if out, err := mk.CombinedOutput(); err != nil {
			t.Fatalf("%q: %v %s", text, err, out)
		}
		_, err := os.Stat(filepath.Join(dir, "a.lz4"))
		if gotGone := os.IsNotExist(err); gotGone != gone {
			t.Errorf("%q: a.lz4 removed %v, want %v", text, gotGone, gone)
		}
	}
}
