package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/agentexec/agentexec/internal/procfs"
	"golang.org/x/sys/unix"
)

// The exec gate stops every execve and execveat of the command and of
// everything it starts with a seccomp filter that agentexec-init installs
// in the command before the command's own exec (SECCOMP_RET_USER_NOTIF,
// inherited by every descendant, thread and daemon, and impossible to
// remove), and judges each program at its PTRACE_EVENT_EXEC stop: the new
// program has one thread and a fresh memory map and has run no
// instruction, so its argv (/proc/PID/cmdline, read from that memory),
// its executable (/proc/PID/exe) and its directory cannot change between
// the reading and the verdict — except the directory of a process that
// shares its filesystem context with another (clone with CLONE_FS but not
// CLONE_THREAD), which that other process may change at any time; the
// filesystem sandbox, not the exec gate, bounds what a program can write.
//
// For each notification the tracer thread attaches to the calling thread
// (PTRACE_SEIZE with only the exec event), checks that the notification
// is still the thread's (its id still valid, so the pid was not reused),
// lets the call go on (SECCOMP_USER_NOTIF_FLAG_CONTINUE), and interrupts
// the thread (PTRACE_INTERRUPT), so that the thread stops soon whatever
// the call does: at the exec stop when the exec succeeds (the interrupt is
// dropped when the tracer detaches there), at an interrupt stop on its way
// back to user space when it fails (an execvp that tries each directory of
// PATH) — then the tracer detaches and the next attempt is notified anew.
// Nothing but execs is traced: forks, exits and signals of the run go on
// without a stop for the tracer, which is what made tracing every fork cost
// 1.5 to 2 times a plain shell loop. The arguments the caller passed are
// never read from its memory, which another of its threads could change:
// only the new program's.
//
// The command's own first exec is the request itself, decided by the
// static gate already, and is let through unjudged. Should the tracer be
// gone (Close, or this process dead), the listener is closed and every
// later exec of the run fails with ENOSYS: the gate fails closed. The
// tracer thread never forks, so its waits (__WNOTHREAD) see its tracees
// only, never another run's processes.
//
// A refused program is killed at its exec stop, then the init, which ends
// the PID namespace, and the command's process group (without a PID
// namespace, the rest is left to the run's process tree cleanup; no
// process of the run can exec anything after the refusal, every exec
// being refused from then on). PTRACE_O_EXITKILL kills the tracees should
// the tracer thread ever end.

const traceOptions = unix.PTRACE_O_TRACEEXEC | unix.PTRACE_O_EXITKILL

// tracer is the exec gate of one run.
type tracer struct {
	check func(ExecEvent) ExecVerdict
	ctl   *initCtl
	// stop is an eventfd: Close writes it to end the tracer.
	stop int
	// initPID is the init, killed when the gate cannot be set up; 0
	// until the init started (the tracer thread waits for the command's
	// filter from before then).
	initPID atomic.Int64
	// rootArgv is the command's argv: what the init started.
	rootArgv []string
	done     chan struct{} // closed when the tracer is done with the run

	mu  sync.Mutex
	err error // the gate could not attach: the command never ran
	// rootPID is the command's pid once its filter is in place.
	rootPID atomic.Int64

	// Owned by the tracer thread.
	listener int
	root     int
	rootExec bool
	ended    bool // a program was refused: every further exec is too
	// drained is set when the tracer ended because every process of the
	// run was gone, reaped (its listener hung up: a process holds the
	// filter until it is reaped), having refused nothing.
	drained bool
	pending map[int]*pendingExec // attached, their stop to come
	held    map[int]heldExec     // at their exec stop, waiting for an answer
	notif   seccompNotif
	buf     []byte
	stack   []byte
	path    []byte
}

// pendingExec is a thread the tracer attached to, whose exec goes on.
type pendingExec struct {
	refused bool // killed: only its end is awaited
	// dir is /proc/PID of the thread, opened while its exec goes on
	// (O_PATH), or -1: see procDir.
	dir int
}

