package gate

import (
	"fmt"
	"strconv"
	"strings"
)

// Mode is the approval mode that turns a safety class into a decision.
type Mode string

// The modes. The zero value means ModeDefault.
const (
	ModePlan    Mode = "plan"
	ModeDefault Mode = "default"
	ModeYolo    Mode = "yolo"
)

// ParseMode validates a mode name; "" is ModeDefault.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeDefault:
		return ModeDefault, nil
	case ModePlan, ModeYolo:
		return Mode(s), nil
	}
	return "", fmt.Errorf("mode: unknown mode %q (want plan, default or yolo)", s)
}

// The reasons below are written for the model that asked for the command:
// what was decided, which rule or fact decided it, and what it can do
// instead. Each situation has its own text so the model can tell them
// apart.

func quoteRule(r Rule) string {
	src := r.Source
	if src == "" {
		src = "the policy"
	}
	if r.Line > 0 {
		src += ":" + strconv.Itoa(r.Line)
	}
	s := r.Text + " (from " + src + ")"
	if r.Justification != "" {
		s += fmt.Sprintf(" — the policy says: %q", r.Justification)
	}
	return s
}

func classNote(d *Decision) string {
	if d.Class.Reason == "" {
		return ""
	}
	return " The classifier says: " + strings.TrimSuffix(d.Class.Reason, ".") + "."
}

func reasonInvalid(err error) string {
	return fmt.Sprintf("Denied: the command text cannot be run as given (%v). Send the command again as plain text without NUL bytes or invalid UTF-8.", err)
}

func reasonPolicyError(err error) string {
	return fmt.Sprintf("Needs the user's approval: the permission policy could not be read (%v), so no rule can allow anything. Ask the user to fix the policy.", err)
}

func reasonBlacklist(e *BlacklistEntry) string {
	return fmt.Sprintf("Denied in every mode by the blacklist entry %q: %s. No rule or approval can run it. Do not retry it in another spelling or through a wrapper; if the goal is legitimate, explain it to the user and let them run it themselves.", e.Name, e.Reason)
}

func reasonOutsideOnly(part string, r Rule) string {
	return fmt.Sprintf("Denied: the policy makes only some commands available to the shell (%s, from %s), and %q is not one of them. Use one of the available commands, or ask the user.", r.Text, r.Source, clipText(part))
}

func reasonMayDeny(r Rule) string {
	return fmt.Sprintf("Needs the user's approval: the deny rule %s may match this command, depending on words known only when it runs. Do not retry it in another spelling; use literal arguments the rules can read, or ask the user.", quoteRule(r))
}

func reasonGuessDeny(r Rule, guess string) string {
	return fmt.Sprintf("Needs the user's approval: %s, which the deny rule %s refuses. Do not retry it in another spelling or through another program; ask the user.", guess, quoteRule(r))
}

func reasonUnmatched(r Rule) string {
	return "Needs the user's approval: the command nests so many commands in one another that their spellings are too long to match every deny and ask rule (such as " + quoteRule(r) + ") against, so no rule can vouch for it. Run the nested commands one at a time, or ask the user."
}

func reasonHidden(detail string, r Rule) string {
	return "Needs the user's approval: " + detail + ", so no allow rule can vouch for it while the policy has deny or ask rules such as " + quoteRule(r) + ". Run the command it would run directly, with literal arguments, or ask the user."
}

func reasonUnseen(detail string) string {
	return fmt.Sprintf("Needs the user's approval even in yolo mode: %s, so the blacklist of catastrophic commands cannot check it. Use literal arguments, or ask the user.", detail)
}

func reasonDenyRule(r Rule) string {
	return fmt.Sprintf("Denied by the rule %s, which matches part of this command. This invocation was refused; other commands are not affected by this rule. Do not retry it through wrappers or another spelling; use a different approach, or ask the user to run it.", quoteRule(r))
}

func reasonPlanWrite(d *Decision) string {
	return "Denied: plan mode runs only read-only commands, and this command modifies files or other state." + classNote(d) + " Do not retry it through wrappers or obfuscation; inspect with read-only commands (ls, cat, grep, git status, git diff) and include this action in the plan for the user to approve."
}

func reasonAskRule(r Rule, oneOff bool) string {
	s := fmt.Sprintf("Needs the user's approval: the rule %s asks before this command runs.", quoteRule(r))
	if oneOff {
		s += " In plan mode an approval covers this exact invocation once."
	}
	return s + " Wait for the user's answer, or use a command the rules allow."
}

