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

// recheck ends a process of the run that became this process's child
// after cleanup looked (as a double fork's child being reparented while
// the children lists were read), and leaves a child of another run, and
// the reaped leader's pid, alone.
func TestRecheckEndsLateOrphans(t *testing.T) {
	start := func(runID string) *osexec.Cmd {
		c := osexec.Command("sleep", "30")
		c.Env = append(os.Environ(), RunIDEnv+"="+runID)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		return c
	}
	ours, theirs := start("recheck-run"), start("another-run")
	defer func() { theirs.Process.Kill(); theirs.Wait() }()
	waitDone := make(chan error, 1)
	go func() { waitDone <- ours.Wait() }()
	for deadline := time.Now().Add(10 * time.Second); midExec(ours.Process.Pid) || midExec(theirs.Process.Pid); {
		if time.Now().After(deadline) {
			t.Fatal("sleep never started")
		}
		time.Sleep(time.Millisecond)
	}
	tr := newTree("recheck-run")
	// The leader, reaped already: a process that ran and was waited for.
	leader := osexec.Command("true")
	if err := leader.Run(); err != nil {
		t.Fatal(err)
	}
	tr.started(leader.Process.Pid)
	tr.recheck()
	select {
	case err := <-waitDone:
		if err == nil {
			t.Fatal("the run's late orphan exited by itself")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("recheck left the run's late orphan running")
	}
	if !alive(theirs.Process.Pid) {
		t.Fatal("recheck ended another run's process")
	}
}
