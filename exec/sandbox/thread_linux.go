package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// The thread launcher starts a sandboxed command without a second Go
// process. Namespaces (unshare), capabilities, no_new_privs, Landlock and
// seccomp all belong to a thread, and a child inherits them from the
// thread that forks it; so a dedicated OS thread of this process takes them
// on and forks the command, and is then thrown away (a goroutine that ends
// while locked to its thread takes the thread with it, and the runtime
// never clones a new thread from a locked one). Starting the trampoline
// costs a Go runtime start, 5-10 ms here; the launcher adds under 2 ms to
// a run, most of it waking threads (scripts/bench-sandbox.sh).
//
// What a thread cannot do before the fork is done while the run's init
// (init_linux.go), which the launcher forks, waits for its go byte: a
// second, unrestricted thread mounts the PID namespace's /proc (a proc
// instance for a namespace needs that namespace's init to exist) and sets
// the init's rlimits (per process, so a thread cannot set them for a
// child alone), which the command inherits when the init forks it once
// released. Processes are limited by a v1 pids
// cgroup that the launcher thread joins alone (writing 0 to "tasks" moves
// the caller thread without the process-wide lock whose RCU wait makes
// moving a process cost 40-100 ms) and leaves right after the fork.

// errDirectStart is set as cmd.Err by Prepare, so that a cmd.Start that
// bypasses the Handle fails instead of running the command unconfined.
var errDirectStart = errors.New("sandbox: start a prepared command with Handle.Start, not cmd.Start")

// launcher is a launcher thread: it takes on the layers of w (joining cg
// for the fork), then forks the command of the Handle it is given, and
// lives until released. A standby launcher (standby_linux.go) is made
// before its run and takes the layers on meanwhile.
type launcher struct {
	w       *wireSpec
	cg      *cgroup
	ready   chan error   // one value: the layers are on, or why not
	forkc   chan *Handle // the run to fork
	result  chan error   // the fork's outcome
	release chan struct{}
	cleaned chan struct{} // closed when a launcher released unused is cleaned up
	// cleanup runs, off the thread, when the launcher is released unused.
	cleanup func()
}

var warmPidfd sync.Once

// checkPidfd makes os check its pidfd support before any launch: the check
// forks a throwaway child, which on a launcher thread would become the PID
// namespace's init and end the namespace when it exits.
func checkPidfd() {
	warmPidfd.Do(func() {
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Release()
		}
	})
}

// warmLauncher does ahead of the first run what its launch would wait
// for: os's pidfd check, and the helper thread.
func warmLauncher() {
	checkPidfd()
	helperQueue()
}

// newLauncher starts a launcher thread taking on the layers of w.
func newLauncher(w *wireSpec, cg *cgroup) *launcher {
	checkPidfd()
	l := &launcher{w: w, cg: cg, ready: make(chan error, 1), forkc: make(chan *Handle),
		result: make(chan error, 1), release: make(chan struct{}), cleaned: make(chan struct{})}
	goLocked(l.run)
	return l
}

// goLocked runs f in a new goroutine locked to an OS thread that is not
// the main thread, and never unlocked: see the comment at the top of this
// file. The main thread must not take on a sandbox's state: /proc/self
// shows it (mountinfo, status, ns), and it cannot end, so the runtime
// would keep it, wedged, with the sandbox's namespaces. A goroutine that
// finds itself there holds it while another starts, which therefore runs
// elsewhere.
func goLocked(f func()) {
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() != unix.Getpid() {
			f()
			return // still locked: the thread ends
		}
		moved := make(chan struct{})
		goLocked(func() {
			close(moved)
			f()
		})
		<-moved
		runtime.UnlockOSThread() // untouched: back to the scheduler
	}()
}

func (l *launcher) run() {
	leave, err := l.applyLayers()
	l.ready <- err
	if err != nil {
		// fork will not send: the thread waits to be released, and
		// ends (it may hold some of the layers).
		leave = func() error { return nil }
	}
	select {
	case h := <-l.forkc:
		started, err := h.forkInit(leave)
		l.result <- err
		if started {
			// The thread is the command's parent: PR_SET_PDEATHSIG
			// fires when it ends, so it lives until Close.
			<-l.release
		}
	case <-l.release:
		leave()
		l.w.closeProxyFD()
		go func() { // on an ordinary thread
			if l.cleanup != nil {
				l.cleanup()
			}
			close(l.cleaned)
		}()
	}
}

