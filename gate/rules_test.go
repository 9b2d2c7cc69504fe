package gate

import (
	"github.com/agentexec/agentexec/gate/facts"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseRule(t *testing.T) {
	tests := []struct {
		text    string
		ok      bool
		wantErr string
		pattern string
	}{
		{"Bash", true, "", ""},
		{"Bash(git status)", true, "", "git status"},
		{"Bash(git *)", true, "", "git *"},
		{"Bash(npm run test:*)", true, "", "npm run test *"},
		{"Bash(git:*)", true, "", "git *"},
		{"  Bash(ls)  ", true, "", "ls"},
		{"run_shell_command(git status)", true, "", "git status"},
		{"Shell(ls)", true, "", "ls"},
		{"ShellTool(ls)", true, "", "ls"},
		{"Bash(echo (x))", true, "", "echo (x)"},
		{"Read(./src/**)", false, "", ""},
		{"Edit", false, "", ""},
		{"WebFetch(domain:example.com)", false, "", ""},
		{"mcp__github__create_issue", false, "", ""},
		{"mcp__server__*", false, "", ""},
		{"Bash(git status", false, "closing parenthesis", ""},
		{"Bash(", false, "closing parenthesis", ""},
		{"Bash()", false, "empty pattern", ""},
		{"Bash(rm -rf /)*", false, "closing parenthesis", ""},
		{"Bashx", false, "", ""},
		{"Bash x", false, "malformed", ""},
		{"bash(rm *)", false, "case-sensitive", ""},
		{"BASH", false, "case-sensitive", ""},
		{"Bash(a\nb)", false, "line breaks", ""},
		{"not a rule", false, "malformed", ""},
		{"Read(x", false, "closing parenthesis", ""},
		{"", false, "malformed", ""},
	}
	for _, tt := range tests {
		r, ok, err := ParseRule(tt.text, Allow, "f.json")
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "rule") {
				t.Errorf("ParseRule(%q) err = %v, want one containing %q", tt.text, err, tt.wantErr)
			}
			continue
		}
		if err != nil || ok != tt.ok {
			t.Errorf("ParseRule(%q) = ok %v err %v, want ok %v", tt.text, ok, err, tt.ok)
			continue
		}
		if ok && (r.Pattern != tt.pattern || r.Source != "f.json") {
			t.Errorf("ParseRule(%q) = %+v, want pattern %q", tt.text, r, tt.pattern)
		}
	}
}

func TestRuleMatch(t *testing.T) {
	tests := []struct {
		rule string
		yes  []string
		no   []string
	}{
		{"Bash", []string{"anything", "rm -rf /"}, nil},
		{"Bash(git status)", []string{"git status"}, []string{"git status --short", "git statusx", "git", "xgit status"}},
		{"Bash(git *)", []string{"git", "git status", "git push origin main"}, []string{"gitk", "github", "ls git"}},
		{"Bash(ls*)", []string{"ls", "lsof", "ls -la"}, []string{"cat"}},
		{"Bash(npm run test:*)", []string{"npm run test", "npm run test --watch"}, []string{"npm run testx", "npm run build"}},
		{"Bash(* --version)", []string{"node --version", "go tool --version"}, []string{"node --versions", "node -v"}},
		{"Bash(git * main)", []string{"git push origin main", "git merge main"}, []string{"git push origin mainx", "git main"}},
		{"Bash(echo *)", []string{"echo a\nb", "echo"}, []string{"echoa"}},
		{"Bash(  git   status  )", []string{"git status"}, []string{"git  statu"}},
		{"Bash(grep \"a  b\" *)", []string{`grep "a  b" f`}, []string{`grep "a b" f`}},
	}
	for _, tt := range tests {
		r := mustRule(t, tt.rule, Allow)
		for _, s := range tt.yes {
			if !r.Match(normalizeBlanks(s)) {
				t.Errorf("%s should match %q", tt.rule, s)
			}
		}
		for _, s := range tt.no {
			if r.Match(normalizeBlanks(s)) {
				t.Errorf("%s should not match %q", tt.rule, s)
			}
		}
	}
}

