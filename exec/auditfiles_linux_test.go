package exec

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/audit"
)

// An audit log inside the workspace cannot be truncated, replaced or have
// its anchors removed by a sandboxed command, its key file cannot be read
// wherever it is, and the log still verifies; the rest of the workspace
// stays writable.
func TestAuditLogOutOfReach(t *testing.T) {
	r := sandboxedRunner(t)
	ws := r.Cwd
	keyFile := filepath.Join(t.TempDir(), "audit.key")
	key := bytes.Repeat([]byte("k"), 32)
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(ws, "audit.jsonl")
	log, err := audit.Open(audit.Options{Path: path, Key: key, KeyFile: keyFile, AnchorEvery: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	r.Audit, r.Approver = log, approveAll
	runReq(t, r, Request{Command: "echo seed", Shell: "sh"})
	before, _ := os.ReadFile(path)
	for _, cmd := range []string{
		": > audit.jsonl",
		"python3 -c \"open('audit.jsonl','w').close()\"",
		"rm -f audit.jsonl.anchors",
		"mv audit.jsonl gone",
		"echo forged >> audit.jsonl",
		": > audit.jsonl.anchors",
	} {
		obs := runReq(t, r, Request{Command: cmd, Shell: "sh"})
		if obs.Status != StatusExited || obs.ExitCode == nil || *obs.ExitCode == 0 {
			t.Errorf("%s: %+v", cmd, obs)
		}
	}
	obs := runReq(t, r, Request{Command: "cat " + keyFile + "; cat audit.jsonl.lock; echo ok > other", Shell: "sh"})
	if strings.Contains(obs.Stdout, "kkkk") || obs.ExitCode == nil || *obs.ExitCode != 0 {
		t.Errorf("the key is readable, or the workspace is not writable: %+v", obs)
	}
	if obs.Sandbox == nil || len(obs.Sandbox.Masks) < 2 || len(obs.Sandbox.ReadOnly) < 2 {
		t.Errorf("the observation does not list the masks: %+v", obs.Sandbox)
	}
	after, _ := os.ReadFile(path)
	if !bytes.HasPrefix(after, before) || len(after) <= len(before) {
		t.Errorf("earlier records lost: %d bytes before, %d after", len(before), len(after))
	}
	if _, err := os.Stat(path + ".anchors"); err != nil {
		t.Error(err)
	}
	if rep, err := audit.Verify(path, audit.VerifyOptions{Key: key}); err != nil || rep.Anchors == 0 {
		t.Errorf("verify: %v %+v", err, rep)
	}
}
