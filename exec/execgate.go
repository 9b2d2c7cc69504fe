package exec

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentexec/agentexec/audit"
	"github.com/agentexec/agentexec/exec/sandbox"
	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/shellcfg"
)

// The run-time exec gate: on Linux every program a run starts after the
// command itself is stopped at its exec (sandbox.Spec.ExecCheck) and
// judged by gate.DecideExec on its real argv, executable and directory:
// the deny and ask rules and the blacklist, and for a read-only run the
// classifier. A refused program is killed before its first instruction
// and the run ends; an ask holds the program while the Runner's Approver
// is asked. It is a layer of its own, on for every sandbox profile,
// none included, and reported in the Observation's sandbox layers as
// "exec-gate".

// The values of Observation.ExecGate.
const (
	ExecGateOn          = "on"
	ExecGateOff         = "off"         // the operator opted out
	ExecGateUnavailable = "unavailable" // this host cannot trace; the run needed no rule of it
)

// ExecRefusal is the program the run-time exec gate stopped: it was killed
// before its first instruction, and the run was ended there.
type ExecRefusal struct {
	// Program is the stopped program's name: the executable's base name
	// (argv[0]'s when they are the same program under another name, as
	// for a symbolic link).
	Program string   `json:"program"`
	Argv    []string `json:"argv"`
	Exe     string   `json:"exe,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	PID     int      `json:"pid,omitempty"`
	// Parent is the program that started it (the process's previous
	// program, or its parent's).
	Parent     *ExecProgram `json:"parent,omitempty"`
	Rule       string       `json:"rule,omitempty"`
	RuleSource string       `json:"rule_source,omitempty"`
	Blacklist  string       `json:"blacklist,omitempty"`
	Reason     string       `json:"reason"`
	// Approval is set for a program an ask rule held: "declined", "no
	// approver" or the approver's error.
	Approval string `json:"approval,omitempty"`
}

// ExecProgram is a process and the program it ran.
type ExecProgram struct {
	PID  int      `json:"pid,omitempty"`
	Argv []string `json:"argv,omitempty"`
}

// maxExecRecords bounds the allowed programs a run record lists.
const maxExecRecords = 200

// execGate is the exec gate of one run.
type execGate struct {
	runner   *Runner
	pol      *gate.Policy
	readOnly bool
	ctx      context.Context // the approver's; canceled when the run ends
	cancel   context.CancelFunc
	ask      sync.Mutex // one approval at a time
	// allowedSeen holds the programs allowed already, by argv, executable
	// and directory, with their argv quoted for the run record: a build or
	// a loop starts the same ones again and again, and the decision (the
	// rules and the blacklist, which read nothing but their input) would
	// be the same. A read-only run's classifier may read git
	// configuration, which the run may change: it is not cached. Used by
	// the tracer thread only.
	allowedSeen map[string]string

	mu      sync.Mutex
	refusal *ExecRefusal
	execs   []string
	omitted int
}

// ExecGateWatches reports whether a Runner would watch the runs of pol
// (nil: no policy) with the exec gate on this host: the policy's
// sandbox.exec_gate is not off and the host can trace. `agentexec check`
// tells the static gate so, as run would.
func ExecGateWatches(pol *gate.Policy) bool {
	if pol == nil {
		pol = &gate.Policy{}
	}
	return (&Runner{}).execGateState(pol) == ExecGateOn
}

// execGateState says whether the exec gate watches runs of pol on this
// host: ExecGateOn, ExecGateOff or ExecGateUnavailable.
func (r *Runner) execGateState(pol *gate.Policy) string {
	switch {
	case r.ExecGate == ExecGateOff || (r.ExecGate == "" && pol.Sandbox.ExecGate == ExecGateOff):
		return ExecGateOff
	case !hostExecGate():
		return ExecGateUnavailable
	}
	return ExecGateOn
}

// hostExecGate reports whether this host can trace runs; tests replace it.
var hostExecGate = func() bool { return sandbox.Detect().ExecGate }

// needsExecGate reports why a run of p must not start without the exec
// gate: its policy has deny or ask rules, or it runs in plan mode.
func needsExecGate(p *plan) string {
	switch {
	case len(p.pol.Permissions.Deny) > 0:
		return "the policy has deny rules"
	case len(p.pol.Permissions.Ask) > 0:
		return "the policy has ask rules"
	case p.dec.Mode == gate.ModePlan:
		return "the run is in plan mode"
	}
	return ""
}

// setExecGate gives spec the run's exec gate, or says why the run must
// not start: the host cannot trace and the run needs the gate.
func (r *Runner) setExecGate(ctx context.Context, p *plan, spec *sandbox.Spec) error {
	p.execGate = r.execGateState(p.pol)
	switch p.execGate {
	case ExecGateOff:
		return nil
	case ExecGateUnavailable:
		if why := needsExecGate(p); why != "" {
			return fmt.Errorf("exec gate: %s, which the run-time exec gate enforces inside the run, but this host cannot trace the programs a command starts (%s); nothing ran. Set the policy's sandbox.exec_gate to \"off\" to run without it", why, execGateProblem())
		}
		return nil
	}
	g := &execGate{runner: r, pol: p.pol, readOnly: readOnlyRun(p.dec)}
	g.ctx, g.cancel = context.WithCancel(ctx)
	p.gate, spec.ExecCheck = g, g.check
	return nil
}

// execGateProblem is what Detect says stands in the gate's way.
func execGateProblem() string {
	for _, pr := range sandbox.Detect().Problems {
		if strings.HasPrefix(pr, "exec gate: ") || strings.HasPrefix(pr, "init: ") {
			return pr
		}
	}
	return "no exec gate on this system"
}

// readOnlyRun reports whether the run was allowed as read-only (or runs in
// plan mode): then a program the classifier does not prove read-only is
// refused when it starts.
// A contained run (an unknown command in the read-only sandbox) is not:
// the read-only filesystem is its bound, and what an unknown tool starts
// is mostly unknown too.
func readOnlyRun(d gate.Decision) bool {
	if d.Contain {
		return false
	}
	if d.Mode == gate.ModePlan {
		return true
	}
	return d.Action == gate.Allow && d.Mode != gate.ModeYolo && d.RuleDecision != string(gate.Allow) &&
		d.Safety == gate.ReadOnly
}

// check is the run's sandbox.Spec.ExecCheck.
func (g *execGate) check(ev sandbox.ExecEvent) sandbox.ExecVerdict {
	if ev.Unjudged != "" {
		g.refuse(ev, gate.Decision{Action: gate.Deny, Reason: "the exec gate could not check it: " + ev.Unjudged +
			". Run the command without that (outside a debugger or tracer), or ask the operator to run it with the exec gate off."}, "")
		return sandbox.ExecVerdict{}
	}
	key := ""
	if !g.readOnly {
		key = execKey(ev)
		if text, ok := g.allowedSeen[key]; ok && key != "" {
			g.allowedText(text)
			return sandbox.ExecVerdict{Allow: true}
		}
	}
	d, exe := g.decide(ev)
	ev.Exe = exe
	switch d.Action {
	case gate.Allow:
		text := ""
		if !g.recordsFull() { // full, it stays full: the text is never needed
			text = quoteArgv(ev.Argv)
		}
		if key != "" && len(g.allowedSeen) < maxAllowedSeen {
			if g.allowedSeen == nil {
				g.allowedSeen = map[string]string{}
			}
			g.allowedSeen[key] = text
		}
		g.allowedText(text)
		return sandbox.ExecVerdict{Allow: true}
	case gate.Ask:
		if g.runner.Approver == nil {
			g.refuse(ev, d, "no approver")
			return sandbox.ExecVerdict{}
		}
		answer := make(chan bool, 1)
		go func() { answer <- g.approve(ev, d) }()
		return sandbox.ExecVerdict{Wait: answer}
	}
	g.refuse(ev, d, "")
	return sandbox.ExecVerdict{}
}

// decide judges ev under every name its executable is known by, and
// returns the strictest decision with the executable it was made for
// (the system program a renamed copy is).
func (g *execGate) decide(ev sandbox.ExecEvent) (gate.Decision, string) {
	in := gate.ExecInput{Argv: ev.Argv, Exe: ev.Exe, Cwd: ev.Cwd, Policy: g.pol, ReadOnly: g.readOnly}
	if g.readOnly {
		in.Env = environOf(ev.PID) // git's configuration is found from HOME
	}
	d, exe := gate.DecideExec(in), ev.Exe
	if d.Action == gate.Deny {
		return d, exe
	}
	for _, alt := range sameProgram(ev.PID, ev.Exe) {
		in.Exe = alt
		if ad := gate.DecideExec(in); actionRank(ad.Action) > actionRank(d.Action) {
			d, exe = ad, alt
			if d.Action == gate.Deny {
				break
			}
		}
	}
	return d, exe
}

// maxAllowedSeen bounds a run's cache of allowed programs.
const maxAllowedSeen = 4096

// execKey is what an exec's decision depends on besides the policy: its
// argv, directory, executable path and the executable file itself (a file
// rewritten in place, cp /bin/rm over an allowed ./zz, is judged afresh;
// a system program only by its path, which is all its decision reads).
// "" when the file cannot be looked at: not cached.
func execKey(ev sandbox.ExecEvent) string {
	id := exeIdentity(ev.PID, ev.Exe)
	if id == "" {
		return ""
	}
	n := len(id) + len(ev.Exe) + len(ev.Cwd) + 2
	for _, a := range ev.Argv {
		n += len(a) + 1
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(id)
	b.WriteByte(0)
	b.WriteString(ev.Exe)
	b.WriteByte(0)
	b.WriteString(ev.Cwd)
	for _, a := range ev.Argv {
		b.WriteByte(0)
		b.WriteString(a)
	}
	return b.String()
}

func actionRank(a gate.Action) int {
	switch a {
	case gate.Deny:
		return 2
	case gate.Ask:
		return 1
	}
	return 0
}

// approve asks the Runner's Approver about a held program.
func (g *execGate) approve(ev sandbox.ExecEvent, d gate.Decision) bool {
	g.ask.Lock()
	defer g.ask.Unlock()
	ok, err := g.runner.Approver(g.ctx, Request{Argv: ev.Argv, Cwd: ev.Cwd}, d)
	switch {
	case err != nil:
		g.refuse(ev, d, "approval: "+err.Error())
		return false
	case !ok:
		g.refuse(ev, d, "declined")
		return false
	}
	g.allowed(ev.Argv)
	return true
}

func (g *execGate) allowed(argv []string) { g.allowedText(quoteArgv(argv)) }

// allowedText records an allowed program by its quoted argv.
func (g *execGate) allowedText(text string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.execs) >= maxExecRecords {
		g.omitted++
		return
	}
	g.execs = append(g.execs, text)
}

// recordsFull reports whether the run record lists no more programs.
func (g *execGate) recordsFull() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.execs) >= maxExecRecords
}

// quoteArgv is argv as the run record lists it.
func quoteArgv(argv []string) string {
	text, err := shellcfg.Quote(shellcfg.Bash, argv)
	if err != nil {
		text = strings.Join(argv, " ")
	}
	return text
}

// refuse records the first refusal of the run (the run ends there).
func (g *execGate) refuse(ev sandbox.ExecEvent, d gate.Decision, approval string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.refusal != nil {
		return
	}
	f := &ExecRefusal{
		Program: programName(ev), Argv: ev.Argv, Exe: ev.Exe, Cwd: ev.Cwd, PID: ev.PID,
		Reason: d.Reason, Approval: approval,
	}
	if pid, argv := ev.Parent(); len(argv) > 0 {
		f.Parent = &ExecProgram{PID: pid, Argv: argv}
	}
	if d.Rule != nil {
		f.Rule, f.RuleSource = d.Rule.Text, d.Rule.Source
	}
	if d.Blacklist != nil {
		f.Blacklist = d.Blacklist.Name
		if f.Reason == "" {
			f.Reason = d.Blacklist.Reason
		}
	}
	g.refusal = f
}

func programName(ev sandbox.ExecEvent) string {
	switch {
	case ev.Exe != "":
		return filepath.Base(strings.TrimSuffix(ev.Exe, " (deleted)"))
	case len(ev.Argv) > 0:
		return filepath.Base(ev.Argv[0])
	}
	return "(a program the gate could not read)"
}

// done ends the gate's approvals and returns what it saw.
func (g *execGate) done() (refusal *ExecRefusal, execs []string, omitted int) {
	g.cancel()
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refusal, g.execs, g.omitted
}

// applyExecGate fills the exec gate's verdict into obs once the run is
// over: a refused program makes the run rejected, with the same guidance
// as a static refusal.
func applyExecGate(p *plan, obs Observation) Observation {
	obs.ExecGate = p.execGate
	if p.gate == nil {
		return obs
	}
	f, execs, omitted := p.gate.done()
	p.execs, p.execsOmitted, p.refusal = execs, omitted, f
	if f == nil {
		return obs
	}
	obs.ExecRefused = f
	obs.Status, obs.ExitCode, obs.Signal, obs.Error = StatusRejected, nil, "", ""
	obs.Decision, obs.Rule, obs.RuleSource, obs.Blacklist = gate.Deny, f.Rule, f.RuleSource, f.Blacklist
	obs.Suggestions = nil
	obs.Reason = refusalReason(f)
	return obs
}

// refusalReason says what was stopped, by what, and what to do instead.
func refusalReason(f *ExecRefusal) string {
	prog, _ := shellcfg.Quote(shellcfg.Bash, f.Argv)
	if len(f.Argv) == 0 {
		prog = f.Program
	}
	by := ""
	if f.Parent != nil && len(f.Parent.Argv) > 0 {
		parent, _ := shellcfg.Quote(shellcfg.Bash, f.Parent.Argv)
		by = fmt.Sprintf(", started by `%s` (pid %d),", truncate(parent, 200), f.Parent.PID)
	}
	why := f.Reason
	if f.Approval != "" {
		why = fmt.Sprintf("%s (%s)", why, f.Approval)
	}
	if len(f.Argv) == 0 && f.Parent != nil {
		// Stopped before its exec: only the process starting it is known.
		parent, _ := shellcfg.Quote(shellcfg.Bash, f.Parent.Argv)
		return fmt.Sprintf("The run-time exec gate stopped the program `%s` (pid %d) was starting, before it ran, and ended the command: %s", truncate(parent, 200), f.Parent.PID, why)
	}
	return fmt.Sprintf("The run-time exec gate stopped `%s`%s before it ran, and ended the command: %s", truncate(prog, 300), by, why)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// execRefusedRecord is the audit record of the refused program.
func execRefusedRecord(p *plan) *audit.Record {
	f := p.refusal
	rec := &audit.Record{
		Kind: "exec_refused", RunID: p.runID, Argv: f.Argv, Cwd: f.Cwd, Mode: string(p.dec.Mode),
		Decision: string(gate.Deny), Rule: f.Rule, RuleSource: f.RuleSource, Blacklist: f.Blacklist,
		Reason: f.Reason, Approved: f.Approval, Exe: f.Exe, ExecGate: p.execGate,
	}
	if f.Parent != nil {
		rec.Caller, _ = shellcfg.Quote(shellcfg.Bash, f.Parent.Argv)
	}
	return rec
}