// TestRuleMeaning: the same bare pattern is exact from Claude Code and
// agentexec's format and a word-boundary prefix from Qwen Code and Gemini
// CLI; "*" patterns read alike in both; a regex rule searches.
func TestRuleMeaning(t *testing.T) {
	for _, tt := range []struct {
		rule    string
		m       Meaning
		yes, no []string
	}{
		{"Bash(rm build)", Exact, []string{"rm build"}, []string{"rm build /tmp/important", "rm buildx"}},
		{"Bash(rm build)", Prefix, []string{"rm build", "rm build /tmp/important"}, []string{"rm buildx", "rm"}},
		{"run_shell_command(npm test)", Prefix, []string{"npm test", "npm test -- -u"}, []string{"npm tests"}},
		{"Bash(git *)", Exact, []string{"git", "git push"}, []string{"gitk"}},
		{"Bash(git *)", Prefix, []string{"git", "git push"}, []string{"gitk"}},
		{"Bash(npm run test:*)", Exact, []string{"npm run test", "npm run test -- x"}, []string{"npm run testx"}},
	} {
		r, ok, err := ParseRuleAs(tt.rule, Allow, "f", tt.m)
		if err != nil || !ok {
			t.Fatalf("%s: %v", tt.rule, err)
		}
		for _, s := range tt.yes {
			if !r.Match(normalizeBlanks(s)) {
				t.Errorf("%s (%s) should match %q", tt.rule, tt.m.Describe(), s)
			}
		}
		for _, s := range tt.no {
			if r.Match(normalizeBlanks(s)) {
				t.Errorf("%s (%s) should not match %q", tt.rule, tt.m.Describe(), s)
			}
		}
	}
	re, err := RegexRule("commandRegex ^git (push|reset)", `^git (push|reset)\b`, Deny, "p.toml:3")
	if err != nil || !re.Match("git push origin") || re.Match("git status") || re.Meaning != Regex {
		t.Errorf("regex rule: %+v %v", re, err)
	}
	if _, err := RegexRule("bad", `(`, Deny, "p.toml:3"); err == nil {
		t.Error("a bad regular expression compiled")
	}
	if _, _, err := ParseRuleAs("Bash(x)", Allow, "f", Regex); err == nil {
		t.Error("ParseRuleAs took the regex meaning")
	}
}

