package exec

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

	"github.com/agentexec/agentexec/exec/egress"
	"github.com/agentexec/agentexec/exec/sandbox"
)

// run is one started command: the process, its tree, and the readers that
// drain its output into the captures.
type run struct {
	cmd      *osexec.Cmd
	tree     *tree
	sb       *sandbox.Handle
	pty      *os.File    // the PTY master, or nil
	reads    []*os.File  // read ends the parent drains
	writes   []*os.File  // write ends the child inherits; closed after start
	caps     []*capture  // stdout, stderr (or the merged PTY output)
	live     []io.Writer // live copies of each capture's stream, or nil
	readers  sync.WaitGroup
	proxy    *egress.Proxy  // the run's egress proxy, or nil
	network  *NetworkReport // its evidence, once stopped
	timedOut bool
	canceled bool
	// oomKilled: the OOM killer killed a process of the run at its memory cap.
	oomKilled bool
	// outcome is what the sandbox knew of the run when it was released:
	// the command's own status when an init ran it.
	outcome sandbox.Outcome
}

// execute starts the plan's command and waits for it, filling obs.
func (r *Runner) execute(ctx context.Context, p *plan, obs Observation, stdout, stderr io.Writer) Observation {
	start := time.Now()
	rn, err := r.start(ctx, p, &obs, stdout, stderr)
	if err != nil {
		obs.Status, obs.Error = StatusError, err.Error()
		obs.DurationMS = time.Since(start).Milliseconds()
		return applyExecGate(p, obs)
	}
	r.wait(ctx, p, rn)
	obs.DurationMS = time.Since(start).Milliseconds()
	return applyExecGate(p, rn.observe(obs, p))
}

// start builds and starts the process. On error nothing is left running
// and every descriptor is closed.
func (r *Runner) start(ctx context.Context, p *plan, obs *Observation, stdout, stderr io.Writer) (*run, error) {
	spec, err := r.sandboxSpec(p)
	if err != nil {
		return nil, err
	}
	if err := r.setExecGate(ctx, p, &spec); err != nil {
		return nil, err
	}
	cmd, err := newCmd(p)
	if err != nil {
		return nil, err
	}
	cmd.WaitDelay = r.waitDelay() // bounds os/exec's stdin copy once the leader exited
	rn := &run{cmd: cmd, tree: newTree(p.runID)}
	if err := rn.setIO(p, stdout, stderr); err != nil {
		rn.closeAll()
		return nil, err
	}
	setProcAttr(cmd, p.req.PTY)
	if p.req.Command != "" {
		rawCmdLine(cmd, p.shell)
	}
	if err := rn.prepareSandbox(spec); err != nil {
		rn.closeAll()
		return nil, err
	}
	sb := rn.sb // launch forgets it on failure
	enableSubreaper()
	err = rn.launch(p)
	// Read after the launch: a launcher thread that could not take its
	// layers on hands the run to the trampoline, whose layers may differ.
	obs.Sandbox = sandboxReport(sb, spec, p.dec.Contain)
	if err != nil {
		return nil, err
	}
	if err := rn.startProxy(r, p); err != nil {
		obs.Error = err.Error()
	}
	return rn, nil
}

// newCmd resolves the program and makes the os/exec command. A relative
// path with a slash is taken relative to the command's cwd, as a shell
// would; a bare name is looked up on PATH.
func newCmd(p *plan) (*osexec.Cmd, error) {
	name := p.argv[0]
	if strings.ContainsRune(name, filepath.Separator) && !filepath.IsAbs(name) {
		name = filepath.Join(p.cwd, name)
	}
	path, err := osexec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	return &osexec.Cmd{Path: path, Args: p.argv, Env: p.env, Dir: p.cwd}, nil
}

func (rn *run) prepareSandbox(spec sandbox.Spec) error {
	if spec.Profile == sandbox.None && spec.ExecCheck == nil {
		return nil
	}
	h, err := sandbox.Prepare(rn.cmd, spec)
	if err != nil {
		return fmt.Errorf("sandbox %s could not be applied, so nothing ran (only the sandbox profile none runs without one): %w", spec.Profile, err)
	}
	rn.sb = h
	return nil
}

func sandboxReport(h *sandbox.Handle, spec sandbox.Spec, contained bool) *SandboxReport {
	if h == nil {
		return &SandboxReport{Profile: string(sandbox.None), Network: "on"}
	}
	rep := h.Report()
	return &SandboxReport{
		Profile: string(rep.Profile), LandlockABI: rep.LandlockABI, Network: rep.Network,
		Layers: rep.Layers, Contained: contained, Notes: rep.Notes,
		Masks: rep.Masks, ReadOnly: rep.ReadOnly, Memory: rep.Memory,
	}
}

