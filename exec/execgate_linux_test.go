package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentexec/agentexec/audit"
	"github.com/agentexec/agentexec/gate"
)

// The run-time exec gate's tests run real programs, each case in both
// directions: the program a deny rule names is stopped wherever in the
// tree it starts (keep.txt survives, the Observation names it and its
// parent), and the same shape running an allowed program runs.

const gatePolicy = `{"permissions":{"allow":["Bash(*)"],"deny":["Bash(rm *)","Bash(git push *)"]}}`

func requireHostGate(t *testing.T) {
	t.Helper()
	if !hostExecGate() {
		t.Skipf("no exec gate on this host: %s", execGateProblem())
	}
}

// gatedRunner is a Runner with policy (gatePolicy when empty) in the
// sandbox profile, with its workspace.
func gatedRunner(t *testing.T, profile, policy string) (*Runner, string) {
	t.Helper()
	requireHostGate(t)
	if policy == "" {
		policy = gatePolicy
	}
	pol, err := gate.ParsePolicy([]byte(policy), "test-policy.json")
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	r := &Runner{Policy: pol, Sandbox: profile, Cwd: ws, Grace: 200e6}
	if profile != "none" {
		if obs := runReq(t, r, Request{Argv: []string{"true"}}); obs.Status == StatusError && strings.Contains(obs.Error, "sandbox") {
			t.Skipf("sandbox %s unavailable here: %s", profile, obs.Error)
		}
	}
	return r, ws
}

// eachProfile runs f with and without the workspace-write sandbox.
func eachProfile(t *testing.T, f func(t *testing.T, profile string)) {
	for _, p := range []string{"none", "workspace-write"} {
		t.Run(p, func(t *testing.T) { f(t, p) })
	}
}

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// gateCase is a run whose text the static gate allows and which starts
// (or not) a denied program.
type gateCase struct {
	name    string
	files   map[string]string // workspace files; those under bin/ or ending in .sh are executable
	cmd     string            // the request's command text
	refused bool
	program string // the refused program's name, when refused
}

func runGateCases(t *testing.T, profile string, cases []gateCase) {
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			r, ws := gatedRunner(t, profile, "")
			for name, content := range tt.files {
				mode := os.FileMode(0o644)
				if strings.HasPrefix(name, "bin/") || strings.HasSuffix(name, ".sh") {
					mode = 0o755
				}
				write(t, filepath.Join(ws, name), content, mode)
			}
			write(t, filepath.Join(ws, "keep.txt"), "keep\n", 0o644)
			path := filepath.Join(ws, "bin") + ":" + os.Getenv("PATH")
			r.Environ = func() []string { return append(os.Environ(), "PATH="+path) }
			if d, err := r.Check(Request{Command: tt.cmd, Shell: "bash"}); err != nil || d.Action != gate.Allow {
				t.Fatalf("the static gate does not allow %q (%v %s): not a run-time case", tt.cmd, err, d.Reason)
			}
			obs := runReq(t, r, Request{Command: tt.cmd, Shell: "bash", Timeout: "30s"})
			_, kept := os.Stat(filepath.Join(ws, "keep.txt"))
			if tt.refused {
				f := obs.ExecRefused
				// The program itself, or a wrapper whose argv carries it
				// (the rules see through xargs rm, sh -c 'rm …').
				if kept != nil || obs.Status != StatusRejected || f == nil || !namesProgram(f, tt.program) || f.Parent == nil || len(f.Parent.Argv) == 0 || f.Rule == "" {
					t.Fatalf("want %s stopped (keep.txt %v): status %s, exec_refused %+v, stdout %q stderr %q, reason %q, error %q", tt.program, kept, obs.Status, f, obs.Stdout, obs.Stderr, obs.Reason, obs.Error)
				}
				if !strings.Contains(obs.Reason, "exec gate stopped") || !strings.Contains(obs.Reason, "Do not retry") {
					t.Errorf("reason lacks what happened or the guidance: %s", obs.Reason)
				}
				if obs.ExecGate != ExecGateOn || obs.Sandbox == nil || !slices.Contains(obs.Sandbox.Layers, "exec-gate") {
					t.Errorf("exec_gate %q, sandbox %+v: want the exec-gate layer reported", obs.ExecGate, obs.Sandbox)
				}
				return
			}
			if obs.Status != StatusExited || obs.ExecRefused != nil || kept != nil {
				t.Fatalf("want it run: keep.txt %v: status %s, exec_refused %+v, stdout %q stderr %q, reason %q, error %q", kept, obs.Status, obs.ExecRefused, obs.Stdout, obs.Stderr, obs.Reason, obs.Error)
			}
		})
	}
}

