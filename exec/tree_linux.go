package exec

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentexec/agentexec/internal/procfs"
	"golang.org/x/sys/unix"
)

// setPdeathsig asks for SIGKILL when we die, unless a signal is set.
func setPdeathsig(attr *syscall.SysProcAttr) {
	if attr.Pdeathsig == 0 {
		attr.Pdeathsig = syscall.SIGKILL
	}
}

var subreaperOnce sync.Once

// enableSubreaper makes this process the reaper of its descendants'
// orphans, so a process that escaped its group (setsid, double fork) is
// reparented to us, where tree can find it, instead of to init.
func enableSubreaper() {
	subreaperOnce.Do(func() { unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

// tree is the set of processes one run started: the leader, its process
// group, and every descendant, including those that left the group, found
// through /proc (children of each task, and our own reparented children
// tagged with the run id).
type tree struct {
	runID string
	tag   []byte // RunIDEnv=runID, as it appears in /proc/PID/environ
	pid   int    // the leader; also the process group id (Setpgid/Setsid)
	self  int
	// reaped is set once the leader was waited for: from then on its pid
	// (and so the group id) may be reused, so only processes found
	// individually are signalled.
	reaped bool
	// group, when set, gives the command's own process group when the
	// leader is agentexec-init, which puts the command in a group of its
	// own (0 while unknown).
	group func() int
	// enclosed is set when the leader is PID 1 of the run's own PID
	// namespace: its exit ended every other process of the run, so there
	// are no leftovers to look for.
	enclosed bool
	// killed is set once end signalled what it found: their zombies
	// may pass to this process later (see sweep). A timeout's kill and
	// the exit's cleanup may race.
	killed atomic.Bool
}

func newTree(runID string) *tree {
	return &tree{runID: runID, tag: []byte(RunIDEnv + "=" + runID + "\x00"), self: os.Getpid()}
}

func (t *tree) started(pid int) { t.pid = pid }

// setGroup tells the tree where to find the command's own process group.
func (t *tree) setGroup(group func() int) { t.group = group }

// setEnclosed tells the tree that its leader is PID 1 of the run's own
// PID namespace.
func (t *tree) setEnclosed(enclosed bool) { t.enclosed = enclosed }

// terminate asks the group to stop: SIGTERM, as timeout(1) does.
func (t *tree) terminate() {
	t.signalGroup(syscall.SIGTERM)
	t.signalGroup(syscall.SIGCONT)
}

// termIsLost reports whether SIGTERM cannot reach the leader: it is PID 1
// of its own PID namespace (a sandbox without agentexec-init, where the
// command is PID 1) and neither handles nor blocks SIGTERM, so the kernel
// drops the signal. The grace period then only serves its descendants,
// and waiting it out would just let a shell go on to its next command.
// agentexec-init blocks every signal and forwards it: not lost.
func (t *tree) termIsLost() bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(t.pid) + "/status")
	if err != nil {
		return false
	}
	var nspid []string
	var kept uint64
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "NSpid:"); ok {
			nspid = strings.Fields(v)
		} else if v, ok := cutAny(line, "SigCgt:", "SigBlk:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				return false
			}
			kept |= mask
		}
	}
	inOwnNS := len(nspid) > 1 && nspid[len(nspid)-1] == "1"
	return inOwnNS && kept&(1<<(syscall.SIGTERM-1)) == 0
}

func cutAny(s string, prefixes ...string) (string, bool) {
	for _, p := range prefixes {
		if v, ok := strings.CutPrefix(s, p); ok {
			return v, true
		}
	}
	return "", false
}

// othersAlive reports whether a process of the tree other than the leader
// is still running (zombies do not count).
func (t *tree) othersAlive() bool {
	for _, pid := range t.collect() {
		if pid != t.pid && alive(pid) {
			return true
		}
	}
	return false
}

// kill ends every process of the tree. Found processes are stopped first
// and the walk repeats until it finds nothing new, so nothing can fork away
// while we look; then all get SIGKILL, and the orphans reparented to us are
// reaped. The leader itself is left for os/exec to reap.
func (t *tree) kill() {
	if t.pid <= 0 {
		return // never kill(-0): that is our own group
	}
	t.end(true)
}