// launch starts the process, in its sandbox when it has one.
func (rn *run) launch(p *plan) error {
	start := func() error {
		if p.recorded != nil {
			<-p.recorded
		}
		return startPlain(rn.cmd)
	}
	if rn.sb != nil {
		start = func() error { return rn.sb.StartWhen(p.recorded) } // sandboxed, or not started at all
	}
	if err := start(); err != nil {
		rn.closeAll()
		rn.closeSandbox()
		return fmt.Errorf("start: %w", err)
	}
	rn.tree.started(rn.cmd.Process.Pid)
	if rn.sb != nil {
		rn.tree.setGroup(rn.sb.CommandPID)
		rn.tree.setEnclosed(rn.sb.OwnPIDNamespace())
	}
	closeFiles(rn.writes)
	rn.writes = nil
	rn.startReaders()
	if rn.pty != nil {
		go feedPTY(rn.pty, p.req.Stdin)
	}
	return nil
}

// startPlain starts an unsandboxed command: it too gets only its standard
// files and ExtraFiles, never a descriptor this process inherited.
func startPlain(cmd *osexec.Cmd) error {
	if err := sandbox.CloseInherited(); err != nil {
		return fmt.Errorf("closing inherited files: %w", err)
	}
	return cmd.Start()
}

// wait waits for the process, ending the whole tree on timeout or
// cancellation, then kills what the command left behind, drains the output
// and releases the sandbox.
func (r *Runner) wait(ctx context.Context, p *plan, rn *run) {
	done := make(chan struct{})
	go func() {
		// End the leftovers as soon as the leader exits (it stays a
		// zombie, so its group id stays ours), so that a background job
		// holding stdin does not stall os/exec's Wait.
		waitExit(rn.cmd.Process.Pid)
		rn.tree.cleanup()
		rn.cmd.Wait()
		rn.tree.recheck()
		close(done)
	}()
	timer := time.NewTimer(p.timeout)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		rn.timedOut = true
	case <-ctx.Done():
		rn.timedOut, rn.canceled = true, true
	}
	if rn.timedOut {
		rn.stop(done, r.grace())
	}
	<-done // the leftovers were ended when the leader exited
	rn.tree.reaped = true
	rn.drain(r.waitDelay())
	if rn.sb != nil {
		rn.outcome = rn.sb.Outcome()
	}
	rn.stopProxy() // the tree is gone: its connections end now
	rn.closeSandbox()
}

// stop is the timeout path: SIGTERM to the group, then after the grace
// period (or as soon as the leader exits) SIGKILL to every process of the
// tree, including those that left the group.
//
// When the leader is a sandbox's PID 1 without a SIGTERM handler, the
// signal cannot end it: the grace period then lasts only until its
// descendants are gone.
func (rn *run) stop(done <-chan struct{}, grace time.Duration) {
	lost := rn.tree.termIsLost()
	rn.tree.terminate()
	t := time.NewTimer(grace)
	defer t.Stop()
	var poll <-chan time.Time
	if lost {
		tk := time.NewTicker(20 * time.Millisecond)
		defer tk.Stop()
		poll = tk.C
	}
wait:
	for {
		select {
		case <-done:
			break wait
		case <-t.C:
			break wait
		case <-poll:
			if !rn.tree.othersAlive() {
				break wait
			}
		}
	}
	if rn.sb != nil {
		rn.sb.Kill() // the namespace and cgroup as a unit: a fork bomb cannot outrun it
	}
	rn.tree.kill()
}

// drain waits for the readers to reach EOF; after delay it closes the read
// ends so a reader blocked on a pipe some stranger holds open returns.
func (rn *run) drain(delay time.Duration) {
	done := make(chan struct{})
	go func() {
		rn.readers.Wait()
		close(done)
	}()
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		closeFiles(rn.reads)
		<-done
	}
	rn.closeAll()
}

func (rn *run) closeSandbox() {
	if rn.sb != nil {
		rn.sb.Close()
		rn.oomKilled = rn.sb.OOMKilled()
		clean := rn.sb.EndedClean()
		rn.sb = nil
		if !clean || rn.tree.killed.Load() {
			rn.tree.sweep()
		}
	}
}

