package programs

import (
	"strings"

	"github.com/agentexec/agentexec/internal/lazy"
)

// xxd's own command line (xxd 2022-01-14), read by the classifier and
// the blacklist: `xxd [options] [IN [OUT]]`, with or without -r, writes
// OUT. Its options come before the first operand (a lone "-" is one:
// standard input); an option is a letter or its long spelling, and a
// valued one takes the next word (-c 8) or its value attached (-c8).
var (
	xxdFlags  = lazy.NewSet("a", "autoskip", "b", "bits", "C", "capitalize", "e", "E", "EBCDIC", "i", "include", "p", "ps", "postscript", "plain", "r", "revert", "u", "uppercase", "d", "h", "help", "v", "version")
	xxdValues = lazy.NewSet("c", "cols", "g", "groupsize", "l", "len", "o", "offset", "s", "seek", "n", "name", "R")
)

// XxdOperands returns the indexes of xxd's operands in args, and the
// first option its grammar does not know ("" when none). The second
// operand, when there is one, is the file xxd writes.
func XxdOperands(args []string) (ops []int, unknown string) {
	for i := 0; i < len(args); i++ {
		v := args[i]
		name := strings.TrimLeft(v, "-")
		switch {
		case len(ops) > 0 || v == "-" || !strings.HasPrefix(v, "-"):
			ops = append(ops, i)
		case xxdFlags.Has(name):
		case xxdValues.Has(name):
			i++
		case name != "" && xxdValues.Has(name[:1]):
		default:
			return ops, v
		}
	}
	return ops, ""
}
