package gate

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/shellcfg"
)

// Commands of each class, as the classifier sees them.
var classSamples = map[Safety][]string{
	ReadOnly: {"ls -la", "git status", "cat README.md | grep x"},
	Write:    {"rm x", "touch y", "git commit -m msg"},
	Unknown:  {"python3 x.py", "mytool --check", "echo $(id)"},
}

// TestModesByClass: every mode × every class, with no rules.
func TestModesByClass(t *testing.T) {
	want := map[Mode]map[Safety]Action{
		ModePlan:    {ReadOnly: Allow, Write: Deny, Unknown: Ask},
		ModeDefault: {ReadOnly: Allow, Write: Ask, Unknown: Ask},
		ModeYolo:    {ReadOnly: Allow, Write: Allow, Unknown: Allow},
	}
	for mode, byClass := range want {
		for class, action := range byClass {
			for _, text := range classSamples[class] {
				d := Decide(Input{Text: text, Mode: mode, ExecGate: true})
				if d.Safety != class {
					t.Fatalf("%q classified %s, want %s (fix classSamples)", text, d.Safety, class)
				}
				if d.Action != action || d.RuleDecision != RuleNone || d.Mode != mode {
					t.Errorf("%s/%s %q: %s (%s), want %s", mode, class, text, d.Action, d.RuleDecision, action)
				}
				if d.Reason == "" {
					t.Errorf("%s %q: empty reason", mode, text)
				}
				if mode == ModePlan && class == Unknown && (!d.OneOff || d.Suggestions != nil) {
					t.Errorf("plan unknown %q: one_off %v suggestions %q, want one-off without suggestions", text, d.OneOff, d.Suggestions)
				}
			}
		}
	}
}

// TestModesWithRules: allow rules do not lift plan; deny rules deny in
// every mode; an explicit ask rule asks in every mode.
func TestModesWithRules(t *testing.T) {
	p := testPolicy(t, []string{"Bash(rm *)", "Bash(python3 *)"}, []string{"Bash(git push *)"}, []string{"Bash(ls *)"})
	tests := []struct {
		text string
		want map[Mode]Action
	}{
		{"rm x", map[Mode]Action{ModePlan: Deny, ModeDefault: Allow, ModeYolo: Allow}},
		{"python3 x.py", map[Mode]Action{ModePlan: Ask, ModeDefault: Allow, ModeYolo: Allow}},
		{"ls -la", map[Mode]Action{ModePlan: Deny, ModeDefault: Deny, ModeYolo: Deny}},
		{"git push origin", map[Mode]Action{ModePlan: Deny, ModeDefault: Ask, ModeYolo: Ask}},
		{"git status", map[Mode]Action{ModePlan: Allow, ModeDefault: Allow, ModeYolo: Allow}},
	}
	for _, tt := range tests {
		for mode, want := range tt.want {
			d := Decide(Input{Text: tt.text, Mode: mode, Policy: p, ExecGate: true})
			if d.Action != want {
				t.Errorf("%s %q: %s (rule %s), want %s: %s", mode, tt.text, d.Action, d.RuleDecision, want, d.Reason)
			}
			if d.Action == Deny && d.RuleDecision == "deny" && (d.Rule == nil || d.Rule.Source != "test" || !strings.Contains(d.Reason, "Bash(ls *)")) {
				t.Errorf("%s %q: deny without rule provenance: %+v", mode, tt.text, d.Rule)
			}
		}
	}
}

// TestProjectCodeWithoutExecGate: where no exec gate will watch the run,
// a script run by name is a hidden execution: with a deny or ask rule in
// the policy no allow rule covers it, and yolo asks.
func TestProjectCodeWithoutExecGate(t *testing.T) {
	p := testPolicy(t, []string{"Bash(python3 *)", "Bash(make *)"}, nil, []string{"Bash(rm *)"})
	for _, text := range []string{"python3 x.py", "make test", "./build.sh"} {
		for _, mode := range []Mode{ModeDefault, ModeYolo} {
			if d := Decide(Input{Text: text, Mode: mode, Policy: p}); d.Action != Ask {
				t.Errorf("%s %q without exec gate: %s, want ask: %s", mode, text, d.Action, d.Reason)
			}
			d := Decide(Input{Text: text, Mode: mode, Policy: p, ExecGate: true})
			if text != "./build.sh" && d.Action != Allow {
				t.Errorf("%s %q with exec gate: %s, want allow: %s", mode, text, d.Action, d.Reason)
			}
		}
	}
}

