package gate

import (
	"fmt"
	"strings"

	"github.com/agentexec/agentexec/gate/facts"
	"github.com/agentexec/agentexec/shellcfg"
)

// Action is what the gate decided.
type Action string

// The actions, in priority order deny > ask > allow.
const (
	Allow Action = "allow"
	Ask   Action = "ask"
	Deny  Action = "deny"
)

// RuleRef names the permission rule that decided, and where it came from.
type RuleRef struct {
	Text   string `json:"text"`   // as written, e.g. "Bash(rm *)"
	Source string `json:"source"` // policy file path, "inline", "flag", ...
	Action Action `json:"action"`
}

// BlacklistEntry names the catastrophic-command entry that matched.
type BlacklistEntry struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// The values of Decision.RuleDecision besides the three actions.
const RuleNone = "none"

// Decision is the gate's verdict on one command.
type Decision struct {
	Action Action `json:"decision"`
	// RuleDecision is what the permission rules alone said, before mode
	// and classifier: "deny" when a deny rule matched any segment (or any
	// command the parser found, spelt canonically), else "ask" when an ask
	// rule did, else "allow" when every segment and every parsed command
	// matched an allow rule, else "none" — also when some segments were
	// allowed and others matched nothing, or when allow rules could not
	// apply (suspicious characters, unbalanced quotes, too many segments,
	// text that does not parse).
	RuleDecision string             `json:"rule_decision"`
	Safety       Safety             `json:"safety"`
	Segments     []string           `json:"segments"`
	Rule         *RuleRef           `json:"rule,omitempty"`
	Blacklist    *BlacklistEntry    `json:"blacklist,omitempty"`
	Reason       string             `json:"reason"`
	Suggestions  []string           `json:"suggestions,omitempty"` // minimal allow rules for an ask
	OneOff       bool               `json:"one_off,omitempty"`     // an ask that may only be approved once
	Contain      bool               `json:"contain,omitempty"`     // run in the read-only sandbox, network off
	Mode         Mode               `json:"mode"`
	Shell        shellcfg.ShellType `json:"shell"`
	Class        Result             `json:"classification"`

	// Network lists the hosts the allow rules let this command reach
	// through the egress proxy, besides the policy's sandbox.network
	// allowlist: set when every segment was allowed by rules that grant
	// them (commandHosts in network.go says how segments combine).
	Network []string `json:"network,omitempty"`
}

// Input is everything a decision depends on. The gate is a pure function of
// it: no process starts and nothing but git configuration files is read.
type Input struct {
	Text   string
	Shell  shellcfg.ShellType // "" means bash
	Cwd    string
	Mode   Mode // "" means the policy's mode, else default
	Policy *Policy
	// Env is the environment the command will run with ("K=V"), the only
	// environment the gate reads: git's global configuration is found
	// from its HOME, so a Cwd without HOME here leaves git not read-only.
	Env []string
	// RequestEnv are the variables the request itself sets (see
	// ClassifyOptions.RequestEnv); Env already holds them.
	RequestEnv map[string]string
	// ExecGate says a run-time exec gate will watch the run (every program
	// it starts is checked with DecideExec), so project code run by name —
	// a script, a build tool — may be covered by an allow rule: what it
	// starts is judged when it starts. False: nothing will watch the run
	// (check --no-exec-gate, a hook whose agent runs the command itself).
	ExecGate bool
	// NoSuggestions skips the allow rules an ask suggests (Suggestions and
	// the reason's clause naming them), for a caller that shows neither:
	// check --batch prints only the decision and its reason, and building
	// suggestions re-reads every call of the text.
	NoSuggestions bool
}

// resolveMode is the mode a decision uses.
func (in Input) resolveMode() Mode {
	mode := in.Mode
	if mode == "" && in.Policy != nil {
		mode = in.Policy.Mode
	}
	if m, err := ParseMode(string(mode)); err == nil {
		return m
	}
	return ModePlan // an invalid mode fails closed to the strictest
}

func (in Input) shell() shellcfg.ShellType {
	if in.Shell == "" {
		return shellcfg.Bash
	}
	return in.Shell
}

