package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{".env", "a/.env", "a/b/.env", "a/b/key.pem", "secrets/x/y", ".git/.env", "c.pem"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rel := func(ps []string) string {
		var out []string
		for _, p := range ps {
			out = append(out, strings.TrimPrefix(p, root+"/"))
		}
		return strings.Join(out, " ")
	}
	tests := []struct{ pattern, want string }{
		{"/.env", ".env"},
		{"/missing", ""},
		{"/**/.env", ".env a/.env a/b/.env"}, // not inside .git
		{"/secrets/**", "secrets"},
		{"/**/*.pem", "c.pem a/b/key.pem"},
		{"/a/*/.env", "a/b/.env"},
	}
	for _, tt := range tests {
		got, complete := Expand(root+tt.pattern, 100)
		if rel(got) != tt.want || !complete {
			t.Errorf("%s: %q %v, want %q", tt.pattern, rel(got), complete, tt.want)
		}
	}
	if got, complete := Expand(root+"/**/.env", 2); complete || len(got) == 0 {
		t.Errorf("bounded: %v %v", got, complete)
	}
}