// applyLayers joins the cgroup and takes on the layers. On error the
// thread has left the cgroup; it must not be used for anything else.
func (l *launcher) applyLayers() (leave func() error, err error) {
	leave = func() error { return nil }
	if l.cg != nil {
		if leave, err = l.cg.joinThread(); err != nil {
			return nil, fmt.Errorf("sandbox: joining the pids cgroup: %w", err)
		}
	}
	for _, s := range threadSteps(l.w) {
		if s.name == failStepForTest {
			leave()
			return nil, fmt.Errorf("sandbox: %s: failed for a test (the command did not run)", s.name)
		}
		if err := s.apply(l.w); err != nil {
			leave()
			return nil, fmt.Errorf("sandbox: %s: %w (the command did not run)", s.name, err)
		}
	}
	return leave, nil
}

// fork has the launcher fork h's command once its layers are on, and
// returns once the command runs in its sandbox, or failed to and has been
// reaped.
func (l *launcher) fork(h *Handle) error {
	if err := <-l.ready; err != nil {
		return layerError{err}
	}
	l.forkc <- h
	return <-l.result
}

// failStepForTest names a launcher step that fails, in tests ("" in
// programs).
var failStepForTest string

// layerError is a launcher's failure to take its layers on: nothing was
// forked.
type layerError struct{ error }

func (e layerError) Unwrap() error { return e.error }

// startThread starts h.cmd from its standby launcher, or a new one. A
// standby that failed to take its layers on is replaced by a new launcher.
func (h *Handle) startThread() error {
	l, adopted := h.standby, h.standby != nil
	h.standby = nil
	if l == nil {
		l = newLauncher(h.threadWire, h.cg)
	}
	h.thread = l
	err := l.fork(h)
	if errors.As(err, new(layerError)) && adopted {
		l.discard()
		l = newLauncher(h.threadWire, h.cg)
		h.thread = l
		err = l.fork(h)
	}
	if errors.As(err, new(layerError)) {
		return h.fallBack(err)
	}
	if fd := l.w.takeProxyFD(); fd > 0 && err == nil {
		h.proxyFD = fd
	} else if fd > 0 {
		unix.Close(fd)
	}
	if err == nil {
		runStarted()
		h.active = true
		readyStandby(h)
	}
	return err
}

// threadBroken is set when a launcher thread could not take its layers on
// although Detect found everything it needs (an LSM refusing a mount
// operation, say): from then on runs use the trampoline.
var threadBroken atomic.Bool

// fallBack starts h's command through the trampoline after its launcher
// thread failed to take the layers on (cause): nothing was forked, so the
// command can still start, and later runs go straight to the trampoline.
// Without Main, there is no trampoline, and the run fails with cause.
func (h *Handle) fallBack(cause error) error {
	threadBroken.Store(true)
	if !mainCalled.Load() {
		return cause
	}
	h.thread.discard() // it left the cgroup when it failed
	h.thread = nil
	if h.cg != nil {
		h.cg.recycle() // the trampoline's plan may limit processes otherwise
		h.cg = nil
	}
	caps := detectCaps()
	caps.ThreadLaunch = false
	p, err := makePlan(h.runSpec, caps)
	if err != nil {
		return errors.Join(cause, err)
	}
	cmd := h.cmd
	cmd.Err = nil
	cmd.SysProcAttr.Pdeathsig = h.pdeathsig
	// The command again, not the init: the trampoline's plan starts its
	// own, with a control socket of its own.
	cmd.Path, cmd.Args = h.threadWire.Path, h.threadWire.Args
	cmd.ExtraFiles = cmd.ExtraFiles[:h.extraFiles]
	if h.ctl != nil {
		h.ctl.close()
		h.ctl = nil
	}
	if h.tracer != nil {
		h.stopTracer() // it waits on the socket closed above
		h.tracer = nil
	}
	h.threadWire, h.report = nil, p.report(h.runSpec)
	if err := h.prepare(cmd, h.runSpec, p); err != nil {
		return errors.Join(cause, err)
	}
	if err := h.beginTracer(); err != nil {
		return errors.Join(cause, err)
	}
	if h.ctl == nil {
		h.awaitReady() // no init to hold the command at
	}
	return h.startTrampoline()
}

