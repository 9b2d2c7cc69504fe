//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// deniedSyscalls fail with EPERM in every sandbox: io_uring can open sockets
// without socket(2); the rest need capabilities the sandbox dropped or
// escape its namespaces, and are refused outright so that a kernel bug in
// their permission checks is not reachable.
var deniedSyscalls = []uint32{
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_MOVE_MOUNT,
	unix.SYS_OPEN_TREE, unix.SYS_FSOPEN, unix.SYS_FSMOUNT, unix.SYS_FSCONFIG,
	unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR,
	unix.SYS_UNSHARE, unix.SYS_SETNS,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
}

// cloneNSFlags are the clone(2) flags that make namespaces. clone3(2) passes
// its flags in memory a filter cannot read, so it fails with ENOSYS and the
// C library falls back to clone(2) (as Docker's default profile does).
const cloneNSFlags = unix.CLONE_NEWNS | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWCGROUP

const (
	retAllow  = unix.SECCOMP_RET_ALLOW
	retEPERM  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)

	offNr   = 0  // seccomp_data.nr
	offArch = 4  // seccomp_data.arch
	offArg0 = 16 // low half of seccomp_data.args[0] (little endian)
	offArg1 = 24 // low half of seccomp_data.args[1]
)

// seccompProgram builds the filter. The arch guard comes first: a syscall
// of a foreign ABI (i386 int 0x80 on x86_64) has different numbers, and
// without the guard it would reach the allow-by-default end unchecked —
// the bypass measured against a default-allow go-seccomp-bpf filter.
//
// ptrace is refused outright, PTRACE_TRACEME included: the exec gate traces
// the sandbox's processes from outside it, and a sandboxed process that
// could make its parent its tracer would stop at its next signal for a
// parent that does not expect it.
func seccompProgram(denyNet bool) ([]bpf.RawInstruction, error) {
	var a bpfAsm
	a.add(bpf.LoadAbsolute{Off: offArch, Size: 4})
	a.jne(auditArch, "eperm")
	a.add(bpf.LoadAbsolute{Off: offNr, Size: 4})
	if x32Bit != 0 {
		a.jset(x32Bit, "enosys")
	}
	for _, nr := range deniedSyscalls {
		a.jeq(nr, "eperm")
	}
	a.jeq(unix.SYS_CLONE3, "enosys")
	a.jeq(unix.SYS_CLONE, "clone")
	a.jeq(unix.SYS_IOCTL, "ioctl")
	if denyNet {
		a.jeq(unix.SYS_SOCKET, "socket")
		a.jeq(unix.SYS_SOCKETPAIR, "socket")
	}
	a.ret(retAllow)
	a.label("clone")
	a.add(bpf.LoadAbsolute{Off: offArg0, Size: 4})
	a.jset(cloneNSFlags, "eperm")
	a.ret(retAllow)
	// TIOCSTI pushes input into a terminal: with the caller's terminal on
	// stdio, the command could type into the shell that outlives it.
	a.label("ioctl")
	a.add(bpf.LoadAbsolute{Off: offArg1, Size: 4})
	a.jeq(unix.TIOCSTI, "eperm")
	a.jeq(unix.TIOCLINUX, "eperm")
	a.ret(retAllow)
	a.label("socket")
	a.add(bpf.LoadAbsolute{Off: offArg0, Size: 4})
	a.jne(unix.AF_UNIX, "eperm")
	a.ret(retAllow)
	a.label("eperm")
	a.ret(retEPERM)
	a.label("enosys")
	a.ret(retENOSYS)
	return a.assemble()
}

// installSeccomp loads the filter on the calling thread; no_new_privs must
// be set already.
func installSeccomp(denyNet bool) error {
	filter, err := seccompFilters[b2i(denyNet)]()
	if err != nil {
		return err
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0)
}

// seccompFilters are the two filters, assembled once each: assembling
// costs more than loading (about 200 µs a run here).
var seccompFilters = [2]func() ([]unix.SockFilter, error){seccompFilter(false), seccompFilter(true)}

func seccompFilter(denyNet bool) func() ([]unix.SockFilter, error) {
	return sync.OnceValues(func() ([]unix.SockFilter, error) {
		raw, err := seccompProgram(denyNet)
		if err != nil {
			return nil, err
		}
		filter := make([]unix.SockFilter, len(raw))
		for i, r := range raw {
			filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
		}
		return filter, nil
	})
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// bpfAsm assembles classic BPF with forward jumps to named labels.
type bpfAsm struct {
	ins    []bpf.Instruction
	labels map[string]int
	fixups []bpfFixup
}

type bpfFixup struct {
	at     int
	target string
}

func (a *bpfAsm) add(i bpf.Instruction) { a.ins = append(a.ins, i) }
func (a *bpfAsm) ret(v uint32)          { a.add(bpf.RetConstant{Val: v}) }

func (a *bpfAsm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.ins)
}

// jump adds a conditional jump to target when cond holds; otherwise the
// next instruction runs.
func (a *bpfAsm) jump(cond bpf.JumpTest, val uint32, target string) {
	a.fixups = append(a.fixups, bpfFixup{at: len(a.ins), target: target})
	a.add(bpf.JumpIf{Cond: cond, Val: val})
}

func (a *bpfAsm) jeq(val uint32, target string)  { a.jump(bpf.JumpEqual, val, target) }
func (a *bpfAsm) jne(val uint32, target string)  { a.jump(bpf.JumpNotEqual, val, target) }
func (a *bpfAsm) jset(val uint32, target string) { a.jump(bpf.JumpBitsSet, val, target) }

func (a *bpfAsm) assemble() ([]bpf.RawInstruction, error) {
	for _, f := range a.fixups {
		to, ok := a.labels[f.target]
		skip := to - f.at - 1
		if !ok || skip < 0 || skip > 255 {
			return nil, fmt.Errorf("seccomp: bad jump to %q", f.target)
		}
		j := a.ins[f.at].(bpf.JumpIf)
		j.SkipTrue = uint8(skip)
		a.ins[f.at] = j
	}
	return bpf.Assemble(a.ins)
}
