package exec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentexec/agentexec/exec/sandbox"
	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/shellcfg"
)

// The os/exec names this package re-exports unchanged, so code that
// switches its import keeps compiling and its errors.Is/As checks keep
// matching (they are the same types and values as os/exec's).
type (
	// ExitError is os/exec's ExitError: the command ran and exited unsuccessfully.
	ExitError = osexec.ExitError
	// Error is os/exec's Error: a failed LookPath.
	Error = osexec.Error
)

// Sentinels, identical to os/exec's.
var (
	ErrNotFound  = osexec.ErrNotFound
	ErrDot       = osexec.ErrDot
	ErrWaitDelay = osexec.ErrWaitDelay
)

// LookPath is os/exec.LookPath.
func LookPath(file string) (string, error) { return osexec.LookPath(file) }

// RejectedError is returned by Start (and so Run, Output, CombinedOutput)
// when the gate did not allow the command: it was denied, or it needed an
// approval that was not given. The command was not started. Use it as a
// pointer: errors.As(err, new(*exec.RejectedError)).
type RejectedError struct {
	Decision gate.Decision
	// NeedsApproval is set when the gate asked and no Approver said yes.
	NeedsApproval bool
	// ExecRefused is set, by Wait, when the run-time exec gate stopped a
	// program the command started: the command ran until then, and was
	// ended there.
	ExecRefused *ExecRefusal
}

func (e *RejectedError) Error() string {
	if f := e.ExecRefused; f != nil {
		return "exec: " + refusalReason(f)
	}
	what := "rejected (" + string(e.Decision.Action) + ")"
	if e.NeedsApproval {
		what = "needs approval"
	}
	return "exec: command " + what + ": " + e.Decision.Reason
}

// Cmd is a command being prepared or run, as os/exec.Cmd, with the gate in
// front of it: Start asks Runner's gate about Args (quoted as bash text for
// the classifier) and starts nothing unless the decision is allow (or ask
// with a yes from the Runner's Approver); otherwise Start returns a
// *RejectedError. The process gets its own process group, and ending it
// (the Context done, or Wait returning) ends its whole tree: processes it
// left behind are killed when it exits.
//
// A nil Runner means the zero Runner: default mode (read-only commands run,
// everything else needs approval and is refused), no rules, no audit and
// the workspace-write sandbox. That sandbox starts the command through
// agentexec's trampoline, a re-execution of the current binary, so a
// program using it must call sandbox.Main() first thing in main; set
// Runner.Sandbox to "none" to run unsandboxed instead. Fields, methods and
// errors otherwise behave as in os/exec, and Env keeps os/exec's meaning
// (nil inherits this process's environment; the Runner's env policy is
// for RunCommand).
type Cmd struct {
	Path       string
	Args       []string
	Env        []string
	Dir        string
	Stdin      io.Reader
	Stdout     io.Writer
	Stderr     io.Writer
	ExtraFiles []*os.File
	// SysProcAttr is passed on, except that the command always gets its
	// own process group (or the session it asks for) so that its tree can
	// be ended, and on Linux a Pdeathsig when none is set.
	SysProcAttr *syscall.SysProcAttr

	// Process and ProcessState are set by Start and Wait, as in os/exec.
	Process      *os.Process
	ProcessState *os.ProcessState

	// Err is a LookPath error from Command, returned by Start.
	Err error

	// Cancel, when set on a command from CommandContext, replaces the
	// default cancellation, which kills the whole process tree.
	Cancel func() error
	// WaitDelay bounds the wait for I/O after the process exits or is
	// canceled, as in os/exec.
	WaitDelay time.Duration

	// Runner gates and sandboxes the command; nil is the zero Runner.
	Runner *Runner
	// Decision is the gate's decision, set by Start.
	Decision gate.Decision

	ctx      context.Context
	inner    *osexec.Cmd
	tree     *tree
	sb       *sandbox.Handle
	plan     *plan
	approved string
	start    time.Time
	waited   bool
	// mu orders the tree's use between Start, Wait and os/exec's context
	// goroutine, which may call cancel before Start has recorded the pid.
	mu sync.Mutex
}