func TestModeFromPolicy(t *testing.T) {
	p := testPolicy(t, nil, nil, nil)
	p.Mode = ModePlan
	if d := Decide(Input{Text: "rm x", Policy: p}); d.Action != Deny || d.Mode != ModePlan {
		t.Errorf("policy mode plan: %s %s", d.Mode, d.Action)
	}
	if d := Decide(Input{Text: "rm x", Policy: p, Mode: ModeYolo}); d.Action != Allow {
		t.Errorf("input mode overrides policy: %s", d.Action)
	}
	if d := Decide(Input{Text: "rm x", Mode: "turbo"}); d.Mode != ModePlan {
		t.Errorf("invalid mode resolved to %s, want plan (fail closed)", d.Mode)
	}
}

func TestPlanContain(t *testing.T) {
	p := &Policy{Unknown: "contain"}
	d := Decide(Input{Text: "python3 x.py", Mode: ModePlan, Policy: p})
	if d.Action != Allow || !d.Contain {
		t.Errorf("contain: %+v", d)
	}
	if d := Decide(Input{Text: "rm x", Mode: ModePlan, Policy: p}); d.Action != Deny || d.Contain {
		t.Errorf("contain must not lift write: %s", d.Action)
	}
}

func TestYoloDynamic(t *testing.T) {
	for _, text := range []string{"$x", "$(echo rm) -rf y", "`echo rm` y", "eval \"$cmd\"", "${x:-rm} y", "sudo $cmd", "bash -c \"$s\"", "cat x | sh", "ls; $x", "[a] y", "/bin/r? -rf y", "[$x y"} {
		d := Decide(Input{Text: text, Mode: ModeYolo})
		if d.Action != Ask || !strings.Contains(d.Reason, "cannot check it") {
			t.Errorf("yolo %q: %s (%s), want ask for a dynamic name", text, d.Action, d.Reason)
		}
	}
	for _, text := range []string{"rm -rf build", "echo $x", "python3 x.py", "ls $(pwd)", "echo rm y | sh", "[ -d node_modules ] || npm ci", "if [ -f go.mod ]; then go build ./...; fi", "[ \"$a\" = x ] && echo y"} {
		if d := Decide(Input{Text: text, Mode: ModeYolo, ExecGate: true}); d.Action != Allow {
			t.Errorf("yolo %q: %s (%s), want allow", text, d.Action, d.Reason)
		}
	}
	if d := Decide(Input{Text: "echo 'unterminated", Mode: ModeYolo}); d.Action != Ask {
		t.Errorf("yolo unparsable: %s", d.Action)
	}
}

func TestSuspiciousNeverAllowed(t *testing.T) {
	p := testPolicy(t, []string{"Bash(echo *)", "Bash"}, nil, nil)
	for _, text := range []string{"echo a\u00a0b", "echo a\rb", "echo \u200bhi", "echo a\u2028b", "echo a\vb", "echo a\r\n"} {
		d := Decide(Input{Text: text, Policy: p})
		if d.Action == Allow || d.RuleDecision == "allow" {
			t.Errorf("%q: %s/%s, want no allow", text, d.RuleDecision, d.Action)
		}
	}
}