// namesProgram reports whether the refusal is of prog, or of a program
// whose arguments run prog.
func namesProgram(f *ExecRefusal, prog string) bool {
	if f.Program == prog {
		return true
	}
	return regexp.MustCompile(`(^|[\s/'"])` + regexp.QuoteMeta(prog) + `($|\s)`).MatchString(strings.Join(f.Argv, " "))
}

// TestExecGateWorkspaceScripts: project code run by name, running rm.
func TestExecGateWorkspaceScripts(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	both := func(name string, files func(action string) map[string]string, cmd string) []gateCase {
		return []gateCase{
			{name: name, files: files("rm -f keep.txt"), cmd: cmd, refused: true, program: "rm"},
			{name: name + ", allowed child", files: files("cp keep.txt copy.txt"), cmd: cmd},
		}
	}
	var cases []gateCase
	cases = append(cases, both("./build.sh", func(a string) map[string]string {
		return map[string]string{"build.sh": "#!/bin/bash\n" + a + "\n"}
	}, "./build.sh")...)
	cases = append(cases, both("bash build.sh", func(a string) map[string]string {
		return map[string]string{"build.sh": a + "\n"}
	}, "bash build.sh")...)
	cases = append(cases, both("make", func(a string) map[string]string {
		return map[string]string{"Makefile": "all:\n\t@" + a + "\n"}
	}, "make")...)
	cases = append(cases, both("npm test", func(a string) map[string]string {
		return map[string]string{
			"package.json": fmt.Sprintf(`{"scripts": {"test": %q}}`, a),
			// A stub npm: runs the script through sh -c, as npm does.
			"bin/npm": "#!/bin/sh\nexec sh -c \"$(python3 -c 'import json,sys; print(json.load(open(\"package.json\"))[\"scripts\"][sys.argv[1]])' \"$2\")\"\n",
		}
	}, "npm run test")...)
	cases = append(cases, both("python os.system", func(a string) map[string]string {
		return map[string]string{"tool.py": fmt.Sprintf("import os\nos.system(%q)\n", a)}
	}, "python3 tool.py")...)
	cases = append(cases, both("python subprocess", func(a string) map[string]string {
		return map[string]string{"tool.py": fmt.Sprintf("import subprocess\nsubprocess.run(%q.split())\n", a)}
	}, "python3 tool.py")...)
	eachProfile(t, func(t *testing.T, profile string) { runGateCases(t, profile, cases) })
}

