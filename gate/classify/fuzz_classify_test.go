package classify

import (
	"fmt"
	"github.com/agentexec/agentexec/gate/facts"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/shellcfg"
)

// FuzzClassify checks the classifier's safety properties on any input: it
// never panics (a recovered panic shows as the "panic" rule), it is
// deterministic, and a writer appended on a fresh line always makes the
// text non-read-only. The seed corpus is in testdata/fuzz/FuzzClassify.
func FuzzClassify(f *testing.F) {
	for _, c := range readOnlyTable {
		f.Add(c.cmd, false)
	}
	f.Fuzz(func(t *testing.T, text string, posix bool) {
		opt := Options{}
		if posix {
			opt.Shell = shellcfg.Sh
		}
		r := Classify(text, opt)
		for _, e := range r.Evidence {
			if e.Rule == "panic" {
				t.Fatalf("Classify(%q) panicked: %s", text, e.Detail)
			}
		}
		if again := Classify(text, opt); again.Safety != r.Safety || again.Reason != r.Reason {
			t.Fatalf("Classify(%q) not deterministic: %s then %s", text, r.Safety, again.Safety)
		}
		if r.Safety != ReadOnly {
			return
		}
		// A blank line ends any comment, continuation or simple command,
		// so what follows runs unless the text left a quote or here-doc
		// open, which is a parse error.
		if s := Classify(text+"\n\nrm x\n", opt).Safety; s == ReadOnly {
			t.Fatalf("Classify(%q + rm x) = read-only", text)
		}
		if !strings.ContainsAny(text, "#\\\n") {
			if s := Classify(text+"; rm x", opt).Safety; s == ReadOnly {
				t.Fatalf("Classify(%q + \"; rm x\") = read-only", text)
			}
		}
	})
}

// FuzzPrescan checks the pre-scan's invariants: it never panics, every
// level of depth was opened by a counted token, and it counts operators
// only among the text's bytes.
func FuzzPrescan(f *testing.F) {
	for _, c := range adversarialSeeds {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r := facts.Prescan(text, facts.Bounds{Depth: 1 << 30, Openers: 1 << 30, Operators: 1 << 30})
		if r.Depth > r.Openers || r.Operators > len(text) || r.Openers > len(text) {
			t.Fatalf("prescan(%q) = %+v", text, r)
		}
	})
}

// FuzzClassifyWindows checks that the cmd allowlist never calls text
// read-only that holds an operator, quote or expansion, and PowerShell's
// never text that holds, outside quoted strings, a character that
// expands, escapes, redirects or starts another kind of value, or any
// byte outside ASCII.
func FuzzClassifyWindows(f *testing.F) {
	for _, c := range []string{"dir", "type a.txt", "Get-ChildItem -Recurse", "gc a | rm", "dir & del x", "type %X%",
		"Get-Content 'a b' | Select-Object -First 2", "(gci).Name", "git status; pwd", `Write-Output "a $b"`} {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if r := Classify(text, Options{Shell: shellcfg.Cmd}); r.Safety == ReadOnly && strings.ContainsAny(text, winRejected) {
			t.Fatalf("cmd: Classify(%q) = read-only", text)
		}
		if r := Classify(text, Options{Shell: shellcfg.PowerShell}); r.Safety == ReadOnly {
			if bad := psOutsideQuotes(text); bad != "" {
				t.Fatalf("powershell: Classify(%q) = read-only with %s", text, bad)
			}
		}
	})
}

// psOutsideQuotes names a character PowerShell gives a meaning, outside
// quoted strings (inside a double-quoted one: $ and `), or a byte outside
// ASCII; "" if there is none.
func psOutsideQuotes(text string) string {
	var quote byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c >= 0x80:
			return "a byte outside ASCII"
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case c == quote:
			quote = 0
		case quote == '"' && (c == '$' || c == '`'):
			return fmt.Sprintf("%q in a double-quoted string", c)
		case quote == 0 && strings.IndexByte("$@{}[]<>`#,%!^", c) >= 0:
			return fmt.Sprintf("%q", c)
		}
	}
	return ""
}

var adversarialSeeds = []string{
	"((((", "$($(", "${a:-${b}}", "[[ ( a ) ]]", "echo ')' (", "cat <<E\n((\nE\n(", "if if if",
	"`a` `b`", "echo \"$(a \")\")\"", "$'\\''(", "case x in a) (", "a|b&&c;d\ne",
}
