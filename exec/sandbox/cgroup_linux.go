package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cgroupSeq makes cgroup names unique within this process.
var cgroupSeq atomic.Uint64

// detectCgroup returns "v1" or "v2" when a child pids cgroup can be made
// under this process's own cgroup, else "". It changes nothing: v2's pids
// controller is enabled for children only when a run needs it.
func detectCgroup() string {
	for _, v := range []string{"v1", "v2"} {
		mnt, err1 := cgroupMount(v)
		own, err2 := ownCgroup(v)
		if err1 != nil || err2 != nil {
			continue
		}
		dir := filepath.Join(mnt, own)
		if unix.Access(dir, unix.W_OK) != nil {
			continue
		}
		if v == "v1" {
			return v
		}
		if b, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers")); err == nil && hasField(string(b), "pids") {
			return v
		}
	}
	return ""
}

func hasField(s, f string) bool {
	for x := range strings.FieldsSeq(s) {
		if x == f {
			return true
		}
	}
	return false
}

// cgroupParent is the directory of this process's pids cgroup in hierarchy
// v ("v1": the pids controller; "v2": the unified tree, with pids enabled
// for its children here).
func cgroupParent(v string) (string, error) {
	mnt, err := cgroupMount(v)
	if err != nil {
		return "", err
	}
	own, err := ownCgroup(v)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(mnt, own)
	if v == "v2" {
		if err := enablePids(dir); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// enablePids turns the pids controller on for dir's children (v2).
func enablePids(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if err != nil {
		return err
	}
	if hasField(string(b), "pids") {
		return nil
	}
	return os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+pids"), 0)
}

// cgroupMount finds the mount point of hierarchy v in /proc/self/mountinfo.
func cgroupMount(v string) (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m, ok := parseMountinfo(sc.Text())
		if !ok {
			continue
		}
		switch {
		case v == "v1" && m.fstype == "cgroup" && hasOption(m.superOpts, "pids"):
			return m.point, nil
		case v == "v2" && m.fstype == "cgroup2":
			return m.point, nil
		}
	}
	return "", fmt.Errorf("no %s pids cgroup mounted", v)
}

func hasOption(opts, name string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == name {
			return true
		}
	}
	return false
}

// ownCgroup is this process's path in hierarchy v from /proc/self/cgroup.
func ownCgroup(v string) (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if (v == "v1" && hasOption(parts[1], "pids")) || (v == "v2" && parts[0] == "0" && parts[1] == "") {
			return parts[2], nil
		}
	}
	return "", fmt.Errorf("not in a %s pids cgroup", v)
}

// cgroup is one run's pids cgroup.
type cgroup struct {
	dir string
	max uint64 // pids.max as last written (0: not yet)
}

