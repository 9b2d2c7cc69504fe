//go:build linux && !amd64 && !arm64

package sandbox

import "errors"

// installProxySocketFilter has no filter to install on this
// architecture; plans here have no seccomp, so it is never called.
func installProxySocketFilter(*wireSpec) error {
	return errors.New("seccomp: no filter for this architecture")
}