// TestDataCodeNeverAllowed: code that bash runs out of a value — a
// variable set in the environment or by an earlier command — is not in the
// text an allow rule matched, so no allow rule covers it; the same rule
// still allows the plain forms. Each form was checked under bash: with
// x='a[$(touch p)]' (or '$(touch p)' for @P) it creates p.
func TestDataCodeNeverAllowed(t *testing.T) {
	p := testPolicy(t, []string{"Bash(echo *)", "Bash(ls *)", "Bash([[ *)", "Bash(npm run *)"}, nil, nil)
	for _, tt := range []struct {
		text  string
		env   []string
		allow bool
	}{
		{`ls "${x@P}"`, nil, false},
		{`echo "${x@P}"`, nil, false},
		{`echo $((x))`, nil, false},
		{`echo $(( $x + 1 ))`, nil, false},
		{`echo ${a[x]}`, nil, false},
		{`echo "${!x}"`, nil, false},
		{`[[ x -eq 0 ]]`, nil, false},
		{`npm run build -- --jobs=$((N+1))`, nil, false},
		{`ls`, []string{"BASH_ENV=/tmp/x"}, false},
		{`ls`, []string{"LD_PRELOAD=/tmp/x.so"}, false},
		{`echo $(( 1 + 2 ))`, nil, true},
		{`echo ${a[@]} ${#a[@]} ${!pre*}`, nil, true},
		{`ls -la`, []string{"HOME=/root"}, true},
		{`npm run build`, nil, true},
	} {
		d := Decide(Input{Text: tt.text, Policy: p, Env: tt.env})
		if got := d.Action == Allow; got != tt.allow {
			t.Errorf("%q env %q: %s (%s): %s", tt.text, tt.env, d.Action, d.RuleDecision, d.Reason)
		}
		if !tt.allow && !strings.Contains(d.Reason, "out of a value") && d.Safety != Write {
			t.Errorf("%q: the reason does not say why: %s", tt.text, d.Reason)
		}
	}
}

// TestSegmentCap: above MaxSegments the decision is never allow, and deny
// rules still see every segment (the 50-no-ops bypass).
func TestSegmentCap(t *testing.T) {
	noops := strings.Repeat("true; ", MaxSegments+10)
	p := testPolicy(t, []string{"Bash(true)", "Bash(curl *)"}, nil, []string{"Bash(curl *)"})
	if d := Decide(Input{Text: noops + "curl x", Policy: p, Mode: ModeYolo}); d.Action != Deny {
		t.Errorf("deny past the cap: %s", d.Action)
	}
	p = testPolicy(t, []string{"Bash(true)", "Bash(echo *)"}, nil, nil)
	for _, mode := range []Mode{ModePlan, ModeDefault, ModeYolo} {
		d := Decide(Input{Text: noops + "echo x", Policy: p, Mode: mode})
		if d.Action != Ask || !strings.Contains(d.Reason, "segments") {
			t.Errorf("%s capped: %s (%s), want ask", mode, d.Action, d.Reason)
		}
	}
	// Here-doc body lines are data, not commands: a long file written by a
	// here-doc is not capped.
	body := "cat > f <<'EOF'\n" + strings.Repeat("line\n", MaxSegments+10) + "EOF"
	if d := Decide(Input{Text: body, Mode: ModeYolo}); d.Action != Allow {
		t.Errorf("long here-doc in yolo: %s (%s)", d.Action, d.Reason)
	}
	short := strings.Repeat("true; ", 10) + "echo x"
	if d := Decide(Input{Text: short, Policy: p}); d.Action != Allow {
		t.Errorf("under the cap: %s", d.Action)
	}
}

