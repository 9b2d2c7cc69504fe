package main

import (
	"flag"
	"fmt"
	"io"
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
	network   bool
	audit     string
	timeout   time.Duration
	maxOutput int

	// Set by build: the policy's account and the watcher that reloads it.
	loaded  *policy.Loaded
	watcher *policy.Watcher
}

func (f *runnerFlags) register(fs *flag.FlagSet) {
	f.policyFlags.register(fs)
	fs.StringVar(&f.mode, "mode", "", "approval mode: plan, default or yolo (default: the policy's, else default)")
	fs.StringVar(&f.shell, "shell", "", "shell for command text: bash, sh, cmd or powershell (default: $AGENTEXEC_SHELL, else detected)")
	fs.StringVar(&f.cwd, "cwd", "", "workspace `DIR`: where commands start, writable under workspace-write; a request's cwd must lie inside it (default: the current directory)")
	fs.StringVar(&f.sandbox, "sandbox", "", "sandbox profile: read-only, workspace-write or none (default: the policy's, else workspace-write)")
	fs.BoolVar(&f.network, "network", false, "allow network access inside the sandbox")
	fs.StringVar(&f.audit, "audit", "", "audit log `PATH`, or off (default: the policy's, else $XDG_STATE_HOME/agentexec/audit.jsonl)")
	fs.DurationVar(&f.timeout, "timeout", 0, "timeout `DURATION` (default: the policy's, else 120s)")
	fs.IntVar(&f.maxOutput, "max-output", 0, "keep at most `BYTES` of output per stream, head and tail (default: the policy's, else 30000)")
}

// build makes the Runner the flags describe. The returned closer flushes
// and closes the audit log; call it before exiting.
func (f *runnerFlags) build(c *cli) (*exec.Runner, io.Closer, error) {
	l, err := f.load(c, f.cwd)
	if err != nil {
		return nil, nil, err
	}
	pol := l.Policy
	o, _ := f.options(c, f.cwd)
	f.loaded = l
	f.watcher = policy.NewWatcher(o, l, func(format string, args ...any) {
		fmt.Fprintf(c.stderr, format+"\n", args...)
	})
	mode, err := gate.ParseMode(f.mode)
	if err != nil {
		return nil, nil, err
	}
	if f.mode == "" {
		mode = ""
	}
	if l.NoYolo && mode == gate.ModeYolo {
		return nil, nil, fmt.Errorf("--mode yolo: the policy's settings forbid bypassing permissions")
	}
	shell := f.shell
	if shell == "" {
		shell = c.getenv("AGENTEXEC_SHELL")
	}
	var st shellcfg.ShellType
	if shell != "" {
		if st, err = shellcfg.ParseShell(shell); err != nil {
			return nil, nil, err
		}
	}
	switch f.sandbox {
	case "", "read-only", "workspace-write", "none":
	default:
		return nil, nil, fmt.Errorf("--sandbox: %q is not read-only, workspace-write or none", f.sandbox)
	}
	if f.timeout < 0 || f.maxOutput < 0 {
		return nil, nil, fmt.Errorf("--timeout and --max-output must not be negative")
	}
	r := &exec.Runner{
		Policy: pol, PolicyFunc: f.watcher.Policy, Mode: mode, Shell: st, Cwd: f.cwd,
		Sandbox: f.sandbox, Network: f.network,
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
	if path == "off" {
		return nil, nil
	}
	var key []byte
	if keyFile != "" {
		k, err := audit.LoadKey(keyFile)
		if err != nil {
			return nil, fmt.Errorf("audit key %s: %w", keyFile, err)
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
