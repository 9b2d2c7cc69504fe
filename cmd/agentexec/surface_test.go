package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	agentexec "github.com/agentexec/agentexec/exec"
)

// buildAgentexec builds the real binary, as an MCP client or a harness
// starts it.
func buildAgentexec(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "agentexec")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// workspace makes a directory with a policy that denies touch and asks
// before mkdir.
func workspace(t testing.TB) (dir, policy string) {
	dir = t.TempDir()
	policy = filepath.Join(dir, "policy.json")
	err := os.WriteFile(policy, []byte(`{"permissions":{"deny":["Bash(touch *)"],"ask":["Bash(mkdir *)"]}}`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	return dir, policy
}

// syncBuffer collects a child's stderr while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// mcpSession starts `agentexec mcp` and connects the SDK's client to it
// over stdio. Elicitations are accepted when the command contains
// "accept-me", declined otherwise.
func mcpSession(t testing.TB, bin, dir, policy, protocol string) (*mcp.ClientSession, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(bin, "mcp", "--policy", policy, "--sandbox", "none", "--audit", "off", "--cwd", dir)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "surface-test", Version: "0"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if strings.Contains(req.Params.Message, "accept-me") {
				return &mcp.ElicitResult{Action: "accept"}, nil
			}
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, stderr
}

func callTool(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, agentexec.Observation) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: JSON-RPC error, want a tool result: %v", tool, args, err)
	}
	var obs agentexec.Observation
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &obs)
	return res, obs
}

func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCPOverStdio drives the built binary with the SDK's client, on the
// SDK's latest protocol and on the 2025-06-18 handshake desktop clients use.
func TestMCPOverStdio(t *testing.T) {
	bin := buildAgentexec(t)
	for _, proto := range []string{"", "2025-06-18"} {
		t.Run("protocol="+proto, func(t *testing.T) {
			dir, policy := workspace(t)
			cs, stderr := mcpSession(t, bin, dir, policy, proto)
			if info := cs.InitializeResult().ServerInfo; info.Name != "agentexec" || info.Version != version {
				t.Errorf("server info %+v", info)
			}
			tools, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools.Tools {
				names = append(names, tl.Name)
				if tl.InputSchema == nil {
					t.Errorf("%s has no input schema", tl.Name)
				}
			}
			slices.Sort(names)
			if strings.Join(names, " ") != "check_command run_command" {
				t.Errorf("tools %v", names)
			}
			stdioCalls(t, cs, dir)
			if !strings.Contains(stderr.String(), "run_command") {
				t.Errorf("no log on stderr: %q", stderr)
			}
		})
	}
	t.Run("hang-up", func(t *testing.T) { testMCPHangUp(t, bin) })
}

// testMCPHangUp: a client that goes away mid-call leaves no process behind.
func testMCPHangUp(t *testing.T, bin string) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc to look for leftover processes:", err)
	}
	dir, policy := workspace(t)
	cs, _ := mcpSession(t, bin, dir, policy, "")
	slow, arg := sleepMarker()
	go cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "echo started; " + slow}})
	for deadline := time.Now().Add(time.Minute); len(survivors(arg)) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
	}
	cs.Close() // closes the server's stdin and waits for it to exit
	if left := survivors(arg); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