type heldExec struct {
	wait <-chan bool
	argv []string
}

// seccompNotif and seccompResp are the kernel's struct seccomp_notif and
// struct seccomp_notif_resp.
type seccompNotif struct {
	id    uint64
	pid   uint32
	flags uint32
	nr    int32
	arch  uint32
	ip    uint64
	args  [6]uint64
}

type seccompResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

// newTracer makes the exec gate of a run whose init talks on ctl. The
// tracer reads a copy of ctl's descriptor, its own until it is done: the
// Handle may close its own first.
func newTracer(check func(ExecEvent) ExecVerdict, ctl *initCtl, rootArgv []string) (*tracer, error) {
	fd, err := unix.FcntlInt(uintptr(ctl.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: exec gate: %w", err)
	}
	stop, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("sandbox: exec gate: %w", err)
	}
	return &tracer{check: check, ctl: &initCtl{fd: fd}, rootArgv: rootArgv, stop: stop, listener: -1, done: make(chan struct{}),
		pending: map[int]*pendingExec{}, held: map[int]heldExec{}}, nil
}

// begin has a tracer thread take the command's filter once it is in
// place, and gate the run. Called before the init starts, so that the
// thread's wake-up overlaps the init's, off the path of the command's
// first exec; the tracer ends, with an error, if the init ends or never
// starts (its end of the control socket closes) before the filter comes.
func (t *tracer) begin() { tracerThread(t) }

// started tells the tracer the init's pid, before the init is released.
func (t *tracer) started(initPID int) { t.initPID.Store(int64(initPID)) }

// killInit kills the init, once it is known.
func (t *tracer) killInit() {
	if pid := t.initProcess(); pid > 0 {
		unix.Kill(pid, unix.SIGKILL)
	}
}

// initProcess is the init's pid, or 0 before it is known. A run without
// a sandbox may fork its command before started tells the tracer (its go
// byte is written before the init starts): the init is then the command's
// parent, read from /proc, if that is this process's child (an orphaned
// command has another parent, never to be taken for the init). The tracer
// thread only: it owns root.
func (t *tracer) initProcess() int {
	if pid := int(t.initPID.Load()); pid > 0 {
		return pid
	}
	if t.root <= 0 {
		return 0
	}
	st, ok := procfs.ReadStat(t.root)
	if !ok || st.PPid <= 0 {
		return 0
	}
	if ist, ok := procfs.ReadStat(st.PPid); !ok || ist.PPid != os.Getpid() {
		return 0
	}
	return st.PPid
}

// end has the tracer finish: the held execs are refused, the listener
// closed. It returns at once; done tells when it is over.
func (t *tracer) end() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stop >= 0 {
		one := [8]byte{1}
		unix.Write(t.stop, one[:])
	}
}

// closeStop closes the stop eventfd, under mu: end may be called at any
// time, and must never write to a descriptor number reused since.
func (t *tracer) closeStop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	unix.Close(t.stop)
	t.stop = -1
}

// isDrained reports whether the tracer is done and ended drained.
func (t *tracer) isDrained() bool {
	select {
	case <-t.done:
		return t.drained // written before done was closed
	default:
		return false
	}
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
	idle []*tracerSlot
}

const maxIdleTracers = 1

// tracerSlot is a kept tracer thread. Between runs it sleeps in a read of
// its eventfd, which the next run's start writes: the kernel wakes that
// very thread. A channel would wake it through the Go scheduler, which
// readies a goroutine locked to another thread on the sender's processor
// and hands it over only when another thread steals it (0.1 ms, up to
// 1 ms while the run's start keeps the processors busy: on the path of
// every run's first exec).
type tracerSlot struct {
	wake int     // the eventfd; -1 until the thread first goes idle
	next *tracer // the run to trace, set under tracers' lock
}

