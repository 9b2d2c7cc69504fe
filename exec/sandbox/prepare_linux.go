package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// detectCaps is Detect, replaceable by tests to inject a missing feature.
var detectCaps = Detect

// wireSpec is what the trampoline receives on its spec fd: everything it
// needs, with every path already resolved by the parent.
type wireSpec struct {
	Path      string   `json:"path"`
	Args      []string `json:"args"`
	Env       []string `json:"env"`
	Dir       string   `json:"dir"`
	Network   bool     `json:"network"`
	Writable  []string `json:"writable,omitempty"`
	Readable  []string `json:"readable,omitempty"`
	Protected []string `json:"protected,omitempty"`
	Masked    []string `json:"masked,omitempty"`
	// Hidden are masked with an empty read-only file or directory.
	Hidden []string `json:"hidden,omitempty"`
	// PrivateShm mounts an empty tmpfs on /dev/shm, writable: POSIX
	// semaphores and shared memory work without writing the host's.
	PrivateShm bool `json:"private_shm,omitempty"`
	// Terminals are the pseudo-terminals on the command's stdio, writable
	// so that it may reopen them.
	Terminals []string `json:"terminals,omitempty"`
	Limits    Limits   `json:"limits"`
	Plan      plan     `json:"plan"`
	// InitCtl is the trampoline's descriptor of the init's control
	// socket: the trampoline execs agentexec-init, which runs the
	// command. 0: no init, the trampoline execs the command.
	InitCtl int `json:"init_ctl,omitempty"`
	// ProxySock is the trampoline's fd of the socket its proxy listener
	// goes back on (proxy_linux.go); proxyFD is a launcher thread's
	// listener, until its Handle takes it. The launcher thread sets it
	// before it reports its layers ready and reads it only once released,
	// so the channels between them order every access.
	ProxySock int `json:"proxy_sock,omitempty"`
	proxyFD   int

	tmpDir string // the per-run temp dir among Writable (not sent)
}

// Handle is a prepared sandboxed command. Its methods are called from the
// goroutine that starts and waits for the command.
type Handle struct {
	cmd     *exec.Cmd
	runSpec Spec
	report  Report
	tempDir string // made by Prepare, removed (or kept for a later run) by Close
	cg      *cgroup
	// The thread launcher's: what it applies, the standby launcher
	// adopted by Prepare, and the launcher once started.
	threadWire *wireSpec
	standby    *launcher
	thread     *launcher
	pdeathsig  syscall.Signal // the caller's SysProcAttr.Pdeathsig
	pidNS      bool           // the command is its PID namespace's init
	active     bool           // counted among the runs going on (runStarted)
	oomBase    uint64         // the cgroup's OOM kills before the run
	oomKilled  bool           // the OOM killer killed in the run's cgroup (set by Close)
	endedClean bool           // see EndedClean (set by the first Close)
	closed     bool           // Close was called
	extraFiles int            // the caller's count of cmd.ExtraFiles
	// The trampoline's:
	spec *os.File // parent's copy of the child's spec fd
	goR  *os.File // parent's copy of the child's end of the go pipe
	goW  *os.File
	// The init's control socket, when the run has an init, and the exec
	// gate, when it is on.
	ctl    *initCtl
	tracer *tracer
	check  func(ExecEvent) ExecVerdict
	argv   []string // the command's own argv, for the exec gate
	none   bool     // profile None with an init: no layers
	// The proxy mode's (proxy_linux.go): the listener a launcher thread
	// made, or the socket pair the trampoline sends it on.
	proxyFD               int
	proxyRecv, proxyChild *os.File
	// ready holds the command before its first instruction until it is
	// closed (StartWhen).
	ready <-chan struct{}
}

