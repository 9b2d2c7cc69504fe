package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentexec/agentexec/exec"
	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/internal/surface"
	"github.com/agentexec/agentexec/shellcfg"
)

// Exit statuses of agentexec check (not --batch): the decision, so that a
// script can branch on it without parsing output.
const (
	checkAllow = 0
	checkAsk   = 1
	checkUsage = 2 // bad flags, arguments or policy
	checkDeny  = 3
)

// maxBatchLine bounds one --batch input line by default
// (--max-line-bytes); a longer line is an error line and the batch goes on.
const maxBatchLine = 1 << 20

const checkDesc = `Print the gate's decision for a command without running it.

Exactly one argument, the command text, follows the flags (quote it; use --
before a command that starts with '-'). With --batch, commands are read from
stdin instead, one JSON object per line:
  {"command": "...", "shell": "bash", "mode": "default", "allow": [...],
   "ask": [...], "deny": [...], "read_only_commands": [...], "cwd": "...",
   "env": {"KEY": "VALUE"}}
(every field but command optional; the rules and read-only commands are added
to the loaded policy for that line only) and one JSON object is written per
line, in order (blank lines are skipped):
  {"command", "safety", "decision", "rule_decision", "rule", "segments", "reason"}
A malformed line (not JSON, not valid UTF-8, over --max-line-bytes) gives
{"error": "..."} and the batch goes on.

Exit status: 0 allow, 1 ask, 3 deny, 2 usage or policy error. --batch exits 0
unless reading stdin or writing stdout fails (1).`

type checkFlags struct {
	policyFlags
	shell, cwd, mode     string
	json, explain, batch bool
	noExecGate           bool
	maxLine              int
	env                  envFlag
}

// envFlag collects repeated --env KEY=VALUE flags.
type envFlag map[string]string

func (e *envFlag) String() string { return "" }

func (e *envFlag) Set(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || k == "" {
		return fmt.Errorf("want KEY=VALUE, got %q", kv)
	}
	if *e == nil {
		*e = envFlag{}
	}
	(*e)[k] = v
	return nil
}

func checkMain(_ context.Context, c *cli, args []string) int {
	var f checkFlags
	fs := newFlagSet("check", "[flags] [--] 'COMMAND' | --batch < requests.jsonl", checkDesc)
	fs.StringVar(&f.shell, "shell", "", "shell for the text: bash, sh, cmd or powershell (default: $AGENTEXEC_SHELL, else detected)")
	fs.StringVar(&f.cwd, "cwd", "", "working `DIR` the command would run in (default: the current directory)")
	f.policyFlags.register(fs)
	fs.Var(&f.env, "env", "a variable the request sets, `KEY=VALUE` (repeatable): the gate weighs it as run would")
	fs.StringVar(&f.mode, "mode", "", "approval mode: plan, default or yolo (default: the policy's, else default)")
	fs.BoolVar(&f.json, "json", false, "print the decision as one JSON object")
	fs.BoolVar(&f.explain, "explain", false, "also print the classifier's evidence")
	fs.BoolVar(&f.batch, "batch", false, "read JSON-lines requests from stdin, write one JSON decision per line")
	fs.BoolVar(&f.noExecGate, "no-exec-gate", false, "decide as for a host without the run-time exec gate (by default, as run would here)")
	fs.IntVar(&f.maxLine, "max-line-bytes", maxBatchLine, "with --batch, answer a line longer than `BYTES` with an error instead of reading it")
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	switch {
	case f.batch && fs.NArg() != 0:
		return usageError(c, "check", "--batch reads commands from stdin and takes no argument")
	case !f.batch && fs.NArg() != 1:
		return usageError(c, "check", "want exactly one argument, the command text (got %d); quote it", fs.NArg())
	case !f.batch && strings.TrimSpace(fs.Arg(0)) == "":
		return usageError(c, "check", "the command text is blank")
	case f.maxLine < 1:
		return usageError(c, "check", "--max-line-bytes: %d is not a positive number", f.maxLine)
	}
	base, err := f.input(c)
	if err != nil {
		return usageError(c, "check", "%v", err)
	}
	if f.batch {
		return checkBatch(c, base, f.maxLine)
	}
	base.Text = fs.Arg(0)
	d := gate.Decide(base)
	if f.json {
		err = writeJSONLine(c.stdout, checkJSON(d, base.Text))
	} else {
		err = writeCheckText(c.stdout, d, f.explain)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "agentexec check: %v\n", err)
		return checkUsage
	}
	return checkExit(d.Action)
}

