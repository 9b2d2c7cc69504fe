package classify

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestSystemPathCommands: a program named by its path in a root-owned
// system directory reads as the program; every other path, and a system
// path spelled with . or .., stays unknown.
func TestSystemPathCommands(t *testing.T) {
	for _, c := range []struct {
		text string
		want Safety
	}{
		{"/bin/true", sys(ReadOnly)},
		{"/usr/bin/cat go.mod", sys(ReadOnly)},
		{"/usr/bin/grep -rn x .", sys(ReadOnly)},
		{"find . -name x -exec /usr/bin/rm {} +", sys(Write)},
		{"/usr/bin/rm -f x", sys(Write)},
		{"/bin/bash -c 'rm x'", Unknown}, // as bash: a shell is never unwrapped
		{"/usr/local/bin/true", Unknown},
		{"/opt/bin/cat f", Unknown},
		{"/tmp/true", Unknown},
		{"./true", Unknown},
		{"bin/true", Unknown},
		{"/bin/../tmp/true", Unknown},
		{"/usr/bin/./cat f", Unknown},
		{"//usr/bin/cat f", Unknown},
		{"/usr//bin/cat f", Unknown},
		{"/usr/bin/", Unknown},
		{"/usr/bin/no-such-program-xyz", Unknown},
		{"/usr/bin/cat/x", Unknown},
	} {
		if got := Classify(c.text, Options{}).Safety; got != c.want {
			t.Errorf("%q = %s, want %s", c.text, got, c.want)
		}
	}
}

// sys is what a command named by a system path classifies as on this host:
// s, or unknown where the system directories are not root's alone.
func sys(s Safety) Safety {
	if trustedChain("/usr/bin") && trustedChain("/bin") {
		return s
	}
	return Unknown
}

// TestTrustedDir: a directory that others may write, or that root does
// not own, is not trusted; neither is a file or a missing path.
func TestTrustedDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		if trustedDir(`C:\Windows`) {
			t.Error("a Windows directory is trusted")
		}
		return
	}
	if !trustedDir("/") {
		t.Skip("/ is not a root-owned directory others cannot write on this host, so no system path is trusted here (checked by TestSystemPathCommands)")
	}
	dir := t.TempDir()
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	owned := filepath.Join(dir, "owned")
	if err := os.Mkdir(owned, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(owned, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{open, owned, file, filepath.Join(dir, "missing")} {
		if trustedDir(p) {
			t.Errorf("%s is trusted", p)
		}
	}
	if trustedChain(filepath.Join(open)) {
		t.Error("a chain through a world-writable directory is trusted")
	}
}
