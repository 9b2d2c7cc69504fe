package gate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A bypass class found by review: forms that bash really runs (each is
// confirmed under bash with the stand-in rm), which the gate must never
// allow past Bash(rm *); catastrophes that yolo must never allow; and near
// misses on both sides that keep their decision.
type bypassClass struct {
	name string
	// refused run rm under bash (confirmed) and are never allowed with
	// allow Bash(*), deny Bash(rm *).
	refused []string
	// needs names a program a refused form runs besides bash; the confirm
	// step skips the class without it. files are written into the scratch
	// directory first; tty runs the form under script(1), for programs
	// that only start a pager or browser on a terminal.
	needs string
	files map[string]string
	tty   bool
	// unconfirmed are refused like refused, but bash cannot run them here
	// (a remote host, a cloud, a network): they are read from the
	// programs' documentation.
	unconfirmed []string
	// allowed are near misses that stay allowed under the same policy.
	allowed []string
	// yolo are catastrophes never allowed in yolo; yoloAllowed stay
	// allowed there.
	yolo, yoloAllowed []string
}

var bypassClasses = []bypassClass{
	{
		name: "declare re-reads a quoted compound assignment",
		refused: []string{
			"declare -a 'a=([0]=$(rm -f x))'",
			"declare -a a; declare 'a=($(rm -f x))'",
			"f(){ local -a 'a=([0]=$(rm -f x))'; }; f",
			"readonly -a 'a=([0]=$(rm -f x))'",
			"typeset -A 'a=([k]=$(rm -f x))'",
			"declare -a b='($(rm -f x))'",
			`declare -a "b=(\$(rm -f x))"`,
			`declare -a b=\(\$\(rm\ -f\ x\)\)`,
			"x='($(rm -f x))'; declare -a b=$x",
			`x='b=($(rm -f x))'; declare -a "$x"`,
			`x='($(rm -f x))'; b=(); declare b="$x"`,
			"builtin declare -a 'b=($(rm -f x))'",
			"command declare -a 'b=($(rm -f x))'",
			"declare -a 'b=(`rm -f x`)'",
			"declare -ai 'b=(1 x[$(rm -f x)])'",
		},
		allowed: []string{"declare -a 'a=(x y)'", `declare -a "a=(x y)"`, "declare -a a=(x $(ls))",
			"local x=$(pwd)", "declare x=$(pwd)", "readonly -a a=(1 2)"},
		yolo:        []string{"declare -a 'a=([0]=$(rm -rf /))'", "typeset -A 'm=([k]=`rm -rf ~`)'"},
		yoloAllowed: []string{"declare -a 'a=(x y)'", "declare -a a=($(ls))"},
	},
	{
		name:  "man's pager and browser options in every spelling",
		needs: "man", tty: true, files: map[string]string{"x.1": ".TH X 1\n.SH NAME\nx\n"},
		refused: []string{
			"man -P'rm -f x' -l x.1", "man --pag='rm -f x' -l x.1", "man -lP'rm -f x' x.1",
			"man -P 'rm -f x' -l x.1", "man --pager 'rm -f x' -l x.1",
		},
		// man-db 2.11: -H[BROWSER] runs BROWSER on the HTML page (this
		// host's groff has no html device to confirm it).
		unconfirmed: []string{"man -H'rm -f x' ls", "man --html='rm -f x' ls", "man -lH'rm -f x' x.1"},
		allowed:     []string{"man ls", "man -k printf", "man 3 printf", "man -w ls", "man -s 2 open", "man -P cat ls", "man -Pless ls"},
	},
	{
		name:  "vim's command options clustered, attached and from files",
		needs: "vim", files: map[string]string{"k.vim": "!rm -f x\nq\n"},
		refused: []string{
			"vim -es -c'!rm -f x' -cq", "vim -esc'!rm -f x' -cq", "ex -s -c'!rm -f x' -cq",
			"vim -Es -c'!rm -f x' -cq", "vim -es -u k.vim -cq", "vim -es -S k.vim -cq",
			"vim -es '+!rm -f x' -cq", "vim -es --cmd '!rm -f x' -cq",
		},
		allowed: []string{"vim f.txt", "vim -R f.txt", "vi -n f.txt", "vimdiff a b"},
	},
	{
		name:  "socat's command addresses",
		needs: "socat",
		refused: []string{"socat - EXEC:'rm -f x'", "socat - SYSTEM:'rm -f x'", "socat STDIO 'EXEC:rm -f x'",
			"socat - 'exec:rm -f x'", "socat -u 'SYSTEM:rm -f x' -"},
		allowed: []string{"socat TCP-LISTEN:8080,fork TCP:localhost:80", "socat - UNIX-CONNECT:/tmp/s"},
		yolo:    []string{"socat -u 'system:rm -rf /' -", "socat - EXEC:'mkfs.ext4 /dev/sda'"},
	},
	{
		name:  "ncat's and netcat's command options",
		needs: "ncat",
		// The first connection to the listener runs its command.
		refused: []string{
			"ncat --sh-exec 'rm -f x' -l 127.0.0.1 39252 & until ncat 127.0.0.1 39252 </dev/null; do sleep 0.1; done; wait",
			"ncat -lc'rm -f x' 127.0.0.1 39253 & until ncat 127.0.0.1 39253 </dev/null; do sleep 0.1; done; wait",
		},
		// ncat -e runs an argv; netcat-traditional's -e and -c (Debian's
		// nc is OpenBSD's, without them).
		unconfirmed: []string{"ncat -e '/bin/rm -f x' localhost 1", "ncat --sh-e='rm -f x' -l 9999",
			"nc -e /bin/rm localhost 1", "nc -c 'rm -f x' localhost 1", "netcat -c 'rm -f x' -l -p 1"},
		allowed: []string{"ncat -lkv 9999", "ncat localhost 80", "nc -zv localhost 80", "nc -l 8080"},
	},
	{
		name: "clients whose subcommands run commands they are given",
		// ip netns exec was confirmed by hand as root (ip netns add t;
		// ip netns exec t rm -f x ran the stand-in); tcpdump -z runs its
		// program on each file -w saves; the cloud CLIs run --command,
		// commands= and --scripts on the machines they manage (gcloud,
		// aws ssm, az vm run-command manuals); rclone runs
		// --password-command to read its config password.
		unconfirmed: []string{
			"ip netns exec t1 rm -f x", "ip vrf exec v rm -f x", "tcpdump -w f -C 1 -z rm",
			"rclone --password-command 'rm -f x' ls r:",
			"gcloud compute ssh vm --command 'rm -f x'", "gcloud compute ssh vm --command='rm -f x'",
			"gcloud compute ssh vm -- rm -f x",
			`aws ssm send-command --parameters 'commands=["rm -f x"]'`, "aws ssm send-command --parameters commands='rm -f x'",
			"az vm run-command invoke --scripts 'rm -f x'",
		},
		allowed: []string{"ip addr", "ip -br a", "ip route show", "tcpdump -i any -n port 80", "rclone ls remote:bucket",
			"aws s3 ls", "aws s3 cp a s3://b/a", "gcloud compute instances list", "az group list"},
		yolo: []string{"ip vrf exec v rm -rf /", `aws ssm send-command --parameters '{"commands":["rm -rf /"]}'`,
			"gcloud compute ssh vm --command='rm -rf /'", "az vm run-command invoke --scripts 'mkfs.ext4 /dev/sda'"},
		yoloAllowed: []string{"gcloud compute ssh vm --command 'ls -la'", "aws ssm send-command --parameters commands='uptime'"},
	},
	{
		name: "kill's pids computed at run time",
		// The kill-all forms are confirmed in a PID namespace by
		// TestKillAllFormsConfirm.
		yolo: append(append([]string(nil), killAllForms...),
			"kill $(cat pidfile)", `kill -9 "$PID"`, "cat pids | xargs kill -9", "pkill $(cat name)"),
		yoloAllowed: []string{"kill -9 $(ps aux | grep node | awk '{print $2}')", "kill $(lsof -t -i:3000)",
			"kill -9 $(pgrep -f server)", "pgrep node | xargs kill", "ps aux | grep node | awk '{print $2}' | xargs kill -9",
			"npm start & kill $!", "kill %1", "kill -9 $(jobs -p)", "kill -0 $$", "X=1234; kill $X", "kill 12345"},
	},
	{
		name: "processes started without bound",
		// Each reached a pids cgroup's limit of 60 within 3 s (cgroup v1,
		// by hand: a test would flood the host without one).
		yolo: []string{"yes | xargs -P0 sleep 1", "yes 100 | xargs -P0 -n1 sleep", "yes 100 | xargs --max-p=0 -n1 sleep",
			"cat /dev/zero | xargs -0 -P 0 -n1 true", "yes | parallel -j0 sleep 100", "yes | xargs -P 100000 -n1 sleep",
			"while :; do sleep 1000 & done", "while true; do (sleep 1000 &) ; done", "for ((;;)); do sleep 100 & done",
			"until false; do sleep 9 & done", "bash -c 'while :; do sleep 1000 & done'"},
		yoloAllowed: []string{"find . -name '*.c' | xargs -P0 -n1 gcc -c", "yes | head -5", "yes | xargs -P4 -n1 echo",
			"seq 100 | xargs -P 8 -n1 echo", "while true; do sleep 1 & wait; done", "while :; do make & sleep 1; break; done",
			`while read f; do gzip "$f" & done < list`, "yes | apt-get install foo"},
	},
}

// killAllForms signal every process: pids from a variable assigned -1,
// or from a listing of every process that nothing selects by name.
var killAllForms = []string{
	"X=-1; kill -9 $X", "X='-9 -1'; kill $X", "kill -9 $(ps aux | awk '{print $2}')",
	"kill -9 $(ps -e | awk 'NR>1{print $1}')", "kill -9 $(ps aux | grep -v grep | awk '{print $2}')",
	"ps aux | awk 'NR>1{print $2}' | xargs kill -9", "echo -1 | xargs kill -9",
}

// TestKillAllFormsConfirm runs each kill-all form as PID 1 of a new PID
// namespace beside a sleep: the sleep is killed (status 137), so the form
// signals every process it can see.
func TestKillAllFormsConfirm(t *testing.T) {
	bash := requireBash(t)
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare not found")
	}
	if out, err := exec.Command(unshare, "-pf", "--mount-proc", bash, "-c", "true").CombinedOutput(); err != nil {
		t.Skipf("no PID namespace here: %v %s", err, out)
	}
	for _, form := range killAllForms {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		out, _ := exec.CommandContext(ctx, unshare, "-pf", "--mount-proc", bash, "-c",
			"sleep 20 & s=$!; "+form+" 2>/dev/null; wait $s; echo status $?").Output()
		cancel()
		if !strings.Contains(string(out), "status 137") {
			t.Errorf("%q did not kill the sleep beside it: %s", form, out)
		}
	}
}

