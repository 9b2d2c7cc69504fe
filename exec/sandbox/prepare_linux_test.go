package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestMissingFeature forces a host without a feature and checks that
// Prepare refuses, names the feature and leaves cmd alone.
func TestMissingFeature(t *testing.T) {
	tests := []struct {
		name, feature string
		spec          Spec
		caps          func(*Capabilities)
	}{
		{"no landlock", "landlock", Spec{Profile: WorkspaceWrite}, func(c *Capabilities) { c.LandlockABI = 0 }},
		{"no mount ns", "mount namespace", Spec{Profile: ReadOnly}, func(c *Capabilities) { c.MountNS = false }},
		{"no network cut", "network cut", Spec{Profile: ReadOnly}, func(c *Capabilities) { c.NetNS, c.Seccomp = false, false }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func(f func() Capabilities) { detectCaps = f }(detectCaps)
			detectCaps = func() Capabilities { c := fullCaps; tt.caps(&c); return c }
			cmd := exec.Command("/bin/true")
			before := *cmd
			h, err := Prepare(cmd, tt.spec)
			var ue *UnavailableError
			if h != nil || !errors.As(err, &ue) || ue.Feature != tt.feature || !strings.Contains(err.Error(), tt.feature) {
				t.Fatalf("want an error naming %q, got %v", tt.feature, err)
			}
			if cmd.Path != before.Path || !reflect.DeepEqual(cmd.Args, before.Args) || cmd.SysProcAttr != nil {
				t.Error("a refused Prepare changed cmd")
			}
		})
	}
}

func TestNoneChangesNothing(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "exit 3")
	attr := &syscall.SysProcAttr{Setpgid: true}
	cmd.SysProcAttr = attr
	h, err := Prepare(cmd, Spec{Profile: None})
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Path != "/bin/sh" || cmd.SysProcAttr != attr || attr.Cloneflags != 0 || len(cmd.ExtraFiles) != 0 {
		t.Fatalf("None changed cmd: %+v", cmd)
	}
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	if cmd.Wait(); cmd.ProcessState.ExitCode() != 3 {
		t.Errorf("exit %d", cmd.ProcessState.ExitCode())
	}
	if r := h.Report(); r.Profile != None || r.Network != "on" || len(r.Layers) != 0 {
		t.Errorf("report %+v", r)
	}
	if err := h.Close(); err != nil {
		t.Error(err)
	}
}

