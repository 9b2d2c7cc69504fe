package sandbox

import "golang.org/x/sys/unix"

// stackPointer is pid's stack pointer, at a ptrace stop.
func stackPointer(pid int) (uint64, bool) {
	var regs unix.PtraceRegs
	if unix.PtraceGetRegs(pid, &regs) != nil {
		return 0, false
	}
	return regs.Rsp, true
}
