//go:build linux && (amd64 || arm64)

package sandbox

import (
	"encoding/binary"
	"fmt"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompData encodes struct seccomp_data as the classic BPF VM reads it
// (big endian words at the kernel's offsets), so that the VM sees the same
// values as the kernel does on a little-endian machine. arg0 fills the
// first two arguments.
func seccompData(arch, nr, arg0 uint32) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[offNr:], nr)
	binary.BigEndian.PutUint32(b[offArch:], arch)
	binary.BigEndian.PutUint32(b[offArg0:], arg0)
	binary.BigEndian.PutUint32(b[offArg1:], arg0) // ioctl's request: the filter reads one or the other
	return b
}

func TestSeccompProgram(t *testing.T) {
	const i386 = unix.AUDIT_ARCH_I386
	tests := []struct {
		name           string
		arch, nr, arg0 uint32
		denyNet        bool
		want           uint32
	}{
		{"read", auditArch, unix.SYS_READ, 0, true, retAllow},
		{"foreign arch socket", i386, 359, unix.AF_INET, true, retEPERM},
		{"foreign arch anything", i386, 20, 0, false, retEPERM},
		{"socket inet, net off", auditArch, unix.SYS_SOCKET, unix.AF_INET, true, retEPERM},
		{"socket inet6, net off", auditArch, unix.SYS_SOCKET, unix.AF_INET6, true, retEPERM},
		{"socket netlink, net off", auditArch, unix.SYS_SOCKET, unix.AF_NETLINK, true, retEPERM},
		{"socket unix, net off", auditArch, unix.SYS_SOCKET, unix.AF_UNIX, true, retAllow},
		{"socketpair unix, net off", auditArch, unix.SYS_SOCKETPAIR, unix.AF_UNIX, true, retAllow},
		{"socketpair inet, net off", auditArch, unix.SYS_SOCKETPAIR, unix.AF_INET, true, retEPERM},
		{"socket inet, net on", auditArch, unix.SYS_SOCKET, unix.AF_INET, false, retAllow},
		{"io_uring_setup", auditArch, unix.SYS_IO_URING_SETUP, 0, false, retEPERM},
		{"unshare", auditArch, unix.SYS_UNSHARE, unix.CLONE_NEWUSER, false, retEPERM},
		{"mount", auditArch, unix.SYS_MOUNT, 0, false, retEPERM},
		{"ptrace attach", auditArch, unix.SYS_PTRACE, unix.PTRACE_ATTACH, false, retEPERM},
		{"clone fork", auditArch, unix.SYS_CLONE, uint32(unix.SIGCHLD), false, retAllow},
		{"clone thread", auditArch, unix.SYS_CLONE, unix.CLONE_VM | unix.CLONE_THREAD | unix.CLONE_SIGHAND, false, retAllow},
		{"clone newuser", auditArch, unix.SYS_CLONE, unix.CLONE_NEWUSER | uint32(unix.SIGCHLD), false, retEPERM},
		{"clone newnet", auditArch, unix.SYS_CLONE, unix.CLONE_NEWNET, false, retEPERM},
		{"clone3", auditArch, unix.SYS_CLONE3, 0, false, retENOSYS},
		{"ioctl TIOCSTI", auditArch, unix.SYS_IOCTL, unix.TIOCSTI, false, retEPERM},
		{"ioctl TIOCGWINSZ", auditArch, unix.SYS_IOCTL, unix.TIOCGWINSZ, false, retAllow},
	}
	if x32Bit != 0 {
		tests = append(tests, struct {
			name           string
			arch, nr, arg0 uint32
			denyNet        bool
			want           uint32
		}{"x32 socket", auditArch, x32Bit | 41, unix.AF_INET, false, retENOSYS})
	}
	for _, tt := range tests {
		// The launcher's filter differs only in two ptrace requests.
		for _, traceme := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/traceme=%v", tt.name, traceme), func(t *testing.T) {
				if got := runSeccomp(t, tt.denyNet, traceme, seccompData(tt.arch, tt.nr, tt.arg0)); got != tt.want {
					t.Errorf("got %#x, want %#x", got, tt.want)
				}
			})
		}
	}
}

// TestSeccompTraceme checks the ptrace requests the thread launcher's
// filter lets through, and that the high half of the request counts.
func TestSeccompTraceme(t *testing.T) {
	tests := []struct {
		name      string
		traceme   bool
		request   uint32
		requestHi uint32
		want      uint32
	}{
		{"traceme", true, unix.PTRACE_TRACEME, 0, retAllow},
		{"detach", true, unix.PTRACE_DETACH, 0, retAllow},
		{"attach", true, unix.PTRACE_ATTACH, 0, retEPERM},
		{"seize", true, unix.PTRACE_SEIZE, 0, retEPERM},
		{"peekdata", true, unix.PTRACE_PEEKDATA, 0, retEPERM},
		{"pokedata", true, unix.PTRACE_POKEDATA, 0, retEPERM},
		{"cont", true, unix.PTRACE_CONT, 0, retAllow},
		{"cont, trampoline filter", false, unix.PTRACE_CONT, 0, retEPERM},
		{"interrupt", true, unix.PTRACE_INTERRUPT, 0, retEPERM},
		{"setregs", true, unix.PTRACE_SETREGS, 0, retEPERM},
		{"traceme with a high half", true, unix.PTRACE_TRACEME, 1, retEPERM},
		{"traceme, trampoline filter", false, unix.PTRACE_TRACEME, 0, retEPERM},
		{"detach, trampoline filter", false, unix.PTRACE_DETACH, 0, retEPERM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := seccompData(auditArch, unix.SYS_PTRACE, tt.request)
			binary.BigEndian.PutUint32(data[offArg0Hi:], tt.requestHi)
			if got := runSeccomp(t, false, tt.traceme, data); got != tt.want {
				t.Errorf("got %#x, want %#x", got, tt.want)
			}
		})
	}
}

// runSeccomp runs the filter over data in the classic BPF VM.
func runSeccomp(t *testing.T, denyNet, traceme bool, data []byte) uint32 {
	t.Helper()
	raw, err := seccompProgram(denyNet, traceme)
	if err != nil {
		t.Fatal(err)
	}
	ins, ok := bpf.Disassemble(raw)
	if !ok {
		t.Fatal("cannot disassemble")
	}
	vm, err := bpf.NewVM(ins)
	if err != nil {
		t.Fatal(err)
	}
	got, err := vm.Run(data)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(got)
}
