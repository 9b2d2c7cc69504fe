package hook

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentexec/agentexec/gate"
)

// argvPrinter is a stand-in for the agentexec binary: it prints the argv
// it was started with, NUL-terminated, so a test sees exactly what bash
// ran.
func argvPrinter(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "agentexec")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nprintf '%s\\0' \"$0\" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// nasty are commands whose text must reach agentexec run -c unchanged.
var nasty = []string{
	"git status",
	"echo 'single' \"double\" $HOME `id` $(id) ${x:-y}",
	"printf '%s\\n' a b | sort -r > out.txt; cat out.txt && rm -f out.txt",
	"echo $'tab\\there' !! !$ \\!",
	"cat <<'EOF'\nline one\n$HOME stays\nEOF",
	"echo \"it's\" 'a \"quote\"'",
	"for f in *.go; do echo \"$f\"; done # comment ' \"",
	"echo 🙂 ünïcödé \u00a0nbsp",
	"a=1 b=2 env | grep -E '^(a|b)='",
	"echo -- -c --from-hook FAKE",
	"  leading and trailing blanks  ",
	"trap 'echo bye' EXIT; (cd /; pwd) & wait",
	"x=$'\\x27'; echo \"$x\"",
	"echo '\\' \\\\ \\' ",
	"echo *",
}

func testKeys(t testing.TB) (Keys, []byte) {
	t.Helper()
	k := Keys{Dir: filepath.Join(t.TempDir(), "state")}
	key, err := k.Key(true)
	if err != nil {
		t.Fatal(err)
	}
	return k, key
}

func nonce(t testing.TB) string {
	n, err := NewID("")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRewriteExact: for every command, the rewritten text run by real bash
// starts the agentexec binary with exactly run FLAGS -c COMMAND — the
// command text unchanged — and runs nothing else; the ticket in it
// redeems for exactly that argv.
func TestRewriteExact(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash on this host")
	}
	exe := argvPrinter(t)
	keys, key := testKeys(t)
	ws := t.TempDir()
	marker := filepath.Join(ws, "ran-outside")
	for _, cmd := range append(nasty, "touch "+marker) {
		r := &TicketRewriter{Exe: exe, Key: key, Flags: []string{"--policy", "/p q/settings.json", "--audit", "off"}, Nonce: nonce(t)}
		c := Call{Agent: "claude", Tool: "Bash", Kind: Shell, Command: cmd, Cwd: ws, Dir: ws}
		text, err := r.Rewrite(c, gate.Decision{Mode: gate.ModeDefault}, Allow)
		if err != nil {
			t.Fatalf("%q: %v", cmd, err)
		}
		out, err := exec.Command("bash", "-c", text).Output()
		if err != nil {
			t.Fatalf("bash -c %q: %v", text, err)
		}
		argv := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		token, blanked := BlankToken(argv[2:])
		want := []string{"--from-hook", "", "--shell", "bash", "--mode", "default", "--cwd", ws, "--policy", "/p q/settings.json", "--audit", "off", "-c", cmd}
		if argv[0] != exe || argv[1] != "run" || !slices.Equal(blanked, want) {
			t.Errorf("%q: bash ran %q, want [%s run %q]", cmd, argv, exe, want)
		}
		tk, err := Redeem(keys, token, blanked, time.Now())
		if err != nil {
			t.Errorf("%q: the ticket does not match the run bash started: %v", cmd, err)
		}
		if tk.HookID != "h"+r.Nonce || tk.Agent != "claude" || tk.Tool != "Bash" || tk.Verdict != Allow {
			t.Errorf("%q: ticket %+v", cmd, tk)
		}
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the rewritten text ran the command itself, outside agentexec")
	}
}

