package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentexec/agentexec/audit"
	"github.com/agentexec/agentexec/gate"
	pkgpolicy "github.com/agentexec/agentexec/policy"
	"github.com/agentexec/agentexec/shellcfg"
)

const auditUsage = `Usage: agentexec audit <verify|tail|replay> [flags] [PATH...]

Inspect the decision log (default $XDG_STATE_HOME/agentexec/audit.jsonl,
else ~/.local/state/agentexec/audit.jsonl).

  verify [--key-file F] [--expect-seq N] [PATH...]
                                         check every hash, link, sequence number and anchor
  tail [-n N] [-f] [--json] [PATH]       print the last records readably
  replay --policy NEW.json [--mode M] [PATH]
                                         list the decisions a new policy would change
`

func auditMain(ctx context.Context, c *cli, args []string) int {
	fs := newFlagSet("audit", "<verify|tail|replay> [flags] [PATH...]", "")
	fs.Usage = func() { fmt.Fprint(fs.Output(), auditUsage) }
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprint(c.stderr, auditUsage)
		return 2
	}
	switch sub, rest := fs.Arg(0), fs.Args()[1:]; sub {
	case "verify":
		return auditVerify(c, rest)
	case "tail":
		return auditTail(ctx, c, rest)
	case "replay":
		return auditReplay(c, rest)
	case "help":
		fmt.Fprint(c.stdout, auditUsage)
		return 0
	default:
		return usageError(c, "audit", "unknown subcommand %q (want verify, tail or replay)", sub)
	}
}

// The exit codes of audit verify. With several logs the most severe wins
// (see verifySeverity).
const (
	verifyIntact     = 0 // every chain intact (and authenticated)
	verifyBroken     = 1 // a chain is broken: edited, removed, reordered or cut records
	verifyError      = 2 // usage error, or a log or key could not be read
	verifyUnverified = 3 // a keyed chain verified without its key: intact, authenticity not proven
	verifyTorn       = 4 // the only defect is a torn last line (a crash); the next writer repairs it
)

const verifyDescription = `Verify checks every record's hash, link (prev), sequence number and the
anchors file, across rotated files (PATH.N, N the file's last sequence
number) in order: name the current file, not a rotated one. A directory
stands for every *.jsonl log in it. It prints the first broken line and
why, or a summary per log.

Exit status: 0 intact; 1 broken (edited, removed, reordered or truncated
records); 2 usage or read error; 3 a keyed (hmac-sha256) log checked without
its key: structure intact, authenticity not verified; 4 the only defect is a
torn last line left by a crash, which the next writer moves to PATH.torn.
With several logs the most severe status wins, in the order 1, 2, 4, 3.

With --key-file (default $AGENTEXEC_AUDIT_KEY_FILE) the HMAC of every record
and anchor is checked, and an unkeyed record is refused: a keyed log cannot
be downgraded to a recomputable sha256 chain.

Records cut off the end show as anchors past the last record; a log with
records but no anchors file, or none in it, is broken too. A log cut with
its anchors in step (or both put back from earlier copies) cannot show it
itself: keep the last seq of the summary where the agent cannot write and
pass it as --expect-seq N; a log ending before seq N is broken.`

// verifySeverity ranks exit codes for combining them.
func verifySeverity(code int) int {
	switch code {
	case verifyUnverified:
		return 1
	case verifyTorn:
		return 2
	case verifyError:
		return 3
	case verifyBroken:
		return 4
	}
	return 0 // verifyIntact
}

func worse(a, b int) int {
	if verifySeverity(b) > verifySeverity(a) {
		return b
	}
	return a
}

func auditVerify(c *cli, args []string) int {
	fs := newFlagSet("audit verify", "[--key-file FILE] [--expect-seq N] [PATH...]", verifyDescription)
	keyFile := fs.String("key-file", "", "HMAC key `FILE` of a keyed log (default $AGENTEXEC_AUDIT_KEY_FILE)")
	expect := fs.Uint64("expect-seq", 0, "the log must reach sequence number `N` (kept elsewhere from an earlier verify): a log ending before it was cut")
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	opt, err := verifyOptions(c, *keyFile)
	if err != nil {
		fmt.Fprintf(c.stderr, "agentexec audit verify: %v\n", err)
		return verifyError
	}
	opt.ExpectSeq = *expect
	paths, code := auditPaths(c, "audit verify", fs.Args())
	if paths == nil {
		return code
	}
	status := verifyIntact
	for _, p := range paths {
		targets, err := audit.VerifyTargets(p)
		if err != nil {
			fmt.Fprintf(c.stderr, "agentexec audit verify: %v\n", err)
			status = worse(status, verifyError)
			continue
		}
		for _, t := range targets {
			status = worse(status, verifyOne(c, t, opt))
		}
	}
	return status
}

