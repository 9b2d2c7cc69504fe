package exec

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentexec/agentexec/gate"
)

// bomb forks three children per process, five levels deep, all ignoring
// SIGTERM; its argv carries a marker to find survivors by.
const bomb = `
import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
depth, made = 0, 0
while True:
    if depth < 5 and made < 3:
        try:
            pid = os.fork()
        except OSError:
            time.sleep(0.01)
            continue
        if pid == 0:
            depth, made = depth + 1, 0
        else:
            made += 1
        continue
    time.sleep(0.5)
`

// A SIGTERM-ignoring fork bomb under a timeout ends with the run, killed
// as a unit once the grace period is over, and leaves nothing behind. The
// bound on its duration is loose (timeout + grace + 10 s) on purpose: it
// catches a run stretched by a bomb outrunning the kill (26 s for a 4 s
// timeout before), not the machine's speed.
func TestSandboxedForkBombTimeout(t *testing.T) {
	r := sandboxedRunner(t)
	r.Grace, r.Approver = time.Second, approveAll
	pol := &gate.Policy{Mode: gate.ModeYolo}
	pol.Sandbox.Limits.Processes = 200
	r.Policy = pol
	m := uniqueSleep()
	obs := runReq(t, r, Request{Argv: []string{"python3", "-c", bomb, m}, Timeout: "2s"})
	if obs.Status != StatusTimedOut {
		t.Fatalf("%+v", obs)
	}
	if obs.DurationMS > (2+1+10)*1000 {
		t.Errorf("the run took %d ms for a 2 s timeout and a 1 s grace period", obs.DurationMS)
	}
	for i := 0; i < 100 && len(leftovers(m)) > 0; i++ {
		sleepMS(20)
	}
	if left := leftovers(m); len(left) > 0 {
		t.Fatalf("%d bomb processes survived: %v", len(left), left[:min(3, len(left))])
	}
}

// A memory hog is stopped at the policy's cap and the observation says it
// ran out of memory; a run within the cap is untouched.
func TestSandboxedMemoryHog(t *testing.T) {
	r := sandboxedRunner(t)
	pol := &gate.Policy{Mode: gate.ModeYolo}
	pol.Sandbox.Limits.Memory = 150 << 20
	r.Policy, r.Approver = pol, approveAll
	obs := runReq(t, r, Request{Argv: []string{"python3", "-c", "a = []\nwhile True: a.append(bytearray(16 << 20))"}})
	if obs.Sandbox == nil || obs.Sandbox.Memory != 150<<20 {
		t.Fatalf("%+v", obs.Sandbox)
	}
	oom := obs.Sandbox.OOMKilled && obs.Signal == "SIGKILL" && strings.Contains(obs.Error, "out of memory")
	rlimit := !obs.Sandbox.OOMKilled && strings.Contains(obs.Stderr, "MemoryError")
	if obs.Status != StatusExited || !(oom || rlimit) {
		t.Fatalf("the hog was not stopped at its cap: %+v %+v", obs, obs.Sandbox)
	}
	obs = runReq(t, r, Request{Argv: []string{"python3", "-c", "print(len(bytearray(32 << 20)))"}})
	if obs.ExitCode == nil || *obs.ExitCode != 0 || obs.Sandbox.OOMKilled || obs.Error != "" {
		t.Fatalf("within the cap: %+v", obs)
	}
}

// approveAll answers yes to every ask: the tests that use it are about
// what the kernel holds, whatever the gate would have asked.
func approveAll(context.Context, Request, gate.Decision) (bool, error) { return true, nil }

// A library Cmd's context deadline ends a SIGTERM-ignoring fork bomb as a
// unit too.
func TestCmdContextEndsForkBomb(t *testing.T) {
	r := sandboxedRunner(t)
	r.Approver = approveAll
	m := uniqueSleep()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c := CommandContext(ctx, "python3", "-c", bomb, m)
	c.Runner = r
	if err := c.Run(); err == nil {
		t.Fatal("the bomb exited by itself")
	}
	for i := 0; i < 100 && len(leftovers(m)) > 0; i++ {
		sleepMS(20)
	}
	if left := leftovers(m); len(left) > 0 {
		t.Fatalf("%d bomb processes survived", len(left))
	}
}