// TestExecGateLaunchers: programs started from data, wrappers and other
// spellings, each in a script so that the static gate sees only the
// script's name.
func TestExecGateLaunchers(t *testing.T) {
	forms := []struct{ name, refused, allowed string }{
		{"xargs", `echo keep.txt | xargs rm -f`, `echo keep.txt | xargs cat`},
		{"find -exec", `find . -name keep.txt -exec rm -f {} +`, `find . -name keep.txt -exec cat {} +`},
		{"sed e", `echo 'rm -f keep.txt' | sed e`, `echo 'cat keep.txt' | sed e`},
		{"env -S", `env -S 'rm -f keep.txt'`, `env -S 'cat keep.txt'`},
		{"bash -e -c", `bash -e -c 'rm -f keep.txt'`, `bash -e -c 'cat keep.txt'`},
		{"hash -p", `hash -p /bin/rm ls; ls -f keep.txt`, `hash -p /bin/cat ls; ls keep.txt`},
		{"alias", "shopt -s expand_aliases\nalias ll='rm -f'\nll keep.txt", "shopt -s expand_aliases\nalias ll='cat'\nll keep.txt"},
		{"glob", `/bin/r[m] -f keep.txt`, `/bin/c[a]t keep.txt`},
		{"symlink", `ln -s /bin/rm zap && ./zap -f keep.txt`, `ln -s /bin/cat zap && ./zap keep.txt`},
		{"copy", `cp /bin/rm zz && ./zz -f keep.txt`, `cp /bin/cat zz && ./zz keep.txt`},
		{"setsid", `setsid sh -c 'rm -f keep.txt' & wait; sleep 0.2`, `setsid sh -c 'cat keep.txt' & wait; sleep 0.2`},
		{"double fork", `(sh -c 'rm -f keep.txt' &); sleep 0.5`, `(sh -c 'cat keep.txt' &); sleep 0.5`},
		{"thread's child", `python3 -c 'import threading, subprocess; t = threading.Thread(target=lambda: subprocess.run(["rm", "-f", "keep.txt"])); t.start(); t.join()'`,
			`python3 -c 'import threading, subprocess; t = threading.Thread(target=lambda: subprocess.run(["cat", "keep.txt"])); t.start(); t.join()'`},
	}
	var cases []gateCase
	for _, f := range forms {
		cases = append(cases,
			gateCase{name: f.name, files: map[string]string{"t.sh": "#!/bin/bash\n" + f.refused + "\n"}, cmd: "./t.sh", refused: true, program: "rm"},
			gateCase{name: f.name + ", allowed", files: map[string]string{"t.sh": "#!/bin/bash\n" + f.allowed + "\n"}, cmd: "./t.sh"})
	}
	eachProfile(t, func(t *testing.T, profile string) { runGateCases(t, profile, cases) })
}

// TestExecGateGit: git push however git is reached: an alias, rebase -x,
// a hook. The remote is a bare repository in the workspace.
func TestExecGateGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	setup := `set -e; export HOME=$PWD GIT_CONFIG_NOSYSTEM=1; git init -q -b main r; git init -q --bare remote.git; cd r
git config user.email t@t; git config user.name t; git remote add origin ../remote.git
echo a > a; git add a; git commit -qm a; echo b > b; git add b; git commit -qm b
`
	forms := []struct{ name, refused, allowed string }{
		{"alias", `git config alias.p push; git p -q origin main`, `git config alias.p status; git p --short`},
		{"rebase -x", `git rebase -q -x 'git push -q origin main' HEAD~1`, `git rebase -q -x 'git log -1 --oneline' HEAD~1`},
		{"hook", `printf '#!/bin/sh\ngit push -q origin main\n' > .git/hooks/post-commit; chmod +x .git/hooks/post-commit; echo c > c; git add c; git commit -qm c`,
			`printf '#!/bin/sh\ngit log -1 --oneline\n' > .git/hooks/post-commit; chmod +x .git/hooks/post-commit; echo c > c; git add c; git commit -qm c`},
	}
	for _, f := range forms {
		for _, refused := range []bool{true, false} {
			name, action := f.name, f.refused
			if !refused {
				name, action = f.name+", allowed", f.allowed
			}
			t.Run(name, func(t *testing.T) {
				// .git is read-only in the sandbox: the hook and rebase
				// cases run without it.
				r, ws := gatedRunner(t, "none", "")
				write(t, filepath.Join(ws, "t.sh"), "#!/bin/bash\n"+setup+action+"\n", 0o755)
				obs := runReq(t, r, Request{Command: "./t.sh", Shell: "bash", Timeout: "30s"})
				pushed := exec.Command("git", "--git-dir", filepath.Join(ws, "remote.git"), "rev-parse", "-q", "--verify", "main")
				_, perr := pushed.Output()
				if refused {
					if obs.Status != StatusRejected || obs.ExecRefused == nil || obs.ExecRefused.Program != "git" || perr == nil {
						t.Fatalf("want git push stopped (remote has main: %v): %+v %+v", perr == nil, obs, obs.ExecRefused)
					}
					// git push itself, or the git rebase -x that would run it.
					if a := strings.Join(obs.ExecRefused.Argv, " "); !strings.Contains(a, "push") {
						t.Errorf("stopped %q, want git push", a)
					}
					return
				}
				if obs.Status != StatusExited || obs.ExecRefused != nil || (obs.ExitCode != nil && *obs.ExitCode != 0) {
					t.Fatalf("want it run: %+v", obs)
				}
			})
		}
	}
}

