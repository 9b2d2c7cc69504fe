package exec

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentexec/agentexec/audit"
	"github.com/agentexec/agentexec/exec/egress"
	"github.com/agentexec/agentexec/exec/sandbox"
	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/shellcfg"
)

// Approver is asked when the gate says ask. It returns true to run this
// exact request once: the approval is never remembered, so the next request
// is gated afresh. It is called from the goroutine running RunCommand and
// must return when ctx is done. A nil Approver refuses every ask (the
// observation is needs_approval); false is a refusal (rejected); an error
// makes the observation an error and nothing runs.
type Approver func(ctx context.Context, req Request, d gate.Decision) (bool, error)

// AuditSink receives one record per decision and per finished run.
// Append must be safe for concurrent use; an error is reported on the
// observation but does not stop the run.
type AuditSink interface {
	Append(rec *audit.Record) error
}

// Defaults used when neither the Runner nor the policy says.
const (
	DefaultTimeout        = 120 * time.Second
	DefaultMaxOutputBytes = 30000
	DefaultGrace          = 2 * time.Second
	DefaultWaitDelay      = 2 * time.Second
	// MaxOutputLimit bounds any output cap, whoever sets it, so that a
	// request cannot make the executor hold an unbounded amount of memory.
	MaxOutputLimit = 16 << 20
)

// Runner runs run_command requests through the gate and the sandbox. It is
// configured once and safe for concurrent use; the zero value is valid
// (no rules, default mode, workspace-write sandbox, no audit).
//
// On Linux the first run makes the calling process a child subreaper
// (PR_SET_CHILD_SUBREAPER), so that processes a command leaves behind are
// reparented to it rather than to init and can be found, ended and reaped.
// A program that starts other children itself keeps working: the Runner
// only reaps processes it can attribute to one of its runs.
type Runner struct {
	Policy *gate.Policy
	// PolicyFunc, when set, is asked once per request for the policy in
	// force (a server that reloads its policy file); nil answers mean
	// Policy. Every part of one request reads the same policy.
	PolicyFunc func() *gate.Policy
	Mode       gate.Mode // "" means the policy's mode
	Approver   Approver
	Audit      AuditSink

	// Sandbox is the profile ("read-only", "workspace-write", "none");
	// "" means the policy's, else workspace-write. Any profile but none
	// needs the trampoline: sandbox.Main() first in main.
	Sandbox string
	// ExecGate is "off" to run without the run-time exec gate (execgate.go)
	// where the host cannot trace, instead of refusing runs whose policy
	// has deny or ask rules; "" means the policy's sandbox.exec_gate, else
	// on. Requests cannot turn it off: the model would switch off the
	// rules that hold inside its commands.
	ExecGate string
	// Network allows network access inside the sandbox.
	Network bool
	// NetworkHosts is a one-off allowlist (agentexec run --network
	// HOST,...): commands reach these hosts, and the policy's, through
	// the egress proxy (see gate.NetworkPolicy for the patterns).
	NetworkHosts []string
	// Resolve resolves allowed host names for the egress proxy; nil is
	// the system resolver. Tests map names to loopback servers with it.
	Resolve egress.Resolver

	// Cwd is the workspace ("" = this process's directory): writable
	// under workspace-write, and where a request's cwd must lie (or in
	// the policy's writable_roots or readable_roots). A request never
	// widens it.
	Cwd            string
	Shell          shellcfg.ShellType // configured shell ("" = detect)
	Timeout        time.Duration      // default timeout (0 = policy's, else 120s)
	MaxOutputBytes int                // default output cap per stream (0 = policy's, else 30000)

	// Grace is how long a timed-out command has between SIGTERM to its
	// process group and SIGKILL to the whole tree (0 = 2s).
	Grace time.Duration
	// WaitDelay bounds how long output is drained after the command
	// exited and its leftovers were killed (0 = 2s), as os/exec's
	// Cmd.WaitDelay: a process outside the tree may hold a pipe open.
	WaitDelay time.Duration
	// Environ is the environment commands inherit from, filtered by the
	// policy's env section (nil = os.Environ).
	Environ func() []string
}

