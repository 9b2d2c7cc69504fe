//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// auditArch is seccomp_data.arch of this binary's native syscalls.
const auditArch = unix.AUDIT_ARCH_X86_64

// x32Bit marks x32-ABI syscall numbers on an x86_64 kernel.
const x32Bit = 0x40000000