// TestBypassClasses: every refused form is never allowed (with and
// without an exec gate), every near miss stays allowed; in yolo every
// catastrophe is refused and its near misses stay allowed.
func TestBypassClasses(t *testing.T) {
	p := evasionPolicy(t)
	yolo := testPolicy(t, []string{"Bash"}, nil, nil)
	for _, c := range bypassClasses {
		for _, text := range append(append([]string(nil), c.refused...), c.unconfirmed...) {
			for _, gate := range []bool{false, true} {
				if d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: gate}); d.Action == Allow {
					t.Errorf("%s: %q (exec gate %v) allowed: %s", c.name, text, gate, d.Reason)
				}
			}
		}
		for _, text := range c.allowed {
			if d := Decide(Input{Text: text, Policy: p, Cwd: "/work", ExecGate: true}); d.Action != Allow {
				t.Errorf("%s: near miss %q: %v: %s", c.name, text, d.Action, d.Reason)
			}
		}
		for _, text := range c.yolo {
			if d := Decide(Input{Text: text, Policy: yolo, Mode: ModeYolo, Cwd: "/work"}); d.Action == Allow {
				t.Errorf("%s: %q allowed in yolo: %s", c.name, text, d.Reason)
			}
		}
		for _, text := range c.yoloAllowed {
			if d := Decide(Input{Text: text, Policy: yolo, Mode: ModeYolo, Cwd: "/work"}); d.Action != Allow {
				t.Errorf("%s: yolo near miss %q: %v: %s", c.name, text, d.Action, d.Reason)
			}
		}
	}
}