// Prepare readies cmd (Path, Args, Env, Dir, stdio and SysProcAttr already
// set, not yet started) for [Handle.Start], which starts it in the sandbox.
// Where this process may (root, a v1 pids cgroup, Linux 6.15), the sandbox
// is applied by a thread of this process and cmd keeps its program;
// otherwise cmd is rewritten to start through the trampoline: Path becomes
// /proc/self/exe, the command and its limits travel on an extra file, and
// namespace clone flags are added to cmd.SysProcAttr (what is there is
// kept). Either way cmd.Start alone would not sandbox it, so a prepared
// cmd must be started with Handle.Start (cmd.Start fails for the thread
// launcher). It returns an *UnavailableError when this host cannot keep
// the profile's promise, and any error leaves cmd unchanged.
//
// For profile None it changes nothing and the Handle's methods do nothing
// but start the command.
func Prepare(cmd *exec.Cmd, spec Spec) (*Handle, error) {
	if cmd.Process != nil {
		return nil, errors.New("sandbox: Prepare after cmd.Start")
	}
	if spec.Profile == None {
		return prepareNone(cmd, spec)
	}
	caps := detectCaps()
	if spec.ExecCheck != nil && !caps.ExecGate {
		return nil, execGateUnavailable(spec.Profile, caps)
	}
	if !threadable(cmd) || threadBroken.Load() {
		caps.ThreadLaunch = false
	}
	p, err := makePlan(spec, caps)
	if err != nil {
		return nil, err
	}
	if !p.Thread && !mainCalled.Load() {
		return nil, errors.New("sandbox: sandbox.Main was not called at the top of main, so this binary cannot be its own trampoline")
	}
	h := &Handle{cmd: cmd, report: p.report(spec)}
	if err := h.prepare(cmd, spec, p); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

func (h *Handle) prepare(cmd *exec.Cmd, spec Spec, p plan) error {
	h.runSpec = spec
	if p.Init {
		if err := h.prepareInit(spec); err != nil {
			return err
		}
	}
	var sb *standby
	if p.Thread {
		if sb = takeStandby(); sb != nil && spec.TempDir == "" && sb.tempDir != "" {
			h.tempDir, sb.tempDir = sb.tempDir, "" // adopted: Close removes it
		}
	}
	w, err := h.wire(cmd, spec, p)
	if err != nil {
		if sb != nil {
			sb.drop()
		}
		return err
	}
	max := spec.Limits.Processes
	if max == 0 {
		max = DefaultProcesses
	}
	if p.Thread {
		max++ // the launcher thread, a member while it forks
	}
	mem := memoryLimit(spec.Limits)
	if sb != nil {
		if sb.fits(w) && sb.l.cg.setMax(max) == nil && sb.l.cg.setMemory(mem) == nil {
			sb.adopt(h)
		} else {
			sb.drop()
		}
	}
	if p.Cgroup != "" && h.cg == nil {
		newCg := newCgroup
		if p.Thread {
			newCg = takeCgroup
		}
		if h.cg, err = newCg(p.Cgroup, max); err != nil {
			return fmt.Errorf("sandbox: making the run's cgroup: %w", err)
		}
	}
	if h.cg != nil {
		if p.CgroupMem && h.cg.mem == "" {
			return errors.New("sandbox: the run's cgroup has no memory controller (the command did not run)")
		}
		if err := h.cg.setMemory(mem); err != nil {
			return fmt.Errorf("sandbox: %w (the command did not run)", err)
		}
		h.oomBase = h.cg.oomKills() // a pooled cgroup counts earlier runs' kills
	}
	h.pidNS = p.PIDNS
	if p.Thread {
		return h.prepareThread(cmd, w)
	}
	return h.rewrite(cmd, w)
}

// prepareNone readies a run without a sandbox: nothing to do, unless the
// exec gate is on, which needs the init (the command must not be this
// process's direct child while it is traced: see tracer_linux.go).
func prepareNone(cmd *exec.Cmd, spec Spec) (*Handle, error) {
	h := &Handle{cmd: cmd, report: Report{Profile: None, Network: "on"}}
	if spec.ExecCheck == nil {
		return h, nil
	}
	caps := detectCaps()
	if !caps.ExecGate {
		return nil, execGateUnavailable(None, caps)
	}
	if err := h.prepareInit(spec); err != nil {
		return nil, err
	}
	h.none, h.argv = true, cmd.Args
	if len(h.argv) == 0 {
		h.argv = []string{cmd.Path}
	}
	if err := withInit(cmd, h.ctl.child, cmd.Path, h.argv); err != nil {
		h.Close()
		return nil, err
	}
	h.report.Init, h.report.Layers = true, []string{"exec-gate"}
	return h, nil
}

// prepareInit makes the init's control socket, and the exec gate's
// tracer when the Spec has a check.
func (h *Handle) prepareInit(spec Spec) error {
	ctl, err := newInitCtl()
	if err != nil {
		return err
	}
	h.ctl, h.check = ctl, spec.ExecCheck
	return nil
}

// wire resolves the Spec against cmd into what the trampoline needs.
func (h *Handle) wire(cmd *exec.Cmd, spec Spec, p plan) (*wireSpec, error) {
	dir, err := workDir(cmd, spec)
	if err != nil {
		return nil, err
	}
	w := &wireSpec{Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: dir, Network: spec.Network, Limits: spec.Limits, Plan: p}
	if !p.CgroupMem && w.Limits.AddressSpace == 0 && spec.Limits.Memory > 0 {
		// No memory cgroup: a cap asked for falls back on each process's
		// address space (not the default cap: see Limits.Memory).
		w.Limits.AddressSpace = spec.Limits.Memory
	}
	if w.Env == nil {
		w.Env = os.Environ()
	}
	if len(w.Args) == 0 {
		w.Args = []string{cmd.Path}
	}
	w.Env = setEnv(w.Env, "AGENTEXEC_SANDBOX", string(spec.Profile))
	switch {
	case spec.Proxy:
		w.Env = withProxyEnv(dropAgentEnv(w.Env))
	case !spec.Network:
		w.Env = setEnv(dropAgentEnv(w.Env), "AGENTEXEC_SANDBOX_NETWORK_DISABLED", "1")
	}
	if spec.Profile == WorkspaceWrite {
		if err := h.writable(w, spec); err != nil {
			return nil, err
		}
		w.PrivateShm = dirExists("/dev/shm")
	}
	for _, r := range spec.ReadableRoots {
		w.Readable = append(w.Readable, resolve(r))
	}
	var notes []string
	w.Protected, notes = protected(w, spec)
	h.report.Notes = append(h.report.Notes, notes...)
	w.Hidden = hidden(spec)
	h.report.Masks, h.report.ReadOnly = w.Hidden, readOnlyPaths(w, spec)
	w.Terminals = terminals(cmd)
	// Masked whatever the network: a command that reaches the Docker or
	// containerd socket can start a privileged container and write
	// anywhere, which no profile but none allows.
	w.Masked = existingSockets(hostSockets)
	if p.UnixMasks {
		w.Masked = dedupe(append(w.Masked, unixSocketsOutside(w.Writable)...))
	}
	return w, nil
}

// writable fills the writable roots: the workspace, the temp dir (made
// here when the Spec has none) and the extra roots that exist.
func (h *Handle) writable(w *wireSpec, spec Spec) error {
	tmp := spec.TempDir
	switch {
	case tmp == "" && h.tempDir != "" && dirExists(h.tempDir): // a standby's, adopted
		tmp = h.tempDir
	case tmp == "": // none, or the adopted one was removed since (a temp cleaner)
		var err error
		if tmp, err = takeTempDir(); err != nil {
			return fmt.Errorf("sandbox: making the per-run temp dir: %w", err)
		}
		h.tempDir = tmp
	case !dirExists(tmp):
		return fmt.Errorf("sandbox: Spec.TempDir: %s is not a directory", tmp)
	}
	tmp = resolve(tmp)
	w.tmpDir = tmp
	w.Env = setEnv(w.Env, "TMPDIR", tmp)
	w.Writable = append(w.Writable, workspaceDir(w.Dir, spec), tmp)
	for _, r := range spec.WritableRoots {
		if _, err := os.Stat(r); err == nil {
			w.Writable = append(w.Writable, resolve(r))
		}
	}
	w.Writable = dedupe(w.Writable)
	return nil
}

// workspaceDir is the writable directory the Spec names: Spec.Cwd, or the
// command's directory dir when it names none. The command's directory is
// never writable as such: a caller that fixed the workspace decides what
// may be written, wherever the command starts.
func workspaceDir(dir string, spec Spec) string {
	if spec.Cwd == "" {
		return dir
	}
	return resolve(spec.Cwd)
}

// workDir is the command's directory: cmd.Dir, else Spec.Cwd, else ours.
func workDir(cmd *exec.Cmd, spec Spec) (string, error) {
	dir := cmd.Dir
	if dir == "" {
		dir = spec.Cwd
	}
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return "", fmt.Errorf("sandbox: Spec.Cwd: %w", err)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("sandbox: Spec.Cwd: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("sandbox: Spec.Cwd: %w", err)
	}
	return real, nil
}

// resolve makes p absolute with symlinks resolved, as the kernel sees it in
// mountinfo; a path that cannot be resolved is kept cleaned.
func resolve(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// protected lists the paths bound read-only over the writable roots of
// w: Spec.ProtectedPaths and, with ProtectGit, the .git of every
// repository found under each root (nestedGit), with a note for a root
// whose search stopped at its bound.
func protected(w *wireSpec, spec Spec) (paths, notes []string) {
	for _, p := range spec.ProtectedPaths {
		// Outside the writable roots everything is read-only already.
		if r := resolve(p); withinAny(r, w.Writable) {
			paths = append(paths, r)
		}
	}
	if spec.ProtectGit {
		for _, r := range w.Writable {
			found, complete := nestedGit(r, r != w.tmpDir) // a fresh temp dir each run: not remembered
			paths = append(paths, found...)
			if !complete {
				notes = append(notes, fmt.Sprintf("protect_git: the search for nested repositories under %s stopped after %d directories; a .git deeper in it is writable", r, gitWalkMaxDirs))
			}
		}
	}
	return dedupe(paths), notes
}

// hidden lists Spec.HiddenPaths that exist, resolved: a mask over a
// symbolic link hides what it points to, wherever it is reached from.
func hidden(spec Spec) []string {
	var out []string
	for _, p := range spec.HiddenPaths {
		if _, err := os.Lstat(p); err == nil {
			out = append(out, resolve(p))
		}
	}
	return dedupe(out)
}

// readOnlyPaths lists what the Report shows among the protected paths of
// w: Spec.ProtectedPaths that exist inside a writable root (the .git
// directories found are not listed).
func readOnlyPaths(w *wireSpec, spec Spec) []string {
	var out []string
	for _, p := range spec.ProtectedPaths {
		if r := resolve(p); withinAny(r, w.Writable) && exists(r) {
			out = append(out, r)
		}
	}
	return dedupe(out)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// terminals lists the pseudo-terminals among cmd's stdio files.
func terminals(cmd *exec.Cmd) []string {
	var out []string
	for _, s := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		f, ok := s.(*os.File)
		if !ok || f == nil {
			continue
		}
		// Through SyscallConn: File.Fd would put the file in blocking mode.
		rc, err := f.SyscallConn()
		if err != nil {
			continue
		}
		rc.Control(func(fd uintptr) {
			if p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fd))); err == nil && strings.HasPrefix(p, "/dev/pts/") {
				out = append(out, p)
			}
		})
	}
	return dedupe(out)
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func existingSockets(paths []string) []string {
	var out []string
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			out = append(out, p)
		}
	}
	return out
}