func reasonCapped(n int, oneOff bool) string {
	s := fmt.Sprintf("Needs the user's approval: the command has %d segments, more than the %d that permission rules may vouch for, so no rule can allow it (deny rules were still checked on every segment).", n, MaxSegments)
	if oneOff {
		s += " An approval covers this exact invocation once."
	}
	return s + " Split the work into several shorter commands."
}

func reasonReadOnly(d *Decision, mode string) string {
	return "Allowed: the command is read-only and " + mode + " mode runs read-only commands without asking." + classNote(d)
}

func reasonContain(d *Decision) string {
	return "Allowed in containment: plan mode could not prove the command read-only, and the policy runs such commands in the read-only sandbox with the network off, so any write it attempts will fail." + classNote(d)
}

func reasonPlanUnknown(d *Decision) string {
	return "Needs the user's approval: plan mode could not prove this command read-only." + classNote(d) + " An approval covers this exact invocation once and is never remembered. Prefer a plainly read-only form (ls, cat, grep, git status, git diff) that plan mode runs without asking."
}

func reasonDynamic(text string) string {
	return fmt.Sprintf("Needs the user's approval: even in yolo mode a command whose name is only known when it runs (%q: a variable, substitution, eval, or a script fed to a shell) is not run unasked, because the blacklist cannot see what it will be. Spell the command out literally.", clipText(text))
}

func reasonYoloUnparsed() string {
	return "Needs the user's approval: yolo mode runs everything except blacklisted and denied commands, but this text does not parse as shell, so the blacklist cannot check it. Fix the syntax and send it again."
}

func reasonYolo(d *Decision) string {
	return fmt.Sprintf("Allowed: yolo mode runs every command that no deny rule or blacklist entry refuses (this one is %s).", d.Safety)
}

func reasonAllowRule(r Rule, n int) string {
	if n > 1 {
		return "Allowed: each of the " + strconv.Itoa(n) + " segments of this command matches an allow rule, the first being " + quoteRule(r) + "."
	}
	return "Allowed by the rule " + quoteRule(r) + "."
}

func reasonAllowRuleReadOnly(r Rule) string {
	return fmt.Sprintf("Allowed: the parts of this command that are not read-only match allow rules, the first being %s, and the rest is proven read-only.", quoteRule(r))
}

func reasonSuspicious(detail string) string {
	return fmt.Sprintf("Needs the user's approval: the command contains a character that can hide text from a reviewer (%s), so no allow rule applies to it. Retype the command with plain ASCII spaces and line breaks.", detail)
}

func reasonDataCode(detail string) string {
	return fmt.Sprintf("Needs the user's approval: bash would run code out of a value rather than the command text (%s), so no allow rule applies to it. Write the value into the command itself, without ${x@P}, ${!x} or arithmetic on variables, or wait for the user's answer.", detail)
}

func reasonAskWrite(d *Decision, rv *ruleVerdict) string {
	return "Needs the user's approval: the command modifies files or other state" + ruleGap(rv) + "." + classNote(d) + " Wait for the user's answer" + suggestionNote(d) + "."
}

func reasonAskUnknown(d *Decision, rv *ruleVerdict) string {
	return "Needs the user's approval: the command could not be proven read-only" + ruleGap(rv) + "." + classNote(d) + " Prefer a plainly read-only form (ls, cat, grep, git status) or a narrower command, or wait for the user's answer" + suggestionNote(d) + "."
}

// ruleGap says why the rules did not allow the command.
func ruleGap(rv *ruleVerdict) string {
	switch {
	case rv.blocked == blockUnbalanced:
		return ", and its quotes or substitutions do not close, so no allow rule can vouch for it"
	case rv.blocked == blockUnparsed:
		return ", and it does not parse as shell, so no allow rule can vouch for it"
	case rv.uncovered != "":
		return ", and no allow rule matches " + quote(clipText(rv.uncovered))
	}
	return " and no rule matches it"
}

func suggestionNote(d *Decision) string {
	if len(d.Suggestions) == 0 {
		return ""
	}
	return "; the user can allow it from now on with " + strings.Join(d.Suggestions, " and ")
}

// quote is strconv.Quote, which leaves printable ASCII but " and \ as it
// is: such a text (most commands) is only put between quotes, without
// Quote's reading of every rune.
func quote(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return strconv.Quote(s)
		}
	}
	return `"` + s + `"`
}

func clipText(s string) string {
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}