// plan is a validated request with everything resolved.
type plan struct {
	req   Request
	runID string
	shell shellcfg.ShellType // the shell the gate parsed the text in
	text  string             // what the gate saw
	argv  []string           // what is started (before lookup)
	cwd   string             // the command's directory, inside a root
	// workspace is the operator's directory, writable under
	// workspace-write, whatever the request's cwd.
	workspace string
	env       []string
	timeout   time.Duration
	max       int
	pol       *gate.Policy // the policy in force for this request, never nil
	dec       gate.Decision
	egress    *egress.Rules // the proxy's rules, when the network goes through it
	// recorded is closed once the decision record's append returned: the
	// command is held before its first instruction until then, so the
	// record's sync overlaps with making the sandbox (nil: not held).
	recorded <-chan struct{}
	// The run-time exec gate (execgate.go): on, off or unavailable, the
	// run's gate when on, and what it saw once the run is over.
	execGate     string
	gate         *execGate
	execs        []string
	execsOmitted int
	refusal      *ExecRefusal
}

// Check validates req and returns the gate's decision for it without
// starting anything or writing an audit record. Errors are bad requests.
func (r *Runner) Check(req Request) (gate.Decision, error) {
	p, err := r.prepare(req)
	if err != nil {
		return gate.Decision{}, err
	}
	return p.dec, nil
}

// RunCommand gates and runs one request. It never returns an error: every
// outcome, including bad requests, is an Observation.
func (r *Runner) RunCommand(ctx context.Context, req Request) Observation {
	return r.RunCommandStream(ctx, req, nil, nil)
}

// RunCommandStream is RunCommand that also copies the command's output,
// as it arrives, to stdout and stderr (either may be nil; with a PTY both
// streams go to stdout). Errors writing to them are ignored: the captured
// observation is complete regardless.
func (r *Runner) RunCommandStream(ctx context.Context, req Request, stdout, stderr io.Writer) Observation {
	p, err := r.prepare(req)
	if err != nil {
		return Observation{Status: StatusError, Error: err.Error()}
	}
	obs := decisionObservation(p)
	approved, obs, ok := r.approve(ctx, p, obs)
	if !ok || ctx.Err() != nil {
		auditErr := r.append(decisionRecord(p, approved))
		if ok {
			obs.Status, obs.Error = StatusError, "not started: "+ctx.Err().Error()
		}
		return withAuditError(obs, auditErr)
	}
	recErr := r.appendHolding(p, decisionRecord(p, approved))
	obs = r.execute(ctx, p, obs, stdout, stderr)
	<-p.recorded
	auditErr := *recErr
	if err := r.appendRun(p, approved, obs); err != nil && auditErr == nil {
		auditErr = err
	}
	return withAuditError(obs, auditErr)
}

// approve applies the decision: ok says whether the command may start.
func (r *Runner) approve(ctx context.Context, p *plan, obs Observation) (approved string, _ Observation, ok bool) {
	switch p.dec.Action {
	case gate.Allow:
		return "", obs, true
	case gate.Ask:
		if r.Approver == nil {
			obs.Status = StatusNeedsApproval
			return "", obs, false
		}
		yes, err := r.Approver(ctx, p.req, p.dec)
		switch {
		case err != nil:
			obs.Status, obs.Error = StatusError, "approval: "+err.Error()
			return "error", obs, false
		case !yes:
			obs.Status = StatusRejected
			return "declined", obs, false
		}
		return "once", obs, true
	}
	obs.Status = StatusRejected
	return "", obs, false
}

// appendHolding appends the decision record of a run about to start
// while the run's sandbox is made: p.recorded is closed once the append
// returned, and the command does not run before (the record is on disk
// first, as when appended before the start). The error is read after
// p.recorded is closed.
func (r *Runner) appendHolding(p *plan, rec *audit.Record) *error {
	done := make(chan struct{})
	p.recorded = done
	err := new(error)
	if r.Audit == nil {
		close(done)
		return err
	}
	go func() {
		*err = r.Audit.Append(rec)
		close(done)
	}()
	return err
}

func (r *Runner) append(rec *audit.Record) error {
	if r.Audit == nil {
		return nil
	}
	return r.Audit.Append(rec)
}

