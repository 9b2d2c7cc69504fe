package main

import (
	"fmt"
	"strings"

	"github.com/agentexec/agentexec/exec"
)

// The gate's reasons are written for the model: a verdict and why in the
// first sentence, then what the model should do next ("Wait for the
// user's answer", "Do not retry it in another spelling"). A person at a
// terminal gets the first sentence, what decided and, for an ask, the rules
// that would allow it; the model's text stays in the Observation and the
// MCP result.

// refusalText is run's report on stderr of a command it did not run.
func refusalText(obs exec.Observation) string {
	var b strings.Builder
	what := "rejected (" + string(obs.Decision) + ")"
	if obs.Status == exec.StatusNeedsApproval {
		what = "needs approval"
	}
	fmt.Fprintf(&b, "agentexec run: not run, %s: %s\n", what, verdict(obs.Reason))
	if obs.Rule != "" && !strings.Contains(verdict(obs.Reason), obs.Rule) {
		fmt.Fprintf(&b, "agentexec run: rule %s%s\n", obs.Rule, from(obs.RuleSource))
	}
	if obs.Status == exec.StatusNeedsApproval {
		if s := allowHint(obs.Suggestions); s != "" {
			fmt.Fprintf(&b, "agentexec run: %s\n", s)
		}
	}
	return b.String()
}

func from(source string) string {
	if source == "" {
		return ""
	}
	return " from " + source
}

// allowHint tells a person how to allow such commands for good. Several
// suggestions are one rule per part of the command: all are needed.
func allowHint(suggestions []string) string {
	if len(suggestions) == 0 {
		return ""
	}
	return "to allow such commands for good, add " + strings.Join(suggestions, " and ") + " to the policy's allow list"
}

// verdict is the first sentence of a gate reason: a sentence ends at ". "
// outside quotes, parentheses and backquotes, so a quoted command holding
// a period is not cut.
func verdict(reason string) string {
	reason = strings.Join(strings.Fields(reason), " ")
	depth, quote := 0, byte(0)
	for i := 0; i < len(reason); i++ {
		switch c := reason[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' {
				i++
			}
		case c == '"' || c == '`':
			quote = c
		case c == '(' || c == '[':
			depth++
		case (c == ')' || c == ']') && depth > 0:
			depth--
		case c == '.' && depth == 0 && i+1 < len(reason) && reason[i+1] == ' ':
			return reason[:i+1]
		}
	}
	return reason
}
