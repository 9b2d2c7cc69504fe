package hook

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/shellcfg"
)

// TicketTTL is how long a rewrite's ticket can be redeemed: long enough
// for the person to answer an ask, short enough that a forgotten one does
// not linger.
const TicketTTL = 15 * time.Minute

// FromHookFlag is the `agentexec run` flag that carries a ticket.
const FromHookFlag = "--from-hook"

// Ticket is the hook's side of the --from-hook handshake: one file, named
// by a random token, in a directory only the user can write, holding the
// exact arguments of the `agentexec run` it was issued for. Redeeming it
// (the first run with that token and those arguments, before Expires)
// removes it.
//
// The model never holds a ticket: the hook writes it and hands the token
// to the agent inside the rewritten command, which the agent runs
// directly. A token the model writes itself names no ticket, or a used or
// expired one, or one bound to other arguments, and the run is refused.
type Ticket struct {
	Version int    `json:"v"`
	HookID  string `json:"hook_id"` // the hook decision's ID in the audit log
	Agent   string `json:"agent"`
	Tool    string `json:"tool"`
	// Verdict is what the hook answered: allow, or ask (the agent put the
	// command to the person before running it, so the run may treat the
	// gate's ask as approved once).
	Verdict Action `json:"verdict"`
	// Args are the `agentexec run` arguments after "run", the token's
	// own value blanked.
	Args    []string  `json:"args"`
	Expires time.Time `json:"expires"`
}

// TicketError says why a --from-hook token was refused.
type TicketError struct {
	Token  string
	Reason string
}

func (e *TicketError) Error() string {
	return fmt.Sprintf("--from-hook %s: %s", e.Token, e.Reason)
}

// NewID returns a random identifier with the given prefix (128 bits,
// base64url): ticket tokens and hook decision IDs.
func NewID(prefix string) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// BlankToken returns args with the value of the --from-hook flag
// replaced by "", which is what a ticket's Args hold. A second
// --from-hook, or one in the --from-hook=X form, is left as is, so it
// never matches a ticket.
func BlankToken(args []string) (token string, blanked []string) {
	blanked = slices.Clone(args)
	for i := 0; i+1 < len(blanked); i++ {
		if blanked[i] == FromHookFlag && token == "" {
			token, blanked[i+1] = blanked[i+1], ""
		}
		if blanked[i] == "--" || blanked[i] == "-c" {
			break // the command itself is not searched
		}
	}
	return token, blanked
}

// privateDir makes dir (0700) and checks that it is a directory of this
// user that nobody else can write: the tickets' trust rests on it.
func privateDir(dir string, create bool) error {
	if create {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by others (mode %v)", dir, fi.Mode().Perm())
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s belongs to another user", dir)
	}
	return nil
}

// Mint writes t under dir as the file named token.
func Mint(dir, token string, t Ticket) error {
	if err := privateDir(dir, true); err != nil {
		return fmt.Errorf("ticket directory: %w", err)
	}
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, token), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("ticket: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("ticket: %w", err)
	}
	return f.Close()
}

// Redeem checks the ticket named token against the run's arguments (args
// after "run", as BlankToken returns them) and consumes it. Every failure
// is a *TicketError naming what was wrong.
func Redeem(dir, token string, args []string, now time.Time) (Ticket, error) {
	bad := func(format string, a ...any) (Ticket, error) {
		return Ticket{}, &TicketError{Token: token, Reason: fmt.Sprintf(format, a...)}
	}
	if !validToken(token) {
		return bad("not a ticket agentexec's hook issued (a token is a random name the hook writes into the rewritten command; it cannot be made up)")
	}
	if err := privateDir(dir, false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return bad("no such ticket: agentexec's hook never issued it")
		}
		return bad("the ticket directory cannot be trusted: %v", err)
	}
	p := filepath.Join(dir, token)
	b, err := readPrivate(p)
	if errors.Is(err, fs.ErrNotExist) {
		return bad("no such ticket: it was never issued, or it was used already (a ticket runs its command once)")
	}
	if err != nil {
		return bad("%v", err)
	}
	// Claim it first: of two runs racing for one ticket, only the one
	// whose remove succeeds goes on.
	if err := os.Remove(p); err != nil {
		return bad("used already (a ticket runs its command once)")
	}
	var t Ticket
	if err := json.Unmarshal(b, &t); err != nil || t.Version != 1 {
		return bad("the ticket file is damaged")
	}
	if now.After(t.Expires) {
		return bad("expired at %s (tickets last %v); ask the agent to run the command again", t.Expires.Format(time.RFC3339), TicketTTL)
	}
	if !slices.Equal(t.Args, args) {
		return bad("issued for other arguments: the hook rewrote %q, this run was given %q", strings.Join(t.Args, " "), strings.Join(args, " "))
	}
	return t, nil
}

// readPrivate reads a regular file of this user that only this user can
// read or write, without following a symlink.
func readPrivate(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("the ticket file is not a private regular file")
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Geteuid() {
		return nil, fmt.Errorf("the ticket file belongs to another user")
	}
	b := make([]byte, 64<<10)
	n, err := f.Read(b)
	if err != nil {
		return nil, err
	}
	return b[:n], nil
}

func validToken(s string) bool {
	if !strings.HasPrefix(s, "t") || len(s) != 23 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s[1:])
	return err == nil
}

// Sweep removes tickets that expired (asks the person declined) from dir.
func Sweep(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && validToken(e.Name()) && now.Sub(fi.ModTime()) > TicketTTL+time.Minute {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// TicketRewriter is the Rewriter of `agentexec hook`: it mints a ticket
// and rewrites the command to
//
//	EXE run --from-hook TOKEN --shell bash --mode M --cwd DIR [FLAGS] [--timeout D] -c COMMAND
//
// every word quoted for bash with shellcfg.Quote, so that the agent's
// shell runs exactly that argv.
type TicketRewriter struct {
	Exe   string   // absolute path of the agentexec binary
	Dir   string   // the ticket directory
	Flags []string // run flags passed on: --policy P, --sandbox S, --network, --audit A
	// HookID names the decision in the audit log; the run records carry it.
	HookID string
	Now    func() time.Time // nil: time.Now
}

// BackgroundTimeout bounds a rewritten command the agent runs in the
// background (a dev server, a watcher): agentexec's default would end it
// after two minutes.
const BackgroundTimeout = 24 * time.Hour

// Rewrite implements Rewriter.
func (r *TicketRewriter) Rewrite(c Call, d gate.Decision, verdict Action) (string, error) {
	token, err := NewID("t")
	if err != nil {
		return "", err
	}
	args := []string{FromHookFlag, token, "--shell", "bash", "--mode", string(d.Mode), "--cwd", c.Dir}
	args = append(args, r.Flags...)
	switch {
	case c.Background:
		args = append(args, "--timeout", BackgroundTimeout.String())
	case c.Timeout > 0:
		args = append(args, "--timeout", c.Timeout.String())
	}
	args = append(args, "-c", c.Command)
	text, err := shellcfg.Quote(shellcfg.Bash, append([]string{r.Exe, "run"}, args...))
	if err != nil {
		return "", fmt.Errorf("quoting the rewrite: %w", err)
	}
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	_, blanked := BlankToken(args)
	t := Ticket{Version: 1, HookID: r.HookID, Agent: c.Agent, Tool: c.Tool, Verdict: verdict, Args: blanked, Expires: now().Add(TicketTTL)}
	if err := Mint(r.Dir, token, t); err != nil {
		return "", err
	}
	return text, nil
}