func tracerThread(t *tracer) {
	tracers.Lock()
	if n := len(tracers.idle); n > 0 {
		s := tracers.idle[n-1]
		tracers.idle = tracers.idle[:n-1]
		s.next = t
		tracers.Unlock()
		one := [8]byte{1}
		for {
			if _, err := unix.Write(s.wake, one[:]); err != unix.EINTR {
				break // an eventfd's counter cannot overflow at one write per run
			}
		}
		return
	}
	tracers.Unlock()
	s := &tracerSlot{wake: -1, next: t}
	goChildless(s.serve)
}

// serve traces runs on the calling (locked) thread until it is not kept.
func (s *tracerSlot) serve() {
	defer func() {
		if s.wake >= 0 {
			unix.Close(s.wake)
		}
	}()
	for {
		tracers.Lock()
		t := s.next
		s.next = nil
		if t == nil {
			// Woken for no run (its read failed): it leaves the pool.
			tracers.idle = slices.DeleteFunc(tracers.idle, func(o *tracerSlot) bool { return o == s })
			tracers.Unlock()
			return
		}
		tracers.Unlock()
		t.run()
		if s.wake < 0 {
			fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
			if err != nil {
				return // not kept: the next run makes a thread
			}
			s.wake = fd
		}
		tracers.Lock()
		if len(tracers.idle) >= maxIdleTracers {
			tracers.Unlock()
			return // the thread ends with its goroutine
		}
		tracers.idle = append(tracers.idle, s)
		tracers.Unlock()
		var buf [8]byte
		for {
			// A blocking eventfd read fails only when interrupted.
			if _, err := unix.Read(s.wake, buf[:]); err != unix.EINTR {
				break
			}
		}
	}
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
	defer t.closeStop()
	if !t.awaitRecord() {
		t.mu.Lock()
		t.err = errors.New("sandbox: exec gate: the run ended before its command started")
		t.mu.Unlock()
		return
	}
	pid, listener, err := t.ctl.waitReady()
	if err != nil {
		t.mu.Lock()
		t.err = fmt.Errorf("sandbox: exec gate: %w (the command did not run)", err)
		t.mu.Unlock()
		t.killInit()
		return
	}
	t.listener = listener
	defer func() { unix.Close(t.listener) }()
	defer func() {
		for pid := range t.pending {
			t.forget(pid) // none is left but after an error
		}
	}()
	syncWakeUp(listener)
	t.root = pid
	t.rootPID.Store(int64(pid))
	t.loop()
}

// syncWakeUp asks the kernel (Linux 6.6 and later) to hand each exec's
// notification to the tracer thread on the caller's CPU, and the answer
// back on the tracer's: the caller sleeps until the tracer answers and the
// tracer until the next exec, so the two take turns on one CPU instead of
// each waking the other across CPUs (an inter-processor wake-up and a
// cold cache, twice per exec). An older kernel does without: the flag
// changes only where the woken thread runs, never what it is told.
func syncWakeUp(listener int) {
	unix.Syscall(unix.SYS_IOCTL, uintptr(listener), unix.SECCOMP_IOCTL_NOTIF_SET_FLAGS, unix.SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP)
}

// awaitRecord waits until the init writes on the control socket (or
// closes it), and reports false if the tracer was told to end first: the
// tracer waits from before the init starts, and a run that ends before
// (its start failed, or fell back to another launcher with a socket of
// its own) must not leave it waiting.
func (t *tracer) awaitRecord() bool {
	fds := []unix.PollFd{{Fd: int32(t.ctl.fd), Events: unix.POLLIN}, {Fd: int32(t.stop), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return true // waitReady says what is wrong
		}
		return fds[0].Revents != 0 || fds[1].Revents == 0
	}
}

