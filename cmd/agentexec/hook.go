package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentexec/agentexec/audit"
	"github.com/agentexec/agentexec/exec"
	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/internal/hook"
	"github.com/agentexec/agentexec/policy"
	"github.com/agentexec/agentexec/shellcfg"
)

// maxPayload bounds the hook payload read from stdin.
const maxPayload = 16 << 20

const hookSynopsis = "--agent claude|codex|gemini|qwen|crush [--policy FILE | --project DIR] [--sandbox PROFILE]\n" +
	"       agentexec hook install|uninstall --agent AGENT [--project DIR | --user] [--dry-run]"

const hookDesc = `Answer one pre-tool hook call of a coding agent: the tool call arrives as
JSON on stdin, the answer leaves in the agent's own format and exit-code
convention. Agents: claude (Claude Code), codex (Codex CLI), gemini (Gemini
CLI), qwen (Qwen Code), crush (Crush).

Shell commands are judged by the gate (the payload's cwd, the agent's
permission mode mapped to agentexec's). An allowed command is rewritten to
run through 'agentexec run' (sandbox, exec gate, audit log), bound to a
one-use ticket; a denied one is answered deny with the reason for the
model; one that needs approval is answered ask (a deny for Codex, which
cannot ask). File tools (Read, Edit, Write, read_file, replace, ...) are
checked against the policy's Read(...)/Edit(...) rules and the workspace.
A payload agentexec cannot read is blocked (exit 2), never allowed.

The policy is --policy FILE, else $AGENTEXEC_POLICY, else the agent's
project settings (.claude/settings.json, .qwen/settings.json) in the
project: --project DIR, else the agent's project directory variable, else
the payload's cwd.

'agentexec hook install --agent A' adds the hook to the agent's settings
(the project's, or with --user the user's), keeping every other byte;
'uninstall' removes exactly that entry. --dry-run prints the change.`

type hookFlags struct {
	policyFlags
	agent     string
	sandbox   string
	mode      string
	audit     string
	network   bool
	noRewrite bool
}

func hookMain(ctx context.Context, c *cli, args []string) int {
	if len(args) > 0 && (args[0] == "install" || args[0] == "uninstall") {
		return hookInstallMain(c, args[0], args[1:])
	}
	fs := newFlagSet("hook", hookSynopsis, hookDesc)
	var f hookFlags
	fs.StringVar(&f.agent, "agent", "", "the agent calling: "+strings.Join(hook.Names(), ", "))
	f.policyFlags.register(fs)
	fs.StringVar(&f.sandbox, "sandbox", "", "sandbox profile of rewritten commands: read-only, workspace-write or none (default: the policy's)")
	fs.StringVar(&f.mode, "mode", "", "approval mode plan, default or yolo, instead of the agent's permission mode")
	fs.StringVar(&f.audit, "audit", "", "audit log `PATH`, or off (default: the policy's, else $XDG_STATE_HOME/agentexec/audit.jsonl)")
	fs.BoolVar(&f.network, "network", false, "let rewritten commands reach the network")
	fs.BoolVar(&f.noRewrite, "no-rewrite", false, "answer only: never rewrite a command to run through agentexec (no sandbox, no exec gate)")
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	if f.agent == "" {
		fmt.Fprintf(c.stderr, "agentexec hook: --agent is required (%s)\n\nUsage: agentexec hook %s\n", strings.Join(hook.Names(), ", "), hookSynopsis)
		return 2
	}
	a, err := hook.Lookup(f.agent)
	if err != nil {
		return usageError(c, "hook", "--agent: %v", err)
	}
	if fs.NArg() > 0 {
		return usageError(c, "hook", "unexpected argument %q (the tool call comes on stdin)", fs.Arg(0))
	}
	return answer(c, f.judge(c, a))
}

// answer writes the hook's answer and returns its exit status.
func answer(c *cli, ans hook.Answer) int {
	if len(ans.Stdout) > 0 {
		if _, err := c.stdout.Write(ans.Stdout); err != nil {
			fmt.Fprintf(c.stderr, "agentexec: denied: cannot write the answer: %v\n", err)
			return 2
		}
	}
	io.WriteString(c.stderr, ans.Stderr)
	return ans.Exit
}

