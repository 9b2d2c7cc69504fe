package exec

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentexec/agentexec/gate"
)

// Text is the one string a model reads for this observation: for a run,
// the exit status, wall time and output (ANSI escapes stripped, binary
// output summarised, truncation stated); for a rejection, the reason, the
// rule or blacklist entry that decided and what to do instead. The raw
// bytes stay in Stdout, Stderr and Output.
func (o Observation) Text() string {
	var b strings.Builder
	switch o.Status {
	case StatusRejected:
		o.rejectedText(&b)
	case StatusNeedsApproval:
		o.approvalText(&b)
	case StatusError:
		o.errorText(&b)
	default:
		o.runText(&b)
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func (o Observation) rejectedText(b *strings.Builder) {
	how := string(o.Decision)
	if o.Decision == gate.Ask {
		how = "the user declined"
	}
	fmt.Fprintf(b, "Command rejected (%s): %s\n", how, oneLine(o.Reason))
	o.provenance(b)
	if f := o.ExecRefused; f != nil {
		// The run-time exec gate: the command ran until it started f.
		fmt.Fprintf(b, "It ran until it started %s, which never ran; the whole run was ended there. "+
			"What you can do: do not retry it or a variant of it (another wrapper, script or spelling is stopped the same way); "+
			"reach the goal another way, or ask the user to run it themselves.\n", f.Program)
		fmt.Fprintf(b, "Wall time: %.2fs\n", float64(o.DurationMS)/1000)
		o.outputText(b)
		return
	}
	b.WriteString("It was not run. What you can do: do not retry it or a variant of it; " +
		"reach the goal another way, or ask the user to run it themselves.\n")
}

func (o Observation) approvalText(b *strings.Builder) {
	fmt.Fprintf(b, "Command needs approval (ask): %s\n", oneLine(o.Reason))
	o.provenance(b)
	b.WriteString("It was not run. What you can do: ask the user to approve this exact command")
	switch len(o.Suggestions) {
	case 0:
	case 1:
		b.WriteString(", or to add the allow rule " + o.Suggestions[0])
	default: // one rule per part of the command: all are needed
		b.WriteString(", or to add the allow rules " + strings.Join(o.Suggestions, " and "))
	}
	b.WriteString("; or use a read-only command instead.\n")
}

// provenance names the rule or blacklist entry that decided.
func (o Observation) provenance(b *strings.Builder) {
	if o.Blacklist != "" {
		fmt.Fprintf(b, "Blacklist: %s (denied in every mode)\n", o.Blacklist)
	}
	if o.Rule != "" {
		fmt.Fprintf(b, "Rule: %s", o.Rule)
		if o.RuleSource != "" {
			fmt.Fprintf(b, " from %s", o.RuleSource)
		}
		b.WriteString("\n")
	}
}

func (o Observation) errorText(b *strings.Builder) {
	fmt.Fprintf(b, "Error: %s\n", oneLine(o.Error))
	if o.Decision == "" {
		b.WriteString("The request was not run; fix it and send it again.\n")
	}
}

func (o Observation) runText(b *strings.Builder) {
	switch {
	case o.Status == StatusTimedOut && o.Error == "canceled":
		b.WriteString("Canceled: the whole process tree was ended.\n")
	case o.Status == StatusTimedOut:
		fmt.Fprintf(b, "Timed out after %s: the whole process tree was ended.\n", time.Duration(o.TimeoutMS)*time.Millisecond)
	case o.Signal != "":
		fmt.Fprintf(b, "Killed by signal: %s\n", o.Signal)
	case o.ExitCode != nil:
		fmt.Fprintf(b, "Exit code: %d\n", *o.ExitCode)
	}
	fmt.Fprintf(b, "Wall time: %.2fs\n", float64(o.DurationMS)/1000)
	if s := o.Sandbox; s != nil && s.Contained {
		b.WriteString("Sandbox: read-only, network off (contained: an unknown command runs read-only instead of asking)\n")
	}
	o.Network.text(b)
	if o.Truncated {
		fmt.Fprintf(b, "Truncated: %d bytes omitted (head and tail kept)\n", o.Omitted)
	}
	if o.Error != "" && o.Error != "canceled" {
		fmt.Fprintf(b, "Warning: %s\n", oneLine(o.Error))
	}
	o.outputText(b)
}

func (o Observation) outputText(b *strings.Builder) {
	out := o.Output
	total := o.StdoutBytes
	if out == "" {
		out = o.Stdout
	}
	b.WriteString("Output:\n")
	if out == "" && o.Stderr == "" {
		b.WriteString("(no output)\n")
		return
	}
	b.WriteString(streamText(out, total))
	if o.Stderr != "" {
		b.WriteString("Stderr:\n" + streamText(o.Stderr, o.StderrBytes))
	}
}

// streamText makes kept output readable: binary is summarised, escapes
// are stripped, and the text ends with a newline.
func streamText(s string, total int64) string {
	if s == "" {
		return ""
	}
	if isBinary([]byte(s)) {
		return binarySummary([]byte(s), total) + "\n"
	}
	s = stripANSI(s)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