// newCgroup makes a pids cgroup limited to max tasks (threads count).
func newCgroup(v string, max uint64) (*cgroup, error) {
	parent, err := cgroupParent(v)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(parent, fmt.Sprintf("agentexec-%d-%d", os.Getpid(), cgroupSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	cg := &cgroup{dir: dir}
	if err := cg.setMax(max); err != nil {
		cg.remove()
		return nil, err
	}
	return cg, nil
}

// setMax sets pids.max, unless it is max already.
func (cg *cgroup) setMax(max uint64) error {
	if cg.max == max {
		return nil
	}
	if err := cg.write("pids.max", strconv.FormatUint(max, 10)); err != nil {
		return err
	}
	cg.max = max
	return nil
}

// cgroupPool keeps emptied run cgroups of the launcher thread for later
// runs: making and removing a cgroup costs 200-500 µs a run here. Up to
// cgroupPoolMax stay behind, empty, when the process exits; the next
// process removes them (sweepCgroups).
var cgroupPool struct {
	sync.Mutex
	free  []*cgroup
	swept bool
}

const cgroupPoolMax = 8

// takeCgroup is newCgroup, reusing a pooled cgroup when there is one.
func takeCgroup(v string, max uint64) (*cgroup, error) {
	cgroupPool.Lock()
	var cg *cgroup
	if n := len(cgroupPool.free); n > 0 {
		cg = cgroupPool.free[n-1]
		cgroupPool.free = cgroupPool.free[:n-1]
	}
	sweep := !cgroupPool.swept
	cgroupPool.swept = true
	cgroupPool.Unlock()
	if sweep {
		sweepCgroups(v)
	}
	if cg == nil {
		return newCgroup(v, max)
	}
	if err := cg.setMax(max); err != nil {
		cg.remove()
		return nil, err
	}
	return cg, nil
}

// recycle returns an empty cgroup to the pool, and removes one that is
// not empty (killing what is in it) or that the pool has no room for.
// Nothing of a run is left in a cgroup that is reused.
func (cg *cgroup) recycle() error {
	b, err := os.ReadFile(filepath.Join(cg.dir, "tasks"))
	if err != nil || len(strings.TrimSpace(string(b))) != 0 {
		return cg.remove()
	}
	cgroupPool.Lock()
	defer cgroupPool.Unlock()
	if len(cgroupPool.free) >= cgroupPoolMax {
		return cg.remove()
	}
	cgroupPool.free = append(cgroupPool.free, cg)
	return nil
}

// drainCgroupPool removes the pooled cgroups.
func drainCgroupPool() {
	cgroupPool.Lock()
	free := cgroupPool.free
	cgroupPool.free = nil
	cgroupPool.Unlock()
	for _, cg := range free {
		cg.remove()
	}
}

// sweepCgroups removes the empty run cgroups that processes which have
// exited left behind in hierarchy v.
func sweepCgroups(v string) {
	parent, err := cgroupParent(v)
	if err != nil {
		return
	}
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if exitedOwner(e.Name(), "agentexec-") {
			syscall.Rmdir(filepath.Join(parent, e.Name())) // fails, harmlessly, on a cgroup still in use
		}
	}
}

// exitedOwner reports whether name is prefix + "PID-…" for a process that
// has exited (never this one): what agentexec names its cgroups and
// per-run temp dirs after.
func exitedOwner(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	pidText, _, ok2 := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(pidText)
	return ok && ok2 && err == nil && pid > 0 && pid != os.Getpid() && syscall.Kill(pid, 0) == syscall.ESRCH
}

func (cg *cgroup) write(file, value string) error {
	return os.WriteFile(filepath.Join(cg.dir, file), []byte(value), 0)
}

// joinThread moves the calling thread alone into the cgroup (v1 "tasks";
// writing 0 moves the caller without the process-wide lock). It returns
// leave, which moves the thread back through a file opened now, while the
// thread may still open it. leave may be called more than once.
func (cg *cgroup) joinThread() (leave func() error, err error) {
	back, err := os.OpenFile(filepath.Join(filepath.Dir(cg.dir), "tasks"), os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	if err := cg.write("tasks", "0"); err != nil {
		back.Close()
		return nil, err
	}
	var once sync.Once
	var lerr error
	return func() error {
		once.Do(func() {
			_, lerr = back.Write([]byte("0"))
			back.Close()
		})
		return lerr
	}, nil
}

// add moves pid (and all its threads) into the cgroup.
func (cg *cgroup) add(pid int) error {
	return cg.write("cgroup.procs", strconv.Itoa(pid))
}

// remove kills whatever is left in the cgroup and removes it. Processes
// that outlived the command (only possible without a PID namespace) are
// killed here; a dying task keeps the cgroup busy for a moment, hence the
// retries.
func (cg *cgroup) remove() error {
	var err error
	for i := 0; i < 200; i++ {
		cg.killAll()
		if err = syscall.Rmdir(cg.dir); err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		time.Sleep(time.Duration(min(i+1, 20)) * time.Millisecond)
	}
	return fmt.Errorf("sandbox: removing cgroup %s: %w", cg.dir, err)
}

func (cg *cgroup) killAll() {
	if cg.write("cgroup.kill", "1") == nil {
		return
	}
	b, _ := os.ReadFile(filepath.Join(cg.dir, "cgroup.procs"))
	for f := range strings.FieldsSeq(string(b)) {
		// A launcher thread that has not left yet lists this process.
		if pid, err := strconv.Atoi(f); err == nil && pid != os.Getpid() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
