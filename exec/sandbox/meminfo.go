package sandbox

import (
	"os"
	"strconv"
	"strings"
)

// hostMemory is MemTotal of /proc/meminfo in bytes, or 16 GiB where it
// cannot be read (so that DefaultMemory is 12 GiB).
func hostMemory() uint64 {
	const unknown = 16 << 30
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return unknown
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil || kb == 0 {
				return unknown
			}
			return kb << 10
		}
	}
	return unknown
}