// Decide turns a command into allow / ask / deny, in this order:
//
//  1. text that cannot run at all (NUL, invalid UTF-8, empty) is denied;
//  2. the blacklist denies catastrophic commands in every mode;
//  3. a deny rule matching any segment denies in every mode;
//  4. the mode decides with the rules' verdict and the classifier's class
//     (see decideMode).
func Decide(in Input) Decision {
	mode, shell := in.resolveMode(), in.shell()
	d := Decision{Mode: mode, Shell: shell, RuleDecision: RuleNone, Safety: Unknown, Segments: []string{}}
	if err := shellcfg.Validate(in.Text); err != nil {
		return d.deny(reasonInvalid(err))
	}
	cp, err := in.Policy.rulesFor()
	if err != nil {
		d.Action = Ask
		d.Reason = reasonPolicyError(err)
		return d
	}
	seg := Split(in.Text, shell)
	if seg.Segments != nil {
		d.Segments = seg.Segments
	}
	tree := facts.Build(in.Text, facts.Options{POSIX: shell == shellcfg.Sh, Sub: subCommands, Env: in.RequestEnv})
	copt := ClassifyOptions{Shell: shell, Cwd: in.Cwd, Env: in.Env, RequestEnv: in.RequestEnv, ReadOnlyCommands: in.readOnly()}
	if shell.IsPOSIX() {
		copt.Tree = tree
	}
	d.Class = Classify(in.Text, copt)
	d.Safety = d.Class.Safety.Norm()
	bl := in.blacklist(tree, seg, cp.extras)
	if bl.hit == nil && !shell.IsPOSIX() {
		// The bash reading of cmd or PowerShell text can deny (names
		// shared with Unix) but not see: their own reading decides that.
		bl.hit, bl.unseen = checkWindows(in.Text, seg.Segments), ""
		if dyn := foreignDynamic(seg.Segments); dyn != "" {
			bl.unseen = fmt.Sprintf("the command name in `%s` is computed at run time", clipText(dyn))
		}
	}
	if bl.hit != nil {
		d.Blacklist = bl.hit
		return d.deny(reasonBlacklist(bl.hit))
	}
	if in.Policy != nil && len(in.Policy.Files) > 0 { // (Input and Decision are copied only then)
		if fd, ok := checkFileRules(in, tree, d); ok { // Read/Edit/Write rules (filerules.go)
			return fd
		}
	}
	rv := evalRules(cp.rules, ruleInput{text: in.Text, shell: shell, seg: seg, tree: tree, class: d.Class, execGate: in.ExecGate})
	d.RuleDecision = rv.decision
	d.Rule = rv.ref()
	if rv.decision == string(Allow) {
		d.Network = commandHosts(cp.rules.allow, shell, seg, tree)
	}
	return decideMode(d, &rv, &modeFacts{tree: tree, unseen: bl.unseen, allow: cp.rules.allow, suggest: !in.NoSuggestions}, in.Policy)
}

// blacklist checks the text and, when shellcfg's normalized copy reads
// differently (invisible characters), that copy too.
func (in Input) blacklist(tree *facts.Tree, seg Segmentation, extras []blacklistExtra) blResult {
	bi := blInput{cwd: in.Cwd, home: envValue(in.Env, "HOME"), segs: seg.Segments, extras: extras, execGate: in.ExecGate}
	bi.shellEnv(in.Env, in.RequestEnv)
	if len(extras) > 0 {
		bi.cands = callTexts(tree)
	}
	r := checkBlacklist(tree, bi)
	if r.hit != nil {
		return r
	}
	if n := shellcfg.Normalize(in.Text); n != in.Text {
		nt := facts.Build(n, facts.Options{POSIX: in.shell() == shellcfg.Sh, Sub: subCommands})
		if nr := checkBlacklist(nt, bi); nr.hit != nil {
			return nr
		}
	}
	return r
}

// callTexts are the spellings of every call, for user blacklist entries.
func callTexts(t *facts.Tree) []string {
	var out []string
	for _, c := range t.Calls {
		for _, s := range spellings(c) {
			out = append(out, strings.ReplaceAll(s.text, hole, ""))
		}
	}
	return out
}

// modeFacts is what the mode reads of the text besides the verdicts.
type modeFacts struct {
	tree *facts.Tree
	// unseen is what the blacklist could not resolve ("" when nothing).
	unseen string
	// allow are the allow rules in force, which suggestions never repeat.
	allow []Rule
	// suggest: an ask suggests allow rules (Input.NoSuggestions unset).
	suggest bool
}

func (in Input) readOnly() []string {
	if in.Policy == nil {
		return nil
	}
	return in.Policy.ReadOnlyCommands
}

func (d Decision) deny(reason string) Decision {
	d.Action, d.Reason = Deny, reason
	return d
}

func (d Decision) ask(reason string) Decision {
	d.Action, d.Reason = Ask, reason
	return d
}

func (d Decision) allow(reason string) Decision {
	d.Action, d.Reason = Allow, reason
	return d
}