func ptraceSeize(pid int, options int) error {
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_SEIZE, uintptr(pid), 0, uintptr(options), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func ptrace(req, pid, sig int) error {
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, uintptr(req), uintptr(pid), 0, uintptr(sig), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// heldPoll is how often held execs are looked at while an answer is
// awaited: the tracer thread cannot block on a channel and poll at once.
const heldPoll = 2 * time.Millisecond

// yieldEvery is how often the tracer thread lets the Go scheduler run:
// its goroutine otherwise runs without end, from one system call to the
// next, and the runtime's monitor takes it for one that keeps its
// processor too long — every 10 ms it preempts it and, having taken a
// processor back, polls every 20 µs again, thousands of wake-ups a
// second on the machine the run's own programs need (on an exec loop,
// four for each exec).
const yieldEvery = 5 * time.Millisecond

// loop gates the run until it is told to stop or no process of the run
// is left.
func (t *tracer) loop() {
	fds := []unix.PollFd{{Fd: int32(t.listener), Events: unix.POLLIN}, {Fd: int32(t.stop), Events: unix.POLLIN}}
	yielded := time.Now()
	for {
		if now := time.Now(); now.Sub(yielded) >= yieldEvery {
			runtime.Gosched()
			yielded = now
		}
		if len(t.pending) > 0 {
			// Each stops soon: at its exec stop, or interrupted on
			// its way back from a failed exec.
			t.wait(0)
			continue
		}
		timeout := -1
		if len(t.held) > 0 {
			timeout = int(heldPoll / time.Millisecond)
		}
		fds[0].Revents, fds[1].Revents = 0, 0
		_, err := unix.Poll(fds, timeout)
		if err != nil && err != unix.EINTR {
			t.refuseAll()
			return
		}
		if len(t.held) > 0 {
			t.wait(unix.WNOHANG) // a held program killed meanwhile
			t.pollHeld()
		}
		if fds[1].Revents != 0 {
			t.refuseAll() // Close: nothing may run on unjudged
			return
		}
		if fds[0].Revents&unix.POLLIN != 0 {
			t.notified()
		} else if fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 && len(t.held) == 0 {
			t.drained = fds[0].Revents&unix.POLLHUP != 0 && !t.ended && len(t.pending) == 0
			return // no process of the run is left
		}
	}
}

// wait handles the stops of the tracees until one was seen (with
// WNOHANG: those already there).
func (t *tracer) wait(opts int) {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, opts|unix.WALL|unix.WNOTHREAD, nil)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil: // ECHILD: no tracee is left
			for pid := range t.pending {
				t.forget(pid)
			}
			clear(t.held)
			return
		case pid == 0:
			return
		}
		t.event(pid, ws)
		if opts&unix.WNOHANG == 0 {
			return
		}
	}
}

// notified handles one exec that waits for the gate.
func (t *tracer) notified() {
	n := &t.notif
	*n = seccompNotif{}
	if err := ioctlPtr(t.listener, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(n)); err != nil {
		return // EINTR, or ENOENT: the caller is gone already
	}
	pid := int(n.pid)
	switch {
	case t.ended:
		unix.Kill(pid, unix.SIGKILL)
		t.respond(n.id, unix.EPERM)
		return
	case !isExecCall(n.arch, n.nr):
		t.respond(n.id, unix.ENOSYS) // a foreign architecture: refused
		return
	case pid == t.root && !t.rootExec:
		t.rootExec = true // the request itself
		t.respond(n.id, 0)
		return
	}
	p := &pendingExec{dir: -1}
	if err := ptraceSeize(pid, traceOptions); err != nil {
		// Traced by another tracer, or gone: the exec cannot be judged
		// at its stop, so it does not happen — and, unless the caller is
		// gone, the run ends with the reason, read while the caller still
		// waits for the answer (it exits soon after it).
		if st, ok := procfs.ReadStat(pid); ok && err != unix.ESRCH && st.State != 'Z' && st.State != 'X' {
			// (An exiting caller is refused attaching with EPERM too.)
			t.unjudged(pid, untraceable(pid, err), true)
		}
		t.respond(n.id, unix.EPERM)
		return
	}
	t.pending[pid] = p
	if ioctlPtr(t.listener, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&n.id)) == nil {
		// Still the caller of this exec, waiting: the pid is its own.
		t.respond(n.id, 0)
	}
	// Either way it stops soon, and is let go then if it did not exec.
	ptrace(unix.PTRACE_INTERRUPT, pid, 0)
	p.dir = t.procDir(pid)
}