// setEnv sets key=value in env, replacing any earlier value.
func setEnv(env []string, key, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return append(out, key+"="+value)
}

// rewrite points cmd at the trampoline: the spec on a sealed memfd and the
// read end of the go pipe as extra files whose numbers are in argv.
func (h *Handle) rewrite(cmd *exec.Cmd, w *wireSpec) error {
	h.argv = w.Args
	n := 3 + len(cmd.ExtraFiles)
	if err := h.proxySocket(w, n+2); err != nil {
		return err
	}
	if h.ctl != nil {
		w.InitCtl = n + 2 // after the spec, the go pipe and the proxy socket
		if w.Plan.Proxy {
			w.InitCtl = n + 3
		}
	}
	spec, err := specFile(w)
	if err != nil {
		return err
	}
	h.spec = spec
	if h.goR, h.goW, err = os.Pipe(); err != nil {
		return fmt.Errorf("sandbox: go pipe: %w", err)
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, h.spec, h.goR)
	if h.proxyChild != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, h.proxyChild)
	}
	if h.ctl != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, h.ctl.child)
	}
	cmd.Path = "/proc/self/exe"
	cmd.Args = []string{trampolineName, strconv.Itoa(n), strconv.Itoa(n + 1)}
	cmd.Env = []string{} // the command's environment is in the spec
	cmd.Dir = w.Dir
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	addCloneFlags(cmd.SysProcAttr, w.Plan)
	return nil
}

