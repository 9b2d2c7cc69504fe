package exec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/policy"
)

// File rules of a real .claude/settings.json hold against real programs:
// the gate refuses what names a denied path, and what the gate cannot see
// (the name built at run time) meets the sandbox's masks and read-only
// binds. What no rule covers reads and writes as before.
func TestFileRulesEnforced(t *testing.T) {
	r := sandboxedRunner(t)
	ws := r.Cwd
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".claude/settings.json", `{"permissions":{"allow":["Bash(*)","Read(./**)"],"deny":["Read(./.env)","Read(./secrets/**)","Edit(./src/gen/**)"]}}`)
	write(".env", "SECRET=hunter2\n")
	write("secrets/deep/key", "hunter2\n")
	write("src/gen/a.go", "package gen\n")
	write("public.txt", "PUBLIC\n")
	l, err := policy.Load(policy.Options{Path: filepath.Join(ws, ".claude", "settings.json")})
	if err != nil {
		t.Fatal(err)
	}
	r.Policy, r.Approver = l.Policy, approveAll // deny rules refuse; what asks runs // in yolo mode: the gate's file rules and the kernel decide
	refused := []string{"cat .env", "cp .env x", "grep -r KEY secrets", "echo x > src/gen/a.go", "cp public.txt src/gen/"}
	for _, cmd := range refused {
		obs := runReq(t, r, Request{Command: cmd, Shell: "bash"})
		if obs.Status != StatusRejected || obs.Rule == "" {
			t.Errorf("%s: %+v", cmd, obs)
		}
	}
	// Names the gate cannot read: the kernel's masks decide.
	hidden := []string{
		`f=.e; cat ${f}nv`,
		`f=.e; python3 -c "import sys; print(open(sys.argv[1]).read())" ${f}nv`,
		`python3 -c 'print(open(".env").read())'`,
		`f=.e; cp ${f}nv copied && cat copied`,
		`d=secr; cat ${d}ets/deep/key; ls ${d}ets`,
		`d=secr; python3 -c "import os; print(os.listdir('${d}ets'))"`,
	}
	for _, cmd := range hidden {
		obs := runReq(t, r, Request{Command: cmd, Shell: "bash"})
		if obs.Status == StatusRejected || strings.Contains(obs.Stdout+obs.Stderr, "hunter2") || strings.Contains(obs.Stdout, "deep") {
			t.Errorf("%s: the secret showed: %+v", cmd, obs)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "copied")); strings.Contains(string(b), "hunter2") {
		t.Error("cp copied the secret")
	}
	for _, cmd := range []string{`d=src/g; echo x > ${d}en/a.go`, `python3 -c "open('src/g'+'en/new.go','w')"`, `d=src/g; cp public.txt ${d}en/`} {
		obs := runReq(t, r, Request{Command: cmd, Shell: "bash"})
		if obs.ExitCode == nil || *obs.ExitCode == 0 {
			t.Errorf("%s: wrote into src/gen: %+v", cmd, obs)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "src/gen/a.go")); string(b) != "package gen\n" {
		t.Errorf("src/gen/a.go changed: %q", b)
	}
	obs := runReq(t, r, Request{Command: "cat public.txt src/gen/a.go && echo y > src/other.go && echo ok", Shell: "bash"})
	if obs.ExitCode == nil || *obs.ExitCode != 0 || !strings.Contains(obs.Stdout, "PUBLIC") || !strings.Contains(obs.Stdout, "package gen") {
		t.Fatalf("near misses: %+v", obs)
	}
	want := []string{filepath.Join(ws, ".env"), filepath.Join(ws, "secrets")}
	if obs.Sandbox == nil || strings.Join(obs.Sandbox.Masks, " ") != strings.Join(want, " ") {
		t.Errorf("masks listed: %+v, want %v", obs.Sandbox, want)
	}
}