func stdioCalls(t *testing.T, cs *mcp.ClientSession, dir string) {
	res, obs := callTool(t, cs, "run_command", map[string]any{"command": "echo hi"})
	if res.IsError || obs.Stdout != "hi\n" || !strings.Contains(toolText(res), "hi") {
		t.Errorf("echo hi: isError=%v %+v", res.IsError, obs)
	}
	res, obs = callTool(t, cs, "run_command", map[string]any{"command": "touch denied-file"})
	if !res.IsError || obs.Status != agentexec.StatusRejected || !strings.Contains(toolText(res), "Bash(touch *)") {
		t.Errorf("touch: isError=%v status %q text %q", res.IsError, obs.Status, toolText(res))
	}
	if _, err := os.Stat(filepath.Join(dir, "denied-file")); !os.IsNotExist(err) {
		t.Errorf("the denied touch ran: %v", err)
	}
	res, obs = callTool(t, cs, "run_command", map[string]any{"command": "sleep 30", "timeout": "1s"})
	if !res.IsError || obs.Status != agentexec.StatusTimedOut {
		t.Errorf("sleep 30: isError=%v status %q", res.IsError, obs.Status)
	}
	res, _ = callTool(t, cs, "run_command", map[string]any{"command": "ls", "argv": []string{"ls"}})
	if !res.IsError || !strings.Contains(toolText(res), "argv") {
		t.Errorf("command and argv: isError=%v text %q", res.IsError, toolText(res))
	}
	res, obs = callTool(t, cs, "run_command", map[string]any{"command": "mkdir accept-me"})
	if _, err := os.Stat(filepath.Join(dir, "accept-me")); err != nil || res.IsError {
		t.Errorf("accepted mkdir: isError=%v status %q: %v", res.IsError, obs.Status, err)
	}
	res, obs = callTool(t, cs, "run_command", map[string]any{"command": "mkdir declined"})
	if _, err := os.Stat(filepath.Join(dir, "declined")); !os.IsNotExist(err) || !res.IsError || obs.Status != agentexec.StatusRejected {
		t.Errorf("declined mkdir: isError=%v status %q: %v", res.IsError, obs.Status, err)
	}
	res, _ = callTool(t, cs, "check_command", map[string]any{"command": "touch x"})
	if res.IsError || !strings.Contains(toolText(res), "decision: deny") {
		t.Errorf("check_command: isError=%v %q", res.IsError, toolText(res))
	}
}

// serveAnswer is one output line of agentexec serve.
type serveAnswer struct {
	ID          json.RawMessage        `json:"id"`
	Observation *agentexec.Observation `json:"observation"`
	Error       string                 `json:"error"`
}

func runServe(t *testing.T, bin string, input string, args ...string) []serveAnswer {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--sandbox", "none", "--audit", "off"}, args...)...)
	cmd.Stdin = strings.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr.Bytes())
	}
	var as []serveAnswer
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var a serveAnswer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("output line %q: %v", sc.Text(), err)
		}
		as = append(as, a)
	}
	return as
}

// TestServeOverStdio drives the built binary as a harness does.
func TestServeOverStdio(t *testing.T) {
	bin := buildAgentexec(t)
	t.Run("parallel", func(t *testing.T) { testServeParallel(t, bin) })
	t.Run("eof", func(t *testing.T) { testServeEOF(t, bin) })
	t.Run("sigterm", func(t *testing.T) { testServeSIGTERM(t, bin) })
}

// testServeParallel: 100 requests with --parallel 8 and malformed lines
// among them; every request answered under its id.
func testServeParallel(t *testing.T, bin string) {
	var in strings.Builder
	for i := range 100 {
		fmt.Fprintf(&in, `{"id":%d,"request":{"argv":["echo","%d"]}}`+"\n", i, i)
		if i%25 == 0 {
			fmt.Fprintf(&in, "{broken %d\n", i)
		}
	}
	as := runServe(t, bin, in.String(), "--parallel", "8")
	seen, errs := map[string]bool{}, 0
	for _, a := range as {
		switch {
		case a.Error != "":
			errs++
			if string(a.ID) != "null" {
				t.Errorf("malformed line answered with id %s", a.ID)
			}
		case a.Observation == nil || a.Observation.Stdout != string(a.ID)+"\n":
			t.Errorf("id %s: %+v", a.ID, a.Observation)
		default:
			seen[string(a.ID)] = true
		}
	}
	if len(seen) != 100 || errs != 4 {
		t.Errorf("%d distinct answers and %d errors, want 100 and 4", len(seen), errs)
	}
}

// sleepMarker is a sleep no other process runs, so /proc tells whether it
// outlived serve.
func sleepMarker() (cmd, arg string) {
	arg = fmt.Sprintf("299.%d", time.Now().UnixNano()%1e9)
	return "sleep " + arg, arg
}