func withAuditError(obs Observation, err error) Observation {
	if err == nil {
		return obs
	}
	msg := "audit: " + err.Error()
	if obs.Error != "" {
		msg = obs.Error + "; " + msg
	}
	obs.Error = msg
	return obs
}

// prepare validates req and resolves shell, text, cwd, env and limits, then
// asks the gate.
func (r *Runner) prepare(req Request) (*plan, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	p := &plan{req: req, runID: newRunID(), pol: r.currentPolicy()}
	if err := r.resolveCommand(p); err != nil {
		return nil, err
	}
	if err := r.resolveCwd(p); err != nil {
		return nil, err
	}
	if err := r.resolveLimits(p); err != nil {
		return nil, err
	}
	env, err := buildEnv(r.environ(), p.pol.Env, req.Env, req.PTY, p.runID)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	p.env = env
	p.dec = gate.Decide(gate.Input{Text: p.text, Shell: p.shell, Cwd: p.cwd, Mode: r.Mode, Policy: p.pol, Env: env, RequestEnv: req.Env,
		ExecGate: r.execGateState(p.pol) == ExecGateOn})
	return p, nil
}

// resolveCommand sets the text the gate sees and the argv to start. Text
// runs under the detected shell; argv runs directly and is quoted for the
// gate as bash, whose quoting round-trips exactly.
func (r *Runner) resolveCommand(p *plan) error {
	if len(p.req.Argv) > 0 {
		if p.req.Shell != "" {
			if _, err := shellcfg.ParseShell(p.req.Shell); err != nil {
				return fmt.Errorf("request: %w", err)
			}
		}
		text, err := quoteBash(p.req.Argv)
		if err != nil {
			return fmt.Errorf("request: argv: %w", err)
		}
		p.shell, p.text, p.argv = shellcfg.Bash, text, p.req.Argv
		return nil
	}
	base := r.environ()
	getenv := func(k string) string { return lookupEnv(base, k) }
	sh, err := shellDetect(p.req.Shell, string(r.Shell), getenv, osexec.LookPath)
	if err != nil {
		return fmt.Errorf("request: %w", err)
	}
	p.shell, p.text, p.argv = sh, p.req.Command, shellArgv(sh, p.req.Command)
	return nil
}

// resolveCwd fixes the run's workspace and its working directory. The
// workspace is the operator's (Runner.Cwd, else this process's directory);
// a request's cwd is taken relative to it and must resolve, symlinks
// followed, to a directory inside it or inside one of the policy's
// writable_roots or readable_roots. The request never chooses what may be
// written: the sandbox's writable roots are the workspace, the per-run
// TMPDIR and writable_roots, wherever the command starts.
func (r *Runner) resolveCwd(p *plan) error {
	ws, err := r.workspace()
	if err != nil {
		return err
	}
	p.workspace = ws
	if p.req.Cwd == "" {
		p.cwd = ws
		return nil
	}
	dir := p.req.Cwd
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(ws, dir)
	}
	real, err := realDir(dir)
	if err != nil {
		return fmt.Errorf("request: cwd: %w", err)
	}
	if !insideRoots(real, ws, p.pol) {
		return &CwdError{Cwd: p.req.Cwd, Resolved: real, Workspace: ws}
	}
	p.cwd = real
	return nil
}

// CwdError is a request whose cwd lies outside the workspace and the
// policy's roots: nothing ran.
type CwdError struct {
	Cwd       string // as the request gave it
	Resolved  string // absolute, symlinks followed
	Workspace string
}

// Error implements error.
func (e *CwdError) Error() string {
	where := e.Resolved
	if where != e.Cwd {
		where = fmt.Sprintf("%q (%s)", e.Cwd, e.Resolved)
	}
	return fmt.Sprintf("request: cwd: %s is outside the workspace %s; a request may only name a directory inside the workspace or inside the policy's sandbox.writable_roots or sandbox.readable_roots (nothing ran)", where, e.Workspace)
}

// workspace is the Runner's workspace: Runner.Cwd (relative to this
// process's directory), else this process's directory, with symlinks
// resolved.
func (r *Runner) workspace() (string, error) {
	base := r.Cwd
	if base == "" || !filepath.IsAbs(base) {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("cwd: workspace %w", err)
		}
		base = filepath.Join(wd, base)
	}
	ws, err := realDir(base)
	if err != nil {
		return "", fmt.Errorf("cwd: workspace %w", err)
	}
	return ws, nil
}

