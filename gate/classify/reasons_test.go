package classify

import (
	"strings"
	"testing"

	"github.com/agentexec/agentexec/gate/programs"
)

// TestFloorReasonsRead checks that the reason a floor program is unknown
// reads as a sentence for every such program in the table: "`X` is " and
// a noun phrase, whether the table words the entry as one ("a shell,
// which …") or says what the program does ("runs a command as …").
func TestFloorReasonsRead(t *testing.T) {
	n := 0
	programs.All(func(p *programs.Program) {
		if floorKind(p.Name) == "" {
			return
		}
		n++
		why := floorWhy(p.Name)
		if !strings.HasPrefix(why, "a ") && !strings.HasPrefix(why, "an ") {
			t.Errorf("%s: `%s` is %s", p.Name, p.Name, why)
		}
	})
	if n < 100 {
		t.Fatalf("only %d floor programs seen", n)
	}
	for name, want := range map[string]string{
		"systemd-run": "a command that runs a command as a systemd unit",
		"bash":        "a shell, which runs whatever text it is given",
	} {
		if got := floorWhy(name); got != want {
			t.Errorf("floorWhy(%s) = %q, want %q", name, got, want)
		}
	}
}