func verifyOptions(c *cli, keyFile string) (audit.VerifyOptions, error) {
	if keyFile == "" {
		keyFile = c.getenv("AGENTEXEC_AUDIT_KEY_FILE")
	}
	if keyFile == "" {
		return audit.VerifyOptions{}, nil
	}
	key, err := audit.LoadKey(keyFile)
	return audit.VerifyOptions{Key: key}, err
}

func verifyOne(c *cli, path string, opt audit.VerifyOptions) int {
	rep, err := audit.Verify(path, opt)
	var ce *audit.ChainError
	switch {
	case err == nil:
		fmt.Fprintf(c.stdout, "%s: %s\n", path, rep)
		return verifyIntact
	case errors.Is(err, audit.ErrKeyRequired):
		fmt.Fprintf(c.stdout, "%s: %s\n", path, rep)
		fmt.Fprintf(c.stderr, "%s: keyed log (hmac-sha256): authenticity NOT verified without the key (--key-file)\n", path)
		return verifyUnverified
	case audit.IsTorn(err):
		fmt.Fprintf(c.stderr, "%v\n", err)
		return verifyTorn
	case errors.As(err, &ce):
		fmt.Fprintf(c.stderr, "%v\n", err)
		return verifyBroken
	}
	fmt.Fprintf(c.stderr, "agentexec audit verify: %v\n", err)
	return verifyError
}

// auditPaths is the PATH arguments, or the default log. A nil result means
// return code.
func auditPaths(c *cli, cmd string, args []string) ([]string, int) {
	if len(args) > 0 {
		return args, 0
	}
	p := audit.DefaultPath(c.getenv)
	if p == "" {
		return nil, usageError(c, cmd, "no PATH given and neither XDG_STATE_HOME nor HOME is set")
	}
	return []string{p}, 0
}

// onePath is auditPaths for commands that take at most one PATH.
func onePath(c *cli, fs *flag.FlagSet) (string, int) {
	if fs.NArg() > 1 {
		return "", usageError(c, fs.Name(), "want at most one PATH, got %d", fs.NArg())
	}
	paths, code := auditPaths(c, fs.Name(), fs.Args())
	if paths == nil {
		return "", code
	}
	return paths[0], 0
}

func auditTail(ctx context.Context, c *cli, args []string) int {
	fs := newFlagSet("audit tail", "[-n N] [-f] [--json] [PATH]",
		"Tail prints the last records of the log, oldest first, one per line:\n\n"+
			"  2026-11-30T04:00:01Z  #12 deny   rm -rf x  (Bash(rm *) from p.json)\n\n"+
			"It does not verify the chain (run verify for that).")
	n := fs.Int("n", 10, "print the last `N` records")
	followFlag := fs.Bool("f", false, "keep printing records as they are appended (across rotation) until interrupted")
	raw := fs.Bool("json", false, "print the raw JSON lines")
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	if *n < 0 {
		return usageError(c, "audit tail", "-n: %d is negative", *n)
	}
	path, code := onePath(c, fs)
	if path == "" {
		return code
	}
	print := func(e audit.Entry) error {
		printEntry(c.stdout, e, *raw)
		return nil
	}
	var err error
	if *followFlag {
		err = audit.Follow(ctx, path, *n, 250*time.Millisecond, print)
	} else {
		err = audit.Tail(path, *n, print)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "agentexec audit tail: %v\n", err)
		return 2
	}
	return 0
}

func printEntry(w io.Writer, e audit.Entry, raw bool) {
	switch {
	case raw:
		fmt.Fprintf(w, "%s\n", e.Raw)
	case e.Err != nil:
		fmt.Fprintf(w, "%s: line %d: %v\n", e.File, e.Line, e.Err)
	default:
		fmt.Fprintln(w, formatRecord(&e.Record))
	}
}

// formatRecord is one readable line for a record.
func formatRecord(r *audit.Record) string {
	t := r.Time
	if pt, err := time.Parse(time.RFC3339Nano, r.Time); err == nil {
		t = pt.UTC().Format("2006-01-02T15:04:05Z")
	}
	head := fmt.Sprintf("%s  #%d ", t, r.Seq)
	if r.Kind == "run" {
		return head + fmt.Sprintf("%-6s %s  → %s", "run", recordText(r), runOutcome(r))
	}
	if r.Kind == "hook" {
		head += fmt.Sprintf("hook %s/%s ", r.Agent, r.Tool) // the agent's hook answered this
	}
	return head + fmt.Sprintf("%-6s %s%s", r.Decision, recordText(r), why(r))
}

// recordText is the command of a record: its text, or its argv quoted for
// its shell.
func recordText(r *audit.Record) string {
	if r.Command != "" || len(r.Argv) == 0 {
		return r.Command
	}
	st, err := shellcfg.ParseShell(r.Shell)
	if err != nil {
		st = shellcfg.Bash
	}
	if text, err := shellcfg.Quote(st, r.Argv); err == nil {
		return text
	}
	return strings.Join(r.Argv, " ")
}