func TestReadOnlyCommandsPassThrough(t *testing.T) {
	p, err := (*Policy)(nil).With(Permissions{}, []string{"mytool", "bash"}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if d := Decide(Input{Text: "mytool --check", Policy: p}); d.Safety != ReadOnly || d.Action != Allow {
		t.Errorf("vouched mytool: %s %s", d.Safety, d.Action)
	}
	if d := Decide(Input{Text: "bash x.sh", Policy: p}); d.Safety == ReadOnly {
		t.Error("refusal floor vouched")
	}
	if d := Decide(Input{Text: "mytool > out", Policy: p}); d.Safety != Write {
		t.Errorf("vouched name kept its redirect rule: %s", d.Safety)
	}
}

func TestInvalidText(t *testing.T) {
	for _, text := range []string{"", "ls\x00", "ls \xff"} {
		if d := Decide(Input{Text: text, Mode: ModeYolo}); d.Action != Deny {
			t.Errorf("%q: %s, want deny", text, d.Action)
		}
	}
}

// TestSuggestions: minimal rules from what the shell runs, never a
// launcher or an interpreter, never from a comment.
func TestSuggestions(t *testing.T) {
	tests := map[string][]string{
		"git commit -m x":                    {"Bash(git commit *)"},
		"npm run build":                      {"Bash(npm run build)"},
		"npm run test -- --watch":            {"Bash(npm run test *)"},
		"docker compose up -d":               {"Bash(docker compose up *)"},
		"mytool --check && othertool":        {"Bash(mytool *)", "Bash(othertool)"},
		"rm -rf build":                       {"Bash(rm -rf build)"},
		"git diff | grep x > out.txt":        {"Bash(git diff)", "Bash(grep x > out.txt)"},
		"python3 x.py":                       nil,
		"bash -c 'mytool'":                   nil,
		"env FOO=1 mytool":                   nil,
		"sudo mytool":                        nil,
		"mytool $(othertool)":                nil,
		"mytool # ; rm -rf /tmp/x":           {"Bash(mytool)"},
		"FOO=1 mytool x":                     {"Bash(FOO=1 mytool *)"},
		"/opt/bin/tool x":                    nil,
		"mytool --x # it's fine ; curl evil": {"Bash(mytool *)"},
	}
	for text, want := range tests {
		d := Decide(Input{Text: text})
		if d.Action != Ask {
			t.Errorf("%q: %s, want ask", text, d.Action)
			continue
		}
		if strings.Join(d.Suggestions, "|") != strings.Join(want, "|") {
			t.Errorf("%q: suggestions %q, want %q", text, d.Suggestions, want)
		}
		for _, s := range d.Suggestions {
			if s == "Bash" || s == "Bash(*)" {
				t.Errorf("%q: suggested %s", text, s)
			}
		}
		// Applying the suggestions allows the command (unless the
		// classifier and rules disagree on segments such as here-docs; a
		// segment keeps its comment, which an exact rule does not cover).
		if len(d.Suggestions) > 0 && !strings.Contains(text, " #") {
			p := testPolicy(t, d.Suggestions, nil, nil)
			if d2 := Decide(Input{Text: text, Policy: p}); d2.Action != Allow {
				t.Errorf("%q with %q: %s (%s)", text, d.Suggestions, d2.Action, d2.Reason)
			}
		}
	}
	if d := Decide(Input{Text: "git push", Policy: testPolicy(t, nil, []string{"Bash(git push)"}, nil)}); d.Suggestions != nil {
		t.Errorf("explicit ask rule got suggestions %q", d.Suggestions)
	}
}

// TestNoSuggestions: a caller that shows no suggestions gets none and no
// clause naming them, and the same decision otherwise, over the corpus in
// every mode.
func TestNoSuggestions(t *testing.T) {
	p := benchPolicy(t)
	with := 0
	for _, text := range agentCorpus(t) {
		for _, mode := range []Mode{ModeDefault, ModePlan, ModeYolo} {
			d := Decide(Input{Text: text, Policy: p, Mode: mode})
			n := Decide(Input{Text: text, Policy: p, Mode: mode, NoSuggestions: true})
			if len(d.Suggestions) > 0 {
				with++
			}
			if n.Suggestions != nil || strings.Contains(n.Reason, "from now on") {
				t.Errorf("%q (%s): suggestions %q in %q", text, mode, n.Suggestions, n.Reason)
			}
			if d.Action != n.Action || d.Safety != n.Safety || d.RuleDecision != n.RuleDecision || !reflect.DeepEqual(d.Rule, n.Rule) {
				t.Errorf("%q (%s): %s/%s/%s with suggestions, %s/%s/%s without", text, mode,
					d.Action, d.Safety, d.RuleDecision, n.Action, n.Safety, n.RuleDecision)
			}
			if want := strings.Replace(d.Reason, suggestionNote(&d), "", 1); n.Reason != want {
				t.Errorf("%q (%s): reason %q, want %q", text, mode, n.Reason, want)
			}
		}
	}
	if with == 0 {
		t.Fatal("no decision over the corpus suggested a rule: the test compares nothing")
	}
}

// TestReasonsDistinct: each situation has its own reason text.
func TestReasonsDistinct(t *testing.T) {
	p := testPolicy(t, []string{"Bash(echo *)"}, []string{"Bash(git push *)"}, []string{"Bash(curl *)"})
	cases := map[string]Input{
		"blacklist":  {Text: "rm -rf /", Policy: p},
		"deny":       {Text: "curl x", Policy: p},
		"plan-write": {Text: "rm x", Policy: p, Mode: ModePlan},
		"ask-rule":   {Text: "git push", Policy: p},
		"unknown":    {Text: "python3 x.py", Policy: p},
		"write":      {Text: "rm x", Policy: p},
		"capped":     {Text: strings.Repeat("echo; ", 300), Policy: p},
		"suspicious": {Text: "echo a\u00a0b", Policy: p},
		"dynamic":    {Text: "$x", Policy: p, Mode: ModeYolo},
		"plan-once":  {Text: "python3 x.py", Policy: p, Mode: ModePlan},
		"allow-rule": {Text: "echo $HOME", Policy: p},
		"read-only":  {Text: "ls", Policy: p},
		"yolo":       {Text: "rm x", Policy: p, Mode: ModeYolo},
	}
	seen := map[string]string{}
	for name, in := range cases {
		d := Decide(in)
		head := d.Reason
		if i := strings.IndexAny(head, ".:"); i > 0 && i+20 < len(head) {
			head = head[:i+20]
		}
		if other, ok := seen[head]; ok {
			t.Errorf("%s and %s share the reason %q", name, other, d.Reason)
		}
		seen[head] = name
		if len(d.Reason) < 40 {
			t.Errorf("%s: reason too short: %q", name, d.Reason)
		}
	}
}

// FuzzDecide checks Decide never panics, and that the blacklist cannot be
// hidden: whenever bash's parse of X+"\n"+"rm -rf /" holds that command,
// the decision is deny even in yolo mode under a bare Bash allow rule.
func FuzzDecide(f *testing.F) {
	for _, s := range []string{
		"ls", "echo 'a' # c", "cat <<EOF", "sudo -u", "env -S", "bash -c", "f() { f | f & }",
		"echo $(", "x=1", "eval", "timeout 5", "xargs -I {}", "git -C", "echo a\\", "# c",
	} {
		f.Add(s)
	}
	p := testPolicy(f, []string{"Bash"}, nil, nil)
	f.Fuzz(func(t *testing.T, x string) {
		for _, sh := range []shellcfg.ShellType{shellcfg.Bash, shellcfg.Cmd, shellcfg.PowerShell} {
			Decide(Input{Text: x, Shell: sh, Policy: p, Mode: ModeYolo})
		}
		text := x + "\nrm -rf /"
		if !bashRuns(text, "rm -rf /") {
			return
		}
		if d := Decide(Input{Text: text, Policy: p, Mode: ModeYolo}); d.Action != Deny {
			t.Fatalf("%q: %s, want deny (%s)", text, d.Action, d.Reason)
		}
	})
}

// TestNamedSubscriptsNeverAllowed: a builtin that takes a variable name
// evaluates its subscript, and a bare name there is evaluated in turn, so
// `printf -v 'a[x]' 1` runs what x holds (checked under bash with
// x='a[$(touch p)]'): no allow rule covers a subscript given to one.
func TestNamedSubscriptsNeverAllowed(t *testing.T) {
	p := testPolicy(t, []string{"Bash(printf *)", "Bash(read *)", "Bash(unset *)", "Bash(test *)", "Bash(ls *)"}, nil, nil)
	for text, allow := range map[string]bool{
		`printf -v 'a[x]' 1`:         false,
		`printf -v a[x] 1`:           false,
		`read 'a[x]' <<< 1`:          false,
		`unset 'a[x]'`:               false,
		`test -v 'a[x]'`:             false,
		`printf '%s\n' hi`:           true,
		`printf -v y '%s' hi`:        true,
		`ls [ab]*`:                   true,
		`printf '%s' '[not a name]'`: false, // conservative: a bracket anywhere
	} {
		d := Decide(Input{Text: text, Policy: p})
		if got := d.RuleDecision == "allow"; got != allow {
			t.Errorf("%q: rule decision %s, want allow=%v", text, d.RuleDecision, allow)
		}
	}
}

// TestDupRedirectToFile: `>&word` with a word that is not a descriptor
// writes the file word (bash creates it, checked), so a rule that does not
// spell '>' does not cover it; a duplication onto a descriptor stays
// covered.
func TestDupRedirectToFile(t *testing.T) {
	p := testPolicy(t, []string{"Bash(echo *)"}, nil, nil)
	for text, allow := range map[string]bool{
		`echo hi >&f`:   false,
		`echo hi >& f`:  false,
		`echo hi 1>&f`:  false,
		`echo hi >&$x`:  false,
		`echo hi >&2`:   true,
		`echo hi 1>&2`:  true,
		`echo hi >&-`:   true,
		`echo hi 3>&1-`: true,
	} {
		d := Decide(Input{Text: text, Policy: p})
		if got := d.Action == Allow; got != allow {
			t.Errorf("%q: %s (%s), want allow=%v", text, d.Action, d.RuleDecision, allow)
		}
	}
}

// TestAllowedPlusReadOnly: a compound whose every part is allowed by a
// rule or proven read-only where it stands is allowed; context that the
// parts do not show (a loop, an assignment, a redirect) keeps it asking.
func TestAllowedPlusReadOnly(t *testing.T) {
	p := testPolicy(t, []string{"Bash(npm run test:*)"}, nil, nil)
	for text, want := range map[string]Action{
		"npm run test 2>&1 | tail -20":      Allow,
		"cd src && npm run test":            Allow,
		"npm run test && echo done":         Allow,
		"npm run test > out.txt":            Ask,
		"npm run test && rm -rf build":      Ask,
		"PATH=./bin; npm run test":          Ask,
		"for f in a; do npm run test; done": Ask,
		"ls && cat x":                       Allow, // read-only on its own
		"npm run lint | tail":               Ask,
	} {
		d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: true})
		if d.Action != want {
			t.Errorf("%q: %s, want %s: %s", text, d.Action, want, d.Reason)
		}
	}
}

