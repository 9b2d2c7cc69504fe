package gate

import (
	"fmt"
	"path"
	"strings"

	"github.com/agentexec/agentexec/gate/facts"
	"github.com/agentexec/agentexec/shellcfg"
)

// ExecInput is one program start seen at run time by the exec gate: the
// kernel has already expanded every spelling, so Argv is what the program
// really received and Exe is the file the kernel really ran.
type ExecInput struct {
	// Argv is the new program's argv, read after the exec (argv[0] as the
	// caller set it, which a multi-call binary such as busybox reads).
	Argv []string
	// Exe is the executable the kernel resolved (symlinks followed), or "".
	Exe string
	// Cwd is the process's working directory; relative operands are
	// resolved against it before the blacklist matches them.
	Cwd string
	// Env is the process's environment ("K=V"). For ReadOnly the
	// classifier reads git's configuration from its HOME and
	// XDG_CONFIG_HOME; without HOME a git program is not read-only.
	Env []string
	// Policy supplies the deny and ask rules and the blacklist extras.
	Policy *Policy
	// ReadOnly asks for the classifier too: the run was allowed as
	// read-only (or runs in plan mode), so an exec the classifier does not
	// prove read-only is refused.
	ReadOnly bool
}

// DecideExec judges one exec inside a running command. It reads only the
// deny and ask rules, the blacklist and, for ReadOnly, the classifier:
// allow rules and the mode were applied to the command's text already,
// and every further exec of the run is checked again when it happens.
//
// The result is Deny (blacklist, deny rule, or a non-read-only program in
// a read-only run), Ask (an ask rule matched) or Allow. Each spelling of
// the program is tried — argv[0] as given and the basename of Exe — so a
// renamed copy or a symlink of a denied program is still that program.
func DecideExec(in ExecInput) Decision {
	d := Decision{Mode: ModeDefault, Shell: shellcfg.Bash, RuleDecision: RuleNone, Safety: Unknown, Segments: []string{}}
	if len(in.Argv) == 0 {
		return d.deny("Denied: the program was started with an empty argument list, which the exec gate cannot judge.")
	}
	cp, err := in.Policy.rulesFor()
	if err != nil {
		return d.deny(reasonPolicyError(err))
	}
	for _, argv := range execSpellings(in) {
		text, err := shellcfg.Quote(shellcfg.Bash, argv)
		if err != nil {
			return d.deny(fmt.Sprintf("Denied: the program's arguments cannot be judged (%v).", err))
		}
		d.Segments = append(d.Segments, text)
		tree := facts.Build(text, facts.Options{Sub: subCommands})
		bi := blInput{cwd: in.Cwd, home: envValue(in.Env, "HOME"), segs: []string{text}, cands: callTexts(tree), extras: cp.extras, execGate: true}
		bi.shellEnv(in.Env, nil)
		bl := checkBlacklist(tree, bi)
		if bl.hit != nil {
			d.Blacklist = bl.hit
			return d.deny(reasonBlacklist(bl.hit))
		}
		cands, complete := strictCandidates(nil, tree)
		cands = append(cands, spelling{text: normalizeBlanks(text)})
		if r, m := bestMatch(cp.rules.deny, cands); m == sureMatch {
			d.RuleDecision, d.Rule = string(Deny), &RuleRef{Text: r.Text, Source: r.Source, Action: Deny}
			return d.deny(reasonDenyRule(r))
		}
		if !complete && len(cp.rules.deny)+len(cp.rules.ask) > 0 {
			return d.deny("Denied: the program's arguments spell more commands than the deny and ask rules can be matched against, so they cannot be judged.")
		}
		if r, m := bestMatch(cp.rules.ask, cands); m != noMatch && d.RuleDecision == RuleNone {
			d.RuleDecision, d.Rule = string(Ask), &RuleRef{Text: r.Text, Source: r.Source, Action: Ask}
		}
	}
	if d.RuleDecision == string(Ask) {
		return d.ask(fmt.Sprintf("Needs the user's approval: the rule %s asks before this program runs.", d.Rule.Text))
	}
	if in.ReadOnly {
		// Under each of its names: ./ls linked to touch is touch.
		for _, argv := range programNames(in) {
			text, _ := shellcfg.Quote(shellcfg.Bash, argv)
			d.Class = Classify(text, ClassifyOptions{Cwd: in.Cwd, Env: in.Env})
			d.Safety = d.Class.Safety.Norm()
			if d.Safety != ReadOnly {
				return d.deny(fmt.Sprintf("Denied: this run was allowed as read-only, and it started %s, which is %s (%s).", strings.Join(argv, " "), d.Safety, d.Class.Reason))
			}
		}
	}
	return d.allow("Allowed: no deny or ask rule and no blacklist entry matches this program.")
}

// execSpellings are the argvs an exec is judged as: as given, with
// argv[0] replaced by its own basename when it is a path (the rules name
// programs: `Bash(git push *)` must hold for /usr/lib/git-core/git push,
// which is how git runs an alias, and for /bin/r? reached through a glob)
// and by the resolved executable's basename when that differs (a renamed
// copy or a symlink of a denied program is still that program).
func execSpellings(in ExecInput) [][]string {
	return programNames(in)
}

// programNames are the argvs of an exec under each name of its program:
// argv[0] as given, its basename, the resolved executable's basename.
func programNames(in ExecInput) [][]string {
	out := [][]string{in.Argv}
	names := []string{in.Argv[0]}
	add := func(name string) {
		for _, n := range names {
			if n == name {
				return
			}
		}
		names = append(names, name)
		out = append(out, append([]string{name}, in.Argv[1:]...))
	}
	add(path.Base(in.Argv[0]))
	if in.Exe != "" {
		add(path.Base(in.Exe))
	}
	return out
}