// realDir resolves dir (absolute) with symlinks followed and checks that
// it is a directory, so a typo is a clear error rather than a confusing
// failure of the shell.
func realDir(dir string) (string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s does not exist", dir)
		}
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	return real, nil
}

// insideRoots reports whether dir (resolved) lies in the workspace or in
// one of pol's writable or readable roots.
func insideRoots(dir, ws string, pol *gate.Policy) bool {
	sb := pol.Sandbox
	for _, root := range append(append([]string{ws}, sb.WritableRoots...), sb.ReadableRoots...) {
		if !filepath.IsAbs(root) {
			continue
		}
		if real, err := filepath.EvalSymlinks(root); err == nil && within(dir, real) {
			return true
		}
	}
	return false
}

// within is true when p is root or below it (both clean and absolute).
func within(p, root string) bool {
	if root == string(filepath.Separator) || root == filepath.VolumeName(root)+string(filepath.Separator) {
		return strings.HasPrefix(p, root)
	}
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

func (r *Runner) resolveLimits(p *plan) error {
	t, _ := p.req.timeout()
	p.timeout = firstDuration(t, r.Timeout, time.Duration(p.pol.Timeout), DefaultTimeout)
	p.max = min(MaxOutputLimit, firstInt(p.req.MaxOutputBytes, r.MaxOutputBytes, p.pol.Output.MaxBytes, DefaultMaxOutputBytes))
	return nil
}

// currentPolicy is the policy a new request is decided under, never nil.
func (r *Runner) currentPolicy() *gate.Policy {
	if r.PolicyFunc != nil {
		if p := r.PolicyFunc(); p != nil {
			return p
		}
	}
	if r.Policy == nil {
		return &gate.Policy{}
	}
	return r.Policy
}

func (r *Runner) environ() []string {
	if r.Environ == nil {
		return os.Environ()
	}
	return r.Environ()
}

func (r *Runner) grace() time.Duration     { return firstDuration(r.Grace, DefaultGrace) }
func (r *Runner) waitDelay() time.Duration { return firstDuration(r.WaitDelay, DefaultWaitDelay) }

// sandboxSpec is the sandbox the plan runs in. A contained decision
// (plan mode, unknown command, unknown: contain) always gets read-only with
// the network off, whatever was configured.
func (r *Runner) sandboxSpec(p *plan) (sandbox.Spec, error) {
	pol := p.pol
	prof := sandbox.Profile(firstString(r.Sandbox, pol.Sandbox.Profile, string(sandbox.WorkspaceWrite)))
	switch prof {
	case sandbox.ReadOnly, sandbox.WorkspaceWrite, sandbox.None:
	default:
		return sandbox.Spec{}, fmt.Errorf("sandbox: %q is not read-only, workspace-write or none", prof)
	}
	home := lookupEnv(p.env, "HOME")
	spec := sandbox.Spec{
		Profile: prof, Cwd: p.workspace,
		WritableRoots: expandHome(pol.Sandbox.WritableRoots, home), ReadableRoots: expandHome(pol.Sandbox.ReadableRoots, home),
		ProtectGit: pol.Sandbox.ProtectGit == nil || *pol.Sandbox.ProtectGit,
		Limits: sandbox.Limits{
			CPUSeconds: pol.Sandbox.Limits.CPUSeconds, AddressSpace: pol.Sandbox.Limits.AddressSpace,
			FileSize: pol.Sandbox.Limits.FileSize, OpenFiles: pol.Sandbox.Limits.OpenFiles,
			Processes: pol.Sandbox.Limits.Processes, Memory: pol.Sandbox.Limits.Memory,
		},
	}
	if pol.Source != "" {
		if abs, err := filepath.Abs(pol.Source); err == nil {
			spec.ProtectedPaths = append(spec.ProtectedPaths, abs)
		}
	}
	if prof != sandbox.None || p.dec.Contain {
		// Masks and read-only binds: nothing applies them without a
		// sandbox, and finding what the file rules name reads directories.
		r.auditFiles(&spec)
		fileRules(&spec, pol.Files, home)
	}
	if p.dec.Contain {
		spec.Profile = sandbox.ReadOnly
		return spec, nil // the network stays off
	}
	mode, rules, err := r.netRules(p, prof)
	if err != nil {
		return sandbox.Spec{}, err
	}
	spec.Network, spec.Proxy, p.egress = mode == gate.NetworkOpen, mode == gate.NetworkProxy, rules
	return spec, nil
}

// fileRuleMaxDirs bounds the directories one file rule's pattern may read
// to find what it names at the start of a run.
const fileRuleMaxDirs = 10000

// fileRules applies the policy's file rules to spec (FileMasks).
func fileRules(spec *sandbox.Spec, rules []gate.FileRule, home string) {
	masks, notes := FileMasks(rules, home)
	for _, m := range masks {
		if m.Hide {
			spec.HiddenPaths = append(spec.HiddenPaths, m.Path)
		} else {
			spec.ProtectedPaths = append(spec.ProtectedPaths, m.Path)
		}
	}
	spec.Notes = append(spec.Notes, notes...)
}

// FileMask is what one file rule does to one path in the sandbox.
type FileMask struct {
	Path string `json:"path"`
	Hide bool   `json:"hide,omitempty"` // hidden (a Read rule); else bound read-only inside a writable root
	Rule string `json:"rule"`           // the rule, as written
}

// FileMasks turns deny and ask file rules into the sandbox's masks, with
// home for ~ rules: what a Read rule names is hidden, what an Edit or
// Write rule names is bound read-only. An ask rule cannot be asked about
// from inside a run, so it counts as a deny here; allow rules widen
// nothing. Patterns are expanded now, against the filesystem as it is;
// notes say where that fell short.
func FileMasks(rules []gate.FileRule, home string) (masks []FileMask, notes []string) {
	for _, fr := range rules {
		if fr.Action == gate.Allow {
			continue
		}
		pat, ok := fr.Path(home)
		if !ok {
			notes = append(notes, fmt.Sprintf("%s: no HOME, so it hides nothing in the sandbox", fr.Text))
			continue
		}
		paths, complete := sandbox.Expand(pat, fileRuleMaxDirs)
		if !complete {
			notes = append(notes, fmt.Sprintf("%s: the search for what it names stopped after %d directories", fr.Text, fileRuleMaxDirs))
		}
		for _, p := range paths {
			masks = append(masks, FileMask{Path: p, Hide: !fr.Writes(), Rule: fr.Text})
		}
	}
	return masks, notes
}

// expandHome replaces a leading ~ of each path with home (the command's
// HOME); a ~ path without a home is left as it is, and the sandbox refuses
// it as not absolute.
func expandHome(paths []string, home string) []string {
	if home == "" {
		return paths
	}
	var out []string
	for _, p := range paths {
		if p == "~" || strings.HasPrefix(p, "~/") {
			p = filepath.Join(home, p[1:])
		}
		out = append(out, p)
	}
	return out
}

// auditFiles keeps the audit log out of the command's reach: its records
// read-only wherever a writable root would let the command truncate them,
// its lock and key file hidden. The log's own Files say which exist.
func (r *Runner) auditFiles(spec *sandbox.Spec) {
	l, ok := r.Audit.(interface{ Files() audit.Files })
	if !ok {
		return
	}
	fs := l.Files()
	spec.ProtectedPaths = append(spec.ProtectedPaths, fs.Records...)
	for _, p := range []string{fs.Lock, fs.Key} {
		if p != "" {
			spec.HiddenPaths = append(spec.HiddenPaths, p)
		}
	}
}

func newRunID() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("exec: crypto/rand failed: " + err.Error()) // never happens on supported systems
	}
	return hex.EncodeToString(b[:])
}

func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

func firstDuration(ds ...time.Duration) time.Duration {
	for _, d := range ds {
		if d > 0 {
			return d
		}
	}
	return 0
}

func firstInt(ns ...int) int {
	for _, n := range ns {
		if n > 0 {
			return n
		}
	}
	return 0
}

func firstString(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