// TestExecGateBlacklist: the blacklist at run time, with targets resolved
// against the process's directory, inside a throwaway mount namespace
// whose / is a scratch tmpfs (never the real root): see
// TestScratchRootHelper.
func TestExecGateBlacklist(t *testing.T) {
	requireHostGate(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root for a mount namespace with a scratch root")
	}
	for _, tt := range []struct {
		name, script string
		refused      bool
	}{
		{"cd / && rm -rf *", `cd / && rm -rf *`, true},
		{"rm -rf /tmp/..", `rm -rf /tmp/..`, true},
		{"near miss: rm -rf a scratch dir", `rm -rf /scratch/sub`, false},
		// The same argv and program in another directory is judged
		// afresh, not allowed from the run's cache of allowed programs.
		{"rm -rf bin: in /scratch twice, then in /", `rm -rf sub && mkdir bin && rm -rf bin && mkdir bin && rm -rf bin && touch mark && cd / && rm -rf bin`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestScratchRootHelper$", "-test.v")
			cmd.Env = append(os.Environ(), "EXEC_SCRATCH_SCRIPT="+tt.script)
			cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS, Pdeathsig: syscall.SIGKILL}
			out, err := cmd.CombinedOutput()
			got := string(out)
			if strings.Contains(got, "--- SKIP") {
				t.Skipf("helper skipped: %s", got)
			}
			if err != nil {
				t.Fatalf("helper: %v\n%s", err, got)
			}
			if strings.Contains(tt.script, "touch mark") && !strings.Contains(got, "MARK made") {
				t.Errorf("want the directory's removals in /scratch run:\n%s", got)
			}
			if tt.refused && (!strings.Contains(got, "REFUSED blacklist=") || !strings.Contains(got, "SENTINEL kept")) {
				t.Errorf("want the blacklist to stop rm, the scratch root intact:\n%s", got)
			}
			if !tt.refused && (!strings.Contains(got, "RAN") || !strings.Contains(got, "SUB gone")) {
				t.Errorf("want the scratch directory removed:\n%s", got)
			}
		})
	}
}

// TestScratchRootHelper runs EXEC_SCRATCH_SCRIPT through a Runner (yolo,
// no rules: only the blacklist) in a new mount namespace whose root is a
// fresh tmpfs with the system directories bound read-only, and a writable
// /scratch with a sentinel file. It does nothing unless
// TestExecGateBlacklist started it.
func TestScratchRootHelper(t *testing.T) {
	script := os.Getenv("EXEC_SCRATCH_SCRIPT")
	if script == "" {
		t.Skip("run by TestExecGateBlacklist")
	}
	if err := scratchRoot(); err != nil {
		t.Skipf("no scratch root: %v", err)
	}
	os.MkdirAll("/scratch/sub", 0o755)
	os.WriteFile("/scratch/sentinel", []byte("x"), 0o644)
	os.WriteFile("/scratch/sub/f", []byte("x"), 0o644)
	os.WriteFile("/scratch/wipe.sh", []byte("#!/bin/bash\n"+script+"\n"), 0o755)
	r := &Runner{Mode: gate.ModeYolo, Sandbox: "none", Cwd: "/scratch", Grace: 200e6}
	obs := runReq(t, r, Request{Command: "./wipe.sh", Shell: "bash", Timeout: "20s"})
	if f := obs.ExecRefused; f != nil {
		fmt.Printf("REFUSED blacklist=%s argv=%q\n", f.Blacklist, f.Argv)
	} else {
		fmt.Printf("RAN status=%s %s %s\n", obs.Status, obs.Stdout, obs.Stderr)
	}
	if _, err := os.Stat("/scratch/sentinel"); err == nil {
		fmt.Println("SENTINEL kept")
	}
	if _, err := os.Stat("/scratch/sub"); err != nil {
		fmt.Println("SUB gone")
	}
	if _, err := os.Stat("/scratch/mark"); err == nil {
		fmt.Println("MARK made")
	}
}

