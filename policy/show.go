package policy

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agentexec/agentexec/gate"
)

// Shown is the effective policy as `agentexec policy show --json` prints
// it; the text form says the same in lines.
type Shown struct {
	Format           Format                `json:"format,omitempty"`
	Files            []File                `json:"files"`
	Digest           string                `json:"digest"`
	Mode             gate.Mode             `json:"mode"`
	ModeNote         string                `json:"mode_note,omitempty"`
	Unknown          string                `json:"unknown"`
	Rules            []ShownRule           `json:"rules"`
	ReadOnlyCommands []string              `json:"read_only_commands"`
	Blacklist        []gate.BlacklistExtra `json:"blacklist_extra"`
	Sandbox          ShownSandbox          `json:"sandbox"`
	Env              ShownEnv              `json:"env"`
	Mapped           []Note                `json:"mapped"`
	Ignored          []Note                `json:"ignored"`
	Refused          []Note                `json:"refused_vouches"`
	Unrelated        []Note                `json:"unrelated"`
	LocalFile        string                `json:"local_rules_file,omitempty"`
	Clean            bool                  `json:"clean"`
}

// ShownRule is one rule in force.
type ShownRule struct {
	Action        gate.Action `json:"action"`
	Rule          string      `json:"rule"`
	Source        string      `json:"source"` // file:line
	Meaning       string      `json:"meaning"`
	Written       string      `json:"written,omitempty"` // how the file wrote it, when different
	Justification string      `json:"justification,omitempty"`
	Network       []string    `json:"network,omitempty"` // hosts a command this allow rule allows may reach
}

// ShownSandbox is the sandbox the policy asks for.
type ShownSandbox struct {
	Profile       string   `json:"profile"`
	Network       string   `json:"network"` // off, open or proxy
	NetworkAllow  []string `json:"network_allow,omitempty"`
	NetworkDeny   []string `json:"network_deny,omitempty"`
	WritableRoots []string `json:"writable_roots"`
	ReadableRoots []string `json:"readable_roots"`
}

// ShownEnv is what the policy does to a command's environment.
type ShownEnv struct {
	Inherit string            `json:"inherit"`
	Exclude []string          `json:"exclude,omitempty"`
	Set     map[string]string `json:"set"`
}

// Show builds the account of l.
func (l *Loaded) Show() (Shown, error) {
	p := l.Policy
	rules, err := p.InForce()
	if err != nil {
		return Shown{}, err
	}
	s := Shown{
		Format: l.Format, Files: l.Files, Digest: p.Digest(), Mode: p.Mode,
		Unknown: orString(p.Unknown, "ask"), ReadOnlyCommands: p.ReadOnlyCommands,
		Blacklist: p.Blacklist.Extra, Mapped: l.Mapped, Ignored: l.Ignored,
		Refused: l.Refused, Unrelated: l.Unrelated, LocalFile: l.LocalFile, Clean: l.Clean(),
		Sandbox: ShownSandbox{
			Profile: orString(p.Sandbox.Profile, "workspace-write"), Network: orString(string(p.Sandbox.Network.Mode), "off"),
			NetworkAllow: p.Sandbox.Network.Allow, NetworkDeny: p.Sandbox.Network.Deny,
			WritableRoots: p.Sandbox.WritableRoots, ReadableRoots: p.Sandbox.ReadableRoots,
		},
		Env: ShownEnv{Inherit: orString(p.Env.Inherit, "all"), Exclude: p.Env.Exclude, Set: p.Env.Set},
	}
	if s.Mode == "" {
		s.Mode = gate.ModeDefault
	}
	switch {
	case l.DontAsk:
		s.ModeNote = "dontAsk: what would ask is refused without asking"
	case l.NoYolo:
		s.ModeNote = "yolo mode is refused"
	}
	for _, r := range rules {
		s.Rules = append(s.Rules, ShownRule{
			Action: ruleAction(r), Rule: r.Text, Source: srcLine(r.Source, r.Line),
			Meaning: meaningWord(r), Written: l.Written[r.Text], Justification: r.Justification, Network: r.Network,
		})
	}
	fillEmpty(&s)
	return s, nil
}

// fillEmpty makes lists print as [] rather than null in JSON.
func fillEmpty(s *Shown) {
	for _, p := range []*[]Note{&s.Mapped, &s.Ignored, &s.Refused, &s.Unrelated} {
		if *p == nil {
			*p = []Note{}
		}
	}
	if s.Rules == nil {
		s.Rules = []ShownRule{}
	}
	if s.Files == nil {
		s.Files = []File{}
	}
	if s.ReadOnlyCommands == nil {
		s.ReadOnlyCommands = []string{}
	}
	if s.Blacklist == nil {
		s.Blacklist = []gate.BlacklistExtra{}
	}
	if s.Sandbox.WritableRoots == nil {
		s.Sandbox.WritableRoots = []string{}
	}
	if s.Sandbox.ReadableRoots == nil {
		s.Sandbox.ReadableRoots = []string{}
	}
	if s.Env.Set == nil {
		s.Env.Set = map[string]string{}
	}
}

