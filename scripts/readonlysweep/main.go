// Command readonlysweep checks the classifier's read-only verdicts against
// the real programs. For every program the command table calls a reader and
// every git subcommand, where installed, it builds command lines from the
// options the program's own help lists — each option alone, with a value
// that names a file, a command or a script, and before a second operand
// that names a new file — and asks `agentexec check --batch` for a plan-mode
// verdict. Each command proven read-only is then run with `agentexec run`
// in a fresh copy of a fixture workspace (a git repository with a tag, a
// few files and a script that leaves a mark), under the workspace-write
// sandbox, with HOME inside the workspace. A command proven read-only that
// changes the workspace or HOME, or that the sandbox stopped writing
// ("Read-only file system": the repository's .git is read-only there), is
// reported: the classifier's model of that program is wrong.
//
// Usage:
//
//	go build -o /tmp/agentexec ./cmd/agentexec
//	go run ./scripts/readonlysweep -agentexec /tmp/agentexec [-parallel 2] [-only REGEXP]
//
// It exits 1 when it reports a finding. A full sweep runs some 25,000
// commands (half an hour on two cores); -only narrows it to the programs
// whose name matches.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentexec/agentexec/gate/programs"
)

// optionWord finds the options a help text lists: -x and --long-name, not
// inside a longer word or path.
var optionWord = regexp.MustCompile(`(?:^|[\s,\[(])(--[a-zA-Z][\w-]*|-[a-zA-Z0-9])\b`)

// values are what an option is given: a file name, a command, a script
// that leaves a mark (the fixture's pw.sh), a directory (git's options
// take the first three).
var values = []string{"out.txt", "'touch pwned'", "./pw.sh", "."}

func main() {
	bin := flag.String("agentexec", "", "the agentexec binary to check with and run under (required)")
	parallel := flag.Int("parallel", 2, "runs at once")
	only := flag.String("only", "", "sweep only the programs whose name matches this regexp")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "readonlysweep: -agentexec is required (go build -o /tmp/agentexec ./cmd/agentexec)")
		os.Exit(2)
	}
	var filter *regexp.Regexp
	if *only != "" {
		var err error
		if filter, err = regexp.Compile(*only); err != nil {
			fmt.Fprintln(os.Stderr, "readonlysweep: -only:", err)
			os.Exit(2)
		}
	}
	tmp, err := os.MkdirTemp("", "readonlysweep")
	check(err)
	defer os.RemoveAll(tmp)
	fixture := filepath.Join(tmp, "fixture")
	check(makeFixture(fixture))

	cmds := candidates(fixture, filter)
	fmt.Printf("%d command lines\n", len(cmds))
	verdicts, err := plan(*bin, cmds)
	check(err)
	var proven []string
	for i, c := range cmds {
		if verdicts[i] == "read-only" {
			proven = append(proven, c)
		}
	}
	fmt.Printf("%d proven read-only in plan mode; running each in the sandbox\n", len(proven))

	findings := sweep(*bin, fixture, tmp, proven, *parallel)
	for _, f := range findings {
		fmt.Println(f)
	}
	fmt.Printf("%d findings\n", len(findings))
	if len(findings) > 0 {
		os.Exit(1)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "readonlysweep:", err)
		os.Exit(2)
	}
}

// makeFixture makes the workspace every run starts from.
func makeFixture(dir string) error {
	files := map[string]string{
		"a.txt":     "alpha 1\nbeta 2\ngamma 3\n",
		"b.txt":     "alpha 1\ndelta 4\n",
		"sub/c.txt": "c\n",
		"pw.sh":     "#!/bin/sh\ntouch pwned2\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "home"), 0o755); err != nil {
		return err
	}
	git := func(args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x",
			"GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "a.txt", "b.txt"}, {"commit", "-qm", "one"}, {"tag", "v1"}} {
		if err := git(args...); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha 1\nbeta 2\ngamma 3\nchanged\n"), 0o644)
}

// helpOptions runs argv (a program's help) and returns the options its
// output lists.
func helpOptions(dir string, argv ...string) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput() // a help that exits non-zero still lists
	var opts []string
	for _, m := range optionWord.FindAllStringSubmatch(string(out), -1) {
		switch o := m[1]; o {
		case "--help", "--version", "-h", "--usage":
		default:
			opts = append(opts, o)
		}
	}
	slices.Sort(opts)
	return slices.Compact(opts)
}