// TestExecGateAsk: an ask rule holds the program while the Approver is
// asked: yes runs it, no kills it, and without an Approver it is refused.
func TestExecGateAsk(t *testing.T) {
	policy := `{"permissions":{"allow":["Bash(*)"],"ask":["Bash(rm *)"]}}`
	for _, tt := range []struct {
		name     string
		approver Approver
		removed  bool
		approval string
	}{
		{"approved", func(context.Context, Request, gate.Decision) (bool, error) { return true, nil }, true, ""},
		{"declined", func(context.Context, Request, gate.Decision) (bool, error) { return false, nil }, false, "declined"},
		{"no approver", nil, false, "no approver"},
	} {
		eachProfile(t, func(t *testing.T, profile string) {
			t.Run(tt.name, func(t *testing.T) {
				r, ws := gatedRunner(t, profile, policy)
				var asked []string
				var mu sync.Mutex
				if tt.approver != nil {
					r.Approver = func(ctx context.Context, req Request, d gate.Decision) (bool, error) {
						mu.Lock()
						asked = append(asked, strings.Join(req.Argv, " "))
						mu.Unlock()
						return tt.approver(ctx, req, d)
					}
				}
				write(t, filepath.Join(ws, "keep.txt"), "keep\n", 0o644)
				write(t, filepath.Join(ws, "t.sh"), "#!/bin/sh\necho before\nrm -f keep.txt\necho after\n", 0o755)
				obs := runReq(t, r, Request{Command: "./t.sh", Shell: "bash"})
				_, err := os.Stat(filepath.Join(ws, "keep.txt"))
				if removed := err != nil; removed != tt.removed {
					t.Fatalf("removed %v, want %v: %+v", removed, tt.removed, obs)
				}
				if tt.approver != nil && (len(asked) != 1 || asked[0] != "rm -f keep.txt") {
					t.Errorf("asked %q, want rm -f keep.txt once", asked)
				}
				if tt.removed {
					if obs.Status != StatusExited || !strings.Contains(obs.Stdout, "after") {
						t.Errorf("%+v", obs)
					}
					return
				}
				if obs.Status != StatusRejected || obs.ExecRefused == nil || obs.ExecRefused.Approval != tt.approval || strings.Contains(obs.Stdout, "after") {
					t.Errorf("want rm refused (%s), the script ended: status %s stdout %q refusal %+v", tt.approval, obs.Status, obs.Stdout, obs.ExecRefused)
				}
			})
		})
	}
}

// TestExecGatePlanMode: in plan mode a command the classifier reads as
// read-only runs, but a writer it starts is stopped, and a reader it
// starts runs. Here the ls that `ls ...; true` forks is a link, on the
// Runner's PATH, to touch or to cat, which the static gate cannot see.
func TestExecGatePlanMode(t *testing.T) {
	for _, tt := range []struct {
		target, cmd string
		refused     bool
	}{{"/usr/bin/touch", "ls made; true", true}, {"/bin/cat", "ls keep.txt; true", false}} {
		eachProfile(t, func(t *testing.T, profile string) {
			t.Run(filepath.Base(tt.target), func(t *testing.T) {
				r, ws := gatedRunner(t, profile, `{"mode":"plan"}`)
				write(t, filepath.Join(ws, "keep.txt"), "keep\n", 0o644)
				os.MkdirAll(filepath.Join(ws, "bin"), 0o755)
				if err := os.Symlink(tt.target, filepath.Join(ws, "bin", "ls")); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(ws, "bin") + ":" + os.Getenv("PATH")
				r.Environ = func() []string { return append(os.Environ(), "PATH="+path) }
				if d, _ := r.Check(Request{Command: tt.cmd, Shell: "bash"}); d.Action != gate.Allow {
					t.Fatalf("plan mode does not allow %q: %s", tt.cmd, d.Reason)
				}
				obs := runReq(t, r, Request{Command: tt.cmd, Shell: "bash"})
				_, made := os.Stat(filepath.Join(ws, "made"))
				if tt.refused && (obs.Status != StatusRejected || obs.ExecRefused == nil || obs.ExecRefused.Program != "touch" || made == nil) {
					t.Fatalf("want touch stopped: %+v %+v", obs, obs.ExecRefused)
				}
				if !tt.refused && (obs.Status != StatusExited || !strings.Contains(obs.Stdout, "keep")) {
					t.Fatalf("want cat run: %+v %+v", obs, obs.ExecRefused)
				}
			})
		})
	}
}