func addCloneFlags(a *syscall.SysProcAttr, p plan) {
	if p.MountNS {
		a.Cloneflags |= unix.CLONE_NEWNS
	}
	if p.PIDNS {
		a.Cloneflags |= unix.CLONE_NEWPID
	}
	if p.IPCNS {
		a.Cloneflags |= unix.CLONE_NEWIPC
	}
	if p.NetNS {
		a.Cloneflags |= unix.CLONE_NEWNET
	}
	if p.UserNS {
		// The uid keeps its number inside (files keep their owners), so
		// the trampoline is not root there and would lose its namespace
		// capabilities at exec: it keeps the two it needs as ambient ones
		// and drops them before it execs the command.
		a.Cloneflags |= unix.CLONE_NEWUSER
		setIDMaps(a)
		a.AmbientCaps = append(a.AmbientCaps, unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP)
		if p.Proxy {
			a.AmbientCaps = append(a.AmbientCaps, unix.CAP_NET_ADMIN) // lo up in its netns
		}
	}
}

// specFile writes w to a memfd sealed against change.
func specFile(w *wireSpec) (*os.File, error) {
	b, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("sandbox: encoding the spec: %w", err)
	}
	fd, err := unix.MemfdCreate("agentexec-sandbox-spec", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("sandbox: memfd for the spec: %w", err)
	}
	f := os.NewFile(uintptr(fd), "agentexec-sandbox-spec")
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: writing the spec: %w", err)
	}
	seals := unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: sealing the spec: %w", err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: rewinding the spec: %w", err)
	}
	return f, nil
}

