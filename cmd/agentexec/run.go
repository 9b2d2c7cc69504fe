package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/agentexec/agentexec/exec"
	"github.com/agentexec/agentexec/exec/sandbox"
	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/internal/hook"
	"github.com/agentexec/agentexec/policy"
)

// Exit statuses of agentexec run besides the command's own.
const (
	exitRunError = 125 // agentexec itself failed or the request was bad
	exitRejected = 126 // the gate refused (or approval was not given)
	exitTimedOut = 124 // as timeout(1)
)

type runFlags struct {
	runnerFlags
	command  string
	pty      bool
	json     bool
	stdin    bool
	fromHook string
	dir      string
}

func runMain(ctx context.Context, c *cli, args []string) int {
	fs := newFlagSet("run", "[flags] -- CMD [ARGS...]  |  agentexec run [flags] -c 'TEXT'",
		`Gate a command and run it in the sandbox. Its output streams to the terminal
and its exit status is passed through (death by signal N exits 128+N).
A rejection prints why to stderr and exits 126 (a command that needs
approval is asked about on the terminal when there is one; --json prints
the observation with the model's full text instead); a timeout ends
the whole process tree and exits 124; an error of agentexec itself exits 125.`)
	var f runFlags
	f.register(fs)
	fs.StringVar(&f.command, "c", "", "command `TEXT` to run with the shell (instead of CMD ARGS)")
	fs.BoolVar(&f.pty, "pty", false, "run under a pseudo-terminal (output merged)")
	fs.BoolVar(&f.json, "json", false, "print the observation as JSON instead of streaming the output")
	fs.BoolVar(&f.stdin, "stdin", false, "read standard input to the end and feed it to the command (default: /dev/null)")
	fs.StringVar(&f.fromHook, "from-hook", "", "the ticket `TOKEN` of a command 'agentexec hook' rewrote (only the hook writes one)")
	fs.StringVar(&f.dir, "dir", "", "the command's working `DIR`, inside the workspace (default: the workspace, --cwd)")
	if code, ok := parseFlags(c, fs, args); !ok {
		return code
	}
	req, code := f.request(c, fs.Args())
	if code != 0 {
		return code
	}
	var ticket *hook.Ticket
	if f.fromHook != "" {
		if ticket, code = redeemTicket(c, args); code != 0 {
			return code
		}
	}
	if os.Geteuid() == 0 {
		// What the host can enforce, and the launcher's helper, are made
		// ready while the policy and the audit log are opened: the
		// sandbox needs it, and so does the exec gate under --sandbox
		// none. (As another user, finding out starts probe processes:
		// only when needed.)
		go sandbox.Detect()
	}
	r, closer, err := f.build(c)
	if err != nil {
		fmt.Fprintf(c.stderr, "agentexec run: %v\n", err)
		return buildExit(err)
	}
	defer closer.Close()
	// A closed stdout must come back as EPIPE (see brokenPipe), not kill
	// agentexec before it has ended the command's tree and audited the run.
	signal.Ignore(syscall.SIGPIPE)
	if haveTTY() && !f.loaded.DontAsk {
		r.Approver = ttyApprover(f.approvals(), r.Cwd)
	}
	if ticket != nil {
		joinTicket(r, ticket)
	}
	return f.run(ctx, c, r, req)
}

// request builds the Request from -c or the arguments after the flags.
func (f *runFlags) request(c *cli, args []string) (exec.Request, int) {
	req := exec.Request{Command: f.command, PTY: f.pty, Cwd: f.dir}
	switch {
	case f.command != "" && len(args) > 0:
		return req, usageError(c, "run", "give either -c TEXT or CMD ARGS, not both")
	case f.command == "" && len(args) == 0:
		return req, usageError(c, "run", "no command: use agentexec run -- CMD ARGS or -c 'TEXT'")
	case f.command == "":
		req.Argv = args
	case strings.TrimSpace(f.command) == "":
		return req, usageError(c, "run", "-c: the command text is blank")
	}
	if err := req.Validate(); err != nil {
		return req, usageError(c, "run", "%s", strings.TrimPrefix(err.Error(), "request: "))
	}
	if f.stdin {
		b, err := io.ReadAll(c.stdin)
		if err != nil {
			fmt.Fprintf(c.stderr, "agentexec run: stdin: %v\n", err)
			return req, exitRunError
		}
		s := string(b)
		req.Stdin = &s
	}
	return req, 0
}

func (f *runFlags) run(ctx context.Context, c *cli, r *exec.Runner, req exec.Request) int {
	var obs exec.Observation
	if f.json {
		obs = r.RunCommand(ctx, req)
		b, _ := json.Marshal(obs)
		fmt.Fprintf(c.stdout, "%s\n", b)
	} else {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		out := &brokenPipe{w: c.stdout, cancel: cancel}
		obs = r.RunCommandStream(ctx, req, out, c.stderr)
		if out.broken.Load() {
			return 128 + signalNumber("SIGPIPE") // as a shell pipeline reports it
		}
		reportRun(c, obs)
	}
	return exitStatus(obs)
}