// procDir opens /proc/PID of an attached thread whose exec goes on, so
// that its exec stop reads the program's executable and directory
// relative to it: the lookup of a new process's /proc entry (most of what
// reading them cost, 16 of 21 µs) is made while the kernel loads the
// program, off the path of the stop. The entry is the thread's own (it is
// attached: its pid cannot be reused until the tracer reaps it), and it
// holds only the pid, never what the stop reads: the executable and
// directory are read there, after the exec, as before. A thread other
// than the leader takes the leader's pid when it execs: its entry then
// names the old leader, and the stop reads by path (see exec).
func (t *tracer) procDir(pid int) int {
	fd, err := unix.Open(t.procPath(pid, ""), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1 // the stop reads by path
	}
	// The entries the stop reads are looked up too: the kernel keeps
	// them while the process lives, and reads them afresh at each read.
	var st unix.Stat_t
	unix.Fstatat(fd, "exe", &st, unix.AT_SYMLINK_NOFOLLOW)
	unix.Fstatat(fd, "cwd", &st, unix.AT_SYMLINK_NOFOLLOW)
	return fd
}

// forget drops pid from the pending threads, closing its /proc entry.
func (t *tracer) forget(pid int) {
	if p := t.pending[pid]; p != nil && p.dir >= 0 {
		unix.Close(p.dir)
	}
	delete(t.pending, pid)
}

// refusedPending marks pid as a pending thread killed by the tracer,
// whose end only is awaited.
func (t *tracer) refusedPending(pid int) {
	t.forget(pid)
	t.pending[pid] = &pendingExec{refused: true, dir: -1}
}

// respond answers a notification: errno 0 lets the call go on.
func (t *tracer) respond(id uint64, errno unix.Errno) {
	r := seccompResp{id: id}
	if errno == 0 {
		r.flags = unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE
	} else {
		r.error = -int32(errno)
	}
	for ioctlPtr(t.listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&r)) == unix.EINTR {
	}
}

func ioctlPtr(fd int, req uint, arg unsafe.Pointer) error {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if e != 0 {
		return e
	}
	return nil
}

func (t *tracer) event(pid int, ws unix.WaitStatus) {
	if ws.Exited() || ws.Signaled() {
		t.forget(pid)
		delete(t.held, pid)
		return
	}
	if !ws.Stopped() {
		return
	}
	switch event := int(uint32(ws) >> 16); {
	case event == unix.PTRACE_EVENT_EXEC:
		t.exec(pid)
	case t.pending[pid] != nil && t.pending[pid].refused:
		unix.Kill(pid, unix.SIGKILL)
		ptrace(unix.PTRACE_CONT, pid, 0)
	case event == unix.PTRACE_EVENT_STOP:
		// Interrupted (the exec failed or will be made again, and is
		// notified again then) or a group stop, which detaching keeps.
		t.release(pid, 0)
	default:
		// A signal on its way back from a failed exec: delivered.
		t.release(pid, int(ws.StopSignal()))
	}
}

// release detaches from pid, stopped, with sig delivered. A tracee that
// cannot be detached was killed meanwhile (only SIGKILL ends a ptrace
// stop): its end is reported to the tracer, which must wait for it, or
// it stays a zombie nobody can reap, and a PID namespace's init waits
// for it forever.
func (t *tracer) release(pid, sig int) {
	t.forget(pid)
	if ptrace(unix.PTRACE_DETACH, pid, sig) != nil {
		t.refusedPending(pid)
	}
}