// Command returns the Cmd to run name with args, as os/exec.Command.
func Command(name string, arg ...string) *Cmd {
	oc := osexec.Command(name, arg...)
	return &Cmd{Path: oc.Path, Args: oc.Args, Err: oc.Err}
}

// CommandContext is Command with a context: when ctx is done before the
// command finishes, its whole process tree is killed (or Cancel is called).
func CommandContext(ctx context.Context, name string, arg ...string) *Cmd {
	if ctx == nil {
		panic("nil Context")
	}
	c := Command(name, arg...)
	c.ctx = ctx
	return c
}

// String is the command as os/exec prints it.
func (c *Cmd) String() string {
	b := new(strings.Builder)
	b.WriteString(c.Path)
	for _, a := range c.Args[min(1, len(c.Args)):] {
		b.WriteString(" " + a)
	}
	return b.String()
}

// osCmd is the os/exec command the pipes attach to before Start.
func (c *Cmd) osCmd() *osexec.Cmd {
	if c.inner == nil {
		if c.ctx != nil {
			c.inner = osexec.CommandContext(c.ctx, c.Path)
		} else {
			c.inner = &osexec.Cmd{}
		}
	}
	return c.inner
}

// StdinPipe is os/exec's StdinPipe.
func (c *Cmd) StdinPipe() (io.WriteCloser, error) {
	if c.Stdin != nil {
		return nil, errors.New("exec: Stdin already set")
	}
	return c.osCmd().StdinPipe()
}

// StdoutPipe is os/exec's StdoutPipe.
func (c *Cmd) StdoutPipe() (io.ReadCloser, error) {
	if c.Stdout != nil {
		return nil, errors.New("exec: Stdout already set")
	}
	return c.osCmd().StdoutPipe()
}

// StderrPipe is os/exec's StderrPipe.
func (c *Cmd) StderrPipe() (io.ReadCloser, error) {
	if c.Stderr != nil {
		return nil, errors.New("exec: Stderr already set")
	}
	return c.osCmd().StderrPipe()
}

// Run starts the command and waits for it.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

// Output runs the command and returns its standard output; on an
// *ExitError, Stderr holds (the head and tail of) what it wrote to
// standard error when c.Stderr was nil, as in os/exec.
func (c *Cmd) Output() ([]byte, error) {
	if c.Stdout != nil {
		return nil, errors.New("exec: Stdout already set")
	}
	var out bytes.Buffer
	c.Stdout = &out
	var errs *capture
	if c.Stderr == nil && (c.inner == nil || c.inner.Stderr == nil) {
		errs = newCapture(64 << 10)
		c.Stderr = errs
	}
	err := c.Run()
	var ee *ExitError
	if errs != nil && errors.As(err, &ee) {
		ee.Stderr = errs.result().kept
	}
	return out.Bytes(), err
}

// CombinedOutput runs the command and returns standard output and
// standard error together.
func (c *Cmd) CombinedOutput() ([]byte, error) {
	if c.Stdout != nil {
		return nil, errors.New("exec: Stdout already set")
	}
	if c.Stderr != nil {
		return nil, errors.New("exec: Stderr already set")
	}
	var b bytes.Buffer
	c.Stdout, c.Stderr = &b, &b
	err := c.Run()
	return b.Bytes(), err
}

// Start gates the command and, when allowed, starts it.
func (c *Cmd) Start() error {
	if err := c.checkStart(); err != nil {
		return err
	}
	if err := c.gate(); err != nil {
		return err
	}
	oc := c.osCmd()
	oc.Path, oc.Args, oc.Dir, oc.ExtraFiles, oc.WaitDelay = c.Path, c.Args, c.plan.cwd, c.ExtraFiles, c.WaitDelay
	oc.Env = append(c.Environ(), RunIDEnv+"="+c.plan.runID) // a copy: c.Env is the caller's
	setIfNil(&oc.Stdin, c.Stdin)
	setIfNil(&oc.Stdout, c.Stdout)
	setIfNil(&oc.Stderr, c.Stderr)
	c.tree = newTree(c.plan.runID)
	if c.ctx != nil {
		oc.Cancel = c.cancel
	}
	setProcAttr(oc, false)
	if c.SysProcAttr != nil {
		oc.SysProcAttr = mergeProcAttr(c.SysProcAttr)
	}
	if err := c.prepareSandbox(); err != nil {
		return err
	}
	return c.launch()
}

