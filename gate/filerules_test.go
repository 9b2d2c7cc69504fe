package gate

import (
	"strings"
	"testing"
)

// filePolicy is a yolo policy with the given file rules, read as
// rules of a settings file in proj/.claude.
func filePolicy(t *testing.T, proj string, rules map[Action][]string) *Policy {
	t.Helper()
	p := &Policy{Mode: ModeYolo}
	for _, a := range []Action{Deny, Ask, Allow} {
		for _, text := range rules[a] {
			r, ok, err := ParseFileRule(text, a, "settings.json", proj, "")
			if err != nil || !ok {
				t.Fatalf("%s: %v %v", text, ok, err)
			}
			p.Files = append(p.Files, r)
		}
	}
	return p
}

func TestParseFileRule(t *testing.T) {
	tests := []struct {
		text, base, pattern string
		dirOnly             bool
	}{
		{"Read(./.env)", "/", "/proj/.env", false},
		{"Read(/src/secret)", "/", "/proj/src/secret", false},
		{"Read(//etc/shadow)", "/", "/etc/shadow", false},
		{"Read(~/.ssh/**)", "~", ".ssh/**", false},
		{"Read(.env)", "/", "/proj/**/.env", false},
		{"Read(*.pem)", "/", "/proj/**/*.pem", false},
		{"Edit(src/gen/**)", "/", "/proj/src/gen/**", false},
		{"Write(./build/)", "/", "/proj/build", true},
		{"Read(../shared/key)", "/", "/shared/key", false},
	}
	for _, tt := range tests {
		r, ok, err := ParseFileRule(tt.text, Deny, "s.json", "/proj", "")
		if err != nil || !ok || r.Base != tt.base || r.Pattern != tt.pattern || r.DirOnly != tt.dirOnly {
			t.Errorf("%s: %+v %v %v", tt.text, r, ok, err)
		}
	}
	for _, text := range []string{"Bash(ls)", "WebFetch(domain:x.com)", "mcp__x__y", "Glob", "Read", "Edit"} {
		if _, ok, err := ParseFileRule(text, Deny, "s.json", "/proj", ""); ok || err != nil {
			t.Errorf("%s: ok %v err %v, want another tool's rule", text, ok, err)
		}
	}
	for _, text := range []string{"Read(a)(b", "Read()", "Read(./x", "Edit(./[x)"} {
		if _, _, err := ParseFileRule(text, Deny, "s.json", "/proj", ""); err == nil {
			t.Errorf("%s: no error", text)
		}
	}
}

func TestMatchFile(t *testing.T) {
	tests := []struct {
		rule, path string
		want       bool
	}{
		{"Read(./.env)", "/proj/.env", true},
		{"Read(./.env)", "/proj/sub/.env", false},
		{"Read(./.env)", "/proj/.envrc", false},
		{"Read(.env)", "/proj/sub/deep/.env", true},
		{"Read(.env)", "/other/.env", false},
		{"Read(./secrets/**)", "/proj/secrets/a/b", true},
		{"Read(./secrets/**)", "/proj/secrets", true},
		{"Read(./secrets/**)", "/proj/secretsx", false},
		{"Read(./secrets)", "/proj/secrets/k", true}, // a directory covers what is in it
		{"Read(*.pem)", "/proj/a/key.pem", true},
		{"Read(*.pem)", "/proj/a/key.pem.txt", false},
		{"Read(~/.ssh/**)", "/home/u/.ssh/id_rsa", true},
		{"Read(~/.ssh/**)", "/home/v/.ssh/id_rsa", false},
		{"Read(//etc/shadow)", "/etc/shadow", true},
		{"Edit(./src/**/*.gen.go)", "/proj/src/a/b/x.gen.go", true},
		{"Edit(./src/**/*.gen.go)", "/proj/src/x.go", false},
	}
	for _, tt := range tests {
		r, _, err := ParseFileRule(tt.rule, Deny, "s.json", "/proj", "")
		if err != nil {
			t.Fatal(err)
		}
		if got := r.MatchFile(tt.path, "/home/u"); got != tt.want {
			t.Errorf("%s on %s: %v, want %v", tt.rule, tt.path, got, tt.want)
		}
	}
}

// The gate refuses a command that visibly names a denied path, in both
// directions: the near misses stay allowed.
func TestFileRulesInTheGate(t *testing.T) {
	proj := t.TempDir()
	p := filePolicy(t, proj, map[Action][]string{
		Allow: {"Read(./public/**)"},
		Deny:  {"Read(./.env)", "Read(./secrets/**)", "Edit(./src/gen/**)", "Read(~/.ssh/**)"},
		Ask:   {"Read(./notes.txt)"},
	})
	env := []string{"HOME=/home/u"}
	tests := []struct {
		cmd  string
		want Action
		rule string
	}{
		{"cat .env", Deny, "Read(./.env)"},
		{"grep KEY .env", Deny, "Read(./.env)"},
		{"echo hi > .env", Deny, "Read(./.env)"},
		{"cat < .env", Deny, "Read(./.env)"},
		{"cat ./sub/../.env", Deny, "Read(./.env)"},
		{"cat " + proj + "/.env", Deny, "Read(./.env)"},
		{"cat .e*", Deny, "Read(./.env)"},
		{"sort --output=x --files0-from=.env", Deny, "Read(./.env)"},
		{"bash -c 'cat .env'", Deny, "Read(./.env)"},
		{"cp secrets/k /tmp/k", Deny, "Read(./secrets/**)"},
		{"cat secrets", Deny, "Read(./secrets/**)"},
		{"cat ~/.ssh/id_rsa", Deny, "Read(~/.ssh/**)"},
		{"echo x >> src/gen/a.go", Deny, "Edit(./src/gen/**)"},
		{"rm src/gen/a.go", Deny, "Edit(./src/gen/**)"},
		{"cat notes.txt", Ask, "Read(./notes.txt)"},
		// near misses
		{"cat .envrc", Allow, ""},
		{"cat public.txt", Allow, ""},
		{"cat sub/.env", Allow, ""},
		{"cat src/gen/a.go", Allow, ""}, // Edit rules do not govern reading
		{"cat ~/.bashrc", Allow, ""},
		{"echo x > src/other.go", Allow, ""},
		{"cat public/x", Allow, ""},
	}
	for _, tt := range tests {
		d := Decide(Input{Text: tt.cmd, Cwd: proj, Mode: ModeYolo, Policy: p, Env: env})
		got := ""
		if d.Rule != nil && strings.HasPrefix(d.Rule.Text, tt.rule) && tt.rule != "" {
			got = d.Rule.Text
		}
		if d.Action != tt.want || got != tt.rule {
			t.Errorf("%q: %s %+v (%s), want %s citing %q", tt.cmd, d.Action, d.Rule, d.Reason, tt.want, tt.rule)
		}
	}
}

func TestSettingsProject(t *testing.T) {
	for in, want := range map[string]string{
		"/p/.claude/settings.json":       "/p",
		"/p/.qwen/settings.json":         "/p",
		"/p/.claude/settings.local.json": "/p",
		"/p/conf/settings.json":          "/p/conf",
	} {
		if got := SettingsProject(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
	r, _, _ := ParseFileRule("Read(~/.ssh)", Deny, "s", "/p", "/home/u")
	if r.Base != "/" || r.Pattern != "/home/u/.ssh" {
		t.Errorf("~ with a known home: %+v", r)
	}
}
