package gate

import (
	"os"
	"strconv"
	"testing"
)

func TestZZICount(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("ZZ_PASSES"))
	if n == 0 {
		t.Skip("ZZ_PASSES unset")
	}
	cmds := agentCorpus(t)
	p := benchPolicy(t)
	for _, c := range cmds {
		Decide(Input{Text: c, Policy: p})
	}
	for i := 0; i < n; i++ {
		for _, c := range cmds {
			Decide(Input{Text: c, Policy: p})
		}
	}
}