// exec judges the program pid is about to run.
func (t *tracer) exec(pid int) {
	p := t.pending[pid]
	leader := true
	if old, err := unix.PtraceGetEventMsg(pid); err == nil && int(old) != pid {
		// A thread other than the leader exec'd: it has the leader's
		// pid now, and its own is gone without an exit report. It is
		// read by path.
		leader = false
		if q := t.pending[int(old)]; q != nil {
			p = q
		}
		t.forget(int(old))
	}
	dir := -1
	if leader && p != nil {
		dir, p.dir = p.dir, -1 // closed below
	}
	t.forget(pid)
	if p == nil {
		p = &pendingExec{dir: -1}
	}
	if dir >= 0 {
		defer unix.Close(dir) // after the verdict: off the program's wait
	}
	if t.ended || p.refused {
		t.refuse(pid)
		return
	}
	ev, err := t.read(pid, dir)
	if err != nil {
		// Cannot be judged: refused. Unless it is gone meanwhile (killed:
		// a timeout, the run's end), the run ends with the reason.
		if !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ESRCH) {
			t.unjudged(pid, "its program, arguments or directory could not be read at its exec ("+err.Error()+")", false)
		}
		t.refuse(pid)
		return
	}
	initPID, root, rootArgv := t.initProcess(), t.root, t.rootArgv
	ev.parent = func() (int, []string) {
		ppid, argv := parentOf(pid)
		if ppid == initPID && ppid > 0 {
			// The init ran the command, whose first program is the
			// request: that is what started this one.
			return root, rootArgv
		}
		return ppid, argv
	}
	v := t.check(ev)
	switch {
	case v.Wait != nil:
		t.held[pid] = heldExec{wait: v.Wait, argv: ev.Argv}
	case v.Allow:
		t.release(pid, 0)
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
				t.release(pid, 0)
			} else {
				t.refuse(pid)
			}
		default:
		}
	}
}

// refuseAll refuses the held execs and waits for the pending ones: the
// tracer is ending.
func (t *tracer) refuseAll() {
	for pid := range t.held {
		delete(t.held, pid)
		t.refuse(pid)
	}
	for len(t.pending) > 0 {
		t.wait(0)
	}
}

// refuse kills pid before its new program runs, and ends the run: the
// init, the command's process group and every thread the tracer holds
// first, so that none (the refused program's parent, say) runs another
// instruction after the refusal where the kernel lets us (a PID
// namespace's end, and the parent-death signal, come too late for that).
func (t *tracer) refuse(pid int) {
	t.endRun(pid)
	unix.Kill(pid, unix.SIGKILL)
	// Its end is reported to the tracer: awaited, so it is released.
	t.refusedPending(pid)
	ptrace(unix.PTRACE_CONT, pid, 0)
}

// unjudged reports an exec the gate could not judge to the check, which
// refuses it with why; before is true when it had not happened yet (the
// caller's own program and parent are then what is known). Unless attached
// (refuse follows then), the caller is killed and the run ended here.
func (t *tracer) unjudged(pid int, why string, before bool) {
	ev := ExecEvent{PID: pid, Unjudged: why}
	if before {
		caller, _ := t.cmdline(pid)
		ev.parent = func() (int, []string) { return pid, caller }
	} else {
		ev.parent = func() (int, []string) { return parentOf(pid) }
	}
	if !t.ended {
		t.check(ev)
	}
	if before {
		t.endRun(pid)
		unix.Kill(pid, unix.SIGKILL)
	}
}

// untraceable says why pid, about to exec, could not be attached to.
func untraceable(pid int, err error) string {
	if by := tracerPidOf(strconv.Itoa(pid)); by != 0 {
		who, _ := os.ReadFile("/proc/" + strconv.Itoa(by) + "/comm")
		return fmt.Sprintf("the program that would run is traced by another program (%s, pid %d: a debugger or strace inside the run), so the gate cannot stop it before its first instruction", strings.TrimSpace(string(who)), by)
	}
	return fmt.Sprintf("the gate may not trace the process that would run it (%v; a process that made itself undumpable cannot be inspected)", err)
}

