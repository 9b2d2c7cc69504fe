package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// The exec gate traces the command and everything it starts with ptrace,
// from a thread of this process kept for it (a tracer thread), and judges
// every exec at its PTRACE_EVENT_EXEC stop: the new program has one thread
// and a fresh memory map and has run no instruction, so its argv
// (/proc/PID/cmdline, read from that memory), its executable
// (/proc/PID/exe) and its directory cannot change between the reading and
// the verdict — except the directory of a process that shares its
// filesystem context with another (clone with CLONE_FS but not
// CLONE_THREAD), which that other process may change at any time; the
// filesystem sandbox, not the exec gate, bounds what a program can write.
//
// The init (init_linux.go) is never traced: the command, its child, waits
// on the control socket until the tracer has attached to it
// (PTRACE_SEIZE with the exec, fork, vfork and clone events, so that every
// descendant, thread and daemon is traced from its first instruction),
// then execs. The command's own first exec is the request itself, decided
// by the static gate already, and is not judged again. Keeping the init
// untraced keeps os/exec's Wait for it away from ptrace stops: a process
// traced by a thread of its parent's process reports its stops to every
// wait of that process. The tracer thread never forks, so its waits
// (__WNOTHREAD) see its tracees only, never another run's processes.
//
// A refused program is killed at its exec stop, then the init, which ends
// the PID namespace (or, without one, leaves the rest to the run's process
// tree cleanup). PTRACE_O_EXITKILL kills the tracees should the tracer
// thread ever end.

const traceOptions = unix.PTRACE_O_TRACEEXEC | unix.PTRACE_O_TRACEFORK | unix.PTRACE_O_TRACEVFORK |
	unix.PTRACE_O_TRACECLONE | unix.PTRACE_O_EXITKILL

// tracer is the exec gate of one run.
type tracer struct {
	check    func(ExecEvent) ExecVerdict
	ctl      *initCtl
	initPID  int
	rootArgv []string
	done     chan struct{} // closed when no tracee is left

	mu  sync.Mutex
	err error // the gate could not attach: the command never ran
	// rootPID is the command's pid once the tracer attached to it.
	rootPID atomic.Int64

	// Owned by the tracer thread.
	root     int
	rootExec bool
	ended    bool // a program was refused: every further exec is too
	procs    map[int]*traced
	held     map[int]heldExec
	buf      []byte
	path     []byte
}

// traced is what the tracer knows of one tracee.
type traced struct {
	image *image // the program it runs; nil until its parent's fork event
	early bool   // stopped at its first stop before its parent's fork event: resumed then
}

// image is a program a process runs.
type image struct {
	pid  int
	argv []string
}

type heldExec struct {
	wait <-chan bool
	argv []string
}

