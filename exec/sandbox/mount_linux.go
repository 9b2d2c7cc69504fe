package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// mountEntry is one line of /proc/self/mountinfo.
type mountEntry struct {
	point     string // mount point, unescaped
	fstype    string
	superOpts string
	readOnly  bool // the mount (not the filesystem) is read-only
}

// parseMountinfo parses one mountinfo line (proc(5)): fields 5 (mount
// point) and 6 (per-mount options), then after the "-" separator the filesystem type and the super
// options.
func parseMountinfo(line string) (mountEntry, bool) {
	f := strings.Fields(line)
	sep := -1
	for i := 6; i < len(f); i++ {
		if f[i] == "-" {
			sep = i
			break
		}
	}
	if len(f) < 5 || sep < 0 || sep+3 >= len(f) {
		return mountEntry{}, false
	}
	ro := hasOption(f[5], "ro")
	return mountEntry{point: unescapeOctal(f[4]), fstype: f[sep+1], superOpts: f[sep+3], readOnly: ro}, true
}

// unescapeOctal undoes the \NNN escapes of space, tab, newline and
// backslash in mountinfo fields.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mounts lists every mount in this thread's mount namespace, in mountinfo
// order (parents before children). thread-self, not self: a launcher
// thread has a mount namespace of its own.
func mounts() ([]mountEntry, error) {
	f, err := os.Open("/proc/thread-self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var all []mountEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := parseMountinfo(sc.Text()); ok {
			all = append(all, m)
		}
	}
	return all, sc.Err()
}

// within is true when p is root or below it.
func within(p, root string) bool {
	if root == "/" {
		return true
	}
	return p == root || strings.HasPrefix(p, root+"/")
}

func withinAny(p string, roots []string) bool {
	for _, r := range roots {
		if within(p, r) {
			return true
		}
	}
	return false
}

// setupMounts makes the filesystem view of the sandbox in its new mount
// namespace: private propagation, the writable roots bound onto themselves,
// every other mount read-only, the protected paths read-only again on top,
// masked sockets and, for the trampoline, a fresh /proc.
func setupMounts(w *wireSpec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making / private: %w", err)
	}
	if w.Plan.Thread {
		if err := readOnlyButWritable(w.Writable); err != nil {
			return err
		}
	} else {
		for _, r := range w.Writable {
			if err := unix.Mount(r, r, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				return fmt.Errorf("binding writable root %s: %w", r, err)
			}
		}
		if err := remountAllReadOnly(w.Writable); err != nil {
			return err
		}
	}
	for _, a := range pinnedDirs(w.Protected, w.Writable) {
		if err := unix.Mount(a, a, "", unix.MS_BIND|unix.MS_REC, ""); err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("pinning %s: %w", a, err)
		}
	}
	for _, p := range w.Protected {
		if err := bindReadOnly(p); err != nil {
			return fmt.Errorf("protecting %s: %w", p, err)
		}
	}
	if err := hidePaths(w.Hidden); err != nil {
		return err
	}
	for _, s := range w.Masked {
		if err := unix.Mount("/dev/null", s, "", unix.MS_BIND, ""); err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("masking %s: %w", s, err)
		}
	}
	if w.PrivateShm {
		if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=64m,mode=1777"); err != nil {
			return fmt.Errorf("private /dev/shm: %w", err)
		}
	}
	if w.Plan.PIDNS && !w.Plan.Thread { // the launcher mounts it once the namespace has its init
		// Best effort: the old /proc, read-only by now, still works when
		// a fresh one cannot be mounted (a user namespace over a /proc
		// with overmounts).
		_ = unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC|unix.MS_RDONLY, "")
	}
	return nil
}

// remountAllReadOnly remounts every mount outside the writable roots
// read-only, keeping its other per-mount flags (which may be locked in a
// user namespace).
func remountAllReadOnly(writable []string) error {
	all, err := mounts()
	if err != nil {
		return fmt.Errorf("reading mountinfo: %w", err)
	}
	for _, m := range all {
		p := m.point
		if withinAny(p, writable) {
			continue
		}
		if err := remountReadOnly(p); err != nil {
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EACCES) {
				continue // hidden under another mount: unreachable anyway
			}
			return fmt.Errorf("remounting %s read-only: %w", p, err)
		}
	}
	return nil
}

// readOnlyButWritable does for the launcher thread what the binds of the
// writable roots and remountAllReadOnly do for the trampoline, with the
// new mount API and without reading the mount table (its text, made anew
// for each namespace, was a third of the mounts' cost): each writable
// root's mounts are cloned first, as they are (a read-only one within a
// writable root stays read-only); one recursive mount_setattr (Linux
// 5.12) makes every mount read-only, keeping its other flags; then the
// clones go on top of their roots, in order, as the binds did. Only the
// launcher thread uses it: a user namespace's locked mounts would need
// the per-mount fallback anyway.
func readOnlyButWritable(writable []string) error {
	clones := make([]int, 0, len(writable))
	defer func() {
		for _, fd := range clones {
			unix.Close(fd)
		}
	}()
	for _, r := range writable {
		fd, err := unix.OpenTree(unix.AT_FDCWD, r, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			return fmt.Errorf("binding writable root %s: %w", r, err)
		}
		clones = append(clones, fd)
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("making every mount read-only: %w", err)
	}
	for i, r := range writable {
		if err := unix.MoveMount(clones[i], "", unix.AT_FDCWD, r, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("binding writable root %s: %w", r, err)
		}
	}
	return nil
}

func remountReadOnly(p string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(p, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY) | keptFlags(int64(st.Flags))
	return unix.Mount("", p, "", flags, "")
}

