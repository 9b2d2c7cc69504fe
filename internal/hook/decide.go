package hook

import (
	"fmt"

	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/shellcfg"
)

// Config is what a decision depends on besides the call. The zero value
// decides with no policy and no rewrite.
type Config struct {
	// Policy supplies the rules (nil: none). Its Bash(...) rules judge
	// shell commands; its Read(...)/Edit(...)/Write(...) rules judge file
	// tools.
	Policy *gate.Policy
	// Mode overrides the agent's permission mode ("": the call's mode,
	// else the policy's, else default).
	Mode gate.Mode
	// Env is the environment the gate reads git configuration with.
	Env []string
	// Home is the user's home directory, for ~/ in file rules.
	Home string
	// Workspace is the project root: file tools may write inside it (and
	// inside the policy's sandbox.writable_roots) without asking. "" means
	// the call's cwd.
	Workspace string
	// Protected are files and directories a file tool may not change
	// without asking the person even inside the workspace: the policy
	// file and the agent's settings, where the hook itself is configured.
	Protected []string
	// DontAsk refuses what would ask, without asking (Claude Code's
	// dontAsk mode, from the settings).
	DontAsk bool
	// Rewrite, when set, rewrites allowed shell commands to run through
	// agentexec; nil answers them allow (or ask) as they are.
	Rewrite Rewriter
}

// Rewriter turns an allowed (or asked) shell call into the text that runs
// it through `agentexec run`, bound to a fresh ticket.
type Rewriter interface {
	// Rewrite returns the rewritten command. d is the gate's decision
	// (d.Mode the mode it decided in); verdict is what the hook answers.
	Rewrite(c Call, d gate.Decision, verdict Action) (string, error)
}

// Decide judges one call. An error means the hook could not judge it and
// must answer with FailClosed.
func Decide(a Agent, c Call, cfg Config) (Verdict, error) {
	switch c.Kind {
	case Shell:
		return decideShell(a, c, cfg)
	case Read, Write:
		return askable(a, cfg, checkFiles(c, cfg)), nil
	}
	return Verdict{}, nil
}

func decideShell(a Agent, c Call, cfg Config) (Verdict, error) {
	mode := cfg.Mode
	if mode == "" {
		mode = c.Mode
	}
	rewrite := cfg.Rewrite != nil && a.CanRewrite()
	d := gate.Decide(gate.Input{
		Text: c.Command, Shell: shellcfg.Bash, Cwd: c.Dir, Mode: mode,
		Policy: cfg.Policy, Env: cfg.Env, ExecGate: rewrite,
	})
	v := Verdict{Action: Action(d.Action), Reason: "agentexec: " + d.Reason, Decision: &d}
	if v.Action == Allow && d.Contain && !rewrite {
		// Containment needs the read-only sandbox, which only a rewrite
		// through agentexec applies: without one, ask.
		v.Action = Ask
		v.Reason = "agentexec: needs your approval: this command would run contained in the read-only sandbox, which only agentexec can apply, and the agent is running it itself. " + d.Reason
	}
	v = askable(a, cfg, v)
	if rewrite && (v.Action == Allow || v.Action == Ask) {
		text, err := cfg.Rewrite.Rewrite(c, d, v.Action)
		if err != nil {
			return Verdict{}, fmt.Errorf("rewriting the command to run through agentexec: %w", err)
		}
		v.Command = text
	}
	return v, nil
}

// askable turns an ask the agent cannot put to the person (or the settings
// say not to) into a deny.
func askable(a Agent, cfg Config, v Verdict) Verdict {
	if v.Action == Ask && cfg.DontAsk {
		v.Action = Deny
		v.Reason = "agentexec: denied because it needs the user's approval and the settings say not to ask (dontAsk). " + trimPrefix(v.Reason)
		return v
	}
	if v.Action == Ask && a.Ask() == AskUnsupported {
		v.Action = Deny
		v.Reason = fmt.Sprintf("agentexec: denied because it needs the user's approval and %s hooks cannot ask. %s", a.Name(), trimPrefix(v.Reason))
	}
	return v
}

func trimPrefix(reason string) string {
	const p = "agentexec: "
	if len(reason) >= len(p) && reason[:len(p)] == p {
		return reason[len(p):]
	}
	return reason
}
