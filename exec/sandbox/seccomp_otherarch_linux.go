//go:build linux && !amd64 && !arm64

package sandbox

import "errors"

// auditArch is zero: no seccomp filter is written for this architecture, so
// Detect reports seccomp unavailable and the network cut relies on the
// network namespace.
const auditArch = 0

func installSeccomp(denyNet bool) error {
	return errors.New("seccomp: no filter for this architecture")
}
