package gate

import (
	"github.com/agentexec/agentexec/gate/facts"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentexec/agentexec/shellcfg"
	"mvdan.cc/sh/v3/syntax"
)

func TestSplitPOSIX(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		bad  bool
	}{
		{"ls", []string{"ls"}, false},
		{"ls -la && git status", []string{"ls -la", "git status"}, false},
		{"a; b || c | d |& e & f", []string{"a", "b", "c", "d", "e", "f"}, false},
		{"a\nb\r\nc\rd", []string{"a", "b", "c", "d"}, false},
		{"ls 2>&1 | grep x &> /dev/null", []string{"ls 2>&1", "grep x &> /dev/null"}, false},
		{"cmd >& out <&3 &>> log", []string{"cmd >& out <&3 &>> log"}, false},
		{"echo a >| f", []string{"echo a >| f"}, false},
		{"echo 'a;b' \"c&&d\"", []string{"echo 'a;b' \"c&&d\""}, false},
		{`echo 'a\' ; touch x`, []string{`echo 'a\'`, "touch x"}, false},
		{`echo $'a\'' ; rm x`, []string{`echo $'a\''`, "rm x"}, false},
		{`echo "a\"; b"`, []string{`echo "a\"; b"`}, false},
		{`echo a\;b`, []string{`echo a\;b`}, false},
		{`echo \&& rm x`, []string{`echo \&`, "rm x"}, false},
		{"echo $(rm x) `touch y`", []string{"echo $(rm x) `touch y`", "rm x", "touch y"}, false},
		{"cat <(curl x) >(tee y)", []string{"cat <(curl x) >(tee y)", "curl x", "tee y"}, false},
		{`echo "$(a; b)"`, []string{`echo "$(a; b)"`, "a", "b"}, false},
		{"echo $(echo $(rm x))", []string{"echo $(echo $(rm x))", "echo $(rm x)", "rm x"}, false},
		{"echo $((1 + 2))", []string{"echo $((1 + 2))"}, false},
		{"a & ", []string{"a"}, false},
		{"& a", []string{"a"}, false},
		{"echo 'open", []string{"echo 'open"}, true},
		{"echo $(open", []string{"echo $(open", "open"}, true},
		{"echo `open", []string{"echo `open"}, true},
		{"echo foo#; cmd", []string{"echo foo#", "cmd"}, false},
		{`echo "#"; cmd`, []string{`echo "#"`, "cmd"}, false},
		{"echo a # b ; c", []string{"echo a # b", "c"}, false}, // conservative: no fast path here
		{"cat <<EOF && rm -rf build\nhello\nEOF", []string{"cat <<EOF", "rm -rf build", "hello"}, false},
		{"cat <<'EOF'\n$(rm x)\nEOF\nls", []string{"cat <<'EOF'", "$(rm x)", "ls"}, false},
		{"cat <<EOF\n$(rm x)\nEOF\nls", []string{"cat <<EOF", "$(rm x)", "rm x", "ls"}, false},
		{"cat <<-EOF\n\tbody\n\tEOF\nls", []string{"cat <<-EOF", "body", "ls"}, false},
		{"cat <<EOF\ndon't\nEOF\nrm x", []string{"cat <<EOF", "don't", "rm x"}, false},
		{"echo x <<<'a;b'; c", []string{"echo x <<<'a;b'", "c"}, false},
		{"echo \"$\\\n(touch x)\"", []string{"echo \"$\\\n(touch x)\"", "touch x"}, false},
		{"docker run \\\n  -v x img", []string{"docker run \\\n  -v x img"}, false},
		{"echo x # foo \\\nrm y", []string{`echo x # foo \`, "rm y"}, false},
		{"echo ok # it's\nrm x", []string{"echo ok # it's", "rm x"}, false},
		{"echo ok # \"it's\" ; rm x", []string{"echo ok # \"it's\"", "rm x"}, false},
		{"(( x = 1 << 2 ))\necho a; rm x", []string{"(( x = 1 << 2 ))", "echo a", "rm x"}, false},
		// '&' is arithmetic inside $(( )) (Qwen splitCompoundCommand
		// `(( a & b ))` → one segment); ';' still re-splits.
		{"echo $((a & b))", []string{"echo $((a & b))"}, false},
		{"echo $(( a & b )) & rm -rf /tmp/x", []string{"echo $(( a & b ))", "rm -rf /tmp/x"}, false},
		{"echo $((a ; b))", []string{"echo $((a ; b))", "a", "b"}, false},
		{"echo $$'a\\' ; touch /tmp/x", []string{"echo $$'a\\'", "touch /tmp/x"}, false},
		{"  ", nil, false},
	}
	for _, tt := range tests {
		got := splitPOSIX(tt.in)
		if !reflect.DeepEqual(got.Segments, tt.want) || got.Unbalanced != tt.bad {
			t.Errorf("splitPOSIX(%q) = %q unbalanced=%v, want %q unbalanced=%v", tt.in, got.Segments, got.Unbalanced, tt.want, tt.bad)
		}
	}
}

func TestCommentFastPath(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"echo 'a' # comment ; rm -rf /tmp/x", true},
		{"git status # don't ; rm x", true},
		{"echo \"don't\" # c ; rm x", true},
		{"echo 'a\"b' # c ; d", true},
		{"ls\t# c; d", true},
		{"# comment ; rm -rf /tmp/x", false},
		{"   # comment ; rm x", false},
		{"\t# a # b ; rm x", false},
		{"echo a#b ; rm x", false},
		{"echo a\v# ; rm x", false},
		{"echo a\u00a0# ; rm x", false},
		{"echo a\r# ; rm x", false},
		{"git status # don't\nrm -rf /tmp/x", false},
		{"echo a; echo b # c ; d", false},
		{"echo a && b # c", false},
		{"echo $(id) # c ; d", false},
		{"echo `id` # c ; d", false},
		{"echo $HOME # c ; d", false},
		{"echo a\\ b # c ; d", false},
		{"echo a > f # c ; d", false},
		{"echo a < f # c ; d", false},
		{"(echo a) # c ; d", false},
		{"{ echo a; } # c", false},
		{"echo a | b # c", false},
		{"echo 'a # b' ; rm x", false},
		{"echo \"a # b\" ; rm x", false},
		{"echo 'unterminated # c ; d", false},
		{"echo a", false},
	}
	for _, tt := range tests {
		if got := commentFastPath(tt.in); got != tt.want {
			t.Errorf("commentFastPath(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestSplitShells(t *testing.T) {
	const c = "echo 'a' # comment ; rm -rf /tmp/x"
	if got := Split(c, shellcfg.Bash); !got.FastPath || len(got.Segments) != 1 {
		t.Errorf("bash: %+v, want one fast-path segment", got)
	}
	for _, sh := range []shellcfg.ShellType{shellcfg.Sh, shellcfg.Cmd, shellcfg.PowerShell} {
		got := Split(c, sh)
		if got.FastPath || !hasSeg(got.Segments, "rm -rf /tmp/x") {
			t.Errorf("%s: %+v, want the conservative split with rm as a segment", sh, got)
		}
	}
	tests := []struct {
		shell shellcfg.ShellType
		in    string
		want  []string
	}{
		{shellcfg.Cmd, "dir & del x", []string{"dir", "del x"}},
		{shellcfg.Cmd, "dir && del x || echo y | more", []string{"dir", "del x", "echo y", "more"}},
		{shellcfg.Cmd, `echo "a & b"`, []string{`echo "a & b"`}},
		{shellcfg.Cmd, "dir 2>&1", []string{"dir 2>&1"}},
		{shellcfg.Cmd, "echo a\r\ndel x", []string{"echo a", "del x"}},
		{shellcfg.PowerShell, "Get-Item x; Remove-Item y", []string{"Get-Item x", "Remove-Item y"}},
		{shellcfg.PowerShell, "ls | rm", []string{"ls", "rm"}},
		{shellcfg.PowerShell, "echo $(Remove-Item y)", []string{"Remove-Item y", "echo $(Remove-Item y)"}},
		{shellcfg.PowerShell, "echo 'a; b'", []string{"echo 'a; b'"}},
		{shellcfg.PowerShell, "a\nb", []string{"a", "b"}},
		{shellcfg.Cmd, "echo \"a\ndel x & echo \"", []string{"del x"}},
		{shellcfg.PowerShell, "$s = @'\nit's; here\n'@; Remove-Item x", []string{"Remove-Item x"}},
	}
	for _, tt := range tests {
		got := Split(tt.in, tt.shell)
		for _, w := range tt.want {
			if !hasSeg(got.Segments, w) {
				t.Errorf("Split(%q, %s) = %q, missing %q", tt.in, tt.shell, got.Segments, w)
			}
		}
	}
}

func TestSplitForeignUnbalanced(t *testing.T) {
	for _, text := range []string{"echo 'a; Remove-Item x", "echo \"a; rm x", "$s = @'\nx; rm y", "echo $(rm x"} {
		if got := Split(text, shellcfg.PowerShell); !got.Unbalanced {
			t.Errorf("PowerShell %q: %+v, want unbalanced", text, got)
		}
	}
	if got := Split("echo 'a' ; echo ''", shellcfg.PowerShell); got.Unbalanced {
		t.Errorf("balanced PowerShell quotes: %+v", got)
	}
}

func hasSeg(segs []string, s string) bool {
	for _, x := range segs {
		if x == s {
			return true
		}
	}
	return false
}

// FuzzSegment checks the splitter never panics and never loses a command
// bash runs: whenever mvdan's parser finds the simple command
// "rm -rf /tmp/y" in X+SEP+"rm -rf /tmp/y", the segments alone (without the
// parser cross-check) are not all covered by Bash(echo *).
func FuzzSegment(f *testing.F) {
	for _, s := range []string{
		"echo a", "echo 'a\\'", "echo $'a\\''", "echo foo#", "echo a\r#", "echo \"$\\",
		"cat <<EOF", "cat <<'EOF'\nx", "echo `a", "echo $(a", "echo # it's", "echo $((1&",
		"(( 1 << 2 ))", "echo a\\", "echo ${x:-$(a)}", "echo a #", "echo <(",
	} {
		f.Add(s)
	}
	allow := []Rule{mustRule(f, "Bash(echo *)", Allow)}
	f.Fuzz(func(t *testing.T, x string) {
		for _, sh := range []shellcfg.ShellType{shellcfg.Bash, shellcfg.Cmd, shellcfg.PowerShell} {
			Split(x, sh)
		}
		for _, sep := range []string{" ; ", "\n", " && ", " | ", " & "} {
			text := x + sep + "rm -rf /tmp/y"
			if !bashRuns(text, "rm -rf /tmp/y") {
				continue
			}
			seg := Split(text, shellcfg.Bash)
			if seg.Unbalanced {
				continue
			}
			if _, uncovered, _ := allowAll(allow, shellcfg.Cmd, seg, &facts.Tree{}, nil); uncovered == "" {
				t.Fatalf("segments %q of %q all match Bash(echo *), but bash runs rm", seg.Segments, text)
			}
		}
	})
}

// bashRuns reports whether the parsed text holds the simple command want.
func bashRuns(text, want string) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		return false
	}
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok {
			var words []string
			for _, w := range c.Args {
				v, ok := facts.Static(w)
				if !ok {
					return true
				}
				words = append(words, v)
			}
			found = found || strings.Join(words, " ") == want
		}
		return !found
	})
	return found
}