// judge reads the payload and decides; anything that goes wrong is
// answered with hook.FailClosed.
func (f *hookFlags) judge(c *cli, a hook.Agent) hook.Answer {
	data, err := io.ReadAll(io.LimitReader(c.stdin, maxPayload+1))
	if err != nil {
		return hook.FailClosed("reading the payload: " + err.Error())
	}
	if len(data) > maxPayload {
		return hook.FailClosed(fmt.Sprintf("the payload is over %d bytes", maxPayload))
	}
	var s *hookSetup
	prepare := func(call hook.Call) (hook.Config, error) {
		var err error
		if s, err = f.setup(c, a, call); err != nil {
			return hook.Config{}, err
		}
		return s.cfg, nil
	}
	done := func(call hook.Call, v hook.Verdict) error { return s.record(c, call, v) }
	return hook.Judge(a, data, prepare, done)
}

// hookSetup is what one hook call needs besides the payload.
type hookSetup struct {
	cfg       hook.Config
	nonce     string // the rewrite's ticket nonce
	hookID    string // "h" + nonce: the decision's ID in the audit log
	auditPath string // "off" for none
	policy    *gate.Policy
}

func (f *hookFlags) setup(c *cli, a hook.Agent, call hook.Call) (*hookSetup, error) {
	mode, err := f.parseMode()
	if err != nil {
		return nil, err
	}
	ws := f.workspace(c, a, call)
	pf := f.policySource(c, ws)
	l, err := pf.load(c, ws)
	if errors.Is(err, policy.ErrNoSettings) && f.project == "" {
		// The project has no agent settings: no rules, and the rewritten
		// run is told the same (no --project).
		pf.project = ""
		l, err = pf.load(c, ws)
	}
	if err != nil {
		return nil, err
	}
	if l.NoYolo && (mode == gate.ModeYolo || (mode == "" && call.Mode == gate.ModeYolo)) {
		mode = gate.ModeDefault // the settings forbid bypassing permissions
	}
	s := &hookSetup{policy: l.Policy}
	s.cfg = hook.Config{
		Policy: l.Policy, Mode: mode, Env: os.Environ(), Home: c.getenv("HOME"),
		Workspace: ws, Protected: protectedPaths(c, a, ws, l), DontAsk: l.DontAsk,
	}
	if s.auditPath, err = f.auditPath(c, l.Policy); err != nil {
		return nil, err
	}
	if s.nonce, err = hook.NewID(""); err != nil {
		return nil, err
	}
	s.hookID = "h" + s.nonce
	if call.Kind == hook.Shell && !f.noRewrite && a.CanRewrite() {
		rw, err := f.rewriter(c, s, pf)
		if err != nil {
			return nil, err
		}
		s.cfg.Rewrite = rw
	}
	return s, nil
}

func (f *hookFlags) parseMode() (gate.Mode, error) {
	if f.mode == "" {
		return "", nil
	}
	return gate.ParseMode(f.mode)
}

// projectEnv names each agent's project-directory variable ("" for none).
func projectEnv(agent string) string {
	switch agent {
	case "claude":
		return "CLAUDE_PROJECT_DIR"
	case "gemini":
		return "GEMINI_PROJECT_DIR"
	case "qwen":
		return "QWEN_PROJECT_DIR"
	case "crush":
		return "CRUSH_PROJECT_DIR"
	}
	return ""
}