// forkInit forks the run's init from the calling launcher thread, which
// has its layers, and completes the sandbox while the init waits for its
// go byte (Handle.releaseInit sends it). started reports whether a
// process exists that the thread must outlive; on error it has been
// killed and reaped, and the command never ran.
func (h *Handle) forkInit(leave func() error) (started bool, err error) {
	defer leave()
	cmd := h.cmd
	cmd.Err = nil
	if err := cmd.Start(); err != nil {
		return false, err
	}
	// The helper starts on the init's /proc and rlimits while the thread
	// leaves the cgroup; both are done before the init may be released.
	helped := submitToHelper(cmd.Process.Pid, h.threadWire.Limits)
	lerr := leave()
	herr := <-helped
	if lerr != nil {
		return true, h.abort(fmt.Errorf("sandbox: leaving the pids cgroup: %w", lerr))
	}
	if herr != nil {
		return true, h.abort(herr)
	}
	return true, nil
}

// abort kills and reaps a command that must not run, and returns err.
func (h *Handle) abort(err error) error {
	h.cmd.Process.Kill()
	h.cmd.Wait()
	return fmt.Errorf("%w (the command did not run)", err)
}

// threadSteps are the trampoline's steps without what needs a process of
// the run: the namespaces are unshared by the thread (the seccomp filter
// would refuse them as clone flags), and /proc, rlimits and the parent
// death signal come from completeHeld and the SysProcAttr.
func threadSteps(w *wireSpec) []step {
	s := []step{{"unshare", func(w *wireSpec) error { return unix.Unshare(threadCloneFlags(w.Plan)) }}}
	if w.Plan.Proxy {
		s = append(s, step{"proxy listener", makeProxyListener})
	}
	s = append(s,
		step{"mounts", setupMounts},
		step{"dropping capabilities", func(*wireSpec) error { return dropCaps() }},
		step{"no_new_privs", func(*wireSpec) error { return unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) }},
		step{"landlock", applyLandlock},
		step{"seccomp", func(w *wireSpec) error { return installSeccomp(w.Plan.SeccompNet) }},
	)
	if w.Plan.Proxy {
		s = append(s, step{"proxy socket filter", installProxySocketFilter})
	}
	return s
}

func threadCloneFlags(p plan) int {
	f := unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWIPC
	if p.NetNS {
		f |= unix.CLONE_NEWNET
	}
	return f
}

// helper is a thread kept for completeHeld, whose work joins a sandbox's
// mount namespace: it goes back to this process's mount namespace after
// each run (a namespace file it opened when it started), and no other
// goroutine ever runs on it. A thread made per run cost 100-300 µs more.
var helper struct {
	sync.Mutex
	reqs chan helperReq
}

type helperReq struct {
	pid    int
	limits Limits
	done   chan error
}

// helperQueue returns the helper thread's request queue, starting the
// helper on first use, and again after a failure to go home.
func helperQueue() (chan helperReq, error) {
	helper.Lock()
	defer helper.Unlock()
	if helper.reqs == nil {
		reqs, err := startHelper()
		if err != nil {
			return nil, fmt.Errorf("sandbox: starting the helper thread: %w", err)
		}
		helper.reqs = reqs
	}
	return helper.reqs, nil
}

// submitToHelper has the helper thread run completeHeld(pid, limits), and
// returns the channel its error comes on.
func submitToHelper(pid int, limits Limits) <-chan error {
	done := make(chan error, 1)
	reqs, err := helperQueue()
	if err != nil {
		done <- err
		return done
	}
	reqs <- helperReq{pid, limits, done}
	return done
}

func startHelper() (chan helperReq, error) {
	reqs := make(chan helperReq, 64) // the launcher goes on while it waits
	ready := make(chan error)
	goLocked(func() {
		home, err := helperHome()
		ready <- err
		if err != nil {
			return
		}
		for r := range reqs {
			err := completeHeld(r.pid, r.limits)
			if herr := unix.Setns(home, unix.CLONE_NEWNS); herr != nil {
				// Stranded in a sandbox's namespace: end the thread,
				// and the next run starts another.
				helper.Lock()
				helper.reqs = nil
				helper.Unlock()
				r.done <- errors.Join(err, fmt.Errorf("sandbox: the helper thread could not return to its mount namespace: %w", herr))
				unix.Close(home)
				go drain(reqs)
				return
			}
			r.done <- err
		}
	})
	return reqs, <-ready
}

// helperHome gives the calling thread its own filesystem context, which
// setns needs, and opens its mount namespace to come back to.
func helperHome() (int, error) {
	if err := unix.Unshare(unix.CLONE_FS); err != nil {
		return -1, err
	}
	return unix.Open("/proc/thread-self/ns/mnt", unix.O_RDONLY|unix.O_CLOEXEC, 0)
}

// drain fails the requests that reached a helper which has ended.
func drain(reqs chan helperReq) {
	for r := range reqs {
		r.done <- errors.New("sandbox: the helper thread ended; try again")
	}
}

