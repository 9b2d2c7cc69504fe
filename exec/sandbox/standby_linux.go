package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A standby is a launcher thread readied for the next run before it is
// asked for: once a process has started runs from a thread more than once,
// each start readies another launcher, in the background, with the layers
// the last run had (its namespaces, read-only mounts, dropped
// capabilities, Landlock ruleset and seccomp filter: two thirds of what a
// run adds to os/exec). The next Prepare adopts it only if the layers its
// own run needs are exactly those (compared field by field) and the host's
// mount table has not changed since; otherwise the standby is thrown away
// and the run takes the layers on itself. A run never gets a layer made
// for another configuration, only made earlier.

// standby is a readied launcher and what was made for it.
type standby struct {
	l       *launcher
	key     string
	tempDir string // made for it; "" once a run adopted it
	mounts  int    // fd of the host's mountinfo, opened before the layers
}

var standbys struct {
	sync.Mutex
	ready  []*standby // oldest first
	making int        // being readied
	active int        // runs started from a launcher thread, not yet closed
	runs   int
	swept  bool
	off    bool // set by tests and benchmarks
}

// standbysMax bounds the standbys kept ready: as many as runs are going on
// at once (a server with --parallel N has up to N arriving together), up
// to this many.
const standbysMax = 4

// Release ends the standby launchers this process keeps ready for its
// next sandboxed runs, and removes the run cgroups and temp dirs kept for
// reuse; it returns once the standbys' temp dirs and the cgroups are
// gone. Call it before the program exits (what it would leave behind is
// removed by the next process that sandboxes a run). A later run readies
// other standbys.
func Release() {
	defer drainTempDirs() // after the standbys returned theirs
	defer drainCgroupPool()
	// A standby being readied is waited for, up to five seconds: under
	// load readying one can take far longer than its usual milliseconds,
	// and one finished after Release returned would leave its cgroup.
	for deadline := time.Now().Add(5 * time.Second); ; {
		standbys.Lock()
		ready, making := standbys.ready, standbys.making
		standbys.ready = nil
		standbys.Unlock()
		for _, sb := range ready {
			sb.drop()
			<-sb.l.cleaned
		}
		if making == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond) // one is being readied
	}
}

// takeStandby takes the oldest readied launcher, if there is one.
func takeStandby() *standby {
	standbys.Lock()
	defer standbys.Unlock()
	if len(standbys.ready) == 0 {
		return nil
	}
	sb := standbys.ready[0]
	standbys.ready = standbys.ready[1:]
	return sb
}

// fits reports whether sb took on exactly the layers w needs, on a host
// whose mounts have not changed since.
func (sb *standby) fits(w *wireSpec) bool {
	return sb.key == layerKey(w) && !mountsChanged(sb.mounts)
}

// drop throws sb away: its thread ends, its cgroup is recycled and its
// temp dir, unless adopted, removed.
func (sb *standby) drop() {
	unix.Close(sb.mounts)
	sb.l.discard()
}

// adopt hands sb to the run of h, which now owns its cgroup (and temp
// dir, which Prepare took already).
func (sb *standby) adopt(h *Handle) {
	unix.Close(sb.mounts)
	sb.l.cleanup = nil
	h.standby, h.cg = sb.l, sb.l.cg
}

// discard releases a launcher that forked nothing.
func (l *launcher) discard() { close(l.release) }

// layerKey encodes what a launcher thread's layers depend on: everything
// in w but the command, its environment and directory (other than as a
// writable root) and the rlimits, which are set after the fork. The paths
// count with the files they name now: a workspace removed and made again
// under the same name is another directory, and the standby's mounts and
// Landlock rules hold the old one.
func layerKey(w *wireSpec) string {
	b, err := json.Marshal(struct {
		Network    bool
		Writable   []string
		Readable   []string
		Protected  []string
		Masked     []string
		Hidden     []string
		PrivateShm bool
		Terminals  []string
		Plan       plan
	}{w.Network, identities(w.Writable), identities(w.Readable), identities(w.Protected),
		identities(w.Masked), identities(w.Hidden), w.PrivateShm, w.Terminals, w.Plan})
	if err != nil {
		return "" // never equal to a standby's key, which encoded fine
	}
	return string(b)
}

