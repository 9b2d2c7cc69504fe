//go:build !linux

package classify

// processCPUTime is not measured off Linux.
func processCPUTime() (int64, bool) { return 0, false }
