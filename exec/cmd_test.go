package exec

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentexec/agentexec/gate"
)

// outcome is what a case observed, comparable across os/exec and ours.
type outcome struct {
	Out      string
	Err      string
	ExitCode int
	IsExit   bool
	NotFound bool
	Stderr   string // ExitError.Stderr from Output
}

// both abstracts over os/exec.Cmd and our Cmd for the comparison table.
type both interface {
	run(ctx context.Context, tc dropCase) outcome
}

type dropCase struct {
	name  string
	argv  []string
	stdin string
	dir   string
	env   []string
	how   string // run, output, combined, stdoutpipe, stdinpipe
}

func (tc dropCase) finish(out []byte, err error) outcome {
	o := outcome{Out: string(out)}
	if err != nil {
		o.Err = err.Error()
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		o.IsExit, o.ExitCode, o.Stderr = true, ee.ExitCode(), string(ee.Stderr)
	}
	o.NotFound = errors.Is(err, ErrNotFound)
	return o
}

func dropCases(dir string) []dropCase {
	return []dropCase{
		{name: "output", argv: []string{"echo", "hello", "world"}, how: "output"},
		{name: "exit status", argv: []string{"sh", "-c", "echo out; exit 3"}, how: "output"},
		{name: "stderr in ExitError", argv: []string{"sh", "-c", "echo oops >&2; exit 1"}, how: "output"},
		{name: "combined", argv: []string{"sh", "-c", "echo a; echo b >&2; echo c"}, how: "combined"},
		{name: "run false", argv: []string{"false"}, how: "run"},
		{name: "signal", argv: []string{"sh", "-c", "kill -9 $$"}, how: "run"},
		{name: "stdin", argv: []string{"cat"}, stdin: "piped\ninput\n", how: "output"},
		{name: "dir", argv: []string{"pwd"}, dir: dir, how: "output"},
		{name: "env", argv: []string{"sh", "-c", "echo $ZZ_DROPIN"}, env: []string{"ZZ_DROPIN=yes", "PATH=" + os.Getenv("PATH")}, how: "output"},
		{name: "not found", argv: []string{"no-such-program-agentexec"}, how: "run"},
		{name: "stdout pipe", argv: []string{"printf", "x\\ny\\n"}, how: "stdoutpipe"},
		{name: "stdin pipe", argv: []string{"tr", "a-z", "A-Z"}, stdin: "shout\n", how: "stdinpipe"},
	}
}

type osCmd struct{}

func (osCmd) run(ctx context.Context, tc dropCase) outcome {
	c := osexec.CommandContext(ctx, tc.argv[0], tc.argv[1:]...)
	c.Dir, c.Env = tc.dir, tc.env
	if tc.stdin != "" && tc.how != "stdinpipe" {
		c.Stdin = strings.NewReader(tc.stdin)
	}
	return tc.finish(drive(tc, c.Run, c.Output, c.CombinedOutput, c.StdoutPipe, c.StdinPipe, c.Start, c.Wait))
}

type ourCmd struct{ r *Runner }

func (o ourCmd) run(ctx context.Context, tc dropCase) outcome {
	c := CommandContext(ctx, tc.argv[0], tc.argv[1:]...)
	c.Runner = o.r
	c.Dir, c.Env = tc.dir, tc.env
	if tc.stdin != "" && tc.how != "stdinpipe" {
		c.Stdin = strings.NewReader(tc.stdin)
	}
	return tc.finish(drive(tc, c.Run, c.Output, c.CombinedOutput, c.StdoutPipe, c.StdinPipe, c.Start, c.Wait))
}

// drive runs one case through either API's methods.
func drive(tc dropCase, run func() error, output, combined func() ([]byte, error),
	stdoutPipe func() (io.ReadCloser, error), stdinPipe func() (io.WriteCloser, error),
	start, wait func() error) ([]byte, error) {
	switch tc.how {
	case "output":
		return output()
	case "combined":
		return combined()
	case "stdoutpipe":
		p, err := stdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := start(); err != nil {
			return nil, err
		}
		b, _ := io.ReadAll(p)
		return b, wait()
	case "stdinpipe":
		return pipeIn(tc, stdoutPipe, stdinPipe, start, wait)
	}
	return nil, run()
}

func pipeIn(tc dropCase, stdoutPipe func() (io.ReadCloser, error), stdinPipe func() (io.WriteCloser, error), start, wait func() error) ([]byte, error) {
	in, err := stdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := stdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := start(); err != nil {
		return nil, err
	}
	io.WriteString(in, tc.stdin)
	in.Close()
	b, _ := io.ReadAll(out)
	return b, wait()
}