// input builds the Input every command shares: policy, mode, shell, cwd.
func (f *checkFlags) input(c *cli) (gate.Input, error) {
	var in gate.Input
	l, err := f.load(c, f.cwd)
	if err != nil {
		return in, err
	}
	in.Policy = l.Policy
	// What run would do on this host: with the exec gate watching the
	// programs the command starts, project code may be allowed by name.
	in.ExecGate = !f.noExecGate && exec.ExecGateWatches(in.Policy)
	if in.Env, err = exec.CommandEnv(os.Environ(), in.Policy, f.env); err != nil {
		return in, fmt.Errorf("--env: %v", err)
	}
	in.RequestEnv = f.env
	if f.mode != "" {
		m, err := gate.ParseMode(f.mode)
		if err != nil {
			return in, fmt.Errorf("--mode: %v", err)
		}
		in.Mode = m
	}
	env := shellcfg.HostEnv()
	env.Getenv = c.getenv
	sh, err := shellcfg.Detect(f.shell, env)
	if err != nil {
		return in, fmt.Errorf("--shell: %v", err)
	}
	in.Shell = sh
	in.Cwd = f.cwd
	if in.Cwd == "" {
		if in.Cwd, err = os.Getwd(); err != nil {
			return in, fmt.Errorf("--cwd: %v", err)
		}
	}
	in.Env = configEnv(c.getenv)
	return in, nil
}

// configEnv is the part of this host's environment that a run passes on
// and that says where configuration lives: HOME and XDG_CONFIG_HOME
// locate git's global scope. The gate reads no environment of its own, so
// check and audit replay give it these to answer as a run here would
// (without HOME it cannot read the global scope and git is not read-only).
// The executor's own defaults (PAGER=cat, GIT_PAGER=cat) are left out:
// without them a configured core.pager makes the answer stricter than a
// run's, never looser.
func configEnv(getenv func(string) string) []string {
	var env []string
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME"} {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func checkExit(a gate.Action) int {
	switch a {
	case gate.Allow:
		return checkAllow
	case gate.Deny:
		return checkDeny
	}
	return checkAsk
}

// batchOut is one --batch output line; field order is the contract.
type batchOut struct {
	Command      string   `json:"command"`
	Safety       string   `json:"safety"`
	Decision     string   `json:"decision"`
	RuleDecision string   `json:"rule_decision"`
	Rule         string   `json:"rule"`
	Segments     []string `json:"segments"`
	Reason       string   `json:"reason"`
}

func batchResult(d gate.Decision, text string) batchOut {
	o := batchOut{
		Command: text, Safety: string(d.Safety), Decision: string(d.Action),
		RuleDecision: d.RuleDecision, Segments: d.Segments, Reason: d.Reason,
	}
	if d.Rule != nil {
		o.Rule = d.Rule.Text
	}
	if o.Segments == nil {
		o.Segments = []string{}
	}
	return o
}

// checkOut is --json's object: the batch fields first, then the rest.
type checkOut struct {
	batchOut
	RuleSource     string               `json:"rule_source,omitempty"`
	Blacklist      *gate.BlacklistEntry `json:"blacklist,omitempty"`
	Suggestions    []string             `json:"suggestions,omitempty"`
	OneOff         bool                 `json:"one_off,omitempty"`
	Contain        bool                 `json:"contain,omitempty"`
	Network        []string             `json:"network,omitempty"` // hosts the allow rules grant it
	Mode           gate.Mode            `json:"mode"`
	Shell          shellcfg.ShellType   `json:"shell"`
	Classification gate.Result          `json:"classification"`
}

func checkJSON(d gate.Decision, text string) checkOut {
	o := checkOut{
		batchOut: batchResult(d, text), Blacklist: d.Blacklist, Suggestions: d.Suggestions,
		OneOff: d.OneOff, Contain: d.Contain, Network: d.Network, Mode: d.Mode, Shell: d.Shell, Classification: d.Class,
	}
	if d.Rule != nil {
		o.RuleSource = d.Rule.Source
	}
	return o
}

