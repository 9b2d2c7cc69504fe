//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// auditArch is seccomp_data.arch of this binary's native syscalls.
const auditArch = unix.AUDIT_ARCH_AARCH64

// x32Bit is zero: arm64 has no x32-like ABI in the same architecture value.
const x32Bit = 0