// brokenPipe ends the run when the reader of our output has gone away
// (agentexec run -- git log | head), as SIGPIPE would end the command
// itself in a shell pipeline; the run is still audited and its tree ended.
type brokenPipe struct {
	w      io.Writer
	cancel context.CancelFunc
	broken atomic.Bool
}

func (b *brokenPipe) Write(p []byte) (int, error) {
	n, err := b.w.Write(p)
	if err != nil && errors.Is(err, syscall.EPIPE) {
		b.broken.Store(true)
		b.cancel()
	}
	return n, err
}

// reportRun tells the user on stderr what the streamed output does not.
func reportRun(c *cli, obs exec.Observation) {
	switch obs.Status {
	case exec.StatusRejected, exec.StatusNeedsApproval:
		fmt.Fprint(c.stderr, refusalText(obs))
	case exec.StatusError:
		fmt.Fprintf(c.stderr, "agentexec run: %s\n", obs.Error)
	case exec.StatusTimedOut:
		if obs.Error == "canceled" {
			fmt.Fprintln(c.stderr, "agentexec run: canceled; the process tree was ended")
		} else {
			fmt.Fprintf(c.stderr, "agentexec run: timed out after %dms; the process tree was ended\n", obs.TimeoutMS)
		}
	default:
		if obs.Error != "" {
			fmt.Fprintf(c.stderr, "agentexec run: warning: %s\n", obs.Error)
		}
	}
}

// exitStatus maps an observation to the process exit status.
func exitStatus(obs exec.Observation) int {
	switch obs.Status {
	case exec.StatusRejected, exec.StatusNeedsApproval:
		return exitRejected
	case exec.StatusTimedOut:
		if obs.Error == "canceled" {
			return 130
		}
		return exitTimedOut
	case exec.StatusError:
		return exitRunError
	}
	if obs.Signal != "" {
		return 128 + signalNumber(obs.Signal)
	}
	if obs.ExitCode != nil {
		return *obs.ExitCode
	}
	return exitRunError
}

// haveTTY reports whether there is a controlling terminal to ask on.
// Without one an ask ends as needs_approval (exit 126 with the reason).
func haveTTY() bool {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return false
	}
	tty.Close()
	return true
}

// ttyApprover asks on the controlling terminal: y runs the command once;
// a ("always") first shows what the proposed rule would also have allowed
// in this workspace's audit history, then writes it to the local rules
// file and runs the command; e writes the narrower exact rule instead,
// when one is offered; anything else, or no terminal after all, refuses.
// "Always" is offered only where a rule can vouch for the command.
func ttyApprover(a *policy.Approvals, cwd string) exec.Approver {
	return func(ctx context.Context, req exec.Request, d gate.Decision) (bool, error) {
		tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			return false, nil
		}
		defer tty.Close()
		return askTTY(ctx, tty, a, cwd, req, d)
	}
}

// askTTY asks on tty (see ttyApprover).
func askTTY(ctx context.Context, tty io.ReadWriter, a *policy.Approvals, cwd string, req exec.Request, d gate.Decision) (bool, error) {
	text := policy.RequestText(req.Command, req.Argv)
	dir := req.Cwd
	if dir == "" {
		dir = cwd
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	prop, always := a.Propose(text, dir, d)
	fmt.Fprintf(tty, "agentexec: %s\n  %s\n", text, d.Reason)
	prompt := "Run it once? [y/N] "
	if always {
		fmt.Fprint(tty, prop.Preview())
		prompt = "Run it? [y]es once / [a]lways"
		if prop.Narrower != "" {
			prompt += " / [e]xact rule"
		}
		prompt += " / [N]o "
	}
	fmt.Fprint(tty, prompt)
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(tty).ReadString('\n')
		answer <- strings.ToLower(strings.TrimSpace(line))
	}()
	var ans string
	select {
	case ans = <-answer:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	switch {
	case ans == "y" || ans == "yes":
		return true, nil
	case always && (ans == "a" || ans == "always"):
		persist(tty, a, prop.Rules)
		return true, nil
	case always && prop.Narrower != "" && (ans == "e" || ans == "exact"):
		persist(tty, a, []string{prop.Narrower})
		return true, nil
	}
	return false, nil
}

// persist writes the rules; a failure is reported and the command still
// runs this once, as approved.
func persist(tty io.Writer, a *policy.Approvals, rules []string) {
	if err := a.Persist(rules); err != nil {
		fmt.Fprintf(tty, "agentexec: could not keep the rule (%v); running it this once\n", err)
		return
	}
	fmt.Fprintf(tty, "agentexec: added %s to %s\n", strings.Join(rules, " and "), a.Watcher.Loaded().LocalFile)
}