// workspace is --project, else the agent's project directory, else the
// payload's cwd.
func (f *hookFlags) workspace(c *cli, a hook.Agent, call hook.Call) string {
	dir := f.project
	if dir == "" {
		if v := projectEnv(a.Name()); v != "" {
			dir = c.getenv(v)
		}
	}
	if dir == "" {
		return call.Cwd
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return call.Cwd
}

// policySource is where the policy comes from, as run reads it: --policy
// (with --policy-format), else $AGENTEXEC_POLICY, else the project's own
// settings, layered as its agent layers them (--project, else the
// workspace). The rewrite passes the same source on to agentexec run.
func (f *hookFlags) policySource(c *cli, ws string) policyFlags {
	pf := f.policyFlags
	if pf.path == "" {
		pf.path = c.getenv("AGENTEXEC_POLICY")
	}
	if pf.path != "" {
		if abs, err := filepath.Abs(pf.path); err == nil {
			pf.path = abs
		}
		pf.project = ""
		return pf
	}
	pf.project = ws
	return pf
}

// args are the run flags that name this source.
func (pf policyFlags) args() []string {
	var out []string
	if pf.path != "" {
		out = append(out, "--policy", pf.path)
	}
	if pf.project != "" {
		out = append(out, "--project", pf.project)
	}
	if pf.format != "" {
		out = append(out, "--policy-format", pf.format)
	}
	return out
}

// protectedPaths are where the hook itself and the policy are configured:
// a file tool changing them could switch agentexec off.
func protectedPaths(c *cli, a hook.Agent, ws string, l *policy.Loaded) []string {
	s := a.Settings()
	out := []string{s.Project(ws), filepath.Join(ws, ".agentexec")}
	for _, f := range l.Files {
		out = append(out, f.Path)
	}
	if u, err := s.User(c.getenv); err == nil {
		out = append(out, u)
	}
	return out
}

// auditPath resolves the audit log as run would: --audit, the policy's
// audit.path, else the default location.
func (f *hookFlags) auditPath(c *cli, pol *gate.Policy) (string, error) {
	p := f.audit
	if p == "" && pol != nil {
		p = pol.Audit.Path
	}
	if p == "" {
		p = audit.DefaultPath(c.getenv)
	}
	if p == "" {
		return "", errors.New("no audit log location: set XDG_STATE_HOME or HOME, or pass --audit off")
	}
	if p == "off" {
		return p, nil
	}
	return filepath.Abs(p)
}

// stateDir is agentexec's state directory, beside the default audit log.
func stateDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "agentexec"), nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "agentexec"), nil
	}
	return "", errors.New("no state directory for hook tickets: set XDG_STATE_HOME or HOME")
}

func ticketKeys(getenv func(string) string) (hook.Keys, error) {
	d, err := stateDir(getenv)
	if err != nil {
		return hook.Keys{}, err
	}
	return hook.Keys{Dir: d}, nil
}

// rewriter builds the TicketRewriter: the rewritten run gets the same
// policy, audit log and sandbox the hook decided with.
func (f *hookFlags) rewriter(c *cli, s *hookSetup, pf policyFlags) (*hook.TicketRewriter, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the agentexec binary: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	keys, err := ticketKeys(c.getenv)
	if err != nil {
		return nil, err
	}
	key, err := keys.Key(true)
	if err != nil {
		return nil, err
	}
	flags := pf.args()
	if f.sandbox != "" {
		switch f.sandbox {
		case "read-only", "workspace-write", "none":
		default:
			return nil, fmt.Errorf("--sandbox: %q is not read-only, workspace-write or none", f.sandbox)
		}
		flags = append(flags, "--sandbox", f.sandbox)
	}
	if f.network {
		flags = append(flags, "--network")
	}
	flags = append(flags, "--audit", s.auditPath)
	return &hook.TicketRewriter{Exe: exe, Key: key, Workspace: s.cfg.Workspace, Flags: flags, Nonce: s.nonce}, nil
}