func survivors(arg string) []string {
	var found []string
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil && bytes.Contains(b, []byte(arg)) {
			found = append(found, f+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return found
}

// testServeEOF: input ends while a command runs; after --grace it
// is cancelled, answered with its output, and serve exits 0 with no child
// left.
func testServeEOF(t *testing.T, bin string) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc to look for leftover processes:", err)
	}
	slow, arg := sleepMarker()
	input := `{"id":"quick","request":{"command":"echo quick"}}` + "\n" +
		`{"id":"slow","request":{"command":"echo started; ` + slow + `"}}` + "\n"
	as := runServe(t, bin, input, "--grace", "500ms")
	got := map[string]*agentexec.Observation{}
	for _, a := range as {
		got[string(a.ID)] = a.Observation
	}
	if o := got[`"quick"`]; o == nil || o.Stdout != "quick\n" {
		t.Errorf("quick: %+v", o)
	}
	if o := got[`"slow"`]; o == nil || o.Status == agentexec.StatusExited || o.Stdout != "started\n" {
		t.Errorf("slow: %+v, want it cancelled with its output", o)
	}
	if left := survivors(arg); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// testServeSIGTERM: on SIGTERM serve stops reading (stdin stays open),
// cancels the running command after --grace and exits 0, leaving nothing.
func testServeSIGTERM(t *testing.T, bin string) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	slow, arg := sleepMarker()
	cmd := exec.Command(bin, "serve", "--sandbox", "none", "--audit", "off", "--grace", "300ms")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout syncBuffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	fmt.Fprintf(stdin, `{"id":7,"request":{"command":"echo started; %s"}}`+"\n", slow)
	for deadline := time.Now().Add(time.Minute); len(survivors(arg)) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve after SIGTERM: %v", err)
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("serve did not exit after SIGTERM")
	}
	if !strings.Contains(stdout.String(), `"id":7`) || !strings.Contains(stdout.String(), "started") {
		t.Errorf("the cancelled request was not answered: %q", stdout.String())
	}
	if left := survivors(arg); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

func repoRoot(t testing.TB) string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestReplayShippedTranscripts: the shipped transcripts pass from the
// repository's root, and an edited copy fails with a diff.
func TestReplayShippedTranscripts(t *testing.T) {
	bin := buildAgentexec(t)
	root := repoRoot(t)
	args := []string{"replay", "--policy", "testdata/react/policy.json", "--sandbox", "none", "--audit", "off"}
	cmd := exec.Command(bin, append(args, "testdata/react/explore.jsonl", "testdata/react/guarded.jsonl")...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("replay of the shipped transcripts: %v\n%s", err, out)
	}

	data, err := os.ReadFile(filepath.Join(root, "testdata", "react", "guarded.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(t.TempDir(), "edited.jsonl")
	changed := strings.Replace(string(data), `"decision":"deny","rule":"Bash(rm *)"`, `"decision":"allow","rule":"Bash(rm *)"`, 1)
	if err := os.WriteFile(edited, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(bin, append(args, edited)...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("replay of an edited transcript: %v, want exit status 1\n%s", err, out)
	}
	for _, want := range []string{"edited.jsonl:2: rm -rf build", `decision: "allow" → "deny"`, "4 calls, 1 changed"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// BenchmarkMCPRoundTrip measures run_command of `true` through the built
// binary over stdio, the path an MCP client takes; p50-ns is the median.
func BenchmarkMCPRoundTrip(b *testing.B) {
	bin := buildAgentexec(b)
	dir, policy := workspace(b)
	cs, _ := mcpSession(b, bin, dir, policy, "")
	args := &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "true"}}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		res, err := cs.CallTool(context.Background(), args)
		if err != nil || res.IsError {
			b.Fatalf("run_command true: %v %+v", err, res)
		}
		lat = append(lat, time.Since(start))
	}
	reportP50(b, lat)
}

// BenchmarkRunnerDirect is the same command through exec.Runner in
// process: the difference to BenchmarkMCPRoundTrip is the cost of MCP.
func BenchmarkRunnerDirect(b *testing.B) {
	dir, _ := workspace(b)
	r := &agentexec.Runner{Sandbox: "none", Cwd: dir}
	req := agentexec.Request{Command: "true"}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if obs := r.RunCommand(context.Background(), req); obs.Status != agentexec.StatusExited {
			b.Fatalf("true: %+v", obs)
		}
		lat = append(lat, time.Since(start))
	}
	reportP50(b, lat)
}

func reportP50(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
}