// candidates are the command lines to check: each reader's and each git
// subcommand's options in every form.
func candidates(fixture string, filter *regexp.Regexp) []string {
	var out []string
	add := func(prefix string, opts []string, operands []string, values []string) {
		for _, tail := range operands {
			out = append(out, prefix+" "+tail)
		}
		for _, o := range opts {
			for _, tail := range operands {
				out = append(out, prefix+" "+o+" "+tail)
				for _, v := range values {
					out = append(out, prefix+" "+o+" "+v+" "+tail)
					switch {
					case strings.HasPrefix(o, "--"):
						out = append(out, prefix+" "+o+"="+v+" "+tail)
					case !strings.Contains(v, " "):
						out = append(out, prefix+" "+o+v+" "+tail)
					}
				}
			}
		}
	}
	programs.All(func(p *programs.Program) {
		if !p.Kind.Has(programs.Reader) || p.Kind.Has(programs.Builtin) || (filter != nil && !filter.MatchString(p.Name)) {
			return
		}
		if p.Name == "yes" || p.Name == "sleep" {
			return // they never end: every run would time out
		}
		if _, err := exec.LookPath(p.Name); err != nil {
			return
		}
		add(p.Name, helpOptions(fixture, p.Name, "--help"), []string{"a.txt", "a.txt out.txt", "a.txt sub/new.txt"}, values)
	})
	if filter == nil || filter.MatchString("git") {
		for _, sub := range gitCommands(fixture) {
			add("git "+sub, helpOptions(fixture, "git", sub, "-h"), []string{"", "v2 HEAD", "x.y z", "a.txt"}, values[:3])
		}
	}
	for i, c := range out {
		out[i] = strings.TrimSpace(c)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// gitCommands lists the subcommands the installed git has (git help -a).
func gitCommands(dir string) []string {
	cmd := exec.Command("git", "--list-cmds=main")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var subs []string
	for _, s := range strings.Fields(string(out)) {
		switch s {
		case "daemon", "instaweb", "web--browse", "credential-cache--daemon", "fsmonitor--daemon", "upload-pack", "receive-pack", "http-backend", "shell", "gui", "gitk", "citool":
			continue // servers and interactive tools: they do not end on their own
		}
		subs = append(subs, s)
	}
	return subs
}

// plan returns agentexec's plan-mode verdict (the safety class) for each
// command, in order, from one check --batch.
func plan(bin string, cmds []string) ([]string, error) {
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, c := range cmds {
		if err := enc.Encode(map[string]string{"command": c, "mode": "plan"}); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(bin, "check", "--batch")
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		return nil, fmt.Errorf("check --batch: %v", err)
	}
	var verdicts []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			Safety string `json:"safety"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("check --batch answered %q: %v", sc.Text(), err)
		}
		verdicts = append(verdicts, r.Safety)
	}
	if len(verdicts) != len(cmds) {
		return nil, fmt.Errorf("check --batch answered %d lines for %d commands", len(verdicts), len(cmds))
	}
	return verdicts, nil
}

// sweep runs each command in a fresh copy of the fixture and returns what
// it found.
func sweep(bin, fixture, tmp string, cmds []string, parallel int) []string {
	work := make(chan string)
	var (
		mu       sync.Mutex
		findings []string
		done     int
	)
	var wg sync.WaitGroup
	for w := range max(parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := filepath.Join(tmp, fmt.Sprintf("w%d", w))
			for c := range work {
				f := runOne(bin, fixture, ws, c)
				mu.Lock()
				if f != "" {
					findings = append(findings, f)
					fmt.Println(f)
				}
				if done++; done%1000 == 0 {
					fmt.Printf("%d of %d run\n", done, len(cmds))
				}
				mu.Unlock()
			}
		}()
	}
	for _, c := range cmds {
		work <- c
	}
	close(work)
	wg.Wait()
	slices.Sort(findings)
	return findings
}

// runOne runs cmd in ws, a fresh copy of fixture, and says what it changed
// or was stopped writing ("" for nothing).
func runOne(bin, fixture, ws, cmd string) string {
	os.RemoveAll(ws)
	if err := os.CopyFS(ws, os.DirFS(fixture)); err != nil {
		return fmt.Sprintf("SETUP %q: %v", cmd, err)
	}
	before := snapshot(ws)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	run := exec.CommandContext(ctx, bin, "run", "-mode", "yolo", "-audit", "off", "-exec-gate", "off", "-cwd", ws, "-c", cmd)
	run.Env = append(os.Environ(), "HOME="+filepath.Join(ws, "home"), "XDG_STATE_HOME="+filepath.Join(ws, "..", "state"), "PAGER=cat", "GIT_PAGER=cat")
	var stderr bytes.Buffer
	run.Stderr = &stderr
	run.Run()
	after := snapshot(ws)
	var changed []string
	for name, st := range after {
		if goTelemetry(name) {
			continue
		}
		if before[name] != st {
			changed = append(changed, name)
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			changed = append(changed, name+" (removed)")
		}
	}
	slices.Sort(changed)
	switch {
	case len(changed) > 0:
		return fmt.Sprintf("WRITE %q changed %s", cmd, strings.Join(changed, ", "))
	case strings.Contains(stderr.String(), "Read-only file system"):
		return fmt.Sprintf("EROFS %q: %s", cmd, strings.Join(strings.Fields(stderr.String()), " "))
	}
	return ""
}

// goTelemetry reports a path of Go's local telemetry counters (gofmt and
// the go command count their own use under the user's configuration
// directory, on by default since Go 1.23): a write, but not one the
// command's meaning makes, and the classifier calls gofmt -l read-only.
func goTelemetry(rel string) bool {
	for _, p := range []string{"home", "home/.config", "home/.config/go"} {
		if rel == filepath.FromSlash(p) {
			return true
		}
	}
	return strings.HasPrefix(rel, filepath.FromSlash("home/.config/go/telemetry"))
}

type fileState struct {
	size  int64
	mtime int64
	mode  fs.FileMode
}

// snapshot is every file's size, modification time and mode under dir.
func snapshot(dir string) map[string]fileState {
	s := map[string]fileState{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		st := fileState{size: info.Size(), mtime: info.ModTime().UnixNano(), mode: info.Mode()}
		if info.IsDir() {
			st.size = 0 // a directory's size moves with its entries, which are listed themselves
		}
		s[rel] = st
		return nil
	})
	return s
}