func meaningWord(r gate.Rule) string {
	switch {
	case r.Meaning == gate.Regex:
		return "regex"
	case r.Pattern == "":
		return "every command"
	case strings.Contains(r.Pattern, "*"):
		return "glob"
	case r.Meaning == gate.Prefix:
		return "prefix"
	}
	return "exact"
}

func orString(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// WriteText prints s for a person.
func (s Shown) WriteText(w io.Writer) error {
	var b strings.Builder
	if len(s.Files) == 0 {
		b.WriteString("policy: none (built-in defaults)\n")
	}
	for i, f := range s.Files {
		label := "policy:"
		if i > 0 {
			label = "   and:"
		}
		scope := ""
		if f.Scope != "" {
			scope = ", " + f.Scope
		}
		fmt.Fprintf(&b, "%s %s (%s%s)\n", label, f.Path, f.Format, scope)
	}
	fmt.Fprintf(&b, "digest: %s\n", s.Digest)
	fmt.Fprintf(&b, "mode: %s", s.Mode)
	if s.ModeNote != "" {
		fmt.Fprintf(&b, " (%s)", s.ModeNote)
	}
	fmt.Fprintf(&b, "\nunknown commands: %s\n", s.Unknown)
	b.WriteString("\nrules, in the order they are checked (deny, ask, allow):\n")
	if len(s.Rules) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, r := range s.Rules {
		fmt.Fprintf(&b, "  %-5s %s  [%s]  from %s", r.Action, r.Rule, r.Meaning, r.Source)
		if r.Written != "" {
			fmt.Fprintf(&b, "  (written as %s)", r.Written)
		}
		if r.Justification != "" {
			fmt.Fprintf(&b, "  — %q", r.Justification)
		}
		if len(r.Network) > 0 {
			fmt.Fprintf(&b, "  network: %s", strings.Join(r.Network, ", "))
		}
		b.WriteByte('\n')
	}
	if len(s.ReadOnlyCommands) > 0 {
		fmt.Fprintf(&b, "\nread-only commands (vouched): %s\n", strings.Join(s.ReadOnlyCommands, ", "))
	}
	if len(s.Blacklist) > 0 {
		b.WriteString("\nblacklist entries:\n")
		for _, e := range s.Blacklist {
			fmt.Fprintf(&b, "  %s: %s — %s\n", e.Name, e.Pattern, e.Reason)
		}
	}
	fmt.Fprintf(&b, "\nsandbox: %s, network %s\n", s.Sandbox.Profile, s.Sandbox.Network)
	for _, h := range s.Sandbox.NetworkAllow {
		fmt.Fprintf(&b, "  network allow: %s\n", h)
	}
	for _, h := range s.Sandbox.NetworkDeny {
		fmt.Fprintf(&b, "  network deny: %s\n", h)
	}
	for _, r := range s.Sandbox.WritableRoots {
		fmt.Fprintf(&b, "  writable: %s\n", r)
	}
	for _, r := range s.Sandbox.ReadableRoots {
		fmt.Fprintf(&b, "  readable: %s\n", r)
	}
	fmt.Fprintf(&b, "env: inherit %s", s.Env.Inherit)
	if len(s.Env.Exclude) > 0 {
		fmt.Fprintf(&b, ", excluding %s", strings.Join(s.Env.Exclude, ", "))
	}
	b.WriteByte('\n')
	keys := make([]string, 0, len(s.Env.Set))
	for k := range s.Env.Set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "  set %s=%s\n", k, s.Env.Set[k])
	}
	writeNotes(&b, "mapped", s.Mapped)
	writeNotes(&b, "ignored (not applied)", s.Ignored)
	writeNotes(&b, "refused vouches", s.Refused)
	writeNotes(&b, "not read (unrelated to running commands)", s.Unrelated)
	if s.LocalFile != "" {
		fmt.Fprintf(&b, "\n\"always\" approvals write to: %s\n", s.LocalFile)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeNotes(b *strings.Builder, title string, notes []Note) {
	if len(notes) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n", title)
	for _, n := range notes {
		fmt.Fprintf(b, "  %s: %s  (%s)\n", n.Item, n.Detail, n.Source)
	}
}

// ruleAction is how show names a rule's action: "only" for the policy's
// allowlist of the only commands available.
func ruleAction(r gate.Rule) gate.Action {
	if r.Only {
		return "only"
	}
	return r.Action
}