// TestBypassClassesConfirm runs every refused form under bash in a scratch
// directory with the stand-in rm first on PATH: each must really run rm
// there (else the form proves nothing).
func TestBypassClassesConfirm(t *testing.T) {
	bash := requireBash(t)
	for _, c := range bypassClasses {
		if c.needs != "" {
			if _, err := exec.LookPath(c.needs); err != nil {
				continue
			}
		}
		for _, text := range c.refused {
			dir := t.TempDir()
			bin, marker := standInRm(t, dir, false)
			for name, body := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// A bound, not a timing assertion: a form that opens a real
			// pager on the terminal would wait for keys.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			cmd := exec.CommandContext(ctx, bash, "-c", text)
			if c.tty {
				script, err := exec.LookPath("script")
				if err != nil {
					cancel()
					continue
				}
				cmd = exec.CommandContext(ctx, script, "-qec", text, "/dev/null")
			}
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir, "LC_ALL=C", "SHELL=" + bash, "TERM=dumb"}
			cmd.Stdin = strings.NewReader("")
			_ = cmd.Run()
			cancel()
			if _, err := os.Stat(marker); err != nil {
				t.Errorf("%s: %q: bash did not run the stand-in rm (the form is wrong here)", c.name, text)
			}
		}
	}
}

