package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A run cgroup's name taken already — by an agentexec of the same pid in
// another PID namespace over the same hierarchy — is passed over, and the
// names carry this process's token besides its pid.
func TestCgroupNameTakenIsPassedOver(t *testing.T) {
	v := detectCgroup(readCgroupView())
	if v == "" {
		t.Skip("no writable pids cgroup here: runs go without one")
	}
	parent, err := readCgroupView().parent(v)
	if err != nil {
		t.Skip("no cgroup parent:", err)
	}
	next := filepath.Join(parent, fmt.Sprintf("agentexec-%d-%s-%d", os.Getpid(), cgroupToken(), cgroupSeq.Load()+1))
	if err := os.Mkdir(next, 0o755); err != nil {
		t.Fatalf("taking the next name: %v", err)
	}
	defer os.Remove(next)
	cg, err := newCgroup(v, 16)
	if err != nil {
		t.Fatalf("newCgroup with its first name taken: %v", err)
	}
	defer cg.remove()
	if cg.dir == next || filepath.Dir(cg.dir) != parent {
		t.Fatalf("cgroup %s, the taken name was %s", cg.dir, next)
	}
}