// completeHeld sets the rlimits of the run's init pid, waiting for its go
// byte, and mounts a read-only /proc of its PID namespace in its mount
// namespace. It runs on the helper thread, with this process's
// privileges. The init is PID 1 of its namespace and not yet reaped, so
// its pid names it.
func completeHeld(pid int, l Limits) error {
	if err := setRlimitsOf(pid, l); err != nil {
		return fmt.Errorf("sandbox: rlimits: %w", err)
	}
	ns := func(kind string) (int, error) {
		return unix.Open("/proc/"+strconv.Itoa(pid)+"/ns/"+kind, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	}
	mntNS, err := ns("mnt")
	if err != nil {
		return fmt.Errorf("sandbox: opening the mount namespace: %w", err)
	}
	defer unix.Close(mntNS)
	pidNS, err := ns("pid")
	if err != nil {
		return fmt.Errorf("sandbox: opening the PID namespace: %w", err)
	}
	defer unix.Close(pidNS)
	if err := mountProcIn(mntNS, pidNS); err != nil {
		return fmt.Errorf("sandbox: mounting /proc for the PID namespace: %w", err)
	}
	return nil
}

// setRlimitsOf applies the limits that are set to another process, and no
// core dumps.
func setRlimitsOf(pid int, l Limits) error {
	var errs []error
	for _, r := range rlimits(l) {
		lim := unix.Rlimit{Cur: r.cur, Max: r.max}
		if err := unix.Prlimit(pid, r.resource, &lim, nil); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.name, err))
		}
	}
	return errors.Join(errs...)
}

// mountProcIn mounts a proc instance for the PID namespace pidNS over
// /proc in the mount namespace mntNS, which the calling thread joins: it
// must go back, or be thrown away, afterwards.
func mountProcIn(mntNS, pidNS int) error {
	if err := unix.Setns(mntNS, unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("setns: %w", err)
	}
	fs, err := procContext(pidNS)
	if err != nil {
		return err
	}
	defer unix.Close(fs)
	m, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return fmt.Errorf("fsmount: %w", err)
	}
	defer unix.Close(m)
	if err := unix.MoveMount(m, "", unix.AT_FDCWD, "/proc", unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount: %w", err)
	}
	return nil
}

// procContext makes a proc filesystem context for the PID namespace pidNS
// (the pidns= option, Linux 6.15) and creates its superblock.
func procContext(pidNS int) (int, error) {
	fs, err := unix.Fsopen("proc", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("fsopen: %w", err)
	}
	if err := unix.FsconfigSetFd(fs, "pidns", pidNS); err != nil {
		unix.Close(fs)
		return -1, fmt.Errorf("proc pidns option: %w", err)
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		unix.Close(fs)
		return -1, fmt.Errorf("creating proc: %w", err)
	}
	return fs, nil
}

// procPIDNSSupported reports whether proc takes the pidns= option (Linux
// 6.15), by configuring, without mounting, a proc for this process's own
// PID namespace.
func procPIDNSSupported() bool {
	pidNS, err := unix.Open("/proc/self/ns/pid", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(pidNS)
	fs, err := unix.Fsopen("proc", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return false
	}
	defer unix.Close(fs)
	return unix.FsconfigSetFd(fs, "pidns", pidNS) == nil
}

// prepareThread readies cmd for the launcher: the init running the
// command's own path, arguments, directory and environment, killed when
// the launcher ends, and unstartable except by Handle.Start.
func (h *Handle) prepareThread(cmd *exec.Cmd, w *wireSpec) error {
	h.threadWire, h.argv = w, w.Args
	h.extraFiles = len(cmd.ExtraFiles)
	cmd.Env, cmd.Dir = w.Env, w.Dir
	if err := withInit(cmd, h.ctl.child, w.Path, w.Args); err != nil {
		return err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	h.pdeathsig = cmd.SysProcAttr.Pdeathsig // the caller's, for fallBack
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	cmd.Err = errDirectStart
	return nil
}

// threadable is false when cmd asks for something the launcher cannot give
// (its own namespaces, credentials, chroot or tracing): such a command goes
// through the trampoline.
func threadable(cmd *exec.Cmd) bool {
	a := cmd.SysProcAttr
	return a == nil || (a.Cloneflags == 0 && a.Unshareflags == 0 && a.Chroot == "" &&
		a.Credential == nil && !a.Ptrace && len(a.UidMappings) == 0 && len(a.GidMappings) == 0 &&
		!a.UseCgroupFD)
}