// Start starts the prepared command in its sandbox, in place of
// cmd.Start. On error the command is not running (it never ran, or was
// killed before its first instruction and reaped): do not Wait. Only the
// command's standard files and cmd.ExtraFiles reach it ([CloseInherited]).
func (h *Handle) Start() error { return h.StartWhen(nil) }

// StartWhen is Start with the command held before its first instruction
// until ready is closed (nil: not held): the run's init, its namespaces
// and its layers are made meanwhile, so that what the caller must finish
// before the command may run (an audit record's sync) overlaps with them.
// Without an init to hold (no exec gate and no built init), it waits for
// ready before starting anything.
func (h *Handle) StartWhen(ready <-chan struct{}) error {
	if err := CloseInherited(); err != nil {
		return fmt.Errorf("sandbox: closing inherited files: %w (the command did not run)", err)
	}
	h.ready = ready
	if h.ctl == nil {
		h.awaitReady() // nothing holds the command once it starts
	}
	if err := h.beginTracer(); err != nil {
		return err
	}
	if err := h.releaseEarly(); err != nil {
		return err
	}
	var err error
	switch {
	case h.threadWire != nil:
		err = h.startThread()
	case h.goW == nil: // profile None
		err = h.cmd.Start()
	default:
		err = h.startTrampoline()
	}
	if err != nil || h.ctl == nil {
		if h.ctl != nil {
			h.ctl.started()
		}
		return err
	}
	h.awaitReady() // the init waits for its go byte: the command is not forked yet
	return h.releaseInit()
}

// awaitReady waits until the caller's ready channel (StartWhen) is closed,
// once.
func (h *Handle) awaitReady() {
	if h.ready != nil {
		<-h.ready
		h.ready = nil
	}
}

// beginTracer has the exec gate's tracer, when it is on, wait for the
// command's filter before the init starts.
func (h *Handle) beginTracer() error {
	if h.ctl == nil || h.check == nil {
		return nil
	}
	t, err := newTracer(h.check, h.ctl, h.argv)
	if err != nil {
		return fmt.Errorf("%w (the command did not run)", err)
	}
	h.tracer = t
	t.begin()
	return nil
}

