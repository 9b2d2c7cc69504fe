package hook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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

// Ticket is the hook's side of the --from-hook handshake, carried in the
// token itself:
//
//	v1:AGENT:TOOL:VERDICT:NONCE:EXPIRY:MAC
//
// MAC is HMAC-SHA256, under a key only this user can read (Keys.Key),
// over every field and the exact `agentexec run` arguments the token was
// issued for (the token's own value blanked): the command text, the
// working directory, the policy, the mode, the sandbox, the audit log. A
// run redeems it once: the first one creates the nonce's marker in the
// used directory, any later one finds it there.
//
// A token the model writes itself has no valid MAC, or a used nonce, or
// an expiry in the past, or arguments other than those it was issued for,
// and the run is refused. Minting writes no file, so the hook's hot path
// touches the disk only to read the key.
type Ticket struct {
	HookID  string // the hook decision's ID in the audit log: "h" + NONCE
	Agent   string
	Tool    string
	Verdict Action // allow, or ask (the agent asked the person before running it)
	Expires time.Time
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
// base64url).
func NewID(prefix string) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// BlankToken returns args with the value of the --from-hook flag
// replaced by "", which is what a ticket's MAC covers. A second
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

// Keys locates the ticket key and the used-ticket markers in agentexec's
// state directory.
type Keys struct {
	Dir string // e.g. $XDG_STATE_HOME/agentexec
}

func (k Keys) keyPath() string          { return filepath.Join(k.Dir, "hook.key") }
func (k Keys) usedDir() string          { return filepath.Join(k.Dir, "hook-used") }
func (k Keys) usedPath(n string) string { return filepath.Join(k.usedDir(), n) }

// Key returns the ticket key, creating it (32 random bytes, mode 0600) on
// first use. The key file must be this user's and private.
func (k Keys) Key(create bool) ([]byte, error) {
	if err := privateDir(k.Dir); err != nil && !(create && errors.Is(err, fs.ErrNotExist)) {
		return nil, fmt.Errorf("hook key: %w", err)
	}
	b, err := readPrivate(k.keyPath(), 64)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err := k.createKey(); err != nil {
			return nil, err
		}
		b, err = readPrivate(k.keyPath(), 64)
	}
	if err != nil {
		return nil, fmt.Errorf("hook key: %w", err)
	}
	if len(b) != 32 {
		return nil, fmt.Errorf("hook key %s: %d bytes, want 32", k.keyPath(), len(b))
	}
	return b, nil
}

// createKey writes a new key under a temporary name and links it into
// place, so that of two hooks starting at once both read one whole key.
func (k Keys) createKey() error {
	if err := os.MkdirAll(k.Dir, 0o700); err != nil {
		return err
	}
	var key [32]byte
	if _, err := rand.Read(key[:]); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(k.Dir, ".hook.key-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(key[:]); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), k.keyPath()); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// mac is the ticket's MAC over its fields and the run's arguments.
func mac(key []byte, fields []string, args []string) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte("agentexec hook ticket\x00"))
	for _, f := range append(slices.Clone(fields), args...) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:])
		h.Write([]byte(f))
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18])
}

// Mint returns the token of a ticket for a run with args (the token's
// value blanked, as BlankToken gives them).
func Mint(key []byte, t Ticket, nonce string, args []string) string {
	fields := []string{"v1", t.Agent, t.Tool, string(t.Verdict), nonce, strconv.FormatInt(t.Expires.Unix(), 10)}
	return strings.Join(append(fields, mac(key, fields, args)), ":")
}

// Redeem checks a token against the run's arguments (args after "run", as
// BlankToken returns them) and uses it up. Every failure is a
// *TicketError naming what was wrong.
func Redeem(k Keys, token string, args []string, now time.Time) (Ticket, error) {
	bad := func(format string, a ...any) (Ticket, error) {
		return Ticket{}, &TicketError{Token: token, Reason: fmt.Sprintf(format, a...)}
	}
	f := strings.Split(token, ":")
	if len(f) != 7 || f[0] != "v1" || !validNonce(f[4]) {
		return bad("not a ticket agentexec's hook issued (the hook writes it into the command it rewrites; it cannot be made up)")
	}
	key, err := k.Key(false)
	if err != nil {
		return bad("cannot be checked: %v", err)
	}
	if !hmac.Equal([]byte(mac(key, f[:6], args)), []byte(f[6])) {
		return bad("not issued by agentexec's hook for these arguments (the command, directory, policy, mode, sandbox and audit log must be exactly those the hook rewrote)")
	}
	exp, err := strconv.ParseInt(f[5], 10, 64)
	if err != nil {
		return bad("bad expiry")
	}
	t := Ticket{HookID: "h" + f[4], Agent: f[1], Tool: f[2], Verdict: Action(f[3]), Expires: time.Unix(exp, 0)}
	if now.After(t.Expires) {
		return bad("expired at %s (tickets last %v); ask the agent to run the command again", t.Expires.UTC().Format(time.RFC3339), TicketTTL)
	}
	if t.Verdict != Allow && t.Verdict != Ask {
		return bad("verdict %q is not allow or ask", t.Verdict)
	}
	if err := k.use(f[4]); err != nil {
		return bad("%v", err)
	}
	return t, nil
}

