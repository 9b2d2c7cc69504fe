package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentexec/agentexec/audit"
	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/internal/atomicfile"
	"github.com/agentexec/agentexec/internal/jsonpos"
)

// Approvals turns an "always" answer into rules that stay: it proposes the
// minimal rules, shows what they would also have allowed in this
// workspace's audit history, writes the chosen rule to the local rules
// file and reloads.
type Approvals struct {
	Watcher   *Watcher
	AuditPath string // the decision log to replay; "" or "off": no preview
	Workspace string // whose past commands count
}

// Proposal is what "always" would write and what it reaches.
type Proposal struct {
	Rules  []string // the minimal allow rules for the command
	Covers []Past   // distinct past commands of this workspace the rules allow
	// Narrower is the exact rule for this command alone, offered when
	// Rules cover a command that was denied or asked before; NarrowerCovers
	// is what it covers.
	Narrower       string
	NarrowerCovers []Past
	File           string // where the rule is written
}

// Past is one distinct command of the audit history.
type Past struct {
	Command  string `json:"command"`
	Decision string `json:"decision"` // what was decided then (allow, ask, deny)
	Approved string `json:"approved,omitempty"`
}

// maxPast bounds the listed past commands.
const maxPast = 20

// Propose returns what "always" would write for a command the gate asked
// about (text as the gate saw it, cwd where it runs), or false when
// "always" must not be offered: the decision is not an ask, or it is a
// one-off (plan mode), or no rule can vouch for the command — hidden
// executions, a dynamic command name, a shell, an interpreter or another
// refusal-floor launcher (the gate then makes no suggestion).
func (a *Approvals) Propose(text, cwd string, d gate.Decision) (*Proposal, bool) {
	if a == nil || a.Watcher == nil || d.Action != gate.Ask || d.OneOff || len(d.Suggestions) == 0 {
		return nil, false
	}
	for _, s := range d.Suggestions {
		if s == "Bash" || strings.HasPrefix(s, "Bash(*") {
			return nil, false
		}
	}
	l := a.Watcher.Loaded()
	if l.LocalFile == "" {
		return nil, false
	}
	p := &Proposal{Rules: d.Suggestions, File: l.LocalFile}
	past := a.history()
	p.Covers = covered(p.Rules, past, cwd)
	risky := false
	for _, c := range p.Covers {
		if c.Command != text && (c.Decision == string(gate.Deny) || c.Decision == string(gate.Ask)) {
			risky = true
		}
	}
	if risky {
		exact := "Bash(" + strings.Join(strings.Fields(text), " ") + ")"
		if !strings.ContainsAny(text, "*()\n") && allows([]string{exact}, text, cwd) {
			p.Narrower = exact
			p.NarrowerCovers = covered([]string{exact}, past, cwd)
		}
	}
	return p, true
}

// history reads the distinct commands decided in this workspace, newest
// decision of each kept. A log that cannot be read gives no preview.
func (a *Approvals) history() []pastRecord {
	if a.AuditPath == "" || a.AuditPath == "off" {
		return nil
	}
	seen := map[string]int{}
	var out []pastRecord
	_ = audit.Scan(a.AuditPath, func(e audit.Entry) error {
		r := e.Record
		if e.Err != nil || r.Kind != "decision" || !within(r.Cwd, a.Workspace) {
			return nil
		}
		text := r.Command
		if text == "" && len(r.Argv) > 0 {
			words := make([]string, len(r.Argv))
			for i, w := range r.Argv {
				words[i] = quoteWord(w)
			}
			text = strings.Join(words, " ")
		}
		if text == "" {
			return nil
		}
		pr := pastRecord{Past{Command: text, Decision: r.Decision, Approved: r.Approved}, r.Cwd}
		if i, ok := seen[text]; ok {
			out[i] = pr
			return nil
		}
		seen[text] = len(out)
		out = append(out, pr)
		return nil
	})
	return out
}

type pastRecord struct {
	Past
	cwd string
}

func within(dir, root string) bool {
	if root == "" || dir == "" {
		return false
	}
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// covered lists the past commands the rules alone would allow.
func covered(rules []string, past []pastRecord, cwd string) []Past {
	var out []Past
	for _, pr := range past {
		dir := pr.cwd
		if dir == "" {
			dir = cwd
		}
		if allows(rules, pr.Command, dir) {
			out = append(out, pr.Past)
			if len(out) == maxPast {
				break
			}
		}
	}
	return out
}

// allows reports whether the rules, as an agentexec local file reads
// them, allow text.
func allows(rules []string, text, cwd string) bool {
	p := &gate.Policy{}
	for _, r := range rules {
		rule, ok, err := gate.ParseRule(r, gate.Allow, "proposal")
		if err != nil || !ok {
			return false
		}
		p.Rules = append(p.Rules, rule)
	}
	if p.Compile() != nil {
		return false
	}
	return gate.Decide(gate.Input{Text: text, Cwd: cwd, Policy: p, Mode: gate.ModeDefault}).RuleDecision == string(gate.Allow)
}

// Preview says in lines what the proposal reaches, for a person.
func (p *Proposal) Preview() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\"Always\" adds %s to %s.\n", strings.Join(p.Rules, " and "), p.File)
	writePast(&b, "It would also have allowed these past commands in this workspace", p.Covers)
	if p.Narrower != "" {
		fmt.Fprintf(&b, "It covers commands that were denied or asked before; the narrower rule %s allows only this command.\n", p.Narrower)
		writePast(&b, "That one covers", p.NarrowerCovers)
	}
	return b.String()
}

