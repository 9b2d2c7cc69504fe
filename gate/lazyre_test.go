package gate

import (
	"regexp"
	"testing"

	"github.com/agentexec/agentexec/internal/lazyre"
)

// TestPatterns compiles every expression the package compiles lazily, so a
// bad pattern fails here rather than at a user's first command that needs it.
func TestPatterns(t *testing.T) {
	if err := lazyre.Check(blockDevice, procRoot, driveRoot, psAssign, psInvoke, psDownload, hiddenSubstRe); err != nil {
		t.Fatal(err)
	}
}

// TestSubcommandWord holds subcommandWord to the expression it matches by
// hand, over every word of up to three bytes from an alphabet of its
// class's edges and outsiders.
func TestSubcommandWord(t *testing.T) {
	re := regexp.MustCompile(`^[a-z][a-z0-9:_.-]*$`)
	alpha := []string{"", "a", "z", "m", "A", "Z", "0", "9", ":", "_", ".", "-", "/", " ", "\n", "`", "{", "@", "[", ";", "é", "\xff"}
	for _, a := range alpha {
		for _, b := range alpha {
			for _, c := range alpha {
				if s := a + b + c; subcommandWord(s) != re.MatchString(s) {
					t.Errorf("subcommandWord(%q) = %v, the expression %v", s, subcommandWord(s), re.MatchString(s))
				}
			}
		}
	}
}