// TestSysProcAttrMerged checks that Prepare keeps what the caller set, and
// what each launcher makes of cmd.
func TestSysProcAttrMerged(t *testing.T) {
	requireSandbox(t)
	eachLauncher(t, func(t *testing.T) {
		ws, _ := workspace(t)
		cmd := exec.Command("/bin/true")
		cmd.Dir = ws
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
		h, err := Prepare(cmd, Spec{Profile: WorkspaceWrite, Cwd: ws})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		a := cmd.SysProcAttr
		if !a.Setpgid {
			t.Errorf("SysProcAttr not merged: %+v", a)
		}
		if h.Report().Launcher == "thread" {
			// agentexec-init running its program, killed with the
			// launcher, and not startable but by the Handle.
			if !strings.HasPrefix(cmd.Path, "/proc/self/fd/") || len(cmd.Args) < 4 || cmd.Args[0] != initName || cmd.Args[2] != "/bin/true" ||
				a.Ptrace || a.Pdeathsig != syscall.SIGKILL || a.Cloneflags != 0 || cmd.Err != errDirectStart {
				t.Errorf("cmd not readied for the launcher: %q %+v %v", cmd.Path, a, cmd.Err)
			}
		} else if cmd.Path != "/proc/self/exe" || cmd.Args[0] != trampolineName || len(cmd.Env) != 0 || a.Cloneflags&syscall.CLONE_NEWNS == 0 {
			t.Errorf("cmd not rewritten: %q %q %q %+v", cmd.Path, cmd.Args, cmd.Env, a)
		}
		if err := h.Start(); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDirectStartRefused checks that a command readied for the launcher
// thread cannot be started around the Handle, unconfined.
func TestDirectStartRefused(t *testing.T) {
	requireSandbox(t)
	if !Detect().ThreadLaunch {
		t.Skip("runs cannot start from a thread here")
	}
	ws, _ := workspace(t)
	cmd := exec.Command("/bin/sh", "-c", "touch ran")
	cmd.Dir = ws
	h, err := Prepare(cmd, Spec{Profile: WorkspaceWrite, Cwd: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := cmd.Start(); !errors.Is(err, errDirectStart) {
		t.Errorf("cmd.Start = %v, want %v", err, errDirectStart)
	}
	if err := h.Start(); err == nil {
		cmd.Wait()
		t.Error("Handle.Start after a refused cmd.Start succeeded")
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
		t.Error("the command ran")
	}
}

func TestParseMountinfo(t *testing.T) {
	tests := []struct {
		line string
		want mountEntry
		ok   bool
	}{
		{`22 1 253:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard`, mountEntry{"/", "ext4", "rw,discard", false}, true},
		{`30 22 0:26 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids`, mountEntry{"/sys/fs/cgroup/pids", "cgroup", "rw,pids", false}, true},
		{`31 22 0:27 / /mnt/a\040b rw - tmpfs tmpfs rw`, mountEntry{"/mnt/a b", "tmpfs", "rw", false}, true},
		{`31 22 0:27 / /mnt/a\\b rw - tmpfs tmpfs rw`, mountEntry{`/mnt/a\\b`, "tmpfs", "rw", false}, true},
		{`31 22 0:27 / /x rw master:1 propagate_from:2 - tmpfs tmpfs rw`, mountEntry{"/x", "tmpfs", "rw", false}, true},
		{`27 26 0:24 / /mnt/ro ro,nosuid,nodev,relatime - tmpfs none ro,size=4k`, mountEntry{"/mnt/ro", "tmpfs", "ro,size=4k", true}, true},
		{`31 22 0:27 / /x rw tmpfs tmpfs rw`, mountEntry{}, false},
		{``, mountEntry{}, false},
		{`- - - - - - -`, mountEntry{}, false},
	}
	for _, tt := range tests {
		got, ok := parseMountinfo(tt.line)
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseMountinfo(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseMountinfo(f *testing.F) {
	f.Add(`22 1 253:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard`)
	f.Add(`31 22 0:27 / /mnt/a\040b rw - tmpfs tmpfs rw`)
	f.Add(`\`)
	f.Fuzz(func(t *testing.T, line string) {
		m, ok := parseMountinfo(line)
		if ok && (m.point == "" || m.fstype == "") {
			t.Errorf("accepted %q with empty fields: %+v", line, m)
		}
		if !strings.Contains(line, `\`) && ok && !strings.Contains(line, m.point) {
			t.Errorf("mount point %q not in %q", m.point, line)
		}
	})
}

func TestWithin(t *testing.T) {
	tests := []struct {
		p, root string
		want    bool
	}{
		{"/a/b", "/a", true}, {"/a", "/a", true}, {"/ab", "/a", false}, {"/", "/a", false}, {"/x", "/", true},
	}
	for _, tt := range tests {
		if got := within(tt.p, tt.root); got != tt.want {
			t.Errorf("within(%q, %q) = %v", tt.p, tt.root, got)
		}
	}
}

func TestKeptFlags(t *testing.T) {
	tests := []struct {
		statfs int64
		want   uintptr
	}{
		{0, 0},
		{unix.ST_RDONLY, 0},
		{unix.ST_NOSUID | unix.ST_NODEV, unix.MS_NOSUID | unix.MS_NODEV},
		{unix.ST_NOEXEC | unix.ST_RELATIME, unix.MS_NOEXEC | unix.MS_RELATIME},
		{unix.ST_NOATIME | unix.ST_NODIRATIME | stNoSymFollow, unix.MS_NOATIME | unix.MS_NODIRATIME | unix.MS_NOSYMFOLLOW},
	}
	for _, tt := range tests {
		if got := keptFlags(tt.statfs); got != tt.want {
			t.Errorf("keptFlags(%#x) = %#x, want %#x", tt.statfs, got, tt.want)
		}
	}
}

// TestTrampolineRefusesBadStart checks that the trampoline started without
// a spec, or with a malformed one, exits 126 and runs nothing.
func TestTrampolineRefusesBadStart(t *testing.T) {
	garbage, err := os.CreateTemp(t.TempDir(), "spec")
	if err != nil {
		t.Fatal(err)
	}
	garbage.WriteString("{not json")
	garbage.Seek(0, 0)
	goR, goW, _ := os.Pipe()
	defer goW.Close()
	tests := []struct {
		name  string
		args  []string
		files []*os.File
		want  string
	}{
		{"no fds", nil, nil, "not started by sandbox.Prepare"},
		{"bad fd numbers", []string{"x", "y"}, nil, "invalid syntax"},
		{"malformed spec", []string{"3", "4"}, []*os.File{garbage, goR}, "reading the spec"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("/proc/self/exe", tt.args...)
			cmd.Args[0] = trampolineName
			cmd.ExtraFiles = tt.files
			out, err := cmd.CombinedOutput()
			if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != exitSetup || !strings.Contains(string(out), tt.want) {
				t.Errorf("got %v: %s", err, out)
			}
		})
	}
}

// TestPrepareBadSpec checks that a bad Spec is refused with its field named.
func TestPrepareBadSpec(t *testing.T) {
	requireSandbox(t)
	tests := []struct {
		spec  Spec
		field string
	}{
		{Spec{Profile: WorkspaceWrite, Cwd: "/nonexistent/agentexec/ws"}, "Spec.Cwd"},
		{Spec{Profile: "write-everything"}, "Spec.Profile"},
		{Spec{Profile: WorkspaceWrite, TempDir: "/nonexistent/agentexec/tmp"}, "Spec.TempDir"},
		{Spec{Profile: ReadOnly, WritableRoots: []string{"relative"}}, "Spec.WritableRoots"},
	}
	for _, tt := range tests {
		cmd := exec.Command("/bin/true")
		if h, err := Prepare(cmd, tt.spec); err == nil || !strings.Contains(err.Error(), tt.field) {
			if h != nil {
				h.Close()
			}
			t.Errorf("Prepare(%+v) = %v, want an error naming %s", tt.spec, err, tt.field)
		}
	}
}

func TestPinnedDirs(t *testing.T) {
	got := pinnedDirs([]string{"/ws/a/b/p", "/ws/top", "/ws/a/q", "/other/x", "/ws"}, []string{"/ws", "/tmp/t"})
	want := []string{"/ws/a", "/ws/a/b"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pinnedDirs = %q, want %q", got, want)
	}
}