// decideMode applies the mode. A deny rule denies everywhere. plan: write
// is denied, an ask rule or anything not read-only asks once (or runs
// contained when the policy says unknown: contain), read-only runs; allow
// rules do not lift plan. default: an ask rule asks, rules that allow every
// segment allow, read-only runs, the rest asks. yolo: an explicit ask
// rule still asks, and so do a dynamic command name, text the parser
// cannot read (the blacklist could not see it) and too many segments;
// everything else runs.
func decideMode(d Decision, rv *ruleVerdict, fa *modeFacts, p *Policy) Decision {
	if rv.outsideOnly != "" {
		return d.deny(reasonOutsideOnly(rv.outsideOnly, rv.rule))
	}
	if rv.decision == string(Deny) {
		return d.deny(reasonDenyRule(rv.rule))
	}
	if rv.mayDeny {
		d.OneOff = true
		if rv.unmatched {
			return d.ask(reasonUnmatched(rv.rule))
		}
		if rv.guess != "" {
			return d.ask(reasonGuessDeny(rv.rule, rv.guess))
		}
		return d.ask(reasonMayDeny(rv.rule))
	}
	switch d.Mode {
	case ModePlan:
		return decidePlan(d, rv, p)
	case ModeYolo:
		return decideYolo(d, rv, fa)
	}
	return decideDefault(d, rv, fa)
}

func decidePlan(d Decision, rv *ruleVerdict, p *Policy) Decision {
	switch {
	case d.Safety == Write:
		return d.deny(reasonPlanWrite(&d))
	case rv.decision == string(Ask):
		d.OneOff = true
		return d.ask(reasonAskRule(rv.rule, true))
	case rv.blocked == blockCapped:
		d.OneOff = true
		return d.ask(reasonCapped(rv.total, true))
	case d.Safety == ReadOnly:
		return d.allow(reasonReadOnly(&d, "plan"))
	case p != nil && p.Unknown == "contain":
		d.Contain = true
		return d.allow(reasonContain(&d))
	}
	d.OneOff = true
	return d.ask(reasonPlanUnknown(&d))
}

func decideYolo(d Decision, rv *ruleVerdict, fa *modeFacts) Decision {
	switch {
	case rv.decision == string(Ask):
		return d.ask(reasonAskRule(rv.rule, false))
	case rv.blocked == blockCapped:
		return d.ask(reasonCapped(rv.total, false))
	case d.Shell.IsPOSIX() && !fa.tree.Parsed:
		return d.ask(reasonYoloUnparsed())
	case fa.unseen != "":
		return d.ask(reasonUnseen(fa.unseen))
	case rv.blocked == blockHidden:
		// Deny and ask rules hold in yolo too: what they cannot see asks.
		return d.ask(reasonHidden(rv.detail, rv.rule))
	case rv.blocked == blockDataCode && rv.rule.Text != "":
		// So does code bash runs out of a value: x='a[$(rm f)]';
		// echo $((x)) runs rm, which Bash(rm *) never sees.
		return d.ask(reasonHidden("bash would run code out of a value rather than the command text ("+rv.detail+")", rv.rule))
	}
	return d.allow(reasonYolo(&d))
}

func decideDefault(d Decision, rv *ruleVerdict, fa *modeFacts) Decision {
	switch {
	case rv.decision == string(Ask):
		return d.ask(reasonAskRule(rv.rule, false))
	case rv.blocked == blockCapped:
		return d.ask(reasonCapped(rv.total, false))
	case rv.decision == string(Allow):
		return d.allow(reasonAllowRule(rv.rule, rv.matched))
	case d.Safety == ReadOnly:
		return d.allow(reasonReadOnly(&d, "default"))
	case rv.readOnlyRest:
		d.Rule = &RuleRef{Text: rv.rule.Text, Source: rv.rule.Source, Action: Allow}
		return d.allow(reasonAllowRuleReadOnly(rv.rule))
	}
	switch rv.blocked {
	case blockHidden:
		return d.ask(reasonHidden(rv.detail, rv.rule))
	case blockSuspicious:
		return d.ask(reasonSuspicious(rv.detail))
	case blockDataCode:
		return d.ask(reasonDataCode(rv.detail))
	}
	if fa.suggest && fa.tree.Parsed && d.Shell.IsPOSIX() {
		// Suggestions are only for the calls no allow rule covers.
		cv := rv.cover
		if cv == nil {
			cv = coverageOf(fa.allow, fa.tree)
		}
		d.Suggestions = suggestFor(cv.uncovered(), fa.tree)
	}
	if d.Safety == Write {
		return d.ask(reasonAskWrite(&d, rv))
	}
	return d.ask(reasonAskUnknown(&d, rv))
}