func TestDropInMatchesOSExec(t *testing.T) {
	dir := t.TempDir()
	ours := ourCmd{&Runner{Mode: gate.ModeYolo, Sandbox: "none"}}
	for _, tc := range dropCases(dir) {
		t.Run(tc.name, func(t *testing.T) {
			want := osCmd{}.run(context.Background(), tc)
			got := ours.run(context.Background(), tc)
			if got != want {
				t.Fatalf("drop-in %+v\n   os/exec %+v", got, want)
			}
		})
	}
}

func TestDropInContextKillsTree(t *testing.T) {
	m := uniqueSleep()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	c := CommandContext(ctx, "sh", "-c", "setsid sleep "+m+" & sleep "+m)
	c.Runner = &Runner{Mode: gate.ModeYolo, Sandbox: "none"}
	err := c.Run()
	var ee *ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != -1 {
		t.Fatalf("err %v, want a killed ExitError", err)
	}
	if left := leftovers(m); len(left) > 0 {
		t.Fatalf("left behind: %v", left)
	}
}

func TestDropInBackgroundDoesNotStallWait(t *testing.T) {
	// os/exec would wait for the background sleep, which holds stdout;
	// the drop-in ends it when the leader exits.
	m := uniqueSleep()
	c := Command("sh", "-c", "echo hi; sleep "+m+" &")
	c.Runner = &Runner{Mode: gate.ModeYolo, Sandbox: "none"}
	out, err := c.Output()
	if err != nil || string(out) != "hi\n" {
		t.Fatalf("%q %v", out, err)
	}
	if left := leftovers(m); len(left) > 0 {
		t.Fatalf("left behind: %v", left)
	}
}

func TestDropInRejected(t *testing.T) {
	tests := []struct {
		name  string
		r     *Runner
		needs bool
	}{
		{"nil approver asks", &Runner{Sandbox: "none"}, true},
		{"declined", &Runner{Sandbox: "none", Approver: func(context.Context, Request, gate.Decision) (bool, error) { return false, nil }}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "made")
			c := Command("touch", file)
			c.Runner = tt.r
			err := c.Run()
			var rej *RejectedError
			if !errors.As(err, &rej) || rej.NeedsApproval != tt.needs || rej.Decision.Action != gate.Ask {
				t.Fatalf("err %v, want a RejectedError", err)
			}
			if c.Process != nil {
				t.Fatal("a process was started")
			}
			if _, err := os.Stat(file); err == nil {
				t.Fatal("rejected command ran")
			}
		})
	}
}

func TestDropInNilRunnerIsGated(t *testing.T) {
	file := filepath.Join(t.TempDir(), "made")
	err := Command("touch", file).Run()
	var rej *RejectedError
	if !errors.As(err, &rej) {
		t.Fatalf("a nil Runner ran a write: %v", err)
	}
}

func TestDropInGateSeesWhatRuns(t *testing.T) {
	pol, err := gate.ParsePolicy([]byte(`{"permissions":{"deny":["Bash(touch *)"]}}`), "test")
	if err != nil {
		t.Fatal(err)
	}
	touch, err := LookPath("touch")
	if err != nil {
		t.Skip("no touch on PATH")
	}
	file := filepath.Join(t.TempDir(), "made")
	c := Command("touch", file)
	c.Path, c.Args[0] = touch, "ls" // Args[0] lies about the program
	c.Runner = &Runner{Mode: gate.ModeYolo, Sandbox: "none", Policy: pol}
	var rej *RejectedError
	if err := c.Run(); !errors.As(err, &rej) {
		t.Fatalf("a disguised touch was not denied: %v", err)
	}
	if _, err := os.Stat(file); err == nil {
		t.Fatal("it ran")
	}
	tests := []struct {
		path string
		args []string
		want string
	}{
		{"/usr/bin/ls", []string{"ls", "-l"}, "ls"},
		{"/usr/bin/rm", []string{"ls", "-l"}, "/usr/bin/rm"},
		{`C:\Windows\cmd.exe`, []string{"CMD", "/c"}, "CMD"},
		{"/bin/true", nil, "/bin/true"},
	}
	for _, tt := range tests {
		if got := gateArgv(tt.path, tt.args)[0]; got != tt.want {
			t.Errorf("gateArgv(%s, %q)[0] = %s, want %s", tt.path, tt.args, got, tt.want)
		}
	}
}

func TestDropInErrors(t *testing.T) {
	r := &Runner{Mode: gate.ModeYolo, Sandbox: "none"}
	c := Command("true")
	c.Runner = r
	if err := c.Wait(); err == nil {
		t.Fatal("Wait before Start succeeded")
	}
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err == nil {
		t.Fatal("second Start succeeded")
	}
	c = Command("echo")
	c.Stdout = &bytes.Buffer{}
	if _, err := c.Output(); err == nil {
		t.Fatal("Output with Stdout set succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c = CommandContext(ctx, "true")
	c.Runner = r
	if err := c.Start(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Start with a done context: %v", err)
	}
}
