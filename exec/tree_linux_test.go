package exec

import (
	"os"
	osexec "os/exec"
	"testing"
	"time"

	"github.com/agentexec/agentexec/internal/procfs"
)

// An empty environment after an execve is not mistaken for an execve in
// progress: the wait in owns is only for the latter.
func TestMidExecTellsEmptyEnvironmentApart(t *testing.T) {
	if midExec(os.Getpid()) {
		t.Fatal("this process reported as mid-exec")
	}
	c := osexec.Command("sleep", "30")
	c.Env = []string{}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	// Wait until sleep itself sleeps: its name changes early in the
	// execve, before its environment is laid out (seen: comm "sleep" with
	// env_start still 0), so only its sleep says the exec is over.
	for deadline := time.Now().Add(10 * time.Second); ; {
		b, _ := os.ReadFile("/proc/" + itoa(c.Process.Pid) + "/comm")
		if st, ok := procfs.ReadStat(c.Process.Pid); ok && string(b) == "sleep\n" && st.State == 'S' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("sleep never started")
		}
		time.Sleep(time.Millisecond)
	}
	st, ok := procfs.ReadStat(c.Process.Pid)
	if !ok || st.EnvStart == 0 || midExec(c.Process.Pid) {
		t.Fatalf("sleep with an empty environment: %+v, ok %v", st, ok)
	}
	tr := newTree("no-such-run")
	if tr.owns(c.Process.Pid) {
		t.Fatal("a stranger with an empty environment is owned")
	}
}