// TestCloneThenRunThroughCdConfirm: a clone's script run after cd into the
// clone is download-to-shell in every mode. Bash runs it for real from a
// file:// clone (a download to the blacklist, as any URL is); a script of
// another directory, or a build tool, stays allowed.
func TestCloneThenRunThroughCdConfirm(t *testing.T) {
	bash := requireBash(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	dir := t.TempDir()
	bin, marker := standInRm(t, dir, false)
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "install.sh"), []byte("#!/bin/sh\nrm -f x\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "install.sh"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "i"}} {
		if out, err := exec.Command("git", append([]string{"-C", src}, args...)...).CombinedOutput(); err != nil {
			t.Skipf("git %v: %v %s", args, err, out)
		}
	}
	yolo := testPolicy(t, []string{"Bash"}, nil, nil)
	for i, form := range []string{"git clone -q %s d && cd d && ./install.sh", "git clone -q %s d; pushd d >/dev/null; sh install.sh"} {
		text := strings.ReplaceAll(form, "%s", "file://"+src)
		work := filepath.Join(dir, "w"+string(rune('0'+i)))
		if err := os.Mkdir(work, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Remove(marker)
		cmd := exec.Command(bash, "-c", text)
		cmd.Dir, cmd.Env = work, []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%q: %v %s", text, err, out)
		}
		if _, err := os.Stat(marker); err != nil {
			t.Fatalf("%q: bash did not run the clone's script", text)
		}
		for _, cwd := range []string{work, ""} {
			if d := Decide(Input{Text: text, Policy: yolo, Mode: ModeYolo, Cwd: cwd}); d.Action != Deny {
				t.Errorf("%q (cwd %q): %v in yolo, want deny: %s", text, cwd, d.Action, d.Reason)
			}
		}
	}
	for _, text := range []string{"git clone https://x/r d && cd d && make", "git clone https://x/r d && cd e && ./install.sh",
		"git clone https://x/r d && ./install.sh", "cd d && ./install.sh"} {
		if d := Decide(Input{Text: text, Policy: yolo, Mode: ModeYolo, Cwd: "/work"}); d.Action != Allow {
			t.Errorf("near miss %q: %v in yolo: %s", text, d.Action, d.Reason)
		}
	}
}
