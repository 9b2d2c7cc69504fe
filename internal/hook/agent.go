package hook

import (
	"errors"
	"fmt"
	"strings"
)

// Answer is what the hook process hands back: its stdout, its stderr and
// its exit status, as the agent reads them.
type Answer struct {
	Stdout []byte
	Stderr string
	Exit   int
}

// AskStyle is how an agent can put a call to the person.
type AskStyle int

// The styles.
const (
	// AskNative: the hook answers "ask" and the agent prompts.
	AskNative AskStyle = iota
	// AskByNoDecision: the agent has no "ask", but a call without a
	// decision goes to its own permission prompt (Crush).
	AskByNoDecision
	// AskUnsupported: nothing would ask, so an ask is answered deny (Codex).
	AskUnsupported
)

// Agent is one agent's hook protocol.
type Agent interface {
	// Name is the --agent name: claude, codex, gemini, qwen or crush.
	Name() string
	// Parse reads one payload. An error is a *PayloadError; the caller
	// answers it with FailClosed. A call for an event or tool this package
	// has no opinion on is Kind Other.
	Parse(data []byte) (Call, error)
	// Answer renders a verdict for call in the agent's own format.
	Answer(call Call, v Verdict) Answer
	// CanRewrite says the agent runs a command the hook rewrote.
	CanRewrite() bool
	// Ask says how the agent can ask the person.
	Ask() AskStyle
	// Settings describes where the hook is installed.
	Settings() SettingsSpec
}

// agents are the agents by --agent name, sorted by it.
var agents = []struct {
	name  string
	agent Agent
}{
	{"claude", claude{}},
	{"codex", codex{}},
	{"crush", crush{}},
	{"gemini", gemini{}},
	{"qwen", qwen{}},
}

// Names lists the agents, sorted.
func Names() []string {
	out := make([]string, 0, len(agents))
	for _, a := range agents {
		out = append(out, a.name)
	}
	return out
}

// ErrUnknownAgent is returned by Lookup for a name that is not an agent.
var ErrUnknownAgent = errors.New("unknown agent")

// Lookup returns the agent with the --agent name (case-insensitive).
func Lookup(name string) (Agent, error) {
	want := strings.ToLower(strings.TrimSpace(name))
	for _, a := range agents {
		if a.name == want {
			return a.agent, nil
		}
	}
	return nil, fmt.Errorf("%w %q (want one of %s)", ErrUnknownAgent, name, strings.Join(Names(), ", "))
}

// FailClosed is the answer when the hook cannot judge a call (a payload it
// cannot read, an internal error): exit status 2 with the reason on stderr,
// which Claude Code, Codex, Gemini CLI, Qwen Code and Crush all document
// as "block this tool call and show the reason to the model".
func FailClosed(reason string) Answer {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		reason = "agentexec hook could not judge this tool call"
	}
	return Answer{Stderr: "agentexec: denied: " + reason + "\n", Exit: 2}
}

// mustJSON marshals v, which is always one of this package's answer types.
// A failure is a bug; it fails closed.
func mustJSON(v any) ([]byte, error) {
	b, err := marshalNoEscape(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the answer: %w", err)
	}
	return append(b, '\n'), nil
}

// jsonAnswer is an exit-0 answer with v on stdout.
func jsonAnswer(v any) Answer {
	b, err := mustJSON(v)
	if err != nil {
		return FailClosed(err.Error())
	}
	return Answer{Stdout: b}
}

// Judge answers one payload for agent a: Parse, then — for a call agentexec
// has an opinion on — prepare builds the Config, Decide judges, and done
// records the verdict (the audit log) before the answer is rendered. Any
// failure on the way, a panic included, is answered with FailClosed.
func Judge(a Agent, data []byte, prepare func(Call) (Config, error), done func(Call, Verdict) error) (ans Answer) {
	defer func() {
		if p := recover(); p != nil {
			ans = FailClosed(fmt.Sprintf("internal error: %v", p))
		}
	}()
	c, err := a.Parse(data)
	if err != nil {
		return FailClosed(err.Error())
	}
	if c.Kind == Other {
		return a.Answer(c, Verdict{}) // no opinion: nothing to load
	}
	cfg, err := prepare(c)
	if err != nil {
		return FailClosed(err.Error())
	}
	v, err := Decide(a, c, cfg)
	if err != nil {
		return FailClosed(err.Error())
	}
	if done != nil {
		if err := done(c, v); err != nil {
			return FailClosed(err.Error())
		}
	}
	return a.Answer(c, v)
}