// use marks a nonce used; a marker already there is a replay.
func (k Keys) use(nonce string) error {
	if err := os.MkdirAll(k.usedDir(), 0o700); err != nil {
		return fmt.Errorf("cannot be marked used: %v", err)
	}
	f, err := os.OpenFile(k.usedPath(nonce), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return errors.New("used already (a ticket runs its command once)")
	}
	if err != nil {
		return fmt.Errorf("cannot be marked used: %v", err)
	}
	return f.Close()
}

// Sweep removes the markers of tickets that have expired anyway.
func (k Keys) Sweep(now time.Time) {
	entries, err := os.ReadDir(k.usedDir())
	if err != nil {
		return
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && validNonce(e.Name()) && now.Sub(fi.ModTime()) > TicketTTL+time.Minute {
			os.Remove(k.usedPath(e.Name()))
		}
	}
}

// privateDir checks that dir is a directory of this user that nobody else
// can write: otherwise another user could put a key of theirs in place.
func privateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is not a private directory (mode %v)", dir, fi.Mode())
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s belongs to another user", dir)
	}
	return nil
}

// readPrivate reads a regular file of this user that nobody else can read
// or write, without following a symlink.
func readPrivate(p string, max int) ([]byte, error) {
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
		return nil, fmt.Errorf("%s is not a private regular file (mode %v)", p, fi.Mode())
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Geteuid() {
		return nil, fmt.Errorf("%s belongs to another user", p)
	}
	b := make([]byte, max+1)
	n, err := f.Read(b)
	if err != nil {
		return nil, err
	}
	return b[:n], nil
}

func validNonce(s string) bool {
	if len(s) != 22 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil
}

// TicketRewriter is the Rewriter of `agentexec hook`: it mints a ticket
// and rewrites the command to
//
//	EXE run --from-hook TOKEN --shell bash --mode M --cwd WORKSPACE [--dir DIR] [FLAGS] [--timeout D] -c COMMAND
//
// every word quoted for bash with shellcfg.Quote, so that the agent's
// shell runs exactly that argv.
type TicketRewriter struct {
	Exe string // absolute path of the agentexec binary
	// Workspace is the project: the rewritten run's workspace (--cwd),
	// writable under workspace-write; the command starts in the call's
	// Dir (--dir). "" makes Dir the workspace.
	Workspace string
	Key       []byte   // the ticket key (Keys.Key)
	Flags     []string // run flags passed on: --policy P, --sandbox S, --network, --audit A
	// Nonce makes the ticket; "h"+Nonce is the hook decision's ID.
	Nonce string
	Now   func() time.Time // nil: time.Now
}

// BackgroundTimeout bounds a rewritten command the agent runs in the
// background (a dev server, a watcher): agentexec's default would end it
// after two minutes.
const BackgroundTimeout = 24 * time.Hour

// Rewrite implements Rewriter.
func (r *TicketRewriter) Rewrite(c Call, d gate.Decision, verdict Action) (string, error) {
	args := []string{FromHookFlag, "", "--shell", "bash", "--mode", string(d.Mode)}
	switch {
	case r.Workspace == "" || r.Workspace == c.Dir:
		args = append(args, "--cwd", c.Dir)
	default:
		// The sandbox's writable workspace is the project; the command
		// starts where the agent's shell is (which run refuses when that
		// lies outside the workspace).
		args = append(args, "--cwd", r.Workspace, "--dir", c.Dir)
	}
	args = append(args, r.Flags...)
	switch {
	case c.Background:
		args = append(args, "--timeout", BackgroundTimeout.String())
	case c.Timeout > 0:
		args = append(args, "--timeout", c.Timeout.String())
	}
	args = append(args, "-c", c.Command)
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	t := Ticket{Agent: c.Agent, Tool: c.Tool, Verdict: verdict, Expires: now().Add(TicketTTL)}
	if strings.ContainsAny(t.Agent+t.Tool, ":") {
		return "", fmt.Errorf("tool name %q cannot be carried in a ticket", t.Tool)
	}
	token := Mint(r.Key, t, r.Nonce, args)
	full := slices.Clone(args)
	full[1] = token
	text, err := shellcfg.Quote(shellcfg.Bash, append([]string{r.Exe, "run"}, full...))
	if err != nil {
		return "", fmt.Errorf("quoting the rewrite: %w", err)
	}
	return text, nil
}