// endRun ends the run once: the init, the command's group and every other
// process the tracer holds or waits for are killed (pid is the caller's).
func (t *tracer) endRun(pid int) {
	if !t.ended {
		t.ended = true
		t.killInit()
		if t.root > 0 {
			unix.Kill(-t.root, unix.SIGKILL)
		}
		for p := range t.held {
			if p != pid {
				unix.Kill(p, unix.SIGKILL)
			}
		}
		for p, q := range t.pending {
			q.refused = true
			unix.Kill(p, unix.SIGKILL)
		}
	}
}

// isExecCall reports whether a notified call is an exec the gate judges:
// execve or execveat of the x86_64, x32 or i386 ABI (the filter notifies
// nothing else but calls of an architecture it does not know).
func isExecCall(arch uint32, nr int32) bool {
	const x32 = 0x40000000
	switch arch {
	case unix.AUDIT_ARCH_X86_64:
		switch nr &^ x32 {
		case unix.SYS_EXECVE, unix.SYS_EXECVEAT, 520, 545:
			return true
		}
	case unix.AUDIT_ARCH_I386:
		return nr == 11 || nr == 358
	}
	return false
}

// parentOf is pid's parent and the argv it runs, from /proc.
func parentOf(pid int) (int, []string) {
	st, ok := procfs.ReadStat(pid)
	if !ok || st.PPid <= 0 {
		return 0, nil
	}
	argv, err := os.ReadFile("/proc/" + strconv.Itoa(st.PPid) + "/cmdline")
	if err != nil || len(argv) == 0 {
		return st.PPid, nil
	}
	return st.PPid, splitNUL(argv)
}

// read reads pid's new program at its exec stop; dir is its /proc entry,
// or -1 to read by path.
func (t *tracer) read(pid, dir int) (ExecEvent, error) {
	ev := ExecEvent{PID: pid}
	var err error
	var ok bool
	if ev.Argv, ok = t.stackArgv(pid); !ok {
		if ev.Argv, err = t.cmdline(pid); err != nil {
			return ev, err
		}
	}
	if ev.Exe, err = t.readlink(pid, dir, "exe"); err != nil {
		return ev, err
	}
	if ev.Cwd, err = t.readlink(pid, dir, "cwd"); err != nil {
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

// readlink reads the link file of pid's /proc entry, relative to dir when
// it is not -1.
func (t *tracer) readlink(pid, dir int, file string) (string, error) {
	var buf [unix.PathMax]byte
	var n int
	var err error
	if dir >= 0 {
		n, err = unix.Readlinkat(dir, file, buf[:])
	} else {
		n, err = unix.Readlink(t.procPath(pid, file), buf[:])
	}
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
	// The filter's action must exist (Linux 5.0; letting a call go on
	// from the listener came in 5.5, long before the Landlock ABIs the
	// sandbox wants).
	action := uint32(unix.SECCOMP_RET_USER_NOTIF)
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action))); e != 0 {
		return false, fmt.Sprintf("exec gate: this kernel has no seccomp user notification (%v)", e)
	}
	if pid := tracerPid(); pid != 0 {
		return false, fmt.Sprintf("exec gate: this process is traced (by pid %d), and a tracer that follows forks would hold the commands first", pid)
	}
	return true, ""
}

// execGateMechanism is what sandbox detect says the gate is.
const execGateMechanism = "seccomp user notification and ptrace: every execve and execveat of the run waits for this process (a seccomp filter the run cannot remove), which attaches to the caller (PTRACE_SEIZE) and judges the new program at its exec stop, before its first instruction, on its argv, executable and directory; forks and exits are never stopped"

func hasCap(c int) bool {
	eff, err := capEff()
	return err == nil && eff&(1<<uint(c)) != 0
}

// tracerPid reads TracerPid from /proc/self/status.
func tracerPid() int { return tracerPidOf("self") }

// tracerPidOf is the pid tracing process pid ("self" or a number), 0 when
// none does or it cannot be read.
func tracerPidOf(pid string) int {
	b, err := os.ReadFile("/proc/" + pid + "/status")
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