// TestExecGateAudit: a refused program gets its own record, and the run's
// record lists what ran, redacted.
func TestExecGateAudit(t *testing.T) {
	r, ws := gatedRunner(t, "none", "")
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := audit.Open(audit.Options{Path: logPath, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	r.Audit = log
	write(t, filepath.Join(ws, "t.sh"), "#!/bin/sh\n/bin/echo --password=hunter2 x\nrm -f keep.txt\n", 0o755)
	obs := runReq(t, r, Request{Command: "./t.sh", Shell: "bash"})
	log.Close()
	if obs.Status != StatusRejected {
		t.Fatalf("%+v", obs)
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var refused, run *audit.Record
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		rec := &audit.Record{}
		if err := json.Unmarshal([]byte(line), rec); err != nil {
			t.Fatal(err)
		}
		switch rec.Kind {
		case "exec_refused":
			refused = rec
		case "run":
			run = rec
		}
	}
	if refused == nil || refused.Rule != "Bash(rm *)" || strings.Join(refused.Argv, " ") != "rm -f keep.txt" || refused.Caller == "" || refused.Exe == "" {
		t.Fatalf("refused record %+v", refused)
	}
	if run == nil || run.ExecGate != ExecGateOn || len(run.Execs) == 0 {
		t.Fatalf("run record %+v", run)
	}
	sawEcho := false
	for _, e := range run.Execs {
		if strings.Contains(e, "hunter2") {
			t.Errorf("an exec kept its secret: %q", e)
		}
		sawEcho = sawEcho || strings.Contains(e, "echo")
	}
	if !sawEcho {
		t.Errorf("execs %q lack /bin/echo", run.Execs)
	}
}

// TestExecGateUnavailable: where the host cannot trace, a run whose
// policy has rules the gate enforces does not start, unless the operator
// opted out; a run without such rules starts and says the gate was not
// there.
func TestExecGateUnavailable(t *testing.T) {
	old := hostExecGate
	hostExecGate = func() bool { return false }
	defer func() { hostExecGate = old }()
	pol, _ := gate.ParsePolicy([]byte(gatePolicy), "p.json")
	ws := t.TempDir()
	write(t, filepath.Join(ws, "keep.txt"), "keep\n", 0o644)
	r := &Runner{Policy: pol, Sandbox: "none", Cwd: ws}
	obs := runReq(t, r, Request{Command: "echo ran", Shell: "bash"})
	if obs.Status != StatusError || !strings.Contains(obs.Error, "exec_gate") || strings.Contains(obs.Stdout, "ran") {
		t.Fatalf("want a refusal to start: %+v", obs)
	}
	r.ExecGate = ExecGateOff
	if obs := runReq(t, r, Request{Command: "echo ran", Shell: "bash"}); obs.Status != StatusExited || obs.ExecGate != ExecGateOff {
		t.Fatalf("opted out: %+v", obs)
	}
	plain := &Runner{Mode: gate.ModeYolo, Sandbox: "none", Cwd: ws}
	if obs := runReq(t, plain, Request{Command: "echo ran", Shell: "bash"}); obs.Status != StatusExited || obs.ExecGate != ExecGateUnavailable {
		t.Fatalf("no rules: %+v", obs)
	}
}

// TestExecGateTracers: a program of the run that traces gets a clear
// error, not a hang.
func TestExecGateTracers(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed")
	}
	eachProfile(t, func(t *testing.T, profile string) {
		// strace holds the program it starts: the gate cannot stop it at
		// its exec, so it does not run, the command ends, and the
		// observation says why and what started it.
		r, _ := gatedRunner(t, profile, `{"mode":"yolo"}`)
		obs := runReq(t, r, Request{Command: "strace -f -o /dev/null true; echo after=$?", Shell: "bash", Timeout: "20s"})
		if profile != "none" {
			// The sandbox forbids ptrace: strace cannot start anything.
			if obs.Status != StatusExited || !strings.Contains(obs.Stdout, "after=") || strings.Contains(obs.Stdout, "after=0") ||
				!strings.Contains(strings.ToLower(obs.Stderr), "operation not permitted") {
				t.Fatalf("strace in the sandbox: %+v", obs)
			}
			return
		}
		if obs.Status != StatusRejected || obs.ExecRefused == nil || strings.Contains(obs.Stdout, "after=") ||
			!strings.Contains(obs.Reason, "traced by another program (strace") || !strings.Contains(obs.Reason, "`strace -f -o /dev/null true`") {
			t.Fatalf("strace inside the run: %+v", obs)
		}
		// The near miss: strace that starts nothing but reports its usage
		// is judged as any program and runs.
		obs = runReq(t, r, Request{Command: "strace -V >/dev/null; echo after=$?", Shell: "bash", Timeout: "20s"})
		if obs.Status != StatusExited || !strings.Contains(obs.Stdout, "after=0") {
			t.Fatalf("strace -V: %+v", obs)
		}
	})
}

// scratchRoot makes this process's mount namespace (a new one, made by
// its parent) private and pivots its root onto a fresh tmpfs holding the
// system directories bound read-only, an empty /tmp and /scratch.
func scratchRoot() error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("private /: %w", err)
	}
	root, err := os.MkdirTemp("", "scratch-root-")
	if err != nil {
		return err
	}
	if err := syscall.Mount("tmpfs", root, "tmpfs", 0, "size=16m"); err != nil {
		return fmt.Errorf("tmpfs: %w", err)
	}
	for _, d := range []string{"/bin", "/sbin", "/usr", "/lib", "/lib64", "/lib32", "/etc", "/dev", "/proc"} {
		fi, err := os.Lstat(d)
		if err != nil {
			continue
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(d)
			if err := os.Symlink(target, root+d); err != nil {
				return err
			}
			continue
		}
		if err := os.Mkdir(root+d, 0o755); err != nil {
			return err
		}
		if err := syscall.Mount(d, root+d, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", d, err)
		}
		if d != "/proc" && d != "/dev" {
			if err := syscall.Mount("", root+d, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
				return fmt.Errorf("read-only %s: %w", d, err)
			}
		}
	}
	for _, d := range []string{"/tmp", "/scratch", "/.old"} {
		if err := os.Mkdir(root+d, 0o755); err != nil {
			return err
		}
	}
	if err := syscall.PivotRoot(root, root+"/.old"); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := os.Chdir("/"); err != nil {
		return err
	}
	if err := syscall.Unmount("/.old", syscall.MNT_DETACH); err != nil {
		return fmt.Errorf("detaching the old root: %w", err)
	}
	return os.Remove("/.old")
}