// identities lists each path with the device and inode it names, or
// "none".
func identities(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		var st unix.Stat_t
		if unix.Stat(p, &st) != nil {
			out[i] = p + " none"
			continue
		}
		out[i] = fmt.Sprintf("%s %d:%d", p, st.Dev, st.Ino)
	}
	return out
}

// readyStandby readies launchers for next runs like h's, in the
// background, until as many are ready or being readied as runs are going
// on now (h's included). A process that has started one run from a thread
// gets none (the CLI's run, which would only leave the standby's temp dir
// behind), and nor does a run on a terminal, which is that run's own.
func readyStandby(h *Handle) {
	w := h.threadWire
	if len(w.Terminals) > 0 {
		return
	}
	standbys.Lock()
	standbys.runs++
	want := min(max(standbys.active, 1), standbysMax)
	n := want - len(standbys.ready) - standbys.making
	if standbys.runs < 2 || n <= 0 || standbys.off {
		standbys.Unlock()
		return
	}
	standbys.making += n
	sweep := !standbys.swept
	standbys.swept = true
	standbys.Unlock()
	spec := h.runSpec
	go func() {
		if sweep {
			sweepTempDirs()
		}
		for range n { // one after the other: the first is ready soonest
			sb, err := makeStandby(spec, w)
			standbys.Lock()
			standbys.making--
			switch {
			case err != nil: // the next run takes its layers on itself
			case len(standbys.ready) >= standbysMax || standbys.off:
				sb.drop()
			default:
				standbys.ready = append(standbys.ready, sb)
			}
			standbys.Unlock()
		}
	}()
}

// runStarted and runClosed count the runs going on from launcher threads.
func runStarted() {
	standbys.Lock()
	standbys.active++
	standbys.Unlock()
}

func runClosed() {
	standbys.Lock()
	standbys.active--
	standbys.Unlock()
}

// makeStandby starts a launcher with the layers a run of spec like the one
// of w would need.
func makeStandby(spec Spec, like *wireSpec) (*standby, error) {
	mounts, err := unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	sh := &Handle{}
	cmd := &exec.Cmd{Path: like.Path, Args: like.Args, Dir: like.Dir, Env: []string{}}
	w, err := sh.wire(cmd, spec, like.Plan)
	if err == nil && w.Plan.Cgroup != "v1" {
		err = fmt.Errorf("sandbox: a standby needs the v1 pids cgroup, not %q", w.Plan.Cgroup)
	}
	var cg *cgroup
	if err == nil {
		cg, err = takeCgroup("v1", DefaultProcesses+1)
	}
	if err != nil {
		unix.Close(mounts)
		if sh.tempDir != "" {
			recycleTempDir(sh.tempDir, true) // nothing ran in it
		}
		return nil, err
	}
	sb := &standby{key: layerKey(w), tempDir: sh.tempDir, mounts: mounts}
	sb.l = newLauncher(w, cg)
	sb.l.cleanup = func() {
		cg.recycle()
		if sb.tempDir != "" {
			recycleTempDir(sb.tempDir, true) // nothing ran in it
		}
	}
	return sb, nil
}

// mountsChanged reports whether this process's mount table changed since
// fd (its mountinfo) was opened: the kernel flags that as POLLPRI.
func mountsChanged(fd int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLPRI}}
	n, err := unix.Poll(fds, 0)
	return err != nil || n > 0 && fds[0].Revents&(unix.POLLPRI|unix.POLLERR|unix.POLLNVAL) != 0
}

// tempDirPrefix names per-run temp dirs after the process that made them,
// so that those of a process that has exited can be found.
func tempDirPrefix() string { return "agentexec-run-" + strconv.Itoa(os.Getpid()) + "-" }

// sweepTempDirs removes the per-run temp dirs, this user's, of processes
// that have exited: a standby's, when its process exited before a run took
// it.
func sweepTempDirs() {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), "agentexec-run-*-*"))
	for _, m := range matches {
		if !exitedOwner(filepath.Base(m), "agentexec-run-") {
			continue
		}
		var st unix.Stat_t
		if unix.Lstat(m, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && int(st.Uid) == os.Getuid() {
			os.RemoveAll(m)
		}
	}
}