func why(r *audit.Record) string {
	switch {
	case r.Rule != "" && r.RuleSource != "":
		return fmt.Sprintf("  (%s from %s)", r.Rule, r.RuleSource)
	case r.Rule != "":
		return fmt.Sprintf("  (%s)", r.Rule)
	case r.Blacklist != "":
		return fmt.Sprintf("  (blacklist %s)", r.Blacklist)
	case r.Reason != "":
		return fmt.Sprintf("  (%s)", clip(r.Reason, 100))
	}
	return ""
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func runOutcome(r *audit.Record) string {
	var parts []string
	if r.Status != "" {
		parts = append(parts, r.Status)
	}
	if r.ExitCode != nil {
		parts = append(parts, fmt.Sprintf("exit %d", *r.ExitCode))
	}
	if r.Signal != "" {
		parts = append(parts, "signal "+r.Signal)
	}
	parts = append(parts, fmt.Sprintf("%dms", r.DurationMS))
	if r.Sandbox != "" {
		parts = append(parts, "sandbox "+r.Sandbox)
	}
	return strings.Join(parts, ", ")
}

const replayDescription = `Replay re-decides every recorded decision under a new policy and prints
those whose decision would change:

  audit.jsonl: line 3: rm -rf build: allow → deny (Bash(rm *) from NEW.json)

The mode is --mode if given, else the new policy's mode if it sets one,
else the mode recorded with the decision. Records carrying argv are quoted
for their shell first. Commands are replayed as recorded, that is with
secrets redacted, so a rule matching a secret's text cannot match here.
The chain is not verified (run verify first).

Exit status: 0 no decision would change; 1 some would (so CI can gate a
policy change on it); 2 usage or read error.`

func auditReplay(c *cli, args []string) int {
	fs := newFlagSet("audit replay", "--policy NEW.json [--mode M] [PATH]", replayDescription)
	policy := fs.String("policy", "", "the new policy `FILE` (required)")
	modeFlag := fs.String("mode", "", "approval mode to decide under: plan, default or yolo")
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	if *policy == "" {
		return usageError(c, "audit replay", "--policy is required")
	}
	mode, err := gate.ParseMode(*modeFlag)
	if err != nil {
		return usageError(c, "audit replay", "--mode: %v", err)
	}
	if *modeFlag == "" {
		mode = ""
	}
	l, err := pkgpolicy.Load(pkgpolicy.Options{Path: *policy, Home: c.getenv("HOME")})
	if err != nil {
		fmt.Fprintf(c.stderr, "agentexec audit replay: %v\n", err)
		return 2
	}
	pol := l.Policy
	path, code := onePath(c, fs)
	if path == "" {
		return code
	}
	rp := &replayer{c: c, pol: pol, mode: mode}
	if err := audit.Scan(path, rp.entry); err != nil {
		fmt.Fprintf(c.stderr, "agentexec audit replay: %v\n", err)
		return 2
	}
	fmt.Fprintf(c.stderr, "replayed %d decisions: %d would change\n", rp.total, rp.changed)
	if rp.changed > 0 {
		return 1
	}
	return 0
}

// replayer re-decides the decision records of a log.
type replayer struct {
	c              *cli
	pol            *gate.Policy
	mode           gate.Mode
	total, changed int
}

func (rp *replayer) entry(e audit.Entry) error {
	if e.Err != nil {
		fmt.Fprintf(rp.c.stderr, "%s: line %d: skipped: %v\n", e.File, e.Line, e.Err)
		return nil
	}
	r := &e.Record
	if r.Kind != "decision" {
		return nil
	}
	text := recordText(r)
	st, err := shellcfg.ParseShell(r.Shell)
	if err != nil {
		st = shellcfg.Bash
	}
	d := gate.Decide(gate.Input{Text: text, Shell: st, Cwd: r.Cwd, Mode: rp.modeFor(r), Policy: rp.pol, Env: configEnv(rp.c.getenv)})
	rp.total++
	if string(d.Action) == r.Decision {
		return nil
	}
	rp.changed++
	fmt.Fprintf(rp.c.stdout, "%s: line %d: %s: %s → %s%s\n", e.File, e.Line, text, orNone(r.Decision), d.Action, decisionWhy(&d))
	return nil
}

// modeFor is --mode, else the policy's mode (""), else the recorded mode.
func (rp *replayer) modeFor(r *audit.Record) gate.Mode {
	if rp.mode != "" || rp.pol.Mode != "" {
		return rp.mode
	}
	if m, err := gate.ParseMode(r.Mode); err == nil && r.Mode != "" {
		return m
	}
	return ""
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func decisionWhy(d *gate.Decision) string {
	switch {
	case d.Rule != nil:
		return fmt.Sprintf(" (%s from %s)", d.Rule.Text, d.Rule.Source)
	case d.Blacklist != nil:
		return fmt.Sprintf(" (blacklist %s)", d.Blacklist.Name)
	case d.Reason != "":
		return fmt.Sprintf(" (%s)", clip(d.Reason, 100))
	}
	return ""
}
