package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentexec/agentexec/audit"
	"github.com/agentexec/agentexec/exec"
	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/policy"
	"github.com/agentexec/agentexec/shellcfg"
)

// runnerFlags are the flags shared by run, mcp and serve: everything that
// configures an exec.Runner.
type runnerFlags struct {
	policyFlags
	mode      string
	shell     string
	cwd       string
	sandbox   string
	execGate  string
	network   networkFlag
	audit     string
	timeout   time.Duration
	maxOutput int

	// Set by build: the policy's account and the watcher that reloads it.
	loaded    *policy.Loaded
	watcher   *policy.Watcher
	auditPath string // the decision log ("off": none), for the "always" preview
}

// approvals is how an "always" answer persists its rule: nil when the
// policy's settings say not to ask at all (dontAsk).
func (f *runnerFlags) approvals() *policy.Approvals {
	if f.loaded == nil || f.loaded.DontAsk {
		return nil
	}
	ws := f.cwd
	if ws == "" {
		ws, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(ws); err == nil {
		ws = abs
	}
	return &policy.Approvals{Watcher: f.watcher, AuditPath: f.auditPath, Workspace: ws}
}

func (f *runnerFlags) register(fs *flag.FlagSet) {
	f.policyFlags.register(fs)
	fs.StringVar(&f.mode, "mode", "", "approval mode: plan, default or yolo (default: the policy's, else default)")
	fs.StringVar(&f.shell, "shell", "", "shell for command text: bash, sh, cmd or powershell (default: $AGENTEXEC_SHELL, else detected)")
	fs.StringVar(&f.cwd, "cwd", "", "workspace `DIR`: where commands start, writable under workspace-write; a request's cwd must lie inside it (default: the current directory)")
	fs.StringVar(&f.sandbox, "sandbox", "", "sandbox profile: read-only, workspace-write or none (default: the policy's, else workspace-write)")
	fs.StringVar(&f.execGate, "exec-gate", "", "the run-time exec gate, on or off: off runs without it, also where this host cannot trace and the policy has deny or ask rules, which are then not enforced inside the run (default: the policy's sandbox.exec_gate, else on)")
	fs.Var(&f.network, "network", "network inside the sandbox: on (or the bare flag) opens it; `HOST,...` allows only those hosts, through the egress proxy, besides the policy's allowlist")
	fs.StringVar(&f.audit, "audit", "", "audit log `PATH`, or off (default: the policy's, else $XDG_STATE_HOME/agentexec/audit.jsonl)")
	fs.Var(durationFlag{&f.timeout}, "timeout", "timeout `DURATION` such as 30s or 5m (default: the policy's, else 120s)")
	fs.IntVar(&f.maxOutput, "max-output", 0, "keep at most `BYTES` of output per stream, head and tail (default: the policy's, else 30000)")
}

// build makes the Runner the flags describe. The returned closer flushes
// and closes the audit log; call it before exiting. An error in what the
// user gave (a flag value, the policy file, the audit key file) is a
// *usageErr (exit 2, see buildExit); any other is agentexec failing.
func (f *runnerFlags) build(c *cli) (*exec.Runner, io.Closer, error) {
	if err := f.check(); err != nil {
		return nil, nil, usageErr{err}
	}
	pol, err := f.loadPolicy(c)
	if err != nil {
		return nil, nil, usageErr{err}
	}
	mode, _ := gate.ParseMode(f.mode) // checked
	if f.mode == "" {
		mode = ""
	}
	if f.loaded.NoYolo && mode == gate.ModeYolo {
		return nil, nil, usageErr{fmt.Errorf("--mode yolo: the policy's settings forbid bypassing permissions")}
	}
	st, err := f.shellType(c)
	if err != nil {
		return nil, nil, usageErr{err}
	}
	r := &exec.Runner{
		Policy: pol, PolicyFunc: f.watcher.Policy, Mode: mode, Shell: st, Cwd: f.cwd,
		Sandbox: f.sandbox, ExecGate: f.execGate, Network: f.network.open, NetworkHosts: f.network.hosts,
		Timeout: f.timeout, MaxOutputBytes: f.maxOutput,
	}
	log, err := f.openAudit(c, pol)
	if err != nil {
		return nil, nil, err
	}
	if log == nil {
		return r, nopCloser{}, nil
	}
	r.Audit = log
	return r, log, nil
}

// check validates the flag values that need nothing but themselves.
func (f *runnerFlags) check() error {
	if _, err := gate.ParseMode(f.mode); err != nil {
		return fmt.Errorf("--mode: %v", err)
	}
	switch f.sandbox {
	case "", "read-only", "workspace-write", "none":
	default:
		return fmt.Errorf("--sandbox: %q is not read-only, workspace-write or none", f.sandbox)
	}
	switch f.execGate {
	case "", "on", "off":
	default:
		return fmt.Errorf("--exec-gate: %q is not on or off", f.execGate)
	}
	if f.timeout < 0 {
		return fmt.Errorf("--timeout: %v is negative", f.timeout)
	}
	if f.maxOutput < 0 {
		return fmt.Errorf("--max-output: %d is negative", f.maxOutput)
	}
	return nil
}

// loadPolicy reads --policy or --project (else $AGENTEXEC_POLICY) with
// the workspace's local rules, and readies the watcher that reloads it.
func (f *runnerFlags) loadPolicy(c *cli) (*gate.Policy, error) {
	o, err := f.options(c, f.cwd)
	if err != nil {
		return nil, err
	}
	l, err := policy.Load(o)
	if err != nil {
		return nil, err
	}
	f.loaded = l
	f.watcher = policy.NewWatcher(o, l, func(format string, args ...any) {
		fmt.Fprintf(c.stderr, format+"\n", args...)
	})
	return l.Policy, nil
}

// shellType is --shell, else $AGENTEXEC_SHELL; "" to detect.
func (f *runnerFlags) shellType(c *cli) (shellcfg.ShellType, error) {
	shell := f.shell
	if shell == "" {
		shell = c.getenv("AGENTEXEC_SHELL")
	}
	if shell == "" {
		return "", nil
	}
	st, err := shellcfg.ParseShell(shell)
	if err != nil {
		return "", fmt.Errorf("--shell: %s", strings.TrimPrefix(err.Error(), "shell: "))
	}
	return st, nil
}

// usageErr marks an error in what the user gave: exit status 2.
type usageErr struct{ err error }

func (e usageErr) Error() string { return e.err.Error() }
func (e usageErr) Unwrap() error { return e.err }

// buildExit is the exit status for an error of build: 2 for a usage error,
// 125 when agentexec itself failed (the audit log could not be opened).
func buildExit(err error) int {
	var u usageErr
	if errors.As(err, &u) {
		return 2
	}
	return exitRunError
}

// durationFlag is a duration flag whose error says what a duration is: a
// bare number has no unit, and flag's own message for it is "parse error".
type durationFlag struct{ d *time.Duration }

func (f durationFlag) String() string {
	if f.d == nil || *f.d == 0 {
		return ""
	}
	return f.d.String()
}

func (f durationFlag) Set(s string) error {
	d, err := parseDuration(s)
	if err != nil {
		return err
	}
	*f.d = d
	return nil
}

// parseDuration reads a Go duration, explaining a missing unit.
func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err == nil {
		return d, nil
	}
	if _, nerr := strconv.ParseFloat(strings.TrimSpace(s), 64); nerr == nil {
		return 0, fmt.Errorf("no unit: write %ss, %sm or %sms", s, s, s)
	}
	return 0, errors.New("not a duration such as 30s, 5m or 1h30m")
}

