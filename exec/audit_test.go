package exec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentexec/agentexec/audit"
	"github.com/agentexec/agentexec/gate"
)

type memSink struct {
	mu   sync.Mutex
	recs []audit.Record
	err  error
}

func (s *memSink) Append(r *audit.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs = append(s.recs, *r)
	return s.err
}

func TestAuditRecords(t *testing.T) {
	pol, err := gate.ParsePolicy([]byte(`{"permissions":{"deny":["Bash(touch *)"]}}`), "/etc/policy.json")
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	r := &Runner{Mode: gate.ModeYolo, Sandbox: "none", Policy: pol, Audit: sink}
	obs := runReq(t, r, Request{Command: "echo hi; echo err >&2; exit 4", Shell: "bash"})
	if len(sink.recs) != 2 {
		t.Fatalf("%d records, want decision and run", len(sink.recs))
	}
	dec, rn := sink.recs[0], sink.recs[1]
	if dec.Kind != "decision" || rn.Kind != "run" || dec.RunID != obs.RunID || rn.RunID != obs.RunID {
		t.Fatalf("kinds/ids: %+v %+v", dec, rn)
	}
	if dec.Command != "echo hi; echo err >&2; exit 4" || dec.Shell != "bash" || dec.Mode != "yolo" || dec.Decision != "allow" || dec.Cwd == "" {
		t.Fatalf("decision record: %+v", dec)
	}
	sum := sha256.Sum256([]byte("hi\nerr\n"))
	if rn.Status != "exited" || rn.ExitCode == nil || *rn.ExitCode != 4 || rn.StdoutBytes != 3 || rn.StderrBytes != 4 ||
		rn.Sandbox != "none" || rn.OutputSHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("run record: %+v", rn)
	}

	sink.recs = nil
	obs = runReq(t, r, Request{Argv: []string{"touch", filepath.Join(t.TempDir(), "x")}})
	if obs.Status != StatusRejected || len(sink.recs) != 1 {
		t.Fatalf("rejection: %+v, %d records", obs, len(sink.recs))
	}
	if d := sink.recs[0]; d.Decision != "deny" || d.Rule != "Bash(touch *)" || d.RuleSource != "/etc/policy.json" || d.Shell != "argv" || len(d.Argv) != 2 {
		t.Fatalf("deny record: %+v", d)
	}
	if d := sink.recs[0]; d.PolicyDigest == "" || d.PolicyDigest != r.Policy.Digest() {
		t.Errorf("the record's policy digest %q, want the policy's %q", d.PolicyDigest, r.Policy.Digest())
	}
	if obs.Rule != "Bash(touch *)" || obs.RuleSource != "/etc/policy.json" || !strings.Contains(obs.Text(), "Rule: Bash(touch *) from /etc/policy.json") {
		t.Fatalf("observation: %+v", obs)
	}
}

func TestAuditFailureIsReported(t *testing.T) {
	sink := &memSink{err: errors.New("disk full")}
	r := &Runner{Mode: gate.ModeYolo, Sandbox: "none", Audit: sink}
	obs := runReq(t, r, Request{Argv: []string{"true"}})
	if obs.Status != StatusExited || !strings.Contains(obs.Error, "audit: disk full") {
		t.Fatalf("%+v", obs)
	}
}

func TestApprovalIsAudited(t *testing.T) {
	sink := &memSink{}
	r := &Runner{Sandbox: "none", Audit: sink, Approver: func(context.Context, Request, gate.Decision) (bool, error) { return true, nil }}
	runReq(t, r, Request{Argv: []string{"touch", filepath.Join(t.TempDir(), "x")}})
	if len(sink.recs) != 2 || sink.recs[0].Approved != "once" || sink.recs[1].Approved != "once" {
		t.Fatalf("%+v", sink.recs)
	}
}

func TestPlanModeContainsUnknown(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "mytool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\necho hi\ntouch \"$1\" 2>/dev/null || echo refused\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	pol, err := gate.ParsePolicy([]byte(`{"unknown":"contain"}`), "test")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "made")
	r := &Runner{Mode: gate.ModePlan, Policy: pol, Sandbox: "none", Cwd: dir}
	d, err := r.Check(Request{Argv: []string{tool, out}})
	if err != nil || !d.Contain {
		t.Skipf("the gate does not contain this command (decision %s %s): nothing to test", d.Action, d.Reason)
	}
	obs := runReq(t, r, Request{Argv: []string{tool, out}})
	if obs.Status == StatusError {
		if _, err := os.Stat(out); err == nil {
			t.Fatal("containment failed but the command ran")
		}
		t.Skipf("read-only sandbox unavailable here: %s", obs.Error)
	}
	if obs.Sandbox == nil || !obs.Sandbox.Contained || obs.Sandbox.Profile != "read-only" {
		t.Fatalf("not contained: %+v", obs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a contained command wrote a file")
	}
	if obs.Stdout != "hi\nrefused\n" {
		t.Fatalf("stdout %q", obs.Stdout)
	}
}

func TestDecodeRequest(t *testing.T) {
	tests := []struct {
		in, err string
	}{
		{`{"command":"ls","cwd":"/tmp","timeout":"5s","pty":true,"rows":3,"cols":4,"stdin":"x","env":{"A":"1"},"max_output_bytes":9}`, ""},
		{`{"argv":["ls","-l"]}`, ""},
		{`{"command":"ls","timout":"5s"}`, `unknown field "timout"`},
		{`{"argv":"ls"}`, `field "argv"`},
		{`{"command":"ls"} {"command":"x"}`, "trailing data"},
		{`not json`, "request: "},
	}
	for _, tt := range tests {
		_, err := DecodeRequest([]byte(tt.in))
		if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("DecodeRequest(%s) = %v, want %q", tt.in, err, tt.err)
		}
	}
}
