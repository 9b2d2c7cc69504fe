package exec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentexec/agentexec/audit"
	"github.com/agentexec/agentexec/exec/sandbox"
	"github.com/agentexec/agentexec/gate"
)

// sandboxedRunner runs in the default workspace-write sandbox, skipping
// the test when this host cannot provide it.
func sandboxedRunner(t *testing.T) *Runner {
	t.Helper()
	r := &Runner{Mode: gate.ModeYolo, Cwd: t.TempDir(), Grace: 200e6}
	obs := runReq(t, r, Request{Argv: []string{"true"}})
	if obs.Status == StatusError && strings.Contains(obs.Error, "sandbox") {
		t.Skipf("workspace-write sandbox unavailable on this host: %s", obs.Error)
	}
	if obs.Status != StatusExited || obs.Sandbox == nil || obs.Sandbox.Profile != "workspace-write" {
		t.Fatalf("%+v", obs)
	}
	return r
}

func TestSandboxedTimeoutEndsTheWholeTree(t *testing.T) {
	r := sandboxedRunner(t)
	for _, cmd := range []string{
		"echo before; setsid sleep %[1]s & sleep %[1]s",
		"echo before; (setsid nohup sleep %[1]s >/dev/null 2>&1 &); exit 0",
	} {
		m := uniqueSleep()
		obs := runReq(t, r, Request{Command: fmt.Sprintf(cmd, m), Shell: "bash", Timeout: "500ms"})
		if obs.Status != StatusTimedOut && obs.Status != StatusExited {
			t.Fatalf("%+v", obs)
		}
		if left := leftovers(m); len(left) > 0 {
			t.Fatalf("left behind: %v", left)
		}
		if z := ourChildren(); len(z) > 0 {
			t.Fatalf("unreaped children: %v", z)
		}
	}
}

func TestSandboxedRunsLeakNothing(t *testing.T) {
	r := sandboxedRunner(t)
	fds := countFDs()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := Request{Command: fmt.Sprintf("echo %d", i), Shell: "sh", PTY: i%2 == 1}
			if obs := r.RunCommand(t.Context(), req); obs.Status != StatusExited {
				t.Errorf("%d: %+v", i, obs)
			}
		}()
	}
	wg.Wait()
	// The standby launcher readied for a next run holds files; mount
	// namespaces are released in the background.
	sandbox.Release()
	for range 100 {
		if countFDs() <= fds {
			break
		}
		sleepMS(10)
	}
	if got := countFDs(); got > fds {
		t.Errorf("fds: %d before, %d after", fds, got)
	}
	if z := ourChildren(); len(z) > 0 {
		t.Errorf("children left: %v", z)
	}
}

// TestSandboxedNotPID1 checks that a sandboxed command is not PID 1 of its
// namespace (agentexec-init is): the timeout's SIGTERM ends a script
// without a handler, which does not go on to its next statement, a
// signal the command sends itself ends it, and a handler still gets the
// signal.
func TestSandboxedNotPID1(t *testing.T) {
	r := sandboxedRunner(t)
	if !sandbox.Detect().Init {
		t.Skip("no agentexec-init on this host: the command is PID 1")
	}
	r.Grace = 30e9 // far longer than the test would wait
	m := uniqueSleep()
	obs := runReq(t, r, Request{Command: "sleep " + m + "; echo after; touch late", Shell: "bash", Timeout: "300ms"})
	if obs.Status != StatusTimedOut || strings.Contains(obs.Stdout, "after") {
		t.Fatalf("the script went on after the timeout: %+v", obs)
	}
	if obs.DurationMS > 10_000 {
		t.Fatalf("SIGTERM did not end the script: the run waited out the grace period (%d ms)", obs.DurationMS)
	}
	if left := leftovers(m); len(left) > 0 {
		t.Fatalf("left behind: %v", left)
	}
	for cmd, want := range map[string]string{
		"kill -TERM $$; echo survived":               "SIGTERM",
		"kill -SEGV $$; echo survived":               "SIGSEGV",
		"python3 -c 'import os; os.abort()'":         "SIGABRT",
		"trap 'exit 4' TERM; kill -TERM $$; sleep 1": "",
	} {
		obs := runReq(t, r, Request{Command: cmd, Shell: "bash"})
		if obs.Status != StatusExited || obs.Signal != want || strings.Contains(obs.Stdout, "survived") {
			t.Errorf("%s: %+v, want signal %q", cmd, obs, want)
		}
		if want == "" && (obs.ExitCode == nil || *obs.ExitCode != 4) {
			t.Errorf("%s: %+v, want exit 4", cmd, obs)
		}
	}
	r.Grace = 5e9
	obs = runReq(t, r, Request{Command: "trap 'echo got-term; exit 3' TERM; while :; do sleep 0.05; done", Shell: "bash", Timeout: "300ms"})
	if obs.Status != StatusTimedOut || !strings.Contains(obs.Stdout, "got-term") {
		t.Fatalf("a SIGTERM handler did not get the signal: %+v", obs)
	}
}