// releaseEarly sends the init of a run without a sandbox its go byte
// before the init starts, when nothing holds the command (no record to
// wait for): the init reads it as soon as it runs and forks the command at
// once, instead of after os/exec's Start returned and this process wrote
// it — 0.1 ms after the init's exec in a trace of BenchmarkExecGate/true/none,
// on the path of every such run. Only that run's: a sandboxed run's init
// waits until its layers are complete (its rlimits and cgroup come after
// its start). The tracer may then see the command before it is told the
// init's pid (see tracer.initProcess).
func (h *Handle) releaseEarly() error {
	if !h.none || h.ctl == nil || (h.check != nil && h.tracer == nil) {
		return nil
	}
	if h.ready != nil {
		select {
		case <-h.ready:
			h.ready = nil
		default:
			return nil // held: released once ready is closed
		}
	}
	return h.ctl.release(h.tracer != nil)
}

// releaseInit lets the started init fork the command, under the exec
// gate's filter when the gate is on (its tracer waits for it already).
func (h *Handle) releaseInit() error {
	h.ctl.started()
	if h.check != nil && h.tracer == nil {
		return h.abort(errors.New("sandbox: exec gate: no tracer waits for the command")) // never ungated
	}
	if h.tracer != nil {
		h.tracer.started(h.cmd.Process.Pid)
	}
	if err := h.ctl.release(h.tracer != nil); err != nil {
		return h.abort(err) // the init's end closes: the tracer ends
	}
	return nil
}

// Outcome says what the sandbox knows of the finished run beyond os/exec's
// ProcessState. Call it after Wait.
func (h *Handle) Outcome() Outcome {
	var o Outcome
	if h.ctl == nil {
		return o
	}
	h.ctl.results()
	if h.ctl.hasStatus {
		ws := h.ctl.status
		o.Known = true
		if ws.Signaled() {
			o.Signaled, o.Signal, o.Code = true, ws.Signal(), -1
		} else {
			o.Code = ws.ExitStatus()
		}
	}
	if e := h.ctl.execErrno; e != 0 {
		o.StartErr = fmt.Errorf("%s: %w", h.execPath(), e)
	}
	if h.tracer != nil {
		if err := h.tracer.attachError(); err != nil {
			o.StartErr = err
		}
	}
	return o
}

// OwnPIDNamespace reports whether the run's first process is PID 1 of a
// PID namespace of its own (call it after Start): once that process has
// exited, the kernel has ended every other process of the run (a PID
// namespace's init is not reported dead before the rest of its namespace
// is gone), and none can have left the namespace.
func (h *Handle) OwnPIDNamespace() bool { return h.pidNS }

// CommandPID is the command's pid when the run has an exec gate and it has
// attached (the command is then the init's child, in a process group of
// its own), else 0.
func (h *Handle) CommandPID() int {
	if h.tracer == nil {
		return 0
	}
	return int(h.tracer.rootPID.Load())
}

func (h *Handle) execPath() string {
	if len(h.cmd.Args) > 2 {
		return h.cmd.Args[2] // agentexec-init CTL PATH ...
	}
	return h.cmd.Path
}

// startTrampoline starts the trampoline and releases it.
func (h *Handle) startTrampoline() error {
	if err := h.cmd.Start(); err != nil {
		return err
	}
	if err := h.started(); err != nil {
		return h.abort(err)
	}
	return nil
}

// started runs right after the trampoline started: it moves the
// trampoline into the run's pids cgroup and only then lets it go on, so the
// command never runs outside the cgroup. On error the trampoline exits 126
// without running the command.
func (h *Handle) started() error {
	if h.goW == nil {
		return nil
	}
	h.closeChildEnds()
	defer func() { h.goW.Close(); h.goW = nil }()
	if h.cmd.Process == nil {
		return errors.New("sandbox: Started before cmd.Start")
	}
	if h.cg != nil {
		if err := h.cg.add(h.cmd.Process.Pid); err != nil {
			return fmt.Errorf("sandbox: moving the command into its pids cgroup: %w", err)
		}
	}
	if _, err := h.goW.Write([]byte{1}); err != nil {
		return fmt.Errorf("sandbox: releasing the trampoline: %w", err)
	}
	return nil
}

