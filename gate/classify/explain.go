package classify

import (
	"fmt"
	"strings"
)

// Explain renders the result for a person: the class and its reason, then
// one line per piece of evidence with its byte span, class, rule and the
// fact the rule found, in the order the text was read.
func (r Result) Explain() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", r.Safety, r.Reason)
	for _, e := range r.Evidence {
		fmt.Fprintf(&b, "  [%d:%d] %-9s %-24s", e.Offset, e.End, e.Safety, e.Rule)
		if e.Text != "" {
			fmt.Fprintf(&b, " %q", e.Text)
		}
		if e.Detail != "" {
			fmt.Fprintf(&b, " — %s", e.Detail)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