func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func writeCheckText(w io.Writer, d gate.Decision, explain bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "decision:      %s\n", d.Action)
	fmt.Fprintf(&b, "safety:        %s\n", d.Safety)
	fmt.Fprintf(&b, "rule_decision: %s\n", d.RuleDecision)
	fmt.Fprintf(&b, "mode:          %s\nshell:         %s\n", d.Mode, d.Shell)
	fmt.Fprintf(&b, "segments:      %d\n", len(d.Segments))
	for i, s := range d.Segments {
		fmt.Fprintf(&b, "  %d. %q\n", i+1, s)
	}
	if d.Rule != nil {
		fmt.Fprintf(&b, "rule:          %s (%s, from %s)\n", d.Rule.Text, d.Rule.Action, d.Rule.Source)
	} else {
		fmt.Fprintf(&b, "rule:          none\n")
	}
	if d.Blacklist != nil {
		fmt.Fprintf(&b, "blacklist:     %s: %s\n", d.Blacklist.Name, d.Blacklist.Reason)
	}
	for _, s := range d.Suggestions {
		fmt.Fprintf(&b, "suggest:       %s\n", s)
	}
	if d.OneOff {
		fmt.Fprintf(&b, "one-off:       an approval covers this exact invocation once\n")
	}
	if d.Contain {
		fmt.Fprintf(&b, "contain:       runs in the read-only sandbox, network off\n")
	}
	if len(d.Network) > 0 {
		fmt.Fprintf(&b, "network:       may reach %s (its allow rules' hosts), besides the policy's allowlist\n", strings.Join(d.Network, ", "))
	}
	fmt.Fprintf(&b, "reason:        %s\n", d.Reason)
	if explain {
		fmt.Fprintf(&b, "classification:\n%s", d.Class.Explain())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// batchIn is one --batch input line.
type batchIn struct {
	Command          *string           `json:"command"`
	Shell            string            `json:"shell"`
	Mode             string            `json:"mode"`
	Allow            []string          `json:"allow"`
	Ask              []string          `json:"ask"`
	Deny             []string          `json:"deny"`
	ReadOnlyCommands []string          `json:"read_only_commands"`
	Cwd              string            `json:"cwd"`
	Env              map[string]string `json:"env"`
}

// checkBatch answers every stdin line in order; a bad line gets an error
// object and the batch goes on. Blank lines are skipped, as serve skips
// them.
func checkBatch(c *cli, base gate.Input, maxLine int) int {
	lines := surface.NewLineReader(c.stdin, maxLine)
	w := bufio.NewWriter(c.stdout)
	// A batch line's answer has no suggestions field (batchOut).
	base.NoSuggestions = true
	for {
		l, err := lines.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Fprintf(c.stderr, "agentexec check: reading stdin: %v\n", err)
			w.Flush()
			return 1
		}
		if l.Blank() {
			continue
		}
		var out any
		if l.TooLong {
			out = batchError{fmt.Sprintf("line %d: %d bytes, longer than the limit of %d (--max-line-bytes)", l.N, l.Size, maxLine)}
		} else {
			out = batchLine(base, l.Text, l.N)
		}
		if werr := writeJSONLine(w, out); werr != nil {
			fmt.Fprintf(c.stderr, "agentexec check: writing stdout: %v\n", werr)
			return 1
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(c.stderr, "agentexec check: writing stdout: %v\n", err)
		return 1
	}
	return 0
}

type batchError struct {
	Error string `json:"error"`
}

// batchLine decides one input line, or describes what is wrong with it.
func batchLine(base gate.Input, line []byte, n int) any {
	in, text, err := parseBatchLine(base, line)
	if err != nil {
		return batchError{fmt.Sprintf("line %d: %v", n, err)}
	}
	in.Text = text
	return batchResult(gate.Decide(in), text)
}

func parseBatchLine(base gate.Input, line []byte) (gate.Input, string, error) {
	var req batchIn
	if err := exec.CheckJSONText(line); err != nil {
		return base, "", err
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return base, "", batchJSONError(err)
	}
	if dec.More() {
		return base, "", errors.New("more than one JSON value on the line")
	}
	if req.Command == nil {
		return base, "", errors.New("command: missing")
	}
	in := base
	var err error
	if req.Shell != "" {
		if in.Shell, err = shellcfg.ParseShell(req.Shell); err != nil {
			return base, "", err // names the field: "shell: …"
		}
	}
	if req.Mode != "" {
		if in.Mode, err = gate.ParseMode(req.Mode); err != nil {
			return base, "", err // names the field: "mode: …"
		}
	}
	if req.Cwd != "" {
		in.Cwd = req.Cwd
	}
	extra := gate.Permissions{Allow: req.Allow, Ask: req.Ask, Deny: req.Deny}
	if len(req.Allow)+len(req.Ask)+len(req.Deny)+len(req.ReadOnlyCommands) > 0 {
		if in.Policy, err = base.Policy.With(extra, req.ReadOnlyCommands, "inline"); err != nil {
			return base, "", err
		}
	}
	if len(req.Env) > 0 {
		if in.Env, err = exec.CommandEnv(os.Environ(), in.Policy, req.Env); err != nil {
			return base, "", fmt.Errorf("env: %v", err)
		}
		in.RequestEnv = req.Env
	}
	return in, *req.Command, nil
}

// batchJSONError names the field of a decoding error and what it wants.
func batchJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "" {
		return fmt.Errorf(`%s (a line is an object such as {"command": "ls -l"})`, exec.JSONErrorText(err))
	}
	return errors.New(exec.JSONErrorText(err))
}