// newTracer makes the exec gate of a run whose init talks on ctl. The
// tracer reads and writes a copy of ctl's descriptor, its own until it is
// done: the Handle may close its own first.
func newTracer(check func(ExecEvent) ExecVerdict, ctl *initCtl, rootArgv []string) (*tracer, error) {
	fd, err := unix.FcntlInt(uintptr(ctl.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: exec gate: %w", err)
	}
	return &tracer{check: check, ctl: &initCtl{fd: fd}, rootArgv: rootArgv, done: make(chan struct{}),
		procs: map[int]*traced{}, held: map[int]heldExec{}}, nil
}

// start has a tracer thread attach to the init's child once it is ready,
// and trace the run. initPID is the init, killed when the gate cannot
// attach.
func (t *tracer) start(initPID int) {
	t.initPID = initPID
	tracerThread(t)
}

// attachError is why the gate could not attach, once done is closed.
func (t *tracer) attachError() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// tracers are the idle tracer threads: a thread traces one run at a time
// and is kept for the next (a thread made per run cost about as much as
// the run's own gate events).
var tracers struct {
	sync.Mutex
	idle []chan *tracer
}

const maxIdleTracers = 1

func tracerThread(t *tracer) {
	tracers.Lock()
	if n := len(tracers.idle); n > 0 {
		ch := tracers.idle[n-1]
		tracers.idle = tracers.idle[:n-1]
		tracers.Unlock()
		ch <- t
		return
	}
	tracers.Unlock()
	ch := make(chan *tracer, 1)
	ch <- t
	goChildless(func() {
		for t := range ch {
			t.run()
			tracers.Lock()
			if len(tracers.idle) >= maxIdleTracers {
				tracers.Unlock()
				return // the thread ends with its goroutine
			}
			tracers.idle = append(tracers.idle, ch)
			tracers.Unlock()
		}
	})
}

// goChildless is goLocked on a thread that has no child process: a
// tracer's waits (__WNOTHREAD) see its thread's children too, and one that
// reaped a child forked there before (os/exec forks on whichever thread
// its goroutine runs on) would take its exit from that child's Wait. The
// thread never forks afterwards (it runs only f), and orphans are
// reparented to the main thread, never a tracer.
func goChildless(f func()) {
	goLocked(func() {
		if !threadHasChildren() {
			f()
			return
		}
		moved := make(chan struct{})
		// This thread stays locked until f runs elsewhere, so the new
		// goroutine gets another one (a new thread at worst).
		goChildless(func() {
			close(moved)
			f()
		})
		<-moved
		runtime.UnlockOSThread()
	})
}

// threadHasChildren reports whether the calling thread has child
// processes (zombies count), or cannot tell.
func threadHasChildren() bool {
	b, err := os.ReadFile("/proc/thread-self/children")
	if err != nil {
		return true
	}
	for _, c := range b {
		if c != ' ' && c != '\n' {
			return true
		}
	}
	return false
}

func (t *tracer) run() {
	defer close(t.done)
	defer t.ctl.close()
	pid, err := t.ctl.waitReady()
	if err == nil {
		err = ptraceSeize(pid, traceOptions)
		if err != nil {
			err = fmt.Errorf("attaching to the command: %w", err)
		}
	}
	if err == nil {
		if err = t.ctl.resume(); err != nil {
			err = fmt.Errorf("releasing the command: %w", err)
		}
	}
	if err != nil {
		t.mu.Lock()
		t.err = fmt.Errorf("sandbox: exec gate: %w (the command did not run)", err)
		t.mu.Unlock()
		unix.Kill(t.initPID, unix.SIGKILL)
		return
	}
	t.root = pid
	t.rootPID.Store(int64(pid))
	t.procs[pid] = &traced{image: &image{pid: pid, argv: t.rootArgv}}
	t.loop()
}

func ptraceSeize(pid int, options int) error {
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_SEIZE, uintptr(pid), 0, uintptr(options), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func ptraceCont(pid int, sig int) {
	unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_CONT, uintptr(pid), 0, uintptr(sig), 0, 0)
}

func ptraceListen(pid int) {
	unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_LISTEN, uintptr(pid), 0, 0, 0, 0)
}

// heldPoll is how often held execs are looked at while an answer is
// awaited: the tracer thread cannot block on both a channel and wait4.
const heldPoll = 2 * time.Millisecond

// loop services the tracees until none is left.
func (t *tracer) loop() {
	for {
		opts := unix.WALL | unix.WNOTHREAD
		if len(t.held) > 0 {
			opts |= unix.WNOHANG
		}
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, opts, nil)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil: // ECHILD: no tracee left
			return
		case pid == 0:
			t.pollHeld()
			if len(t.held) > 0 {
				time.Sleep(heldPoll)
			}
			continue
		}
		t.event(pid, ws)
	}
}