func (h *Handle) closeChildEnds() {
	for _, f := range []**os.File{&h.spec, &h.goR, &h.proxyChild} {
		if *f != nil {
			(*f).Close()
			*f = nil
		}
	}
}

// Report says which layers apply to the run.
func (h *Handle) Report() Report { return h.report }

// Kill ends the run as a unit, for a timeout or a cancel once its grace
// period is over: SIGKILL to the command when it is its PID namespace's
// init (the kernel then kills every process of the namespace, however
// many there are, and none can fork on), and to every process of the
// run's cgroup. Safe to call after the command exited and more than once.
func (h *Handle) Kill() {
	if h.pidNS && h.cmd.Process != nil {
		h.cmd.Process.Signal(syscall.SIGKILL) // a pidfd: never another process
	}
	if h.cg != nil {
		h.cg.killAll()
	}
}

// OOMKilled reports whether the kernel's OOM killer killed a process of
// the run because it reached its memory cap (known after Close).
func (h *Handle) OOMKilled() bool { return h.oomKilled }

// EndedClean reports, after Close, whether the run is known to have left
// no process this one may have to reap: its exec gate saw every process
// under its filter reaped before Close (the filter's listener hangs up
// only then) having refused none, and the run had no cgroup whose
// survivors Close would kill. False when unknown (no exec gate), so a
// caller that reaps the run's leftover zombies after Close does.
func (h *Handle) EndedClean() bool { return h.endedClean }

// Close releases what Prepare made: it ends the launcher thread (whose end
// kills a command still running, by the parent-death signal), kills what
// is left in the pids cgroup and removes it, and removes the temp dir
// Prepare created. Call it after Wait (or when Start failed). It is safe
// to call more than once.
func (h *Handle) Close() error {
	h.stopTracer()
	if !h.closed {
		h.closed = true
		h.endedClean = h.tracer != nil && h.cg == nil && h.tracer.isDrained()
	}
	if h.ctl != nil {
		h.ctl.results() // while the socket is open
		h.ctl.close()
	}
	if h.standby != nil { // prepared, never started
		h.standby.discard()
		<-h.standby.cleaned // out of the cgroup
		h.standby = nil
	}
	if h.active {
		runClosed()
		h.active = false
	}
	if h.thread != nil {
		// Not waited for: the thread left the cgroup at the fork, and
		// its namespaces go with it, off the caller's path (a mount
		// namespace's teardown waits for an RCU grace period).
		close(h.thread.release)
		h.thread = nil
	}
	h.closeChildEnds()
	if h.goW != nil {
		h.goW.Close()
		h.goW = nil
	}
	h.closeProxy()
	var errs []error
	if h.cg != nil {
		h.oomKilled = h.oomKilled || h.cg.oomKills() > h.oomBase
		if h.threadWire != nil {
			errs = append(errs, h.cg.recycle())
		} else {
			errs = append(errs, h.cg.remove())
		}
		h.cg = nil
	}
	if h.tempDir != "" {
		// Kept only after a run that got its own PID namespace and was
		// waited for: a Handle closed before its start or before Wait
		// may have processes that can still write there.
		waited := h.cmd.ProcessState != nil
		errs = append(errs, recycleTempDir(h.tempDir, h.pidNS && waited))
		h.tempDir = ""
	}
	return errors.Join(errs...)
}

// tracerGrace bounds Close's wait for the exec gate's tracer to see its
// last tracee go, after the init was killed.
const tracerGrace = 2 * time.Second

// stopTracer ends the run's exec gate: the init is killed (after Wait it
// is gone already), and Close returns once the tracer has no tracee left,
// so that no ExecCheck runs after Close.
func (h *Handle) stopTracer() {
	t := h.tracer
	if t == nil {
		return
	}
	select {
	case <-t.done:
		return
	default:
	}
	if h.cmd.Process != nil && h.cmd.ProcessState == nil {
		h.cmd.Process.Kill()
	}
	t.end()
	timer := time.NewTimer(tracerGrace)
	defer timer.Stop()
	select {
	case <-t.done:
	case <-timer.C:
	}
}
