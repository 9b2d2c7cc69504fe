package gate

import (
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
		opt := ClassifyOptions{}
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
