package gate

import (
	"strings"

	"github.com/agentexec/agentexec/gate/facts"
	p "github.com/agentexec/agentexec/gate/programs"
)

// suggestFor returns the minimal rules that would allow the commands the
// shell really runs (the tree's calls, so never text inside a comment),
// or nil when any of them cannot be vouched for by a rule: a launcher,
// shell or interpreter (or a tool that runs commands from its own
// language), a dynamic name, a hidden execution, or a name on the refusal
// floor without a narrower form.
func suggestFor(calls []*facts.Call, t *facts.Tree) []string {
	if t.HasHidden(facts.DynamicName, facts.Unreadable, facts.InlineCode, facts.FedScript, facts.ShellState) {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, c := range calls {
		r, ok := suggestCall(c)
		if !ok {
			return nil
		}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// runsOthers reports a program no rule should be suggested for, whatever
// its arguments: it runs other programs or code.
func runsOthers(prog *p.Program) bool {
	if prog == nil {
		return false
	}
	switch prog.Scanner {
	case p.ScanFind, p.ScanAwk, p.ScanSed:
		return true
	}
	return prog.Kind.Any(p.Shell | p.Interpreter | p.Launcher | p.Privilege | p.Emulator)
}

// suggestCall proposes one rule for one command.
func suggestCall(c *facts.Call) (string, bool) {
	vals, static := facts.Statics(c.Argv)
	if len(vals) == 0 || !static || hiddenSubst(c) {
		return "", false
	}
	root := vals[0]
	if runsOthers(c.Prog) || strings.ContainsAny(root, "*/") && !strings.HasPrefix(root, "./") {
		return "", false
	}
	if c.WriteRedir {
		// Only a rule spelling the redirection covers it: this one.
		return exactRule(c)
	}
	words := []string{root}
	rest := vals[1:]
	if depth := p.SubcommandDepth(vals); depth > 0 && subcommandWord(rest[0]) {
		n := 1
		if depth > 1 && subcommandWord(rest[1]) {
			n = 2
		}
		words = append(words, rest[:n]...)
		rest = rest[n:]
	} else if onFloor(c) {
		return exactRule(c)
	}
	if len(c.Assigns) > 0 {
		words = append([]string{assignsText(c)}, words...)
	}
	rule := strings.Join(words, " ")
	if len(rest) > 0 {
		rule += " *"
	}
	return "Bash(" + rule + ")", !strings.Contains(rule, ")")
}

// assignsText is the source of a call's leading assignments.
func assignsText(c *facts.Call) string {
	parts := make([]string, len(c.Assigns))
	for i, a := range c.Assigns {
		parts[i] = a.Raw
	}
	return strings.Join(parts, " ")
}

// exactRule is the rule for exactly this command, for a writer whose
// prefix rule would allow too much (rm -rf build, never rm *).
func exactRule(c *facts.Call) (string, bool) {
	t := normalizeBlanks(c.Text)
	if strings.ContainsAny(t, "*()\n") {
		return "", false
	}
	return "Bash(" + t + ")", true
}

// subcommandWord reports a word of ^[a-z][a-z0-9:_.-]*$ (matched by hand:
// the expression cost a thousand instructions a word).
func subcommandWord(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == ':' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// onFloor reports a command no prefix rule should cover: a writer whose
// prefix rule (rm *) would allow far more than the command asked for, or
// a name on the refusal floor.
func onFloor(c *facts.Call) bool {
	if c.Prog != nil && (c.Prog.NoPrefixRule || c.Prog.Kind.Has(p.Writer)) {
		return true
	}
	return refusalFloor(c.Base)
}