// openAudit opens the decision log: --audit PATH or off, else the policy's
// audit.path (also possibly off), else the default location. A log that
// cannot be opened is an error: nothing runs unaudited by accident.
func (f *runnerFlags) openAudit(c *cli, pol *gate.Policy) (*audit.Log, error) {
	path, keyFile := f.audit, c.getenv("AGENTEXEC_AUDIT_KEY_FILE")
	if pol != nil {
		if path == "" {
			path = pol.Audit.Path
		}
		if pol.Audit.KeyFile != "" {
			keyFile = pol.Audit.KeyFile
		}
	}
	if path == "" {
		path = audit.DefaultPath(c.getenv)
	}
	f.auditPath = path
	if path == "off" {
		return nil, nil
	}
	var key []byte
	if keyFile != "" {
		k, err := audit.LoadKey(keyFile)
		if err != nil {
			return nil, usageErr{fmt.Errorf("audit key %s: %w", keyFile, err)}
		}
		key = k
	}
	var ap gate.AuditPolicy
	if pol != nil {
		ap = pol.Audit
	}
	log, err := audit.Open(audit.Options{Path: path, Key: key, KeyFile: keyFile, NoSync: ap.NoSync, RotateBytes: ap.RotateBytes, AnchorEvery: ap.AnchorEvery})
	if err != nil {
		return nil, fmt.Errorf("audit log %s: %w (use --audit off to run without one)", path, err)
	}
	return log, nil
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