// record writes the hook's decision to the audit log: every shell
// command, and every file call the hook had an opinion on — except an
// allowed command rewritten to run through agentexec, whose hook record
// the run writes, joined to its own (so the hook's hot path opens no log
// and syncs no file). The log is opened only here, when there is
// something to write.
func (s *hookSetup) record(c *cli, call hook.Call, v hook.Verdict) error {
	if s.auditPath == "off" || (call.Kind != hook.Shell && v.Action == hook.None) || (v.Action == hook.Allow && v.Command != "") {
		return nil
	}
	rf := runnerFlags{audit: s.auditPath}
	log, err := rf.openAudit(c, s.policy)
	if err != nil {
		return err
	}
	defer log.Close()
	rec := &audit.Record{
		Kind: "hook", RunID: s.hookID, Agent: call.Agent, Tool: call.Tool,
		Cwd: call.Dir, Decision: string(v.Action), Reason: v.Reason,
	}
	if rec.Decision == "" {
		rec.Decision = "none"
	}
	switch call.Kind {
	case hook.Shell:
		rec.Command, rec.Shell = call.Command, "bash"
	default:
		rec.Argv = call.Paths
	}
	if d := v.Decision; d != nil {
		rec.Mode, rec.Segments, rec.Safety, rec.RuleDecision = string(d.Mode), d.Segments, string(d.Safety), d.RuleDecision
		if d.Rule != nil {
			rec.Rule, rec.RuleSource = d.Rule.Text, d.Rule.Source
		}
		if d.Blacklist != nil {
			rec.Blacklist = d.Blacklist.Name
		}
	}
	if err := log.Append(rec); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// redeemTicket checks `agentexec run --from-hook TOKEN ...` against the
// ticket the hook minted: args are run's arguments after "run".
func redeemTicket(c *cli, args []string) (*hook.Ticket, int) {
	token, blanked := hook.BlankToken(args)
	keys, err := ticketKeys(c.getenv)
	if err != nil {
		fmt.Fprintf(c.stderr, "agentexec run: refused: %v\n", err)
		return nil, exitRejected
	}
	now := time.Now()
	t, err := hook.Redeem(keys, token, blanked, now)
	keys.Sweep(now)
	if err != nil {
		fmt.Fprintf(c.stderr, "agentexec run: refused: %v\n", err)
		return nil, exitRejected
	}
	return &t, 0
}

// joinTicket makes the run's audit records carry the hook decision's ID
// (writing the hook's own record first when the hook left it to the run),
// and approves the gate's ask once when the hook answered ask: the agent
// put this very command to the person, and runs it only on their yes.
func joinTicket(r *exec.Runner, t *hook.Ticket) {
	if r.Audit != nil {
		r.Audit = &joinSink{inner: r.Audit, t: t, hookRecord: t.Verdict == hook.Allow}
	}
	if t.Verdict == hook.Ask {
		r.Approver = func(context.Context, exec.Request, gate.Decision) (bool, error) { return true, nil }
	}
}

// joinSink stamps the run's records with the hook decision they came
// from.
type joinSink struct {
	inner      exec.AuditSink
	t          *hook.Ticket
	mu         sync.Mutex
	hookRecord bool // the hook's record is still to be written
}

// Files are the wrapped log's, so the run keeps them out of the command's
// reach as it does for the log itself.
func (j *joinSink) Files() audit.Files {
	if l, ok := j.inner.(interface{ Files() audit.Files }); ok {
		return l.Files()
	}
	return audit.Files{}
}

func (j *joinSink) Append(rec *audit.Record) error {
	j.mu.Lock()
	first := j.hookRecord
	j.hookRecord = false
	j.mu.Unlock()
	if first {
		h := &audit.Record{
			Kind: "hook", RunID: j.t.HookID, Agent: j.t.Agent, Tool: j.t.Tool,
			Command: rec.Command, Shell: rec.Shell, Cwd: rec.Cwd, Mode: rec.Mode,
			Decision: string(j.t.Verdict), Reason: "agentexec: allowed and rewritten to run through agentexec",
		}
		if err := j.inner.Append(h); err != nil {
			return err
		}
	}
	rec.HookID, rec.Agent, rec.Tool = j.t.HookID, j.t.Agent, j.t.Tool
	if rec.Approved == "once" && j.t.Verdict == hook.Ask {
		rec.Approved = "agent" // the agent's own prompt approved it
	}
	return j.inner.Append(rec)
}
func hookInstallMain(c *cli, verb string, args []string) int {
	fs := newFlagSet("hook "+verb, "--agent AGENT [--project DIR | --user] [--dry-run]",
		map[string]string{
			"install":   "Add agentexec's hook to the agent's settings, keeping every other byte of the file.\nRunning it again changes nothing. Agents: " + strings.Join(hook.Names(), ", ") + ".",
			"uninstall": "Remove agentexec's hook from the agent's settings: exactly the entry install added.",
		}[verb])
	var agent, project, policy, sandbox string
	var user, dry, network bool
	fs.StringVar(&agent, "agent", "", "the agent: "+strings.Join(hook.Names(), ", "))
	fs.StringVar(&project, "project", "", "the project `DIR` whose settings change (default: the current directory)")
	fs.BoolVar(&user, "user", false, "change the user's settings instead of the project's")
	fs.BoolVar(&dry, "dry-run", false, "print the change and write nothing")
	if verb == "install" {
		fs.StringVar(&policy, "policy", "", "policy `FILE` the installed hook passes on")
		fs.StringVar(&sandbox, "sandbox", "", "sandbox profile the installed hook passes on")
		fs.BoolVar(&network, "network", false, "the installed hook lets rewritten commands reach the network")
	}
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	name := "hook " + verb
	if agent == "" {
		return usageError(c, name, "--agent is required (%s)", strings.Join(hook.Names(), ", "))
	}
	a, err := hook.Lookup(agent)
	if err != nil {
		return usageError(c, name, "--agent: %v", err)
	}
	if user && project != "" {
		return usageError(c, name, "give --project or --user, not both")
	}
	path, err := settingsPath(c, a, project, user)
	if err != nil {
		fmt.Fprintf(c.stderr, "agentexec %s: %v\n", name, err)
		return 1
	}
	spec := a.Settings()
	var ch hook.Change
	if verb == "install" {
		cmd, err := hookCommand(a.Name(), policy, sandbox, network)
		if err != nil {
			fmt.Fprintf(c.stderr, "agentexec %s: %v\n", name, err)
			return 1
		}
		ch, err = hook.Install(path, spec, a.Name(), cmd)
	} else {
		ch, err = hook.Uninstall(path, spec, a.Name())
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "agentexec %s: %v\n", name, err)
		return 1
	}
	return reportChange(c, name, spec.Event, ch, dry)
}

