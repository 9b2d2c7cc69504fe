package sandbox

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

var fullCaps = Capabilities{OS: "linux", Root: true, LandlockABI: 7, MountNS: true, NetNS: true, PIDNS: true, PIDMaxNS: true, CgroupPids: "v1", Seccomp: true}

func TestMakePlan(t *testing.T) {
	tests := []struct {
		name    string
		spec    Spec
		caps    func(*Capabilities)
		feature string // the missing feature, or "" for success
		network string
		layers  []string
		abi     int // the ABI asked for (0: 7)
	}{
		{name: "full, network off", spec: Spec{Profile: WorkspaceWrite}, network: "seccomp",
			layers: []string{"no_new_privs", "caps", "rlimits", "landlock-abi7", "mountns-ro", "landlock-net", "unix-socket-masks", "seccomp", "seccomp-net", "pidns", "pid-max"}},
		{name: "full, network on", spec: Spec{Profile: ReadOnly, Network: true}, network: "on",
			layers: []string{"no_new_privs", "caps", "rlimits", "landlock-abi7", "mountns-ro", "seccomp", "pidns", "pid-max"}},
		{name: "ABI 9 refuses pathname sockets", spec: Spec{Profile: ReadOnly}, caps: func(c *Capabilities) { c.LandlockABI = 9 }, network: "seccomp", abi: 9,
			layers: []string{"no_new_privs", "caps", "rlimits", "landlock-abi9", "mountns-ro", "landlock-net", "landlock-unix", "seccomp", "seccomp-net", "pidns", "pid-max"}},
		{name: "ABI 8 asks ABI 7", spec: Spec{Profile: ReadOnly}, caps: func(c *Capabilities) { c.LandlockABI = 8 }, network: "seccomp"},
		{name: "newer kernel asks ABI 9", spec: Spec{Profile: ReadOnly, Network: true}, caps: func(c *Capabilities) { c.LandlockABI = 12 }, network: "on", abi: 9,
			layers: []string{"no_new_privs", "caps", "rlimits", "landlock-abi9", "mountns-ro", "seccomp", "pidns", "pid-max"}},
		{name: "non-root uses userns", spec: Spec{Profile: ReadOnly}, caps: func(c *Capabilities) { c.Root = false; c.UserNS = true }, network: "seccomp"},
		{name: "no netns, seccomp cuts", spec: Spec{Profile: ReadOnly}, caps: func(c *Capabilities) { c.NetNS = false }, network: "seccomp"},
		{name: "no seccomp, netns cuts", spec: Spec{Profile: ReadOnly}, caps: func(c *Capabilities) { c.Seccomp = false }, network: "netns"},
		{name: "no landlock", spec: Spec{Profile: WorkspaceWrite}, caps: func(c *Capabilities) { c.LandlockABI = 0 }, feature: "landlock"},
		{name: "no landlock, read-only", spec: Spec{Profile: ReadOnly, Network: true}, caps: func(c *Capabilities) { c.LandlockABI = 0 }, feature: "landlock"},
		{name: "no mount ns", spec: Spec{Profile: WorkspaceWrite}, caps: func(c *Capabilities) { c.MountNS = false }, feature: "mount namespace"},
		{name: "no network cut", spec: Spec{Profile: ReadOnly}, caps: func(c *Capabilities) { c.NetNS, c.Seccomp = false, false }, feature: "network cut"},
		{name: "old kernel: cgroup", spec: Spec{Profile: ReadOnly, Network: true}, caps: func(c *Capabilities) { c.PIDMaxNS = false }, network: "on",
			layers: []string{"no_new_privs", "caps", "rlimits", "landlock-abi7", "mountns-ro", "seccomp", "pidns", "cgroup-pids"}},
		{name: "no pidns: cgroup", spec: Spec{Profile: ReadOnly, Network: true}, caps: func(c *Capabilities) { c.PIDNS = false }, network: "on",
			layers: []string{"no_new_privs", "caps", "rlimits", "landlock-abi7", "mountns-ro", "seccomp", "cgroup-pids"}},
		{name: "not linux", spec: Spec{Profile: ReadOnly}, caps: func(c *Capabilities) { *c = Capabilities{OS: "windows"} }, feature: "a Linux kernel"},
		{name: "no network cut needed", spec: Spec{Profile: ReadOnly, Network: true}, caps: func(c *Capabilities) { c.NetNS, c.Seccomp = false, false }, network: "on"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caps := fullCaps
			if tt.caps != nil {
				tt.caps(&caps)
			}
			p, err := makePlan(tt.spec, caps)
			if tt.feature != "" {
				var ue *UnavailableError
				if !errors.As(err, &ue) || ue.Feature != tt.feature || ue.Profile != tt.spec.Profile {
					t.Fatalf("want UnavailableError for %q, got %v", tt.feature, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := p.report(tt.spec)
			if r.Network != tt.network || r.LandlockABI != max(tt.abi, 7) {
				t.Errorf("report %+v", r)
			}
			if tt.layers != nil && !slices.Equal(r.Layers, tt.layers) {
				t.Errorf("layers %v, want %v", r.Layers, tt.layers)
			}
			if p.UserNS == caps.Root {
				t.Errorf("UserNS %v for root %v", p.UserNS, caps.Root)
			}
		})
	}
}

func TestCheckSpec(t *testing.T) {
	tests := []struct {
		spec Spec
		ok   bool
	}{
		{Spec{Profile: ReadOnly}, true},
		{Spec{Profile: WorkspaceWrite, WritableRoots: []string{"/a"}, ProtectedPaths: []string{"/a/b"}}, true},
		{Spec{Profile: "rw"}, false},
		{Spec{Profile: ""}, false},
		{Spec{Profile: WorkspaceWrite, WritableRoots: []string{"rel"}}, false},
		{Spec{Profile: WorkspaceWrite, ReadableRoots: []string{"./x"}}, false},
		{Spec{Profile: WorkspaceWrite, ProtectedPaths: []string{""}}, false},
	}
	for _, tt := range tests {
		if err := checkSpec(tt.spec); (err == nil) != tt.ok {
			t.Errorf("checkSpec(%+v) = %v", tt.spec, err)
		}
	}
}

func TestUnavailableErrorMessage(t *testing.T) {
	err := error(&UnavailableError{Profile: ReadOnly, Feature: "landlock", Reason: "kernel too old"})
	want := "sandbox: read-only needs landlock: kernel too old (choose sandbox none to run without it)"
	if err.Error() != want {
		t.Errorf("got %q", err)
	}
}

func TestReleaseAtLeast(t *testing.T) {
	tests := []struct {
		release string
		want    bool
	}{
		{"6.18.44-fc-v669", true}, {"6.14.0", true}, {"6.13.9", false}, {"7.0", true}, {"5.15.0-91-generic", false}, {"x", false},
	}
	for _, tt := range tests {
		if got := releaseAtLeast(tt.release, 6, 14); got != tt.want {
			t.Errorf("releaseAtLeast(%q) = %v", tt.release, got)
		}
	}
}

func TestPIDMax(t *testing.T) {
	for n, want := range map[uint64]int{0: DefaultProcesses + 300, 64: 364, 1: 301} {
		if got := pidMax(n); got != want {
			t.Errorf("pidMax(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestDenialHints(t *testing.T) {
	tests := []struct {
		out  string
		want []string // prefixes
	}{
		{"bash: /etc/x: Read-only file system", []string{"EROFS"}},
		{"cat: /root/x: Permission denied", []string{"EACCES"}},
		{"socket: Operation not permitted", []string{"EPERM"}},
		{"connect: Network is unreachable", []string{"ENETUNREACH"}},
		{"bash: fork: retry: Resource temporarily unavailable", []string{"EAGAIN"}},
		{"a: Permission denied\nb: Read-only file system", []string{"EROFS", "EACCES"}},
		{"all good", nil},
	}
	for _, tt := range tests {
		got := DenialHints(tt.out)
		if len(got) != len(tt.want) {
			t.Errorf("DenialHints(%q) = %q", tt.out, got)
			continue
		}
		for i, p := range tt.want {
			if !strings.HasPrefix(got[i], p) {
				t.Errorf("DenialHints(%q)[%d] = %q, want prefix %q", tt.out, i, got[i], p)
			}
		}
	}
}