func writePast(b *strings.Builder, title string, past []Past) {
	if len(past) == 0 {
		fmt.Fprintf(b, "%s: none.\n", title)
		return
	}
	fmt.Fprintf(b, "%s:\n", title)
	for _, c := range past {
		note := c.Decision
		if c.Approved != "" {
			note += ", approved " + c.Approved
		}
		fmt.Fprintf(b, "  %s   (%s)\n", c.Command, note)
	}
}

// Persist writes rules into the local rules file, keeping the file's other
// content and formatting, and reloads the policy so the next call uses
// them. A rule already there is not added twice.
func (a *Approvals) Persist(rules []string) error {
	l := a.Watcher.Loaded()
	if l.LocalFile == "" {
		return errors.New("no local rules file to write to")
	}
	for _, r := range rules {
		if _, ok, err := gate.ParseRule(r, gate.Allow, l.LocalFile); err != nil || !ok {
			return fmt.Errorf("rule %q is not a shell rule", r)
		}
	}
	if err := AddAllowRules(l.LocalFile, rules); err != nil {
		return err
	}
	return a.Watcher.Reload()
}

// AddAllowRules appends rules to permissions.allow of the JSON settings
// file at path (agentexec's local.json or Claude's settings.local.json),
// creating the file, the permissions object or the list as needed. The
// rest of the file is kept byte for byte; the new entries follow the
// list's own indentation. The file is replaced atomically.
func AddAllowRules(path string, rules []string) error {
	data, err := os.ReadFile(path)
	mode := fs.FileMode(0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return err
	default:
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	out, err := insertAllow(data, rules)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.Write(path, out, mode)
}

// insertAllow edits the JSON text: new rules go at the end of
// permissions.allow.
func insertAllow(data []byte, rules []string) ([]byte, error) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return []byte("{\n  \"permissions\": {\n    \"allow\": [\n      " + quoteList(rules, ",\n      ") + "\n    ]\n  }\n}\n"), nil
	}
	top, err := jsonpos.Parse(stripBOM(data), jsonpos.Options{Comments: true})
	if err != nil {
		return nil, err
	}
	if top.Kind != jsonpos.Object {
		return nil, errors.New("want a JSON object at the top level")
	}
	data = stripBOM(data)
	perms := top.Get("permissions")
	if perms == nil {
		return insertMember(data, top, `"permissions": {"allow": [`+quoteList(rules, ", ")+`]}`), nil
	}
	if perms.Kind != jsonpos.Object {
		return nil, errors.New("permissions: want an object")
	}
	allow := perms.Get("allow")
	if allow == nil {
		return insertMember(data, perms, `"allow": [`+quoteList(rules, ", ")+`]`), nil
	}
	if allow.Kind != jsonpos.Array {
		return nil, errors.New("permissions.allow: want a list")
	}
	var fresh []string
	for _, r := range rules {
		dup := false
		for _, it := range allow.Items {
			dup = dup || (it.Kind == jsonpos.String && it.Str == r)
		}
		if !dup {
			fresh = append(fresh, r)
		}
	}
	if len(fresh) == 0 {
		return data, nil
	}
	closeAt := allow.End - 1 // the ']'
	if len(allow.Items) == 0 {
		return splice(data, closeAt, quoteList(fresh, ", ")), nil
	}
	last := allow.Items[len(allow.Items)-1]
	sep := ", "
	if ind := indentBefore(data, last.Offset); ind != "" {
		sep = ",\n" + ind
	}
	return splice(data, last.End, sep+quoteList(fresh, sep)), nil
}

// insertMember adds a member at the end of obj, after its last member.
func insertMember(data []byte, obj *jsonpos.Value, member string) []byte {
	if len(obj.Members) == 0 {
		return splice(data, obj.End-1, member)
	}
	last := obj.Members[len(obj.Members)-1]
	sep := ", "
	if ind := indentBefore(data, last.KeyOffset); ind != "" {
		sep = ",\n" + ind
	}
	return splice(data, last.Value.End, sep+member)
}

// indentBefore is the blanks before off when off starts its line, else "".
func indentBefore(data []byte, off int) string {
	start := strings.LastIndexByte(string(data[:off]), '\n') + 1
	ind := string(data[start:off])
	if strings.Trim(ind, " \t") != "" || start == 0 {
		return ""
	}
	return ind
}

func splice(data []byte, at int, s string) []byte {
	out := make([]byte, 0, len(data)+len(s))
	out = append(out, data[:at]...)
	out = append(out, s...)
	return append(out, data[at:]...)
}

func quoteList(rules []string, sep string) string {
	q := make([]string, len(rules))
	for i, r := range rules {
		q[i] = jsonString(r)
	}
	return strings.Join(q, sep)
}

func jsonString(s string) string {
	v := &jsonpos.Value{Kind: jsonpos.String, Str: s}
	return string(v.Bytes())
}

// RequestText is a request's command as the gate reads it: the text, or
// argv with each word quoted as a shell would need it.
func RequestText(command string, argv []string) string {
	if command != "" || len(argv) == 0 {
		return command
	}
	words := make([]string, len(argv))
	for i, w := range argv {
		words[i] = quoteWord(w)
	}
	return strings.Join(words, " ")
}