// FuzzRewrite: any command text survives the rewrite through real bash.
func FuzzRewrite(f *testing.F) {
	for _, s := range nasty {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if _, err := exec.LookPath("bash"); err != nil {
			t.Skip("no bash")
		}
		exe := argvPrinter(t)
		r := &TicketRewriter{Exe: exe, Key: make([]byte, 32), Nonce: "AAAAAAAAAAAAAAAAAAAAAA"}
		c := Call{Kind: Shell, Command: cmd, Cwd: "/", Dir: "/"}
		text, err := r.Rewrite(c, gate.Decision{Mode: gate.ModeDefault}, Allow)
		if err != nil {
			return // text bash cannot carry (NUL, invalid UTF-8): never rewritten
		}
		out, err := exec.Command("bash", "-c", text).Output()
		if err != nil {
			t.Fatalf("bash -c %q: %v", text, err)
		}
		argv := bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0})
		if got := string(argv[len(argv)-1]); got != cmd || string(argv[len(argv)-2]) != "-c" {
			t.Fatalf("bash passed %q, want %q", got, cmd)
		}
	})
}

// TestRedeem: a ticket runs its own arguments once; made-up, forged,
// replayed, expired and re-bound tickets are refused.
func TestRedeem(t *testing.T) {
	keys, key := testKeys(t)
	args := []string{"--from-hook", "", "--cwd", "/ws", "-c", "rm -f keep.txt"}
	mint := func(a []string, verdict Action, ttl time.Duration, k []byte) string {
		return Mint(k, Ticket{Agent: "claude", Tool: "Bash", Verdict: verdict, Expires: time.Now().Add(ttl)}, nonce(t), a)
	}
	run := func(token string, a []string) error {
		full := slices.Clone(a)
		full[1] = token
		_, blanked := BlankToken(full)
		_, err := Redeem(keys, token, blanked, time.Now())
		return err
	}
	ok := mint(args, Allow, time.Minute, key)
	if err := run(ok, args); err != nil {
		t.Fatalf("a fresh ticket with its own arguments: %v", err)
	}
	other := make([]byte, 32)
	cases := map[string]func() (string, []string){
		"made up":     func() (string, []string) { return "FAKE", args },
		"other key":   func() (string, []string) { return mint(args, Allow, time.Minute, other), args },
		"replayed":    func() (string, []string) { return ok, args },
		"expired":     func() (string, []string) { return mint(args, Allow, -time.Second, key), args },
		"bad verdict": func() (string, []string) { return mint(args, "deny", time.Minute, key), args },
		"other command": func() (string, []string) {
			return mint(args, Allow, time.Minute, key), []string{"--from-hook", "", "--cwd", "/ws", "-c", "rm -rf /"}
		},
		"other cwd": func() (string, []string) {
			return mint(args, Allow, time.Minute, key), []string{"--from-hook", "", "--cwd", "/", "-c", "rm -f keep.txt"}
		},
		"extra flag": func() (string, []string) {
			return mint(args, Allow, time.Minute, key), append(slices.Clone(args[:2]), append([]string{"--sandbox", "none"}, args[2:]...)...)
		},
		"verdict upgraded": func() (string, []string) {
			tok := mint(args, Allow, time.Minute, key)
			return strings.Replace(tok, ":allow:", ":ask:", 1), args
		},
		"expiry extended": func() (string, []string) {
			tok := strings.Split(mint(args, Allow, -time.Second, key), ":")
			tok[5] = "99999999999"
			return strings.Join(tok, ":"), args
		},
	}
	for name, mk := range cases {
		token, a := mk()
		err := run(token, a)
		var te *TicketError
		if !errors.As(err, &te) {
			t.Errorf("%s: got %v, want a *TicketError", name, err)
		}
	}
	// A key file others can read is not trusted.
	if err := os.Chmod(keys.keyPath(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(mint(args, Allow, time.Minute, key), args); err == nil {
		t.Errorf("a ticket was checked with a key others can read")
	}
}
func TestBlankToken(t *testing.T) {
	tok, b := BlankToken([]string{"--from-hook", "tX", "--mode", "yolo", "-c", "x --from-hook y"})
	if tok != "tX" || !slices.Equal(b, []string{"--from-hook", "", "--mode", "yolo", "-c", "x --from-hook y"}) {
		t.Errorf("got %q %q", tok, b)
	}
	tok, b = BlankToken([]string{"--from-hook=tX", "--", "--from-hook", "tY"})
	if tok != "" || b[0] != "--from-hook=tX" || b[3] != "tY" {
		t.Errorf("the = form or a word of the command was taken as the token: %q %q", tok, b)
	}
}
