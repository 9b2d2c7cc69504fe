package gate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompressorsReplaceOperands: a compressor working in place removes
// its operand (gzip F leaves F.gz), so one given an account file is the
// account file deleted, and -r over a system directory every file in it;
// kept forms (-c, -k, -l, -t; zstd and lz4 without --rm) stay allowed.
// The removal each rule rests on is confirmed with the real programs.
func TestCompressorsReplaceOperands(t *testing.T) {
	yolo := testPolicy(t, []string{"Bash"}, nil, nil)
	for _, tt := range []struct {
		text string
		deny bool
	}{
		{"gzip /etc/passwd", true},
		{"bzip2 /etc/shadow", true},
		{"xz /etc/passwd", true},
		{"gzip -r /", true},
		{"pigz -r ~", true},
		{"zstd --rm /etc/passwd", true},
		{"gzip -S -c /etc/passwd", true}, // -c is -S's value: compressed in place
		{"find / -exec gzip {} \\;", true},
		{"gzip -c /etc/passwd > p.gz", false},
		{"gzip -k /etc/passwd", false},
		{"gzip -l /etc/passwd.gz", false},
		{"zstd /etc/passwd", false},
		{"lz4 /etc/passwd", false},
		{"gzip build/app.log", false},
		{"gzip -r logs/", false},
	} {
		d := Decide(Input{Text: tt.text, Policy: yolo, Mode: ModeYolo})
		if got := d.Action == Deny; got != tt.deny {
			t.Errorf("%q: %s (%s), want deny %v", tt.text, d.Action, d.Reason, tt.deny)
		}
	}
	for _, tt := range []struct {
		argv    []string
		removed bool
	}{
		{[]string{"gzip", "f"}, true},
		{[]string{"gzip", "-k", "f"}, false},
		{[]string{"bzip2", "f"}, true},
		{[]string{"xz", "f"}, true},
		{[]string{"zstd", "-q", "f"}, false},
		{[]string{"zstd", "-q", "--rm", "f"}, true},
	} {
		if _, err := exec.LookPath(tt.argv[0]); err != nil {
			t.Logf("%s is not installed: not confirmed here", tt.argv[0])
			continue
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte("data\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(tt.argv[0], tt.argv[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v %s", strings.Join(tt.argv, " "), err, out)
		}
		_, err := os.Stat(filepath.Join(dir, "f"))
		if removed := os.IsNotExist(err); removed != tt.removed {
			t.Errorf("%s: operand removed %v, want %v", strings.Join(tt.argv, " "), removed, tt.removed)
		}
	}
}

// TestComputedOverwriteTargets: in yolo, a file a command overwrites
// (cp's destination, tee's files, a truncation, an option's output file)
// that the text computes is as unseen as a computed redirection target:
// it may be an account file or a disk. A computed name removed alone, and
// the paths a loop over a glob or literal words gives, stay allowed.
func TestComputedOverwriteTargets(t *testing.T) {
	yolo := testPolicy(t, []string{"Bash"}, nil, nil)
	for _, tt := range []struct {
		text  string
		allow bool
	}{
		{`cp x "$X"`, false},
		{`tee "$X" < x`, false},
		{`truncate -s0 "$X"`, false},
		{`sort -o "$X" f`, false},
		{`curl -o "$X" https://example.com`, false},
		{`D=$(cat dest); cp img "$D"`, false},
		{`rm -f "$tmp"`, true},
		{`cp x "$HOME/bin/"`, true},
		{`for f in a b; do cp x "$f"; done`, true},
		{`for f in *.log; do gzip "$f"; done`, true},
		{`find . -name '*.sh' -exec chmod +x {} \;`, true},
		{`cp x /tmp/y`, true},
	} {
		d := Decide(Input{Text: tt.text, Policy: yolo, Mode: ModeYolo})
		if got := d.Action == Allow; got != tt.allow {
			t.Errorf("%q: %s (%s), want allow %v", tt.text, d.Action, d.Reason, tt.allow)
		}
	}
}
