package sandbox

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentexec/agentexec/internal/procfs"
	"golang.org/x/sys/unix"
)

// cgroupSeq makes cgroup names unique within this process.
var cgroupSeq atomic.Uint64

// detectCgroup returns "v1" or "v2" when a child pids cgroup can be made
// under this process's own cgroup, else "". It changes nothing: v2's pids
// controller is enabled for children only when a run needs it.
func detectCgroup(view cgroupView) string {
	for _, v := range []string{"v1", "v2"} {
		dir, err := view.controllerDir(v, "pids")
		if err != nil {
			continue
		}
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
func cgroupParent(v string) (string, error) { return readCgroupView().parent(v) }

func (view cgroupView) parent(v string) (string, error) {
	dir, err := view.controllerDir(v, "pids")
	if err != nil {
		return "", err
	}
	if v == "v2" {
		if err := enablePids(dir); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// cgroupView is /proc/self/mountinfo and /proc/self/cgroup as read once:
// detection asks both about six controllers, and each read is most of the
// cost of an answer.
type cgroupView struct {
	mountinfo, cgroup []byte
	errMounts, errOwn error
}

func readCgroupView() cgroupView {
	var v cgroupView
	v.mountinfo, v.errMounts = procfs.ReadFile("/proc/self/mountinfo")
	v.cgroup, v.errOwn = procfs.ReadFile("/proc/self/cgroup")
	return v
}

// controllerDir is this process's cgroup directory for controller ctrl in
// hierarchy v (v2: the unified directory, whatever ctrl).
func (view cgroupView) controllerDir(v, ctrl string) (string, error) {
	mnt, err := view.mount(v, ctrl)
	if err != nil {
		return "", err
	}
	own, err := view.own(v, ctrl)
	if err != nil {
		return "", err
	}
	return filepath.Join(mnt, own), nil
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

// mount finds the mount point of hierarchy v (v1: the one holding
// controller ctrl) in /proc/self/mountinfo.
func (view cgroupView) mount(v, ctrl string) (string, error) {
	if view.errMounts != nil {
		return "", view.errMounts
	}
	sc := bufio.NewScanner(bytes.NewReader(view.mountinfo))
	for sc.Scan() {
		m, ok := parseMountinfo(sc.Text())
		if !ok {
			continue
		}
		switch {
		case v == "v1" && m.fstype == "cgroup" && hasOption(m.superOpts, ctrl):
			return m.point, nil
		case v == "v2" && m.fstype == "cgroup2":
			return m.point, nil
		}
	}
	return "", fmt.Errorf("no %s %s cgroup mounted", v, ctrl)
}

func hasOption(opts, name string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == name {
			return true
		}
	}
	return false
}

// own is this process's cgroup in hierarchy v (v1: the one holding
// controller ctrl), from /proc/self/cgroup.
func (view cgroupView) own(v, ctrl string) (string, error) {
	if view.errOwn != nil {
		return "", view.errOwn
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(view.cgroup)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if (v == "v1" && hasOption(parts[1], ctrl)) || (v == "v2" && parts[0] == "0" && parts[1] == "") {
			return parts[2], nil
		}
	}
	return "", fmt.Errorf("not in a %s %s cgroup", v, ctrl)
}

// cgroupExtras says which controllers besides pids a run's cgroup in
// hierarchy v gets: the memory controller (the run's memory cap, OOM
// kills counted) and the cpu controller (the run weighs as one task
// against the host, however many processes it makes). v1: the
// controller's hierarchy is mounted and this process's directory there
// is writable; v2: the controller is enabled for children of this
// process's cgroup already (turning it on could fail for a cgroup that
// holds processes). Found once per process; Detect reports the same.
func cgroupExtras(v string) (mem, cpu bool) {
	findExtras(readCgroupView)
	e := extras[v]
	return e[0], e[1]
}

// findExtras finds the extras once, with the view view gives.
func findExtras(view func() cgroupView) {
	extrasOnce.Do(func() {
		vw := view()
		for _, h := range []string{"v1", "v2"} {
			extras[h] = [2]bool{extraUsable(vw, h, "memory"), extraUsable(vw, h, "cpu")}
		}
	})
}

var (
	extrasOnce sync.Once
	extras     = map[string][2]bool{}
)

func extraUsable(view cgroupView, v, ctrl string) bool {
	dir, err := view.controllerDir(v, ctrl)
	if err != nil || unix.Access(dir, unix.W_OK) != nil {
		return false
	}
	if v == "v1" {
		return true
	}
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	return err == nil && hasField(string(b), ctrl)
}

// cgroup is one run's cgroup: pids and, where the host allows
// (cgroupExtras), memory and cpu. In v2 they are one directory; in v1 one
// directory of the same name in each controller's hierarchy.
type cgroup struct {
	dir    string // pids (v1), or the one directory (v2)
	mem    string // the memory controller's directory, or ""
	cpu    string // the cpu controller's directory (v1), or ""
	v      string
	max    uint64 // pids.max as last written (0: not yet)
	memMax uint64 // the memory limit as last written (0: not yet)
}

// dirs lists the cgroup's directories, pids first.
func (cg *cgroup) dirs() []string {
	out := []string{cg.dir}
	for _, d := range []string{cg.mem, cg.cpu} {
		if d != "" && d != cg.dir {
			out = append(out, d)
		}
	}
	return out
}

// newCgroup makes a run cgroup limited to max tasks (threads count), with
// the memory and cpu controllers where cgroupExtras has them. The cpu
// weight is the default one, stated: the run competes as one task.
func newCgroup(v string, max uint64) (*cgroup, error) {
	view := readCgroupView() // fresh: where this process's cgroups are now
	parent, err := view.parent(v)
	if err != nil {
		return nil, err
	}
	// The pid alone does not name this process: in a container (another
	// PID namespace over the same hierarchy) an agentexec of the same pid
	// may make its runs' cgroups beside ours, so the name carries a token
	// drawn once per process too, and a name taken anyway is passed over.
	var name string
	cg := &cgroup{v: v}
	for try := 0; ; try++ {
		name = fmt.Sprintf("agentexec-%d-%s-%d", os.Getpid(), cgroupToken(), cgroupSeq.Add(1))
		cg.dir = filepath.Join(parent, name)
		err := os.Mkdir(cg.dir, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || try == 8 {
			return nil, err
		}
	}
	mem, cpu := cgroupExtras(v)
	for _, x := range []struct {
		on   bool
		ctrl string
		to   *string
	}{{mem, "memory", &cg.mem}, {cpu, "cpu", &cg.cpu}} {
		if !x.on {
			continue
		}
		if v == "v2" {
			*x.to = cg.dir
			continue
		}
		p, err := view.controllerDir(v, x.ctrl)
		if err == nil {
			*x.to = filepath.Join(p, name)
			err = os.Mkdir(*x.to, 0o755)
		}
		if err != nil {
			*x.to = ""
			cg.remove()
			return nil, fmt.Errorf("the %s cgroup: %w", x.ctrl, err)
		}
	}
	if err := cg.setWeight(); err != nil {
		cg.remove()
		return nil, err
	}
	if err := cg.setMax(max); err != nil {
		cg.remove()
		return nil, err
	}
	return cg, nil
}

// setWeight states the cpu weight (v1 cpu.shares 1024, v2 cpu.weight
// 100: the defaults, so the run as a whole weighs as one ordinary task).
func (cg *cgroup) setWeight() error {
	switch {
	case cg.cpu == "":
		return nil
	case cg.v == "v1":
		return os.WriteFile(filepath.Join(cg.cpu, "cpu.shares"), []byte("1024"), 0)
	}
	return os.WriteFile(filepath.Join(cg.cpu, "cpu.weight"), []byte("100"), 0)
}

// setMemory sets the memory limit in bytes (v1 memory.limit_in_bytes, v2
// memory.max), unless it is that already.
func (cg *cgroup) setMemory(limit uint64) error {
	if cg.mem == "" || cg.memMax == limit {
		return nil
	}
	file := "memory.max"
	if cg.v == "v1" {
		file = "memory.limit_in_bytes"
	}
	if err := os.WriteFile(filepath.Join(cg.mem, file), []byte(strconv.FormatUint(limit, 10)), 0); err != nil {
		return fmt.Errorf("setting the memory limit: %w", err)
	}
	cg.memMax = limit
	return nil
}

// oomKills is how many processes the kernel's OOM killer has killed in
// the cgroup (v1 memory.oom_control, v2 memory.events: "oom_kill N").
func (cg *cgroup) oomKills() uint64 {
	if cg.mem == "" {
		return 0
	}
	file := "memory.events"
	if cg.v == "v1" {
		file = "memory.oom_control"
	}
	b, err := procfs.ReadFile(filepath.Join(cg.mem, file))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "oom_kill "); ok {
			n, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
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
	for _, d := range cg.dirs() {
		b, err := procfs.ReadFile(filepath.Join(d, "tasks"))
		if err != nil || len(strings.TrimSpace(string(b))) != 0 {
			return cg.remove()
		}
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

// cgroupToken is this process's part of its cgroups' names.
var cgroupToken = sync.OnceValue(func() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
})

// sweepCgroups removes the empty run cgroups that processes which have
// exited left behind in hierarchy v.
func sweepCgroups(v string) {
	parents := []string{}
	view := readCgroupView()
	if p, err := view.parent(v); err == nil {
		parents = append(parents, p)
	}
	if v == "v1" {
		mem, cpu := cgroupExtras(v)
		for _, x := range []struct {
			on   bool
			ctrl string
		}{{mem, "memory"}, {cpu, "cpu"}} {
			if p, err := view.controllerDir(v, x.ctrl); err == nil && x.on {
				parents = append(parents, p)
			}
		}
	}
	for _, parent := range parents {
		entries, _ := os.ReadDir(parent)
		for _, e := range entries {
			if exitedOwner(e.Name(), "agentexec-") {
				syscall.Rmdir(filepath.Join(parent, e.Name())) // fails, harmlessly, on a cgroup still in use
			}
		}
	}
}

// exitedOwner reports whether name is prefix + "PID-…" for a process that
// has exited (never this one): what agentexec names its cgroups and
// per-run temp dirs after. Only a process in the initial PID namespace
// can tell: from inside another (agentexec run in a sandbox, a container,
// unshare -p), the processes outside are invisible, and their live
// cgroups and temp dirs would be removed from under their runs (seen:
// a run's cgroup gone between its mkdir and its pids.max, a launcher's
// writable root gone before its bind mount).
func exitedOwner(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	pidText, _, ok2 := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(pidText)
	return ok && ok2 && err == nil && pid > 0 && pid != os.Getpid() && seesEveryPID() && syscall.Kill(pid, 0) == syscall.ESRCH
}

// seesEveryPID reports whether this process is in the initial PID
// namespace (its inode is the kernel's fixed PROC_PID_INIT_INO), where
// every process of the host has a pid.
var seesEveryPID = sync.OnceValue(func() bool {
	var st unix.Stat_t
	return unix.Stat("/proc/self/ns/pid", &st) == nil && st.Ino == procPIDInitIno
})

const procPIDInitIno = 0xEFFFFFFC

func (cg *cgroup) write(file, value string) error {
	return os.WriteFile(filepath.Join(cg.dir, file), []byte(value), 0)
}

// joinThread moves the calling thread alone into the cgroup, in every
// hierarchy (v1 "tasks"; writing 0 moves the caller without the
// process-wide lock). It returns leave, which moves the thread back
// through files opened now, while the thread may still open them. leave
// may be called more than once. The files are plain descriptors: os.File
// would register each with the poller and take it off again, and leave is
// on every run's way to its command.
func (cg *cgroup) joinThread() (leave func() error, err error) {
	var backs []int
	closeAll := func() {
		for _, b := range backs {
			unix.Close(b)
		}
	}
	for _, d := range cg.dirs() {
		back, err := unix.Open(filepath.Join(filepath.Dir(d), "tasks"), unix.O_WRONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			closeAll()
			return nil, &os.PathError{Op: "open", Path: filepath.Join(filepath.Dir(d), "tasks"), Err: err}
		}
		backs = append(backs, back)
	}
	var once sync.Once
	var lerr error
	leave = func() error {
		once.Do(func() {
			for _, b := range backs {
				if err := writeZero(b); err != nil && lerr == nil {
					lerr = err
				}
			}
			closeAll()
		})
		return lerr
	}
	for _, d := range cg.dirs() {
		if err := writeZeroTo(filepath.Join(d, "tasks")); err != nil {
			leave()
			return nil, err
		}
	}
	return leave, nil
}

// writeZero writes "0" to the cgroup file fd: the calling thread moves.
func writeZero(fd int) error {
	for {
		_, err := unix.Write(fd, []byte("0"))
		if err != unix.EINTR {
			return err
		}
	}
}

// writeZeroTo writes "0" to the cgroup file at path.
func writeZeroTo(path string) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	if err := writeZero(fd); err != nil {
		return &os.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}

// add moves pid (and all its threads) into the cgroup, in every
// hierarchy.
func (cg *cgroup) add(pid int) error {
	for _, d := range cg.dirs() {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return err
		}
	}
	return nil
}

// remove kills whatever is left in the cgroup and removes it. Processes
// that outlived the command (only possible without a PID namespace) are
// killed here; a dying task keeps the cgroup busy for a moment, hence the
// retries.
func (cg *cgroup) remove() error {
	var errs []error
	for _, d := range cg.dirs() {
		var err error
		for i := 0; i < 200; i++ {
			cg.killAll()
			if err = syscall.Rmdir(d); err == nil || errors.Is(err, syscall.ENOENT) {
				break
			}
			time.Sleep(time.Duration(min(i+1, 20)) * time.Millisecond)
		}
		if err != nil && !errors.Is(err, syscall.ENOENT) {
			errs = append(errs, fmt.Errorf("sandbox: removing cgroup %s: %w", d, err))
		}
	}
	return errors.Join(errs...)
}

// killAll kills every process of the cgroup as a unit: cgroup.kill (v2),
// else SIGKILL to each member until none is left (v1, bounded: a member
// forking while it is killed adds at most what the pids limit lets it).
func (cg *cgroup) killAll() {
	if cg.write("cgroup.kill", "1") == nil {
		return
	}
	for range 100 {
		b, err := os.ReadFile(filepath.Join(cg.dir, "cgroup.procs"))
		if err != nil {
			return
		}
		n := 0
		for f := range strings.FieldsSeq(string(b)) {
			// A launcher thread that has not left yet lists this process.
			if pid, err := strconv.Atoi(f); err == nil && pid != os.Getpid() {
				syscall.Kill(pid, syscall.SIGKILL)
				n++
			}
		}
		if n == 0 {
			return
		}
	}
}
