package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestPristineDir checks what counts as a temp dir left as made, both
// ways: a fresh one is, and each way a run can leave something behind in
// or on it makes it not.
func TestPristineDir(t *testing.T) {
	base := t.TempDir()
	tests := []struct {
		name  string
		spoil func(t *testing.T, dir string) string // returns the path to check
		want  bool
	}{
		{"fresh", func(t *testing.T, d string) string { return d }, true},
		{"a file", func(t *testing.T, d string) string {
			must(t, os.WriteFile(filepath.Join(d, "f"), nil, 0o600))
			return d
		}, false},
		{"a hidden file", func(t *testing.T, d string) string {
			must(t, os.WriteFile(filepath.Join(d, ".f"), nil, 0o600))
			return d
		}, false},
		{"a subdirectory", func(t *testing.T, d string) string {
			must(t, os.Mkdir(filepath.Join(d, "s"), 0o700))
			return d
		}, false},
		{"a socket", func(t *testing.T, d string) string {
			fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
			must(t, err)
			defer unix.Close(fd)
			must(t, unix.Bind(fd, &unix.SockaddrUnix{Name: filepath.Join(d, "s")}))
			return d
		}, false},
		{"mode 0755", func(t *testing.T, d string) string { must(t, os.Chmod(d, 0o755)); return d }, false},
		{"mode 0777", func(t *testing.T, d string) string { must(t, os.Chmod(d, 0o777)); return d }, false},
		{"sticky", func(t *testing.T, d string) string { must(t, os.Chmod(d, 0o700|os.ModeSticky)); return d }, false},
		{"setgid", func(t *testing.T, d string) string { must(t, os.Chmod(d, 0o700|os.ModeSetgid)); return d }, false},
		{"other group", func(t *testing.T, d string) string { must(t, os.Chown(d, -1, os.Getegid()+1)); return d }, false},
		{"a symlink to a fresh dir", func(t *testing.T, d string) string {
			l := d + ".link"
			must(t, os.Symlink(d, l))
			return l
		}, false},
		{"gone", func(t *testing.T, d string) string { must(t, os.Remove(d)); return d }, false},
		{"an extended attribute", func(t *testing.T, d string) string {
			if err := unix.Setxattr(d, "user.note", []byte("left by a run"), 0); err != nil {
				t.Skipf("no user extended attributes on %s: %v", base, err)
			}
			return d
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := os.MkdirTemp(base, "pristine-")
			must(t, err)
			if got := pristineDir(tc.spoil(t, d)); got != tc.want {
				t.Errorf("pristineDir = %v, want %v", got, tc.want)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestTempDirNotShared checks, with real runs in a server-like process
// (standbys on), that no run sees a file an earlier run left in its temp
// dir, nor a change to the dir itself, and that a dir written to is gone
// after its run — while a dir a run left untouched is reused (the reason
// for keeping them), and is empty then.
func TestTempDirNotShared(t *testing.T) {
	requireStandbys(t)
	ws, _ := workspace(t)
	spec := Spec{Profile: WorkspaceWrite, Cwd: ws}
	seen := map[string]int{}
	for i := range 12 {
		// Every run lists its temp dir first: it must be empty and 0700.
		// Even runs write a file, every third changes the dir's mode.
		script := `ls -A "$TMPDIR" | sed 's/^/left: /'; stat -c 'mode=%a' "$TMPDIR"; echo "tmp=$TMPDIR"`
		if i%2 == 0 {
			script += `; echo secret > "$TMPDIR/f"`
		}
		if i%3 == 0 {
			script += `; chmod 755 "$TMPDIR"`
		}
		r := sh(t, spec, script)
		if r.err != nil {
			t.Fatalf("run %d: %v: %s", i, r.err, r.out)
		}
		if strings.Contains(r.out, "left: ") || !strings.Contains(r.out, "mode=700") {
			t.Errorf("run %d saw what an earlier run left: %s", i, r.out)
		}
		tmp := strings.TrimSpace(strings.SplitN(strings.SplitN(r.out, "tmp=", 2)[1], "\n", 2)[0])
		seen[tmp]++
		_, err := os.Stat(tmp)
		switch {
		case (i%2 == 0 || i%3 == 0) && !os.IsNotExist(err):
			t.Errorf("run %d changed its temp dir %s, which outlived the run: %v", i, tmp, err)
		case err == nil && !pristineDir(tmp):
			t.Errorf("run %d: its temp dir %s was kept, not as made", i, tmp)
		}
	}
	reused := false
	for _, n := range seen {
		reused = reused || n > 1
	}
	if !reused {
		t.Errorf("no temp dir was reused after an untouched run (%d dirs for 12 runs)", len(seen))
	}
	Release()
	left, _ := filepath.Glob(filepath.Join(os.TempDir(), tempDirPrefix()+"*"))
	if len(left) > 0 {
		t.Errorf("temp dirs left after Release: %v", left)
	}
}

// TestTempDirFollowsTMPDIR checks that a kept temp dir is not handed to a
// run once this process's temp directory is another one.
func TestTempDirFollowsTMPDIR(t *testing.T) {
	requireStandbys(t)
	ws, _ := workspace(t)
	spec := Spec{Profile: WorkspaceWrite, Cwd: ws}
	for range 3 { // untouched runs: their dirs are kept
		if r := sh(t, spec, "true"); r.err != nil {
			t.Fatalf("%v: %s", r.err, r.out)
		}
	}
	other := t.TempDir()
	t.Cleanup(Release) // the standbys and kept dirs made in other, before it goes
	t.Setenv("TMPDIR", other)
	setStandbys(t, true) // drop the standbys readied under the old TMPDIR
	r := sh(t, spec, `echo "$TMPDIR"`)
	if got := filepath.Dir(strings.TrimSpace(r.out)); r.err != nil || got != other {
		t.Errorf("TMPDIR of a run after TMPDIR changed is in %q, want %q (%v)", got, other, r.err)
	}
}