// TestSandboxedLimitsFromPolicy checks that sandbox.limits of the policy
// reach the command: its rlimits and its process limit.
func TestSandboxedLimitsFromPolicy(t *testing.T) {
	r := sandboxedRunner(t)
	pol, err := gate.ParsePolicy([]byte(`{"sandbox":{"limits":{"open_files":77,"file_size":4096,"cpu_seconds":60,"processes":20}}}`), "limits.json")
	if err != nil {
		t.Fatal(err)
	}
	r.Policy = pol
	obs := runReq(t, r, Request{Command: "ulimit -n; ulimit -f; ulimit -t", Shell: "bash"})
	if obs.Status != StatusExited || strings.Fields(obs.Stdout)[0] != "77" || strings.Fields(obs.Stdout)[1] != "4" || strings.Fields(obs.Stdout)[2] != "60" { // bash counts KiB
		t.Fatalf("%+v", obs)
	}
	// Twenty processes at most: the fiftieth background sleep cannot start.
	obs = runReq(t, r, Request{Command: "for i in $(seq 50); do sleep 0.3 & done 2>&1; wait", Shell: "bash"})
	if !strings.Contains(obs.Stdout+obs.Stderr, "Resource temporarily unavailable") {
		t.Errorf("50 processes under a limit of 20: %+v", obs)
	}
}

// heldSink holds the decision record's Append until released, and notes
// whether the command had run (created its marker) by the time the
// record was appended.
type heldSink struct {
	entered, release chan struct{}
	marker           string
	mu               sync.Mutex
	ranEarly         bool
}

func (s *heldSink) Append(rec *audit.Record) error {
	if rec.Kind != "decision" {
		return nil
	}
	close(s.entered)
	<-s.release
	_, err := os.Stat(s.marker)
	s.mu.Lock()
	s.ranEarly = err == nil
	s.mu.Unlock()
	return nil
}

// The decision record is appended while the sandbox is made, but the
// command runs only once the append returned: under every launcher
// (plain start, the init of profile none with the exec gate, the
// sandbox's), a command that creates a file has not created it while the
// record's append is held, and does once it is let go.
func TestCommandWaitsForTheDecisionRecord(t *testing.T) {
	for _, tc := range []struct{ name, profile, gate string }{
		{"plain", "none", ExecGateOff},
		{"none with the exec gate", "none", ""},
		{"sandboxed", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r *Runner
			switch {
			case tc.profile == "":
				r = sandboxedRunner(t)
			default:
				if tc.gate == "" {
					requireHostGate(t)
				}
				r = &Runner{Mode: gate.ModeYolo, Sandbox: tc.profile, ExecGate: tc.gate, Cwd: t.TempDir()}
			}
			sink := &heldSink{entered: make(chan struct{}), release: make(chan struct{}), marker: filepath.Join(r.Cwd, "ran")}
			r.Audit = sink
			done := make(chan Observation, 1)
			go func() { done <- runReq(t, r, Request{Argv: []string{"touch", sink.marker}}) }()
			<-sink.entered
			time.Sleep(100 * time.Millisecond) // a command that did not wait would have run by now
			if _, err := os.Stat(sink.marker); err == nil {
				t.Fatal("the command ran while its decision record was being appended")
			}
			close(sink.release)
			obs := <-done
			if obs.Status != StatusExited || obs.ExitCode == nil || *obs.ExitCode != 0 {
				t.Fatalf("%+v", obs)
			}
			if _, err := os.Stat(sink.marker); err != nil || sink.ranEarly {
				t.Fatalf("marker after the run: %v, ran before the record: %v", err, sink.ranEarly)
			}
		})
	}
}