// TestExecGateDropIn: the drop-in Cmd's Wait reports a program the gate
// stopped as a *RejectedError, and a script that starts nothing denied
// runs as under os/exec.
func TestExecGateDropIn(t *testing.T) {
	for _, tt := range []struct {
		action  string
		refused bool
	}{{"rm -f keep.txt", true}, {"cp keep.txt copy.txt", false}} {
		t.Run(tt.action, func(t *testing.T) {
			r, ws := gatedRunner(t, "none", "")
			write(t, filepath.Join(ws, "keep.txt"), "keep\n", 0o644)
			write(t, filepath.Join(ws, "t.sh"), "#!/bin/sh\n"+tt.action+"\n", 0o755)
			cmd := Command("./t.sh")
			cmd.Dir, cmd.Runner = ws, r
			err := cmd.Run()
			var rej *RejectedError
			_, kept := os.Stat(filepath.Join(ws, "keep.txt"))
			if tt.refused && (!errors.As(err, &rej) || rej.ExecRefused == nil || rej.ExecRefused.Program != "rm" || kept != nil) {
				t.Fatalf("want rm stopped: %v (keep.txt %v)", err, kept)
			}
			if !tt.refused && (err != nil || kept != nil) {
				t.Fatalf("want it run: %v", err)
			}
		})
	}
}

// TestExecGateCacheSeesNewContent: an allowed program's file rewritten in
// place with a denied program's bytes, then run with the same argv, is
// judged afresh.
func TestExecGateCacheSeesNewContent(t *testing.T) {
	r, ws := gatedRunner(t, "none", "")
	write(t, filepath.Join(ws, "keep.txt"), "keep\n", 0o644)
	write(t, filepath.Join(ws, "t.sh"), "#!/bin/bash\ncp /bin/cat zz && ./zz -f keep.txt; ./zz -f keep.txt; cat /bin/rm > zz && ./zz -f keep.txt\n", 0o755)
	obs := runReq(t, r, Request{Command: "./t.sh", Shell: "bash"})
	if _, err := os.Stat(filepath.Join(ws, "keep.txt")); err != nil || obs.ExecRefused == nil || obs.ExecRefused.Program != "rm" {
		t.Fatalf("keep.txt %v: %+v %+v", err, obs, obs.ExecRefused)
	}
}