func (rn *run) closeAll() {
	closeFiles(rn.writes)
	closeFiles(rn.reads)
	rn.writes, rn.reads = nil, nil
}

func closeFiles(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// setIO wires stdin, stdout and stderr: pipes the parent drains, or a PTY.
// Stdin is the request's text, or /dev/null so nothing waits for input.
func (rn *run) setIO(p *plan, stdout, stderr io.Writer) error {
	if p.req.PTY {
		return rn.setPTY(p, stdout)
	}
	if p.req.Stdin != nil {
		rn.cmd.Stdin = strings.NewReader(*p.req.Stdin)
	}
	for range 2 {
		r, w, err := os.Pipe()
		if err != nil {
			return fmt.Errorf("start: %w", err)
		}
		rn.reads, rn.writes = append(rn.reads, r), append(rn.writes, w)
		rn.caps = append(rn.caps, newCapture(p.max))
	}
	rn.cmd.Stdout, rn.cmd.Stderr = rn.writes[0], rn.writes[1]
	rn.live = []io.Writer{stdout, stderr}
	return nil
}

func (rn *run) setPTY(p *plan, stdout io.Writer) error {
	master, tty, err := openPTY(p.req.Rows, p.req.Cols)
	if err != nil {
		return fmt.Errorf("pty: %w", err)
	}
	rn.pty = master
	rn.reads, rn.writes = []*os.File{master}, []*os.File{tty}
	rn.cmd.Stdin, rn.cmd.Stdout, rn.cmd.Stderr = tty, tty, tty
	rn.caps = []*capture{newCapture(p.max)}
	rn.live = []io.Writer{stdout}
	return nil
}

func (rn *run) startReaders() {
	for i, f := range rn.reads {
		var w io.Writer = rn.caps[i]
		if live := rn.live[i]; live != nil {
			w = io.MultiWriter(rn.caps[i], ignoreErrors{live})
		}
		rn.readers.Add(1)
		go func() {
			defer rn.readers.Done()
			copyOut(w, f)
		}()
	}
}

// copyOut copies until EOF or an error; a PTY master reports the end of
// the session as EIO, which is EOF here.
func copyOut(w io.Writer, r io.Reader) {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	for {
		n, err := r.Read(buf)
		if n > 0 {
			w.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// copyBufs keeps copyOut's buffers between runs: two a run otherwise,
// 64 KiB of garbage for each server request.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32*1024); return &b }}

// ignoreErrors keeps a live copy from stopping the capture when the
// terminal or caller's writer goes away.
type ignoreErrors struct{ w io.Writer }

func (w ignoreErrors) Write(p []byte) (int, error) {
	w.w.Write(p)
	return len(p), nil
}

// observe fills the run's outcome into obs.
func (rn *run) observe(obs Observation, p *plan) Observation {
	obs.Status = StatusExited
	if rn.timedOut {
		obs.Status, obs.TimeoutMS = StatusTimedOut, p.timeout.Milliseconds()
		if rn.canceled {
			obs.Error = "canceled"
		}
	}
	if ps := rn.cmd.ProcessState; ps != nil {
		obs.ExitCode, obs.Signal = exitInfo(ps)
	}
	if o := rn.outcome; o.Known {
		obs.ExitCode, obs.Signal = outcomeExit(o)
	}
	if err := rn.outcome.StartErr; err != nil && !rn.timedOut {
		obs.Status, obs.Error, obs.ExitCode, obs.Signal = StatusError, "start: "+err.Error(), nil, ""
	}
	if rn.oomKilled && obs.Sandbox != nil {
		obs.Sandbox.OOMKilled = true
		msg := fmt.Sprintf("out of memory: the kernel killed a process of the run at its memory cap of %d MiB (sandbox.limits.memory)", obs.Sandbox.Memory>>20)
		if obs.Error != "" {
			msg = obs.Error + "; " + msg
		}
		obs.Error = msg
	}
	outs := make([]result, len(rn.caps))
	for i, c := range rn.caps {
		outs[i] = c.result()
		obs.Omitted += outs[i].omitted
	}
	obs.Truncated = obs.Omitted > 0
	obs.Network = rn.network
	if rn.pty != nil {
		obs.Output, obs.StdoutBytes = string(outs[0].kept), outs[0].total
		return obs
	}
	obs.Stdout, obs.StdoutBytes = string(outs[0].kept), outs[0].total
	obs.Stderr, obs.StderrBytes = string(outs[1].kept), outs[1].total
	return obs
}

var errNoPTY = errors.New("a pseudo-terminal is not supported on this system")
