//go:build linux && (amd64 || arm64)

package sandbox

import (
	"encoding/binary"
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
		t.Run(tt.name, func(t *testing.T) {
			if got := runSeccomp(t, tt.denyNet, seccompData(tt.arch, tt.nr, tt.arg0)); got != tt.want {
				t.Errorf("got %#x, want %#x", got, tt.want)
			}
		})
	}
}

// TestSeccompPtrace checks that no ptrace request gets through: the exec
// gate traces from outside the sandbox, and the launcher needs none.
func TestSeccompPtrace(t *testing.T) {
	for _, req := range []uint32{unix.PTRACE_TRACEME, unix.PTRACE_DETACH, unix.PTRACE_CONT, unix.PTRACE_ATTACH,
		unix.PTRACE_SEIZE, unix.PTRACE_PEEKDATA, unix.PTRACE_POKEDATA, unix.PTRACE_INTERRUPT} {
		for _, denyNet := range []bool{false, true} {
			if got := runSeccomp(t, denyNet, seccompData(auditArch, unix.SYS_PTRACE, req)); got != retEPERM {
				t.Errorf("ptrace request %d (network cut %v): got %#x, want EPERM", req, denyNet, got)
			}
		}
	}
	// The near miss: another system call is allowed.
	if got := runSeccomp(t, false, seccompData(auditArch, unix.SYS_GETUID, 0)); got != retAllow {
		t.Errorf("getuid: got %#x, want allow", got)
	}
}

// runSeccomp runs the filter over data in the classic BPF VM.
func runSeccomp(t *testing.T, denyNet bool, data []byte) uint32 {
	t.Helper()
	raw, err := seccompProgram(denyNet)
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