// TestPolicyDigestMeaning: the same rule text read with another meaning
// is another policy.
func TestPolicyDigestMeaning(t *testing.T) {
	mk := func(m Meaning) *Policy {
		r, _, _ := ParseRuleAs("Bash(git status)", Allow, "f", m)
		p := &Policy{Rules: []Rule{r}}
		if err := p.Compile(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if mk(Exact).Digest() == mk(Prefix).Digest() {
		t.Error("the digest ignores the rules' meaning")
	}
	if ruleDecision(t, mk(Prefix), "git status -s") != "allow" || ruleDecision(t, mk(Exact), "git status -s") == "allow" {
		t.Error("compiled Rules do not decide")
	}
}

func TestNormalizeBlanks(t *testing.T) {
	tests := map[string]string{
		"  git   status\t-s ":   "git status -s",
		`echo "a   b"  c`:       `echo "a   b" c`,
		`echo 'a   b'  c`:       `echo 'a   b' c`,
		`echo $'a\'  b'  c`:     `echo $'a\'  b' c`,
		"docker run \\\n  -v x": "docker run -v x",
	}
	for in, want := range tests {
		if got := normalizeBlanks(in); got != want {
			t.Errorf("normalizeBlanks(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAssignmentPrefix(t *testing.T) {
	tests := map[string]string{
		"FOO=1 ls":               "ls",
		"A=1 B='x y' git status": "git status",
		"ls FOO=1":               "ls FOO=1",
		"arr[1]=x cmd":           "cmd",
		"X+=y cmd":               "cmd",
		"1A=x cmd":               "1A=x cmd",
	}
	for in, want := range tests {
		got := strings.TrimLeft(in[assignmentPrefix(in):], " ")
		if got != want {
			t.Errorf("strip(%q) = %q, want %q", in, got, want)
		}
	}
}

// rulesFor compiles a policy from rule lists.
func testPolicy(t testing.TB, allow, ask, deny []string) *Policy {
	t.Helper()
	p, err := (*Policy)(nil).With(Permissions{Allow: allow, Ask: ask, Deny: deny}, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ruleDecision(t *testing.T, p *Policy, text string) string {
	t.Helper()
	cp, err := p.rulesFor()
	if err != nil {
		t.Fatal(err)
	}
	tree := facts.Build(text, facts.Options{Sub: subCommands})
	return evalRules(cp.rules, ruleInput{text: text, shell: "bash", seg: Split(text, "bash"), tree: tree, class: Classify(text, ClassifyOptions{Shell: "bash"})}).decision
}

func TestEvalRules(t *testing.T) {
	tests := []struct {
		allow, ask, deny []string
		text, want       string
	}{
		{[]string{"Bash(git *)"}, nil, nil, "git status && git log", "allow"},
		{[]string{"Bash(git *)"}, nil, nil, "git status && rm x", "none"},
		{[]string{"Bash(git *)"}, nil, []string{"Bash(git push *)"}, "git push origin", "deny"},
		{[]string{"Bash(git *)"}, []string{"Bash(git push *)"}, nil, "git push origin", "ask"},
		{nil, []string{"Bash(git push *)"}, []string{"Bash(git push --force *)"}, "git push --force x", "deny"},
		{nil, nil, []string{"Bash(rm *)"}, "ls; rm -rf x", "deny"},
		{nil, nil, nil, "ls", "none"},
		// Leading assignments: allow must spell them; deny/ask see through them.
		{[]string{"Bash(ls *)"}, nil, nil, "FOO=1 ls", "none"},
		{[]string{"Bash(FOO=1 ls *)"}, nil, nil, "FOO=1 ls -la", "allow"},
		{nil, nil, []string{"Bash(rm *)"}, "FOO=1 rm x", "deny"},
		{nil, []string{"Bash(git push *)"}, nil, "GIT_TRACE=1 git push", "ask"},
		// Deny sees canonical spellings: quotes removed, path basename, launchers.
		{nil, nil, []string{"Bash(rm *)"}, "r''m -rf x", "deny"},
		{nil, nil, []string{"Bash(rm *)"}, `\rm -rf x`, "deny"},
		{nil, nil, []string{"Bash(rm *)"}, "/bin/rm -rf x", "deny"},
		{nil, nil, []string{"Bash(rm *)"}, "sudo -u root rm -rf x", "deny"},
		{nil, nil, []string{"Bash(rm *)"}, "env FOO=1 nice -n 5 rm x", "deny"},
		{nil, nil, []string{"Bash(rm *)"}, "bash -c 'rm -rf x'", "deny"},
		{nil, nil, []string{"Bash(rm *)"}, "echo $(rm x)", "deny"},
		{nil, nil, []string{"Bash(rm *)"}, "echo `rm x`", "deny"},
		{nil, nil, []string{"Bash(rm *)"}, "unshare -r rm x", "deny"},
		{nil, nil, []string{"Bash(rm *)"}, "nsenter -t 1 -m rm x", "deny"},
		{nil, nil, []string{"Bash(rm *)"}, "gdb -batch -ex run --args rm x", "deny"},
		{nil, nil, []string{"Bash(rm *)"}, "valgrind --leak-check=full rm x", "deny"},
		{nil, nil, []string{"Bash(rm *)"}, "parallel -j4 rm ::: x y", "deny"},
		{nil, nil, []string{"Bash(rm *)"}, "parallel echo ::: rm", "none"},
		{nil, nil, []string{"Bash(git push *)"}, "git -C ../repo -c x=y --no-pager push origin", "deny"},
		{nil, []string{"Bash(git push *)"}, nil, "git --git-dir=.git push", "ask"},
		// Quoted subscripts that builtins evaluate never ride on an allow rule.
		{[]string{"Bash(printf *)"}, nil, nil, "printf -v 'a[$(rm x)]' x", "none"},
		{[]string{"Bash(test *)"}, nil, nil, "test -v 'a[`rm x`]'", "none"},
		{[]string{"Bash(printf *)"}, nil, nil, "printf '%s' x", "allow"},
		// Allow needs every segment and every parsed command.
		{[]string{"Bash(echo *)"}, nil, nil, "echo $(rm x)", "none"},
		{[]string{"Bash(echo *)", "Bash(rm x)"}, nil, nil, "echo $(rm x)", "allow"},
		{[]string{"Bash(echo *)"}, nil, nil, "echo hi > out.txt", "none"},
		{[]string{"Bash(echo * > out.txt)"}, nil, nil, "echo hi > out.txt", "allow"},
		{[]string{"Bash(echo *)"}, nil, nil, "echo hi > /dev/null 2>&1", "allow"},
		{[]string{"Bash"}, nil, nil, "echo hi > out.txt; rm x", "allow"},
	}
	for _, tt := range tests {
		p := testPolicy(t, tt.allow, tt.ask, tt.deny)
		if got := ruleDecision(t, p, tt.text); got != tt.want {
			t.Errorf("allow %q ask %q deny %q: %q → %s, want %s", tt.allow, tt.ask, tt.deny, tt.text, got, tt.want)
		}
	}
}

// TestHidingAttempts: text bash runs after an allowed prefix never rides
// on the allow rule.
func TestHidingAttempts(t *testing.T) {
	p := testPolicy(t, []string{"Bash(echo *)", "Bash(git status)", "Bash(ls *)"}, nil, nil)
	for _, text := range []string{
		"echo a; touch x", "echo a && touch x", "echo a || touch x", "echo a | touch x",
		"echo a |& touch x", "echo a & touch x", "echo a\ntouch x", "echo a\r\ntouch x", "echo a\rtouch x",
		`echo 'a\' ; touch x`, `echo $'a\'' ; rm x`, `echo "a\\" ; rm x`,
		"echo foo#; rm x", `echo "#"; rm x`, "echo ok # it's\nrm x", "echo a\r# ; rm x",
		"echo $(rm x)", "echo `rm x`", "echo <(rm x)", "echo ${x:-$(rm x)}", `echo "$(rm x)"`,
		"echo \"$\\\n(touch x)\"", "echo $\\\n(touch x)", "echo x # c \\\nrm y",
		"cat <<EOF && rm -rf build\nhello\nEOF", "echo <<EOF\nx\nEOF\nrm y", "echo <<'EOF'; rm y\nx\nEOF",
		"echo hi ;\u00a0>secret", "echo a\u00a0;\u00a0rm x", "echo a\u2028rm x", "echo a\vrm x",
		"git status; rm x", "git status && curl x | sh", "ls $(rm -rf x)",
		"echo a\n\n# c\nrm x", "echo a # c\nrm x", "echo 'a' # x\nrm x",
		"(( 1 << 2 ))\necho a; rm x", "echo $(( $(rm x) ))", "echo ${x#$(rm y)}",
		"echo a >> ~/.bashrc", "echo a > /etc/hosts", "ls > out",
	} {
		if got := ruleDecision(t, p, text); got == "allow" {
			t.Errorf("%q: rule decision allow, want it not allowed", text)
		}
	}
}

func TestPolicyFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// agentexec's own format.
	p, err := LoadPolicy(write("policy.json", `{"permissions":{"allow":["Bash(git *)"],"deny":["Bash(rm *)"]},"mode":"plan","read_only_commands":["mytool"],"sandbox":{"profile":"read-only","limits":{"cpu_seconds":60,"open_files":256,"processes":100}}}`))
	if err != nil || p.Mode != ModePlan || len(p.compiled.rules.allow) != 1 || p.compiled.rules.deny[0].Source != p.Source {
		t.Fatalf("own format: %+v, %v", p, err)
	}
	if l := p.Sandbox.Limits; l != (SandboxLimits{CPUSeconds: 60, OpenFiles: 256, Processes: 100}) {
		t.Errorf("sandbox.limits = %+v", l)
	}
	// Every rule remembers its line; comments are allowed.
	p, err = LoadPolicy(write("lines.json", "{\n  // team rules\n  \"permissions\": {\n    \"deny\": [\n      \"Bash(rm *)\"]}}"))
	if err != nil || p.compiled.rules.deny[0].Line != 5 {
		t.Fatalf("lines: %+v, %v", p, err)
	}
	if d := Decide(Input{Text: "rm x", Policy: p}); !strings.Contains(d.Reason, "lines.json:5") {
		t.Errorf("the reason does not name the rule's line: %s", d.Reason)
	}
	errs := map[string]string{
		`{"permissions":{"allow":["Bash(git status"]}}`: "Bash(git status",
		`{"permissions":{"deny":["Bash("]}}`:            "permissions.deny",
		`{"permissions":{"deny":["Bash(rm -rf /)*"]}}`:  "Bash(rm -rf /)*",
		`{"mdoe":"plan"}`:                           `unknown key "mdoe" at top level; did you mean "mode"?`,
		`{"permissions":{"alow":[]}}`:               `unknown key "alow" in permissions; did you mean "allow"?`,
		`{"_comment":"x","mode":"plan"}`:            `unknown key "_comment"`,
		"{\n\"mode\": \"plan\",}":                   "line 2, column 16",
		`{"sandbox":{"profle":"x"}}`:                `"profle"`,
		`{"mode":"fast"}`:                           "fast",
		`{"permissions":{"allow":["Read(x)"]}}`:     "not a shell rule",
		`{"unknown":"maybe"}`:                       "unknown",
		`{"timeout":true}`:                          "timeout",
		`{"blacklist":{"extra":[{"name":"x"}]}}`:    "blacklist.extra[0]",
		`{"read_only_commands":["a b"]}`:            "read_only_commands[0]",
		`[1]`:                                       "policy",
		`{"permissions":{"allow":"Bash"}}`:          "permissions",
		`{"audit":{"rotate_bytes":-1}}`:             "audit.rotate_bytes",
		`{"audit":{"anchor_every":-5}}`:             "audit.anchor_every",
		`{"sandbox":{"limits":{"cpu_seconds":-1}}}`: "sandbox.limits.cpu_seconds",
		`{"sandbox":{"limits":{"open_files":2}}}`:   "sandbox.limits.open_files",
		`{"sandbox":{"limits":{"cpu":1}}}`:          `"cpu"`,
	}
	for body, want := range errs {
		path := write("p.json", body)
		_, err := LoadPolicy(path)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("LoadPolicy(%s) err = %v, want it to name %q and the file", body, err, want)
		}
	}
}

func TestPolicyWith(t *testing.T) {
	base := testPolicy(t, []string{"Bash(git *)"}, nil, nil)
	q, err := base.With(Permissions{Deny: []string{"Bash(git push *)"}}, []string{"mytool"}, "inline")
	if err != nil {
		t.Fatal(err)
	}
	if len(base.compiled.rules.deny) != 0 || len(base.ReadOnlyCommands) != 0 {
		t.Error("With modified its receiver")
	}
	if got := ruleDecision(t, q, "git push x"); got != "deny" {
		t.Errorf("extra deny: %s", got)
	}
	if q.compiled.rules.deny[0].Source != "inline" || q.ReadOnlyCommands[0] != "mytool" {
		t.Errorf("With: %+v", q)
	}
	if _, err := base.With(Permissions{Allow: []string{"Bash("}}, nil, "inline"); err == nil {
		t.Error("With accepted a malformed rule")
	}
	if base.Digest() == q.Digest() {
		t.Error("digest ignores extra rules")
	}
}

// TestReadmePolicyParses keeps the README's policy example true to the
// format: it must load, strictly.
func TestReadmePolicyParses(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "### Policy file")
	_, block, ok2 := strings.Cut(rest, "```json\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("no ```json block under ### Policy file in README.md")
	}
	if _, err := ParsePolicy([]byte(block), "README.md"); err != nil {
		t.Errorf("README policy example: %v", err)
	}
}
