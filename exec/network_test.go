package exec

import (
	"context"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/gate"
)

// TestAllowlistNeedsSandbox: under --sandbox none nothing can hold a
// command to the proxy, so a run with an allowlist is refused instead of
// running with the network open; without an allowlist none runs as before.
func TestAllowlistNeedsSandbox(t *testing.T) {
	pol, err := gate.ParsePolicy([]byte(`{"mode":"yolo","sandbox":{"network":{"allow":["example.com"]}}}`), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Policy: pol, Sandbox: "none"}
	obs := r.RunCommand(context.Background(), Request{Argv: []string{"true"}})
	if obs.Status != "error" || !strings.Contains(obs.Error, "allowlist needs a sandbox") {
		t.Errorf("allowlist under none: %+v", obs)
	}
	r = &Runner{Policy: &gate.Policy{Mode: gate.ModeYolo}, Sandbox: "none"}
	if obs := r.RunCommand(context.Background(), Request{Argv: []string{"true"}}); obs.Status != "exited" {
		t.Errorf("none without an allowlist: %+v", obs)
	}
}
