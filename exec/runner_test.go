package exec

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentexec/agentexec/gate"
)

// testRunner runs everything (yolo) unsandboxed: these tests are about the
// executor, not the gate or the sandbox.
func testRunner() *Runner {
	return &Runner{Mode: gate.ModeYolo, Sandbox: "none"}
}

func runReq(t *testing.T, r *Runner, req Request) Observation {
	t.Helper()
	return r.RunCommand(context.Background(), req)
}

func TestExitCodesAndSignals(t *testing.T) {
	tests := []struct {
		cmd    string
		code   int
		signal string
	}{
		{"true", 0, ""},
		{"exit 3", 3, ""},
		{"exit 255", 255, ""},
		{"kill -9 $$", -1, "SIGKILL"},
		{"kill -TERM $$", -1, "SIGTERM"},
		{"kill -SEGV $$", -1, "SIGSEGV"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			obs := runReq(t, testRunner(), Request{Command: tt.cmd, Shell: "sh"})
			if obs.Status != StatusExited || obs.Signal != tt.signal {
				t.Fatalf("status %s signal %q, want exited %q: %+v", obs.Status, obs.Signal, tt.signal, obs)
			}
			if tt.signal == "" && (obs.ExitCode == nil || *obs.ExitCode != tt.code) {
				t.Fatalf("exit code %v, want %d", obs.ExitCode, tt.code)
			}
			if tt.signal != "" && obs.ExitCode != nil {
				t.Fatalf("exit code %d set for a signal", *obs.ExitCode)
			}
		})
	}
}

func TestArgvRunsDirectly(t *testing.T) {
	// No shell sees the argv: metacharacters are plain bytes.
	obs := runReq(t, testRunner(), Request{Argv: []string{"printf", "%s|", "a b", "$HOME", "*", "`x`"}})
	if obs.Stdout != "a b|$HOME|*|`x`|" {
		t.Fatalf("stdout %q", obs.Stdout)
	}
	obs = runReq(t, testRunner(), Request{Argv: []string{"no-such-program-agentexec"}})
	if obs.Status != StatusError || !strings.Contains(obs.Error, "no-such-program-agentexec") {
		t.Fatalf("missing program: %+v", obs)
	}
}

func TestStdin(t *testing.T) {
	text := "hello\nworld\n"
	tests := []struct {
		name  string
		stdin *string
		want  string
	}{
		{"text", &text, text},
		{"absent is /dev/null", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs := runReq(t, testRunner(), Request{Argv: []string{"cat"}, Stdin: tt.stdin, Timeout: "60s"})
			if obs.Status != StatusExited || obs.Stdout != tt.want {
				t.Fatalf("got %s %q, want %q", obs.Status, obs.Stdout, tt.want)
			}
		})
	}
}

func TestCwd(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	r := testRunner()
	r.Cwd = dir
	tests := []struct {
		cwd, want, err string
	}{
		{"", dir, ""},
		{"sub", filepath.Join(dir, "sub"), ""},
		{filepath.Join(dir, "sub"), filepath.Join(dir, "sub"), ""},
		{"missing", "", "cwd"},
	}
	for _, tt := range tests {
		t.Run(tt.cwd, func(t *testing.T) {
			obs := runReq(t, r, Request{Argv: []string{"pwd"}, Cwd: tt.cwd})
			if tt.err != "" {
				if obs.Status != StatusError || !strings.Contains(obs.Error, tt.err) {
					t.Fatalf("want an error naming %s: %+v", tt.err, obs)
				}
				return
			}
			if got := strings.TrimSpace(obs.Stdout); got != tt.want {
				t.Fatalf("pwd %q, want %q (%+v)", got, tt.want, obs)
			}
		})
	}
}

