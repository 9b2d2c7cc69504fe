// Command servebench measures how many requests a second `agentexec serve`
// or `agentexec mcp` answers: it starts the server, warms it up, then keeps
// -inflight requests outstanding (1: strictly sequential, each sent when
// the previous one is answered) until -n are answered, and prints the
// rate, the median and p90 latency, and the CPU time the server and the
// processes it waited for used per measured request (from /proc, where
// there is one: it is less noisy than wall time on a shared machine).
//
// Usage:
//
//	go run ./scripts/servebench -bin agentexec [-surface serve|mcp] [-n 500]
//	    [-inflight 1] [-dir D] [-cmd true] [-- server flags...]
//
// Flags after -- go to the server (e.g. --parallel 2 --sandbox none
// --audit off); the default mode is yolo so that `true` needs no approval
// whatever the classifier says.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	bin := flag.String("bin", "agentexec", "the agentexec binary")
	surface := flag.String("surface", "serve", "serve or mcp")
	n := flag.Int("n", 500, "measured requests")
	warm := flag.Int("warm", 20, "unmeasured requests first")
	inflight := flag.Int("inflight", 1, "requests outstanding at once (1: sequential)")
	dir := flag.String("dir", "", "the server's working directory (the workspace)")
	cmdText := flag.String("cmd", "true", "the command every request runs (as text, through the shell)")
	argv := flag.Bool("argv", false, "send -cmd as an argv (split on blanks, run without a shell)")
	flag.Parse()
	argvMode = *argv
	args := append([]string{*surface, "--mode", "yolo"}, flag.Args()...)
	if err := run(*bin, args, *dir, *surface == "mcp", *cmdText, *warm, *n, *inflight); err != nil {
		fmt.Fprintln(os.Stderr, "servebench:", err)
		os.Exit(1)
	}
}

// client speaks one surface's protocol over the server's stdio.
type client struct {
	mcp  bool
	in   io.Writer
	out  *bufio.Scanner
	mu   sync.Mutex // serializes writes
	sent map[int]time.Time
}

func run(bin string, args []string, dir string, mcp bool, text string, warm, n, inflight int) error {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stderr strings.Builder // the server's log: shown only when it fails
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	outp, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { in.Close(); cmd.Wait() }()
	sc := bufio.NewScanner(outp)
	sc.Buffer(nil, 16<<20)
	c := &client{mcp: mcp, in: in, out: sc}
	if mcp {
		if err := c.initialize(); err != nil {
			return fmt.Errorf("%w\n%s", err, tail(stderr.String(), 2000))
		}
	}
	if _, err := c.batch(text, 1000000, warm, min(inflight, warm)); err != nil {
		return fmt.Errorf("warm-up: %w\n%s", err, tail(stderr.String(), 2000))
	}
	cpu0 := cpuTime(cmd.Process.Pid)
	start := time.Now()
	lat, err := c.batch(text, 1, n, inflight)
	if err != nil {
		return fmt.Errorf("%w\n%s", err, tail(stderr.String(), 2000))
	}
	el := time.Since(start)
	cpu := ""
	if cpu0 >= 0 {
		if cpu1 := cpuTime(cmd.Process.Pid); cpu1 >= cpu0 {
			cpu = fmt.Sprintf("  CPU %5.2f ms/request", float64(cpu1-cpu0)/float64(time.Millisecond)/float64(n))
		}
	}
	slices.Sort(lat)
	what := fmt.Sprintf("%q", text)
	if argvMode {
		what = fmt.Sprintf("argv %q", strings.Fields(text))
	}
	fmt.Printf("%-5s %-30s %-18s %7.0f requests/s  median %6.0f µs  p90 %6.0f µs%s  (%d requests, %d in flight)\n",
		args[0], label(args[3:]), what, float64(n)/el.Seconds(),
		us(lat[len(lat)/2]), us(lat[len(lat)*9/10]), cpu, n, inflight)
	return nil
}

// batch sends n requests, ids from first, keeping inflight outstanding,
// and returns each one's latency.
func (c *client) batch(text string, first, n, inflight int) ([]time.Duration, error) {
	sent := map[int]time.Time{}
	var lat []time.Duration
	next := first
	send := func() error {
		sent[next] = time.Now()
		err := c.send(next, text)
		next++
		return err
	}
	for next < first+min(inflight, n) {
		if err := send(); err != nil {
			return nil, err
		}
	}
	for len(lat) < n {
		id, err := c.recv()
		if err != nil {
			return nil, err
		}
		t, ok := sent[id]
		if !ok {
			continue // a notification, or an answer we did not wait for
		}
		delete(sent, id)
		lat = append(lat, time.Since(t))
		if next < first+n {
			if err := send(); err != nil {
				return nil, err
			}
		}
	}
	return lat, nil
}

func (c *client) send(id int, text string) error {
	var line []byte
	req := map[string]any{"command": text}
	if argvMode {
		req = map[string]any{"argv": strings.Fields(text)}
	}
	if c.mcp {
		line, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
			"params": map[string]any{"name": "run_command", "arguments": req}})
	} else {
		line, _ = json.Marshal(map[string]any{"id": id, "request": req})
	}
	_, err := c.in.Write(append(line, '\n'))
	return err
}

// recv reads answers until one with a numeric id, which it checks.
func (c *client) recv() (int, error) {
	for c.out.Scan() {
		var a struct {
			ID          *int            `json:"id"`
			Error       json.RawMessage `json:"error"`
			Observation *struct {
				Status string `json:"status"`
				Error  string `json:"error"`
			} `json:"observation"`
			Result *struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal(c.out.Bytes(), &a); err != nil || a.ID == nil {
			continue
		}
		switch {
		case len(a.Error) > 0 && string(a.Error) != "null":
			return 0, fmt.Errorf("request %d: error %s", *a.ID, a.Error)
		case a.Observation != nil && a.Observation.Status != "exited":
			return 0, fmt.Errorf("request %d: status %s: %s", *a.ID, a.Observation.Status, a.Observation.Error)
		case a.Result != nil && a.Result.IsError:
			return 0, fmt.Errorf("request %d: tool error %v", *a.ID, a.Result.Content)
		}
		return *a.ID, nil
	}
	if err := c.out.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("the server closed its output")
}

// initialize does the MCP handshake.
func (c *client) initialize() error {
	init, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize",
		"params": map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "servebench", "version": "1"}}})
	if _, err := c.in.Write(append(init, '\n')); err != nil {
		return err
	}
	if _, err := c.recv(); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	_, err := c.in.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	return err
}

// cpuTime is the user and system time of process pid and of the children
// it waited for (/proc/PID/stat fields 14-17, in clock ticks taken as
// 100 a second, Linux's USER_HZ), or -1 where it cannot be read.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold blanks
	if i < 0 {
		return -1
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3, the state
	if len(f) < 15 {
		return -1
	}
	var ticks int64
	for _, v := range f[11:15] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return -1
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// argvMode sends the command as an argv.
var argvMode bool

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// label is the server flags as printed: an audit path as "audit on".
func label(flags []string) string {
	var out []string
	audit := "audit on"
	for i := 0; i < len(flags); i++ {
		if flags[i] == "--audit" && i+1 < len(flags) {
			if flags[i+1] == "off" {
				audit = "audit off"
			}
			i++
			continue
		}
		out = append(out, flags[i])
	}
	return strings.Join(append(out, audit), " ")
}