func (c *Cmd) checkStart() error {
	if c.Err != nil {
		return c.Err
	}
	if c.Process != nil {
		return errors.New("exec: already started")
	}
	if c.Path == "" {
		return errors.New("exec: no command")
	}
	if c.ctx != nil {
		if err := c.ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

func setIfNil[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}

// Environ is the environment the command will run with, as in os/exec
// (without the run id tag Start adds).
func (c *Cmd) Environ() []string {
	return append([]string(nil), c.environ()...)
}

func (c *Cmd) environ() []string {
	if c.Env != nil {
		return c.Env
	}
	return os.Environ()
}

// requestEnv are the variables of c.Env that the process's own
// environment does not hold with the same value: what the caller chose to
// set, which the gate weighs (a PATH of the caller's choosing decides which
// program a name runs).
func (c *Cmd) requestEnv() map[string]string {
	if c.Env == nil {
		return nil
	}
	own := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		own[k] = v
	}
	var out map[string]string
	for _, kv := range c.Env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if old, had := own[k]; !had || old != v {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

func (c *Cmd) runner() *Runner {
	if c.Runner == nil {
		return &Runner{}
	}
	return c.Runner
}

// gate decides on Args quoted as bash text, audits the decision and
// returns a *RejectedError unless the command may start.
func (c *Cmd) gate() error {
	r := c.runner()
	argv := gateArgv(c.Path, c.Args)
	text, err := quoteBash(argv)
	if err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	dir, ws, err := c.dirs(r)
	if err != nil {
		return err
	}
	p := &plan{req: Request{Argv: argv}, runID: newRunID(), shell: shellcfg.Bash, text: text, argv: argv, cwd: dir, workspace: ws, pol: r.currentPolicy()}
	p.dec = gate.Decide(gate.Input{Text: text, Shell: shellcfg.Bash, Cwd: dir, Mode: r.Mode, Policy: p.pol, Env: c.environ(), RequestEnv: c.requestEnv(),
		ExecGate: r.execGateState(p.pol) == ExecGateOn})
	c.plan, c.Decision = p, p.dec
	ctx := c.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	approved, obs, ok := r.approve(ctx, p, decisionObservation(p))
	c.approved = approved
	r.append(decisionRecord(p, approved))
	if !ok {
		if obs.Status == StatusError {
			return errors.New("exec: " + obs.Error)
		}
		return &RejectedError{Decision: p.dec, NeedsApproval: obs.Status == StatusNeedsApproval}
	}
	return nil
}

// dirs is the command's directory and its workspace. With Runner.Cwd set
// the workspace is the Runner's and Dir must lie inside it (or a policy
// root), as a request's cwd must; without it the program chose Dir, so
// Dir (or this process's directory) is the workspace, as os/exec would run
// it.
func (c *Cmd) dirs(r *Runner) (dir, ws string, err error) {
	dir, err = filepath.Abs(c.Dir)
	if err != nil {
		return "", "", fmt.Errorf("exec: dir: %w", err)
	}
	if r.Cwd == "" {
		return dir, dir, nil
	}
	if ws, err = r.workspace(); err != nil {
		return "", "", fmt.Errorf("exec: %w", err)
	}
	if c.Dir == "" {
		return ws, ws, nil
	}
	real, err := realDir(dir)
	if err != nil {
		return "", "", fmt.Errorf("exec: dir: %w", err)
	}
	if !insideRoots(real, ws, r.currentPolicy()) {
		return "", "", fmt.Errorf("exec: dir: %s is outside the workspace %s (Runner.Cwd) and the policy's sandbox roots (nothing ran)", c.Dir, ws)
	}
	return real, ws, nil
}

// gateArgv is the argv the gate judges: Args, unless Args[0] names a
// different program than Path (which is what actually runs), in which case
// Path replaces it so a misleading Args[0] cannot borrow another
// command's rules.
func gateArgv(path string, args []string) []string {
	if len(args) == 0 {
		return []string{path}
	}
	if progName(args[0]) == progName(path) {
		return args
	}
	return append([]string{path}, args[1:]...)
}

// progName is a program's base name, case-folded and without .exe, on
// either kind of path separator.
func progName(p string) string {
	p = p[strings.LastIndexAny(p, `/\`)+1:]
	return strings.TrimSuffix(strings.ToLower(p), ".exe")
}

func (c *Cmd) prepareSandbox() error {
	spec, err := c.runner().sandboxSpec(c.plan)
	if err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	ctx := c.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if err := c.runner().setExecGate(ctx, c.plan, &spec); err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	if spec.Profile == sandbox.None && spec.ExecCheck == nil {
		return nil
	}
	h, err := sandbox.Prepare(c.inner, spec)
	if err != nil {
		return fmt.Errorf("exec: sandbox %s could not be applied, so nothing ran: %w", spec.Profile, err)
	}
	c.sb = h
	return nil
}

func (c *Cmd) launch() error {
	enableSubreaper()
	c.start = time.Now()
	start := func() error { return startPlain(c.inner) }
	if c.sb != nil {
		start = c.sb.Start // sandboxed, or not started at all
	}
	if err := start(); err != nil {
		c.closeSandbox()
		return err
	}
	c.Process = c.inner.Process
	c.mu.Lock()
	c.tree.started(c.Process.Pid)
	if c.sb != nil {
		c.tree.setGroup(c.sb.CommandPID)
		c.tree.setEnclosed(c.sb.OwnPIDNamespace())
	}
	c.mu.Unlock()
	return nil
}

// cancel is the default Cancel: the whole tree, not just the leader.
func (c *Cmd) cancel() error {
	if c.Cancel != nil {
		return c.Cancel()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tree.started(c.inner.Process.Pid) // os/exec set Process before it watches ctx
	if c.sb != nil {
		c.sb.Kill() // the namespace and cgroup as a unit
	}
	c.tree.kill()
	return nil
}

// Wait waits for the command to exit, ends what it left behind (so a
// background process holding its output open does not stall the wait),
// then waits for its I/O as os/exec does.
func (c *Cmd) Wait() error {
	if c.Process == nil {
		return errors.New("exec: not started")
	}
	if c.waited {
		return errors.New("exec: Wait was already called")
	}
	c.waited = true
	waitExit(c.Process.Pid)
	c.mu.Lock()
	c.tree.cleanup()
	c.mu.Unlock()
	err := c.inner.Wait()
	c.ProcessState = c.inner.ProcessState
	c.tree.reaped = true // os/exec's context goroutine has ended
	c.mu.Lock()
	c.tree.recheck()
	c.mu.Unlock()
	var outcome sandbox.Outcome
	if c.sb != nil {
		outcome = c.sb.Outcome()
	}
	c.closeSandbox()
	c.auditRun(outcome)
	if f := c.plan.refusal; f != nil {
		return &RejectedError{Decision: c.Decision, ExecRefused: f}
	}
	return err
}

func (c *Cmd) closeSandbox() {
	if c.sb != nil {
		c.sb.Close()
		clean := c.sb.EndedClean()
		c.sb = nil
		if !clean || c.tree.killed.Load() {
			c.tree.sweep()
		}
	}
}

func (c *Cmd) auditRun(o sandbox.Outcome) {
	obs := Observation{Status: StatusExited, DurationMS: time.Since(c.start).Milliseconds()}
	if c.ProcessState != nil {
		obs.ExitCode, obs.Signal = exitInfo(c.ProcessState)
	}
	if o.Known {
		obs.ExitCode, obs.Signal = outcomeExit(o)
	}
	if c.ctx != nil && c.ctx.Err() != nil {
		obs.Status = StatusTimedOut
	}
	obs = applyExecGate(c.plan, obs)
	c.runner().appendRun(c.plan, c.approved, obs)
}