func TestEnvPolicy(t *testing.T) {
	base := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=/home/x", "LANG=C.UTF-8", "FOO=bar",
		"GITHUB_TOKEN=t", "MY_SECRET_THING=s", "DB_PASSWORD=p", "OPENAI_API_KEY=k",
		"AWS_ACCESS_KEY_ID=a", "AWS_SECRET_ACCESS_KEY=b", "AWS_REGION=eu", "PAGER=less",
	}
	tests := []struct {
		name       string
		pol        gate.EnvPolicy
		add        map[string]string
		want, gone []string
	}{
		{"all drops secrets", gate.EnvPolicy{}, nil,
			[]string{"FOO=bar", "AWS_REGION=eu", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "HOME=/home/x"},
			[]string{"GITHUB_TOKEN", "MY_SECRET_THING", "DB_PASSWORD", "OPENAI_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}},
		{"core", gate.EnvPolicy{Inherit: "core"}, nil,
			[]string{"LANG=C.UTF-8", "HOME=/home/x", "PAGER=cat"}, []string{"FOO", "AWS_REGION"}},
		{"none", gate.EnvPolicy{Inherit: "none"}, nil,
			[]string{"PAGER=cat"}, []string{"FOO", "HOME", "LANG"}},
		{"custom exclude replaces the default", gate.EnvPolicy{Exclude: []string{"FOO"}}, nil,
			[]string{"GITHUB_TOKEN=t"}, []string{"FOO"}},
		{"set and request additions win", gate.EnvPolicy{Set: map[string]string{"A": "1", "PAGER": "more"}},
			map[string]string{"B": "2", "GIT_PAGER": "less"},
			[]string{"A=1", "B=2", "PAGER=more", "GIT_PAGER=less"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := testRunner()
			r.Policy = &gate.Policy{Env: tt.pol}
			r.Environ = func() []string { return base }
			obs := runReq(t, r, Request{Argv: []string{"/usr/bin/env"}, Env: tt.add})
			lines := strings.Split(obs.Stdout, "\n")
			for _, w := range tt.want {
				if !contains(lines, w) {
					t.Errorf("missing %s in %q", w, obs.Stdout)
				}
			}
			for _, g := range tt.gone {
				for _, l := range lines {
					if strings.HasPrefix(l, g+"=") {
						t.Errorf("%s leaked", l)
					}
				}
			}
			if !strings.Contains(obs.Stdout, RunIDEnv+"="+obs.RunID) {
				t.Errorf("no run id tag")
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

func TestFloodIsBounded(t *testing.T) {
	const n = 50_000_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	obs := runReq(t, testRunner(), Request{Command: "yes | head -c 50000000; echo TAILMARK", Shell: "sh", MaxOutputBytes: 1000})
	runtime.ReadMemStats(&after)
	if obs.Status != StatusExited || obs.StdoutBytes != n+9 {
		t.Fatalf("status %s, %d bytes seen", obs.Status, obs.StdoutBytes)
	}
	if !obs.Truncated || !strings.HasPrefix(obs.Stdout, "y\ny\ny\n") || !strings.HasSuffix(obs.Stdout, "y\ny\nTAILMARK\n") {
		t.Fatalf("head or tail wrong: %q", obs.Stdout)
	}
	if len(obs.Stdout) > 1100 {
		t.Fatalf("kept %d bytes with a 1000-byte cap", len(obs.Stdout))
	}
	if want := int64(n + 9 - 1000); obs.Omitted != want {
		t.Fatalf("omitted %d, want %d", obs.Omitted, want)
	}
	if !strings.Contains(obs.Stdout, fmt.Sprintf("…[%d bytes omitted]…", obs.Omitted)) {
		t.Fatalf("no omission marker: %q", obs.Stdout)
	}
	// Memory, not time: allocating a fraction of the flood is fine,
	// holding it is not.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Fatalf("allocated %d bytes for a 50 MB flood", grew)
	}
}

func TestBinaryOutput(t *testing.T) {
	obs := runReq(t, testRunner(), Request{Command: `printf 'ELF\000\001\002\377\376'`, Shell: "sh"})
	if obs.Stdout != "ELF\x00\x01\x02\xff\xfe" {
		t.Fatalf("raw bytes lost: %q", obs.Stdout)
	}
	if txt := obs.Text(); !strings.Contains(txt, "[binary output: 8 bytes") || strings.ContainsRune(txt, 0) {
		t.Fatalf("not summarised: %q", txt)
	}
}

func TestANSIStrippedInTextOnly(t *testing.T) {
	obs := runReq(t, testRunner(), Request{Command: `printf '\033[31mred\033[0m \033]0;title\007done\r\n'`, Shell: "bash"})
	if !strings.Contains(obs.Stdout, "\x1b[31m") {
		t.Fatalf("raw escapes lost: %q", obs.Stdout)
	}
	if txt := obs.Text(); !strings.Contains(txt, "Output:\nred done\n") {
		t.Fatalf("Text: %q", txt)
	}
}

func TestPTY(t *testing.T) {
	if _, _, err := openPTY(0, 0); err != nil {
		t.Skipf("no pseudo-terminal on this host: %v", err)
	}
	isTTY := `if test -t 1; then echo tty; else echo notty; fi; echo err >&2`
	obs := runReq(t, testRunner(), Request{Command: isTTY, Shell: "sh", PTY: true})
	if obs.Output != "tty\r\nerr\r\n" || obs.Stdout != "" {
		t.Fatalf("pty: %+v", obs)
	}
	obs = runReq(t, testRunner(), Request{Command: isTTY, Shell: "sh"})
	if obs.Stdout != "notty\n" || obs.Stderr != "err\n" {
		t.Fatalf("pipes: %+v", obs)
	}
	obs = runReq(t, testRunner(), Request{Command: "stty size; echo $TERM", Shell: "sh", PTY: true, Rows: 33, Cols: 101})
	if obs.Output != "33 101\r\nxterm-256color\r\n" {
		t.Fatalf("size/TERM: %q", obs.Output)
	}
	in := "abc\n"
	obs = runReq(t, testRunner(), Request{Command: "read x; echo got $x; cat", Shell: "sh", PTY: true, Stdin: &in, Timeout: "60s"})
	if obs.Status != StatusExited || obs.Output != "got abc\r\n" {
		t.Fatalf("stdin under pty: %+v", obs)
	}
}

var marker atomic.Int64

// uniqueSleep is a sleep argument no other process on the host has.
func uniqueSleep() string {
	return fmt.Sprintf("300.%d%06d", os.Getpid(), marker.Add(1))
}

// leftovers lists processes whose command line contains s.
func leftovers(s string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), s) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

func TestTimeoutEndsTheWholeTree(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("escaped-process cleanup needs Linux (subreaper, /proc)")
	}
	tests := []struct {
		name, cmd string
		status    Status
	}{
		{"sleep", "echo before; sleep %[1]s", StatusTimedOut},
		{"setsid child", "echo before; setsid sleep %[1]s & sleep %[1]s", StatusTimedOut},
		{"double fork", "echo before; (sleep %[1]s &) ; sleep %[1]s", StatusTimedOut},
		{"ignores SIGTERM", "trap '' TERM; echo before; sleep %[1]s; sleep %[1]s", StatusTimedOut},
		{"env cleared, in group", "echo before; env -i sleep %[1]s & sleep %[1]s", StatusTimedOut},
		{"background left on exit", "echo before; setsid sleep %[1]s & sleep %[1]s & exit 0", StatusExited},
		{"nohup double fork on exit", "echo before; (setsid nohup sleep %[1]s >/dev/null 2>&1 &); exit 0", StatusExited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := uniqueSleep()
			r := testRunner()
			r.Grace = 200e6
			timeout := "300ms"
			if tt.status == StatusExited {
				timeout = "120s"
			}
			obs := runReq(t, r, Request{Command: fmt.Sprintf(tt.cmd, m), Shell: "bash", Timeout: timeout})
			// A loaded machine may time out before echo ran; output kept
			// across a timeout is TestCancelKeepsOutput's business.
			if obs.Status != tt.status || (obs.Stdout != "before\n" && (tt.status == StatusExited || obs.Stdout != "")) {
				t.Fatalf("%+v", obs)
			}
			if left := leftovers(m); len(left) > 0 {
				t.Fatalf("left behind: %v", left)
			}
			if z := ourChildren(); len(z) > 0 {
				t.Fatalf("unreaped children: %v", z)
			}
		})
	}
}

func TestBackgroundJobHoldingStdinDoesNotStall(t *testing.T) {
	m := uniqueSleep()
	big := strings.Repeat("x", 4<<20) // far more than a pipe holds
	obs := runReq(t, testRunner(), Request{Command: "sleep " + m + " & echo done", Shell: "sh", Stdin: &big, Timeout: "120s"})
	if obs.Status != StatusExited || obs.Stdout != "done\n" {
		t.Fatalf("%+v", obs)
	}
	if left := leftovers(m); len(left) > 0 {
		t.Fatalf("left behind: %v", left)
	}
}

// ourChildren lists this process's children (zombies included).
func ourChildren() []int { return children(os.Getpid()) }

func TestCancelKeepsOutput(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := testRunner()
	var obs Observation
	done := make(chan struct{})
	m := uniqueSleep()
	go func() {
		obs = r.RunCommandStream(ctx, Request{Command: "echo started; sleep " + m, Shell: "sh"}, nil, nil)
		close(done)
	}()
	// Once sleep runs, echo has written its line.
	for !strings.Contains(strings.Join(leftovers(m), "\n"), ": sleep "+m) {
		sleepMS(1)
	}
	cancel()
	<-done
	if obs.Status != StatusTimedOut || obs.Error != "canceled" || obs.Stdout != "started\n" {
		t.Fatalf("%+v", obs)
	}
}

func TestDoneContextStartsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	file := filepath.Join(t.TempDir(), "made")
	obs := testRunner().RunCommand(ctx, Request{Argv: []string{"touch", file}})
	if obs.Status != StatusError || !strings.Contains(obs.Error, "canceled") {
		t.Fatalf("%+v", obs)
	}
	if _, err := os.Stat(file); err == nil {
		t.Fatal("it ran")
	}
}

func TestConcurrentRunsLeakNothing(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts /proc/self/fd")
	}
	warm := runReq(t, testRunner(), Request{Command: "echo warm", Shell: "sh"})
	if warm.Status != StatusExited {
		t.Fatalf("%+v", warm)
	}
	fds, gs := countFDs(), runtime.NumGoroutine()
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := Request{Command: fmt.Sprintf("echo %d; echo e >&2", i), Shell: "sh"}
			if i%8 == 0 {
				req = Request{Command: "echo x; sleep " + uniqueSleep(), Shell: "sh", Timeout: "200ms"}
			}
			if i%8 == 1 {
				req.PTY = true
			}
			obs := testRunner().RunCommand(context.Background(), req)
			if obs.Status != StatusExited && obs.Status != StatusTimedOut {
				errs <- fmt.Sprintf("%d: %+v", i, obs)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	// Goroutines end just after they signal; give them a moment.
	for range 200 {
		if runtime.NumGoroutine() <= gs {
			break
		}
		runtime.Gosched()
		sleepMS(5)
	}
	if got := countFDs(); got > fds {
		t.Errorf("fds: %d before, %d after", fds, got)
	}
	if got := runtime.NumGoroutine(); got > gs {
		t.Errorf("goroutines: %d before, %d after", gs, got)
	}
	if z := ourChildren(); len(z) > 0 {
		t.Errorf("children left: %v", z)
	}
}

func countFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

func TestRejectedCommandNeverStarts(t *testing.T) {
	pol, err := gate.ParsePolicy([]byte(`{"permissions":{"deny":["Bash(touch *)"]}}`), "test")
	if err != nil {
		t.Fatal(err)
	}
	asked := false
	tests := []struct {
		name string
		r    *Runner
		want Status
	}{
		{"deny rule in yolo", &Runner{Mode: gate.ModeYolo, Sandbox: "none", Policy: pol}, StatusRejected},
		{"ask without approver", &Runner{Sandbox: "none"}, StatusNeedsApproval},
		{"ask declined", &Runner{Sandbox: "none", Approver: func(context.Context, Request, gate.Decision) (bool, error) {
			asked = true
			return false, nil
		}}, StatusRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "made")
			for _, req := range []Request{{Command: "touch " + file}, {Argv: []string{"touch", file}}} {
				obs := runReq(t, tt.r, req)
				if obs.Status != tt.want {
					t.Fatalf("status %s, want %s: %+v", obs.Status, tt.want, obs)
				}
				if _, err := os.Stat(file); err == nil {
					t.Fatalf("%v ran: %s exists", req, file)
				}
			}
		})
	}
	if !asked {
		t.Fatal("the approver was never asked")
	}
}