// end stops every process collect finds, walking again until nothing is
// new, then kills them all and reaps those reparented to us; group: the
// leader and its process group are ended too (only while the leader is
// not reaped: after that its id may be another's).
func (t *tree) end(group bool) {
	seen := map[int]bool{}
	for range 50 {
		if group {
			t.signalGroup(syscall.SIGSTOP)
		}
		fresh := 0
		for _, pid := range t.collectFrom(group) {
			if !seen[pid] {
				seen[pid] = true
				syscall.Kill(pid, syscall.SIGSTOP)
				fresh++
			}
		}
		if fresh == 0 {
			break
		}
	}
	t.killed.Store(true)
	if group {
		t.signalGroup(syscall.SIGKILL)
	}
	for pid := range seen {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	t.reap(seen)
}

// recheck ends what the run left behind that cleanup could not see: a
// process being reparented to us while cleanup read the children lists
// may be in neither its old nor its new parent's list (proc(5)), and a
// double fork that exits at once (`(setsid nohup sleep 300 &); exit`)
// escaped that way on a loaded machine. Call it once os/exec has reaped
// the leader and its output has closed: by then such a process is our
// child. The leader's group is not signalled, its id may be reused.
func (t *tree) recheck() {
	if t.pid <= 0 || t.enclosed || len(t.orphans()) == 0 {
		return
	}
	t.end(false)
}

func (t *tree) signalGroup(sig syscall.Signal) {
	if !t.reaped && t.pid > 0 {
		syscall.Kill(-t.pid, sig)
	}
}

// cleanup runs once the leader exited: whatever the command left behind
// (background jobs, daemons) is ended too. Every survivor is a descendant
// of one of our children by then (the subreaper sees to it), so the common
// case, nothing left, costs reading our own children lists.
func (t *tree) cleanup() {
	if t.pid <= 0 || t.enclosed {
		return // enclosed: the kernel ended them with the namespace
	}
	if len(t.collect()) == 0 {
		return
	}
	t.kill()
}

// sweep reaps the run's zombies that became this process's children after
// cleanup: processes killed together (an exec refusal) pass to this
// process only once their parents, agentexec-init among them, are gone.
// Call it once the exec gate has seen the last of them (Handle.Close);
// it can be left out when nothing was killed and the exec gate saw every
// process of the run reaped (Handle.EndedClean): reading every thread's
// children cost 0.05 ms of each gated run without a sandbox.
func (t *tree) sweep() {
	if t.enclosed {
		return // no process of the namespace ever becomes our child but the leader
	}
	for _, pid := range children(t.self) {
		if pid == t.pid {
			continue
		}
		if st, ok := procfs.ReadStat(pid); ok && st.State == 'Z' && t.owns(pid) {
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
	}
}

// waitExit blocks until pid has exited, without reaping it, so leftovers
// can be ended before os/exec waits for their I/O.
func waitExit(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return
		}
	}
}

// collect returns the live processes of the tree: the leader (while not
// reaped), our children that belong to this run, and all their
// descendants.
func (t *tree) collect() []int { return t.collectFrom(true) }

// collectFrom is collect, with the leader among the roots only if
// leader: once os/exec reaped it, its pid may be another process's.
func (t *tree) collectFrom(leader bool) []int {
	roots := t.orphans()
	if leader && alive(t.pid) {
		roots = append(roots, t.pid)
	}
	var all []int
	seen := map[int]bool{t.self: true}
	for len(roots) > 0 {
		pid := roots[len(roots)-1]
		roots = roots[:len(roots)-1]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		all = append(all, pid)
		roots = append(roots, children(pid)...)
	}
	return all
}

// orphans are our children, other than the leader, that belong to this
// run: tagged with its id, or in its process group or session (which
// catches a child that cleared its environment but stayed in the group).
func (t *tree) orphans() []int {
	var out []int
	for _, pid := range children(t.self) {
		if pid != t.pid && t.owns(pid) {
			out = append(out, pid)
		}
	}
	return out
}

func (t *tree) owns(pid int) bool {
	// A process in the middle of an execve shows an empty environment
	// until the new image's stack is set up (seen: `setsid nohup sleep`
	// escaping right after its parent exited, for milliseconds on a
	// loaded machine). The kernel reports env_start 0 during that window
	// and never after it, even for an empty environment, so an empty read
	// is retried while that holds, for up to a second.
	deadline := time.Now().Add(time.Second)
	for {
		env, err := procfs.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err == nil && (bytes.HasPrefix(env, t.tag) || bytes.Contains(env, append([]byte{0}, t.tag...))) {
			return true
		}
		if len(env) > 0 || err != nil || !midExec(pid) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Microsecond)
	}
	st, ok := procfs.ReadStat(pid)
	if !ok {
		return false
	}
	// A pid of 0 matches nothing: a process whose group or session began
	// outside our PID namespace (a container's) reports 0 for it.
	if t.pid > 0 && (st.Pgrp == t.pid || st.Session == t.pid) {
		return true
	}
	g := 0
	if t.group != nil {
		g = t.group()
	}
	return g > 0 && st.Pgrp == g
}

// reap waits (up to two seconds) until every killed process is gone,
// reaping those reparented to us. A process whose parent is another killed
// process becomes ours only once that parent is dead, hence the loop.
func (t *tree) reap(pids map[int]bool) {
	deadline := time.Now().Add(2 * time.Second)
	for len(pids) > 0 && time.Now().Before(deadline) {
		for pid := range pids {
			if pid == t.pid || t.reapOne(pid) {
				delete(pids, pid)
			}
		}
		if len(pids) > 0 {
			time.Sleep(time.Millisecond)
		}
	}
}

// reapOne reports whether pid is gone (reaping it when it is our zombie).
func (t *tree) reapOne(pid int) bool {
	st, ok := procfs.ReadStat(pid)
	if !ok {
		return true
	}
	if st.PPid != t.self || st.State != 'Z' {
		return false
	}
	var ws syscall.WaitStatus
	got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	return got == pid || err == syscall.ECHILD
}

// children lists the children of every thread of pid
// (/proc/PID/task/TID/children).
func children(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []int
	for _, task := range tasks {
		b, err := procfs.ReadFile(dir + "/" + task.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// midExec reports whether pid is a live process whose execve has not yet
// laid out the new image's environment.
func midExec(pid int) bool {
	st, ok := procfs.ReadStat(pid)
	return ok && st.State != 'Z' && st.EnvStart == 0
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	st, ok := procfs.ReadStat(pid)
	return ok && st.State != 'Z'
}

// noEcho turns off the terminal's echo.
func noEcho(tty *os.File) error {
	fd := int(tty.Fd())
	tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return err
	}
	tio.Lflag &^= unix.ECHO
	return unix.IoctlSetTermios(fd, unix.TCSETS, tio)
}
