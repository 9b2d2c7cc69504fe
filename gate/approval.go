package gate

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agentexec/agentexec/shellcfg"
)

// ErrApprovalUsed is returned by Approval.Use after its one use.
var ErrApprovalUsed = errors.New("approval already used")

// ErrApprovalNotAsk is returned by NewApproval's approval when the
// decision it was made for was not an ask: only an ask can be approved.
var ErrApprovalNotAsk = errors.New("only an ask decision can be approved")

// StaleApprovalError reports that the request an approval is used for
// differs from the snapshot it was granted on. It is returned as a
// pointer; test with errors.As.
type StaleApprovalError struct {
	Changed []string // what changed: "mode", "policy", "cwd", "shell", "command"
}

func (e *StaleApprovalError) Error() string {
	return "approval no longer applies: " + strings.Join(e.Changed, ", ") + " changed since it was granted"
}

// Approval is a user's one-off approval of an ask decision, bound to a
// snapshot of everything the decision depended on: the resolved mode, the
// policy digest, the working directory, the shell and the exact text. It
// can be used at most once, and any change voids it. It is safe for
// concurrent use; exactly one concurrent Use can succeed.
type Approval struct {
	mode   Mode
	digest string
	cwd    string
	shell  shellcfg.ShellType
	text   string
	ask    bool

	mu   sync.Mutex
	used bool
}

// NewApproval snapshots in for the decision d the user approved.
func NewApproval(in Input, d Decision) *Approval {
	return &Approval{
		mode: in.resolveMode(), digest: in.Policy.Digest(), cwd: in.Cwd,
		shell: in.shell(), text: in.Text, ask: d.Action == Ask,
	}
}

// Use consumes the approval for in. It fails with ErrApprovalNotAsk when
// the approved decision was not an ask, with a *StaleApprovalError naming
// what changed, or with ErrApprovalUsed on any use after the first
// successful one. A failed check does not consume the approval.
func (a *Approval) Use(in Input) error {
	if !a.ask {
		return ErrApprovalNotAsk
	}
	if changed := a.diff(in); len(changed) > 0 {
		return &StaleApprovalError{Changed: changed}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used {
		return ErrApprovalUsed
	}
	a.used = true
	return nil
}

func (a *Approval) diff(in Input) []string {
	var changed []string
	check := func(name string, same bool) {
		if !same {
			changed = append(changed, name)
		}
	}
	check("mode", a.mode == in.resolveMode())
	check("policy", a.digest == in.Policy.Digest())
	check("cwd", a.cwd == in.Cwd)
	check("shell", a.shell == in.shell())
	check("command", a.text == in.Text)
	return changed
}

// String describes the approval for logs.
func (a *Approval) String() string {
	return fmt.Sprintf("one-off approval of %q (mode %s, shell %s, cwd %q)", clipText(a.text), a.mode, a.shell, a.cwd)
}