func reportChange(c *cli, name, event string, ch hook.Change, dry bool) int {
	if !ch.Changed() {
		fmt.Fprintf(c.stdout, "agentexec %s: %s: nothing to do (%s)\n", name, ch.Path, ch.Note)
		return 0
	}
	if dry {
		fmt.Fprintf(c.stdout, "agentexec %s: would change %s (hooks.%s):\n%s", name, ch.Path, event, ch.Diff())
		return 0
	}
	if err := ch.Write(); err != nil {
		fmt.Fprintf(c.stderr, "agentexec %s: %v\n", name, err)
		return 1
	}
	fmt.Fprintf(c.stdout, "agentexec %s: %s: hooks.%s changed\n", name, ch.Path, event)
	return 0
}

func settingsPath(c *cli, a hook.Agent, project string, user bool) (string, error) {
	if user {
		return a.Settings().User(c.getenv)
	}
	if project == "" {
		project = "."
	}
	abs, err := filepath.Abs(project)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("--project: %s is not a directory", abs)
	}
	return a.Settings().Project(abs), nil
}

// hookCommand is the settings line's command: agentexec by name when the
// name finds this very binary on PATH (so a project's settings stay
// portable), else its absolute path.
func hookCommand(agent, policy, sandbox string, network bool) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the agentexec binary: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	word := exe
	if p, err := osexec.LookPath("agentexec"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil && r == exe {
			word = "agentexec"
		}
	}
	argv := []string{word, "hook", "--agent", agent}
	if policy != "" {
		abs, err := filepath.Abs(policy)
		if err != nil {
			return "", err
		}
		argv = append(argv, "--policy", abs)
	}
	if sandbox != "" {
		argv = append(argv, "--sandbox", sandbox)
	}
	if network {
		argv = append(argv, "--network")
	}
	return shellcfg.Quote(shellcfg.Bash, argv)
}