// TestExecGateCacheKey: within one run, a program allowed (and so
// remembered) is allowed again from the cache for the same argv,
// executable and directory, and a program differing in its argv alone or
// in its executable alone (the same name on PATH, a link to another
// system program) is judged afresh and refused.
func TestExecGateCacheKey(t *testing.T) {
	for _, tt := range []struct {
		name, script string
		refused      bool
		stdout       string
	}{
		{"same argv again", "cat a.txt; cat a.txt; cat a.txt", false, "a\na\na\n"},
		{"another argv", "cat a.txt; cat a.txt; cat secret.txt", true, "a\na\n"},
		{"same exe again", "PATH=$PWD/one:$PATH; zz a.txt; zz a.txt", false, "a\na\n"},
		{"another exe", "PATH=$PWD/one:$PATH; zz keep.txt; zz keep.txt; PATH=$PWD/two:$PATH; zz keep.txt", true, "keep\nkeep\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, ws := gatedRunner(t, "none", `{"permissions":{"allow":["Bash(*)"],"deny":["Bash(rm *)","Bash(cat secret*)"]}}`)
			write(t, filepath.Join(ws, "keep.txt"), "keep\n", 0o644)
			write(t, filepath.Join(ws, "a.txt"), "a\n", 0o644)
			write(t, filepath.Join(ws, "secret.txt"), "s\n", 0o644)
			for dir, prog := range map[string]string{"one": "cat", "two": "rm"} {
				path, err := exec.LookPath(prog)
				if err != nil {
					t.Skip(err)
				}
				os.MkdirAll(filepath.Join(ws, dir), 0o755)
				if err := os.Symlink(path, filepath.Join(ws, dir, "zz")); err != nil {
					t.Fatal(err)
				}
			}
			// As a script: the static gate never sees the programs.
			write(t, filepath.Join(ws, "t.sh"), "#!/bin/bash\n"+tt.script+"\n", 0o755)
			obs := runReq(t, r, Request{Command: "./t.sh", Shell: "bash", Timeout: "30s"})
			_, kept := os.Stat(filepath.Join(ws, "keep.txt"))
			if obs.Stdout != tt.stdout || kept != nil {
				t.Fatalf("stdout %q (want %q), keep.txt %v: %s %s %+v", obs.Stdout, tt.stdout, kept, obs.Status, obs.Reason, obs.ExecRefused)
			}
			if got := obs.ExecRefused != nil; got != tt.refused || (got && obs.Status != StatusRejected) || (!got && obs.Status != StatusExited) {
				t.Fatalf("refused %v, want %v: %s %s %+v", got, tt.refused, obs.Status, obs.Reason, obs.ExecRefused)
			}
		})
	}
}

// TestExecGateAskTimeout: a program held for an approval that does not
// come dies with the run at its timeout, and the approver is told to stop
// asking.
func TestExecGateAskTimeout(t *testing.T) {
	r, ws := gatedRunner(t, "none", `{"permissions":{"allow":["Bash(*)"],"ask":["Bash(rm *)"]}}`)
	stopped := make(chan struct{})
	r.Approver = func(ctx context.Context, req Request, d gate.Decision) (bool, error) {
		<-ctx.Done() // nobody answers
		close(stopped)
		return false, ctx.Err()
	}
	write(t, filepath.Join(ws, "keep.txt"), "keep\n", 0o644)
	write(t, filepath.Join(ws, "t.sh"), "#!/bin/sh\nrm -f keep.txt\n", 0o755)
	obs := runReq(t, r, Request{Command: "./t.sh", Shell: "bash", Timeout: "500ms"})
	if _, err := os.Stat(filepath.Join(ws, "keep.txt")); err != nil || (obs.Status != StatusTimedOut && obs.Status != StatusRejected) {
		t.Fatalf("keep.txt %v: %+v", err, obs)
	}
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the approver was never told the run ended")
	}
	if z := ourChildren(); len(z) > 0 {
		t.Errorf("children left: %v", z)
	}
}