func (t *tracer) event(pid int, ws unix.WaitStatus) {
	if ws.Exited() || ws.Signaled() {
		delete(t.procs, pid)
		delete(t.held, pid)
		return
	}
	if !ws.Stopped() {
		return
	}
	sig := ws.StopSignal()
	switch event := int(uint32(ws) >> 16); event {
	case unix.PTRACE_EVENT_EXEC:
		t.exec(pid)
	case unix.PTRACE_EVENT_FORK, unix.PTRACE_EVENT_VFORK, unix.PTRACE_EVENT_CLONE:
		t.forked(pid)
		ptraceCont(pid, 0)
	case unix.PTRACE_EVENT_STOP:
		switch sig {
		case unix.SIGSTOP, unix.SIGTSTP, unix.SIGTTIN, unix.SIGTTOU:
			ptraceListen(pid) // a group stop: stopped it stays
			return
		}
		// The first stop of a new tracee.
		p := t.procs[pid]
		if p == nil {
			t.procs[pid] = &traced{early: true} // resumed at its parent's fork event
			return
		}
		ptraceCont(pid, 0)
	default: // a signal on its way: delivered
		ptraceCont(pid, int(sig))
	}
}

// forked records the child pid just made: it runs pid's program.
func (t *tracer) forked(pid int) {
	msg, err := unix.PtraceGetEventMsg(pid)
	if err != nil {
		return
	}
	child := int(msg)
	var img *image
	if p := t.procs[pid]; p != nil {
		img = p.image
	}
	if c := t.procs[child]; c != nil && c.early {
		c.image, c.early = img, false
		ptraceCont(child, 0)
		return
	}
	t.procs[child] = &traced{image: img}
}

// exec judges the program pid is about to run.
func (t *tracer) exec(pid int) {
	if old, err := unix.PtraceGetEventMsg(pid); err == nil && int(old) != pid {
		// A thread other than the leader exec'd: it has the leader's
		// pid now, and its own is gone without an exit report.
		delete(t.procs, int(old))
	}
	p := t.procs[pid]
	if p == nil {
		p = &traced{}
		t.procs[pid] = p
	}
	if pid == t.root && !t.rootExec {
		t.rootExec = true // the request itself
		ptraceCont(pid, 0)
		return
	}
	if t.ended {
		t.refuse(pid)
		return
	}
	ev, err := t.read(pid)
	if err != nil {
		t.refuse(pid) // cannot be judged: refused
		return
	}
	if p.image != nil {
		ev.Caller, ev.CallerPID = p.image.argv, p.image.pid
	}
	v := t.check(ev)
	switch {
	case v.Wait != nil:
		t.held[pid] = heldExec{wait: v.Wait, argv: ev.Argv}
	case v.Allow:
		p.image = &image{pid: pid, argv: ev.Argv}
		ptraceCont(pid, 0)
	default:
		t.refuse(pid)
	}
}

// pollHeld applies the answers that came for held execs.
func (t *tracer) pollHeld() {
	for pid, h := range t.held {
		select {
		case ok := <-h.wait:
			delete(t.held, pid)
			if ok && !t.ended {
				if p := t.procs[pid]; p != nil {
					p.image = &image{pid: pid, argv: h.argv}
				}
				ptraceCont(pid, 0)
			} else {
				t.refuse(pid)
			}
		default:
		}
	}
}

// refuse kills pid before its new program runs, and ends the run: the
// init and every process of the run first, so that none (the refused
// program's parent, say) runs another instruction after the refusal (a
// PID namespace's end, and the parent-death signal, come too late for
// that).
func (t *tracer) refuse(pid int) {
	if !t.ended {
		t.ended = true
		unix.Kill(t.initPID, unix.SIGKILL)
		me := unix.Gettid()
		for p := range t.procs {
			if p != pid && tracedBy(p, me) {
				unix.Kill(p, unix.SIGKILL)
			}
		}
	}
	unix.Kill(pid, unix.SIGKILL)
}

// tracedBy reports whether tracer traces pid: a pid the tracer lost
// track of may have been reused by a process of another run.
func tracedBy(pid, tracer int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	return err == nil && statusField(string(b), "TracerPid:") == tracer
}

