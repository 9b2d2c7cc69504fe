package surface

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentexec/agentexec/exec"
	"github.com/agentexec/agentexec/policy"
)

// reloading builds a Runner whose policy file is watched; logged collects
// the watcher's reports.
func reloading(t *testing.T, body string) (*exec.Runner, string, func() []string) {
	ws := t.TempDir()
	path := filepath.Join(ws, "live.json")
	os.WriteFile(path, []byte(body), 0o644)
	o := policy.Options{Path: path}
	l, err := policy.Load(o)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var logged []string
	w := policy.NewWatcher(o, l, func(f string, a ...any) {
		mu.Lock()
		logged = append(logged, fmt.Sprintf(f, a...))
		mu.Unlock()
	})
	r := &exec.Runner{PolicyFunc: w.Policy, Sandbox: "none", Cwd: ws}
	return r, path, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), logged...) }
}

func replaceFile(t *testing.T, path, body string) {
	if err := os.WriteFile(path+".new", []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond) // past the watcher's minimum interval between looks
}

// TestServeReloadsPolicy: under a live Serve, an edited policy decides the
// next request; a broken edit keeps the old one and is reported once.
func TestServeReloadsPolicy(t *testing.T) {
	r, path, logged := reloading(t, `{"permissions": {"allow": ["Bash(echo *)"]}}`)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), r, inR, outW, ServeOptions{}); outW.Close() }()
	dec := json.NewDecoder(outR)
	ask := func(id int, cmd string) exec.Observation {
		fmt.Fprintf(inW, `{"id": %d, "request": {"command": %q}}`+"\n", id, cmd)
		var a ServeAnswer
		if err := dec.Decode(&a); err != nil || a.Observation == nil {
			t.Fatalf("answer to %q: %+v %v", cmd, a, err)
		}
		return *a.Observation
	}
	dir := filepath.Dir(path)
	if o := ask(1, "mkdir "+filepath.Join(dir, "d1")); o.Status != exec.StatusNeedsApproval {
		t.Errorf("before the edit: %s", o.Status)
	}
	replaceFile(t, path, `{"permissions": {"allow": ["Bash(mkdir *)"]}}`)
	if o := ask(2, "mkdir "+filepath.Join(dir, "d2")); o.Status != exec.StatusExited {
		t.Errorf("after the edit: %s (%s)", o.Status, o.Reason)
	}
	replaceFile(t, path, `{"permissions": {"allow": [`)
	for i := 3; i < 6; i++ {
		if o := ask(i, fmt.Sprintf("mkdir %s", filepath.Join(dir, fmt.Sprint("d", i)))); o.Status != exec.StatusExited {
			t.Errorf("after a broken edit: %s, want the old policy in force", o.Status)
		}
	}
	inW.Close()
	<-done
	n := 0
	for _, m := range logged() {
		if strings.Contains(m, path) && strings.Contains(m, "unchanged") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the broken edit was reported %d times: %q", n, logged())
	}
}

// TestMCPReloadsPolicy: the same through the MCP server.
func TestMCPReloadsPolicy(t *testing.T) {
	r, path, _ := reloading(t, `{"permissions": {"allow": ["Bash(echo *)"]}}`)
	cs := connect(t, r, "", nil)
	dir := filepath.Dir(path)
	var obs exec.Observation
	call(t, cs, ToolRunCommand, map[string]any{"command": "mkdir " + filepath.Join(dir, "m1")}, &obs)
	if obs.Status != exec.StatusNeedsApproval {
		t.Errorf("before the edit: %s", obs.Status)
	}
	replaceFile(t, path, `{"permissions": {"allow": ["Bash(mkdir *)"]}}`)
	call(t, cs, ToolRunCommand, map[string]any{"command": "mkdir " + filepath.Join(dir, "m2")}, &obs)
	if obs.Status != exec.StatusExited {
		t.Errorf("after the edit: %s (%s)", obs.Status, obs.Reason)
	}
	replaceFile(t, path, `{"mode": "plan",`)
	call(t, cs, ToolRunCommand, map[string]any{"command": "mkdir " + filepath.Join(dir, "m3")}, &obs)
	if obs.Status != exec.StatusExited {
		t.Errorf("after a broken edit: %s", obs.Status)
	}
}
