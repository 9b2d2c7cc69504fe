package facts

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestDump(t *testing.T) {
	txt := os.Getenv("FACTS_DUMP")
	if txt == "" {
		t.Skip("set FACTS_DUMP to a text to print its facts")
	}
	tr := Build(txt, Options{})
	fmt.Println("parsed:", tr.Parsed, tr.Err)
	for _, c := range tr.Calls {
		vals := make([]string, len(c.Argv))
		for i, w := range c.Argv {
			vals[i] = w.Raw
			if w.Static {
				vals[i] = w.Value
			}
		}
		fmt.Printf("call depth=%d how=%q prog=%v: %s | text=%q\n", c.Depth, c.How, c.Prog != nil, strings.Join(vals, " "), c.Text)
	}
	for _, h := range tr.Hidden {
		fmt.Printf("hidden kind=%d span=%v: %s\n", h.Kind, h.Span, h.Why)
	}
	fmt.Println("vars:", tr.Vars, "cds:", tr.Cds)
}