// stNoSymFollow is ST_NOSYMFOLLOW (statfs(2)), missing from x/sys/unix.
const stNoSymFollow = 0x2000

// keptFlags maps statfs flags to the mount flags a read-only remount must
// repeat.
func keptFlags(f int64) uintptr {
	var m uintptr
	for st, ms := range map[int64]uintptr{
		unix.ST_NOSUID:     unix.MS_NOSUID,
		unix.ST_NODEV:      unix.MS_NODEV,
		unix.ST_NOEXEC:     unix.MS_NOEXEC,
		unix.ST_NOATIME:    unix.MS_NOATIME,
		unix.ST_NODIRATIME: unix.MS_NODIRATIME,
		unix.ST_RELATIME:   unix.MS_RELATIME,
		stNoSymFollow:      unix.MS_NOSYMFOLLOW,
	} {
		if f&st != 0 {
			m |= ms
		}
	}
	return m
}

// bindReadOnly binds p onto itself and makes that bind read-only. A missing
// p is skipped: there is nothing to protect yet.
func bindReadOnly(p string) error {
	if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return err
	}
	return remountReadOnly(p)
}

// gitPaths lists what ProtectGit protects under root: root/.git and, when
// .git is a file ("gitdir: ..." of a worktree or submodule), the directory
// it points to.
func gitPaths(root string) []string {
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return nil
	}
	paths := []string{dotgit}
	if !fi.Mode().IsRegular() {
		return paths
	}
	b, err := os.ReadFile(dotgit)
	if err != nil {
		return paths
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return paths
	}
	target = resolveFrom(root, strings.TrimSpace(target))
	paths = append(paths, target)
	// A worktree's hooks and config live in the main repository's .git,
	// named by its commondir file.
	if b, err := os.ReadFile(filepath.Join(target, "commondir")); err == nil {
		paths = append(paths, resolveFrom(target, strings.TrimSpace(string(b))))
	}
	return paths
}

func resolveFrom(dir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// hostSockets are daemon sockets masked with /dev/null in every sandbox:
// Landlock ABI 7 cannot stop a connect to a pathname Unix socket, and these
// daemons act with root's full powers for whoever talks to them.
var hostSockets = []string{
	"/var/run/docker.sock", "/run/docker.sock",
	"/run/containerd/containerd.sock", "/run/podman/podman.sock",
	"/run/dbus/system_bus_socket", "/var/run/dbus/system_bus_socket",
	"/run/systemd/private", "/run/snapd.socket",
}

// pinnedDirs lists, parents first, the directories between a writable root
// and a protected path below it. Each is bound onto itself, so that it is a
// mount point: renaming or removing it fails with EBUSY, and a command
// cannot move a protected file aside and plant a new one in its place.
func pinnedDirs(protected, writable []string) []string {
	var dirs []string
	for _, p := range protected {
		for _, r := range writable {
			if p == r || !within(p, r) {
				continue
			}
			var chain []string
			for a := filepath.Dir(p); a != r && within(a, r); a = filepath.Dir(a) {
				chain = append([]string{a}, chain...)
			}
			dirs = append(dirs, chain...)
		}
	}
	return dedupe(dirs)
}

// hidePaths masks each of paths (resolved, existing when the run was
// prepared): a directory with an empty read-only tmpfs, anything else with
// an empty read-only file, so that no program can read what it holds or
// write through it. A path gone since is skipped: nothing is left to hide.
func hidePaths(paths []string) error {
	empty := -1 // a detached tmpfs holding one empty file, made when first needed
	defer func() {
		if empty >= 0 {
			unix.Close(empty)
		}
	}()
	for _, p := range paths {
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return fmt.Errorf("hiding %s: %w", p, err)
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			if err := unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,nr_inodes=1,mode=0555"); err != nil {
				return fmt.Errorf("hiding directory %s: %w", p, err)
			}
			continue
		}
		if empty < 0 {
			var err error
			if empty, err = emptyFileMount(); err != nil {
				return fmt.Errorf("hiding %s: %w", p, err)
			}
		}
		if err := bindEmptyFile(empty, p); err != nil {
			return fmt.Errorf("hiding %s: %w", p, err)
		}
	}
	return nil
}

// emptyFileMount returns a detached, read-only tmpfs holding one empty
// file, "empty", from which files are masked.
func emptyFileMount() (int, error) {
	fs, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("tmpfs for the mask: %w", err)
	}
	defer unix.Close(fs)
	if err := unix.FsconfigSetString(fs, "size", "4k"); err != nil {
		return -1, err
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return -1, err
	}
	mnt, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return -1, fmt.Errorf("mounting the mask's tmpfs: %w", err)
	}
	fd, err := unix.Openat(mnt, "empty", unix.O_CREAT|unix.O_EXCL|unix.O_RDONLY|unix.O_CLOEXEC, 0o444)
	if err == nil {
		unix.Close(fd)
		err = unix.MountSetattr(mnt, "", unix.AT_EMPTY_PATH, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
	}
	if err != nil {
		unix.Close(mnt)
		return -1, fmt.Errorf("the mask's empty file: %w", err)
	}
	return mnt, nil
}

// bindEmptyFile mounts a read-only copy of the empty file of the detached
// tmpfs mnt onto target (not following a symbolic link there).
func bindEmptyFile(mnt int, target string) error {
	t, err := unix.OpenTree(mnt, "empty", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		return fmt.Errorf("open_tree (Linux 6.15 clones a detached mount): %w", err)
	}
	defer unix.Close(t)
	return unix.MoveMount(t, "", unix.AT_FDCWD, target, unix.MOVE_MOUNT_F_EMPTY_PATH)
}