// TestRsyncGrammar: rsync's everyday options are known, so yolo runs it;
// what hands rsync a command (-e, --rsh, --rsync-path) is read, a remote
// shell is given the host and command rather than reading a script, and
// the options that run what the text does not show (-M, --daemon,
// --config) leave it uncertain.
func TestRsyncGrammar(t *testing.T) {
	deny := testPolicy(t, []string{"Bash(*)"}, nil, []string{"Bash(rm *)"})
	for _, c := range []struct {
		text string
		p    *Policy
		want Action
	}{
		{"rsync -a out/ /tmp/x", nil, Allow},
		{"rsync -avz --delete --exclude=.git -e ssh out/ host:/srv", nil, Allow},
		{"rsync -e 'ssh -p 2222' --progress -h a h:b", nil, Allow},
		{"rsync -a -T /tmp/t a b", nil, Allow},
		{"rsync -a -M--rsync-path=x a h:b", nil, Ask},
		{"rsync -aM x a h:b", nil, Ask},
		{"rsync --daemon --config=x", nil, Ask},
		{"rsync -a --frobnicate a b", nil, Ask},
		{`rsync -a -e 'sh -c "rm -rf /"' a h:b`, nil, Ask},
		{"rsync -a --rsync-path='rm -rf /' a h:b", nil, Deny},
		{"rsync -a --log-file=/etc/passwd a b", nil, Deny},
		{"rsync -a -e 'rm -f' a h:b", deny, Deny},
		{"rsync -a -e ssh a h:b", deny, Allow},
		{"ssh host", nil, Ask},
		{"echo 'rm -f x' | ssh host", deny, Deny},
	} {
		if d := Decide(Input{Text: c.text, Policy: c.p, Mode: ModeYolo}); d.Action != c.want {
			t.Errorf("%q in yolo: %s, want %s (%s)", c.text, d.Action, c.want, d.Reason)
		}
	}
}