// read reads pid's new program at its exec stop.
func (t *tracer) read(pid int) (ExecEvent, error) {
	ev := ExecEvent{PID: pid}
	argv, err := t.cmdline(pid)
	if err != nil {
		return ev, err
	}
	ev.Argv = argv
	if ev.Exe, err = t.readlink(pid, "exe"); err != nil {
		return ev, err
	}
	if ev.Cwd, err = t.readlink(pid, "cwd"); err != nil {
		return ev, err
	}
	return ev, nil
}

func (t *tracer) procPath(pid int, file string) string {
	t.path = append(t.path[:0], "/proc/"...)
	t.path = strconv.AppendInt(t.path, int64(pid), 10)
	t.path = append(t.path, '/')
	t.path = append(t.path, file...)
	return string(t.path)
}

// maxCmdline bounds the argv read: the kernel's own bound on argv and the
// environment together is a quarter of the stack limit.
const maxCmdline = 32 << 20

func (t *tracer) cmdline(pid int) ([]string, error) {
	fd, err := unix.Open(t.procPath(pid, "cmdline"), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	if t.buf == nil {
		t.buf = make([]byte, 4096)
	}
	n := 0
	for {
		if n == len(t.buf) {
			if len(t.buf) >= maxCmdline {
				return nil, errors.New("argv too long to judge")
			}
			t.buf = append(t.buf, make([]byte, len(t.buf))...)
		}
		m, err := unix.Read(fd, t.buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	return splitNUL(t.buf[:n]), nil
}

// splitNUL splits a NUL-terminated list; argv has one string per NUL.
func splitNUL(b []byte) []string {
	if len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	s := string(b)
	count := 1
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			count++
		}
	}
	out := make([]string, 0, count)
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func (t *tracer) readlink(pid int, file string) (string, error) {
	var buf [unix.PathMax]byte
	n, err := unix.Readlink(t.procPath(pid, file), buf[:])
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// execGateAvailable reports whether this process can trace its runs, and
// why not.
func execGateAvailable(init bool) (bool, string) {
	if !init {
		return false, "exec gate: needs agentexec-init (see init above)"
	}
	if b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope"); err == nil {
		switch s := string(b); {
		case len(s) > 0 && s[0] == '3':
			return false, "exec gate: Yama ptrace_scope is 3, which forbids all tracing"
		case len(s) > 0 && s[0] == '2' && !hasCap(unix.CAP_SYS_PTRACE):
			return false, "exec gate: Yama ptrace_scope is 2, which lets only CAP_SYS_PTRACE trace, and this process does not have it"
		}
	}
	// A pid that cannot exist: the kernel says ESRCH, a seccomp filter
	// that forbids ptrace says something else (EPERM under Docker's).
	if err := ptraceSeize(1<<30, 0); err != unix.ESRCH {
		return false, fmt.Sprintf("exec gate: ptrace is refused here (%v): a seccomp filter or a security module forbids it", err)
	}
	if pid := tracerPid(); pid != 0 {
		return false, fmt.Sprintf("exec gate: this process is traced (by pid %d), and a tracer that follows forks would hold the commands first", pid)
	}
	return true, ""
}

// execGateMechanism is what sandbox detect says the gate is.
const execGateMechanism = "ptrace: every exec, fork, vfork and clone of the run is traced (PTRACE_SEIZE from a thread of this process); each program is judged at its exec stop, before its first instruction, on its argv, executable and directory"

func hasCap(c int) bool {
	eff, err := capEff()
	return err == nil && eff&(1<<uint(c)) != 0
}

// tracerPid reads TracerPid from /proc/self/status.
func tracerPid() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	return statusField(string(b), "TracerPid:")
}

// statusField is the number after key at the start of a line of a
// /proc status file (0 when absent).
func statusField(status, key string) int {
	for line := range strings.SplitSeq(status, "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}