func mustRule(tb testing.TB, text string, a Action) Rule {
	tb.Helper()
	r, ok, err := ParseRule(text, a, "test")
	if err != nil || !ok {
		tb.Fatalf("ParseRule(%q): ok=%v err=%v", text, ok, err)
	}
	return r
}

// TestSplitOracle confirms against real bash, in a scratch directory: each
// hiding attempt really makes bash create PWNED and is not allowed by
// Bash(echo *) / Bash(printf *); where the comment fast path applies, bash
// creates nothing and the text is allowed.
func TestSplitOracle(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("no bash on PATH: %v", err)
	}
	p := testPolicy(t, []string{"Bash(echo *)", "Bash(printf *)", "Bash(cat *)"}, nil, nil)
	for _, text := range []string{
		"echo a; touch PWNED", "echo a\ntouch PWNED", "echo a\r\ntouch PWNED",
		`echo 'a\' ; touch PWNED`, `echo $'a\'' ; touch PWNED`, `echo "a\\" ; touch PWNED`,
		"echo foo#; touch PWNED", `echo "#"; touch PWNED`, "echo ok # it's\ntouch PWNED",
		"echo a\r# ; touch PWNED", "echo $(touch PWNED)", "echo `touch PWNED`",
		"echo \"$\\\n(touch PWNED)\"", "echo x # c \\\ntouch PWNED", "echo ${x:-$(touch PWNED)}",
		"echo <<EOF && touch PWNED\nhello\nEOF", "echo <<'EOF'; touch PWNED\nx\nEOF",
		"printf -v 'a[$(touch PWNED)]' x", "cat <(touch PWNED)", "echo $(( $(touch PWNED) ))",
		"echo 'a' # comment ; touch PWNED", "echo a # b\ntouch PWNED",
	} {
		ran := runsPayload(t, bash, text)
		allowed := ruleDecision(t, p, text) == "allow"
		fast := commentFastPath(text)
		switch {
		case fast && (ran || !allowed):
			t.Errorf("%q: fast path: bash ran the payload %v, allowed %v; want inert and allowed", text, ran, allowed)
		case !fast && !ran:
			t.Errorf("%q: bash did not run the payload; the case tests nothing", text)
		case !fast && allowed:
			t.Errorf("%q: bash ran the payload, and Bash(echo *) allowed the text", text)
		}
	}
}

func runsPayload(t *testing.T, bash, text string) bool {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", text)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	cmd.WaitDelay = 5 * time.Second
	_ = cmd.Run() // the exit status does not matter, only what ran
	_, err := os.Stat(filepath.Join(dir, "PWNED"))
	return err == nil
}