func TestApprovalRunsOnce(t *testing.T) {
	file := filepath.Join(t.TempDir(), "made")
	var got []Request
	r := &Runner{Sandbox: "none", Approver: func(_ context.Context, req Request, d gate.Decision) (bool, error) {
		got = append(got, req)
		return true, nil
	}}
	obs := runReq(t, r, Request{Argv: []string{"touch", file}})
	if obs.Status != StatusExited || len(got) != 1 || got[0].Argv[1] != file {
		t.Fatalf("%+v %v", obs, got)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal("approved command did not run")
	}
}

func TestBadRequests(t *testing.T) {
	tests := []struct {
		req  Request
		want string
	}{
		{Request{}, "one of command or argv"},
		{Request{Command: "ls", Argv: []string{"ls"}}, "exclusive"},
		{Request{Command: "ls\x00x"}, "command"},
		{Request{Argv: []string{"ls", "a\x00"}}, "argv[1]"},
		{Request{Argv: []string{""}}, "argv[0]"},
		{Request{Command: "ls", Shell: "fish"}, "shell"},
		{Request{Command: "ls", Timeout: "soon"}, "timeout"},
		{Request{Command: "ls", Timeout: "-1s"}, "timeout"},
		{Request{Command: "ls", MaxOutputBytes: -1}, "max_output_bytes"},
		{Request{Command: "ls", Env: map[string]string{"A=B": "x"}}, "env"},
		{Request{Command: "ls", Env: map[string]string{RunIDEnv: "x"}}, RunIDEnv},
	}
	for _, tt := range tests {
		obs := runReq(t, testRunner(), tt.req)
		if obs.Status != StatusError || !strings.Contains(obs.Error, tt.want) {
			t.Errorf("%+v: got %+v, want an error naming %q", tt.req, obs, tt.want)
		}
		if _, err := testRunner().Check(tt.req); err == nil {
			t.Errorf("Check(%+v) = nil error", tt.req)
		}
	}
}

func TestSandboxFailsClosed(t *testing.T) {
	// Whatever the host, a profile that cannot be applied must never run
	// the command unsandboxed.
	file := filepath.Join(t.TempDir(), "made")
	obs := runReq(t, &Runner{Mode: gate.ModeYolo, Sandbox: "workspace-write"}, Request{Argv: []string{"touch", file}})
	if obs.Status == StatusError {
		if _, err := os.Stat(file); err == nil {
			t.Fatal("sandbox failed but the command ran")
		}
		if !strings.Contains(obs.Error, "sandbox") {
			t.Fatalf("error does not name the sandbox: %s", obs.Error)
		}
		return
	}
	if obs.Sandbox == nil || obs.Sandbox.Profile != "workspace-write" {
		t.Fatalf("ran without reporting the sandbox: %+v", obs)
	}
}
