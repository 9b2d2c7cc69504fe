package procfs

import (
	"os"
	"runtime"
	"testing"
)

func TestReadStat(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/PID/stat is Linux's")
	}
	st, ok := ReadStat(os.Getpid())
	if !ok || st.PPid != os.Getppid() || st.State == 0 || st.EnvStart == 0 {
		t.Fatalf("%+v, ok %v", st, ok)
	}
	if _, ok := ReadStat(1 << 30); ok {
		t.Fatal("a pid that cannot exist was read")
	}
}

// ReadFile reads what os.ReadFile reads, whatever its size: a regular
// file larger than its first buffer, a /proc file the kernel hands out in
// pieces, and a missing file is the same not-exist error.
func TestReadFile(t *testing.T) {
	big := make([]byte, 70000)
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	path := t.TempDir() + "/big"
	if err := os.WriteFile(path, big, 0o600); err != nil {
		t.Fatal(err)
	}
	files := []string{path}
	if runtime.GOOS == "linux" {
		files = append(files, "/proc/self/cmdline", "/proc/self/mountinfo")
	}
	for _, f := range files {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(f)
		if err != nil || string(got) != string(want) {
			t.Fatalf("%s: %d bytes, %v; want %d bytes", f, len(got), err, len(want))
		}
	}
	if _, err := ReadFile(path + ".missing"); !os.IsNotExist(err) {
		t.Fatalf("missing file: %v, want a not-exist error", err)
	}
}
