package gate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentexec/agentexec/shellcfg"
)

// The peer conformance suite. testdata/peer/*.jsonl holds test tables ported
// from the gates of Qwen Code, Codex CLI and Gemini CLI, plus a corpus of
// real-world bypasses. The peers' verdicts map onto ours as follows:
//
//   - Qwen classifyShellCommandSafety: our Safety exactly (hard).
//   - Qwen boolean isShellCommandReadOnly*: false means not read-only (hard);
//     true is only a soft read-only claim, since the boolean may be wider.
//   - Codex/Gemini "known safe": soft read-only; "not safe": not read-only
//     (hard); "dangerous": not read-only and not allowed in default mode.
//   - Qwen PermissionManager verdicts: deny = rule_decision and action deny;
//     a rule allow = rule_decision allow; the tool-default "ask" = our
//     rule_decision none, with the mode deciding.
//
// A case where we deliberately differ (more precise and still safe) carries
// a "deviation" reason and is skipped with that reason logged.

// peerCase is one line of testdata/peer/*.jsonl: an input and expectation
// ported from a peer gate's own test suite (Qwen Code, Codex CLI, Gemini
// CLI) or from a real-world bypass report. The peers' verdicts are mapped
// onto ours (see the want* fields); the mapping is the point of the file,
// so a case states only what the peer's test actually pins.
type peerCase struct {
	Suite   string `json:"suite"`
	Command string `json:"command"`
	Shell   string `json:"shell,omitempty"` // bash (default), sh, cmd, powershell
	Mode    string `json:"mode,omitempty"`  // for want_action; default "default"
	Note    string `json:"note,omitempty"`

	// Want is the classifier expectation: read-only, write or unknown
	// exactly, or not-read-only (a peer's boolean "false": anything but
	// read-only).
	Want string `json:"want,omitempty"`

	// Permission-rule expectations, checked through Decide with a policy
	// built from Allow/Ask/Deny.
	Allow            []string `json:"allow,omitempty"`
	Ask              []string `json:"ask,omitempty"`
	Deny             []string `json:"deny,omitempty"`
	WantRuleDecision string   `json:"want_rule_decision,omitempty"`
	WantSegments     *int     `json:"want_segments,omitempty"`
	WantHasSegment   string   `json:"want_has_segment,omitempty"`
	// WantAction is allow, ask, deny, or not-allow (a peer's "dangerous":
	// ask or deny are both acceptable).
	WantAction string `json:"want_action,omitempty"`
	// WantSuggestions are the "Always allow" rules an ask should propose
	// (Qwen extractCommandRules), compared as a set.
	WantSuggestions []string `json:"want_suggestions,omitempty"`

	// GitConfig, when set, runs the case in a fresh git repository with
	// these local config key/value pairs (Cwd set for Classify/Decide).
	GitConfig [][2]string `json:"git_config,omitempty"`
	// GitRepo runs the case in a fresh, unconfigured git repository, so a
	// read-only verdict on git is made with the config check active.
	GitRepo bool `json:"git_repo,omitempty"`
	// ReadOnlyCommands are user-vouched roots (Qwen's extraReadOnlyRoots).
	ReadOnlyCommands []string `json:"read_only_commands,omitempty"`
	// GitHooks names executable hooks to create in .git/hooks.
	GitHooks []string `json:"git_hooks,omitempty"`

	// Soft marks an expectation we aim for but may deliberately not meet
	// (e.g. Codex's safe list): a mismatch is counted and logged only.
	Soft bool `json:"soft,omitempty"`
	// Deviation, when set, documents why we deliberately differ from the
	// peer (more precise and still safe); the case is skipped with the
	// reason logged.
	Deviation string `json:"deviation,omitempty"`
	// Ours pins what we answer instead on a deviation (a safety class or,
	// for rule cases, an action), so the skip cannot hide a later change:
	// a deviation whose answer moves fails until it is re-examined.
	Ours string `json:"ours,omitempty"`
}

// peerTally counts outcomes for one suite.
type peerTally struct {
	cases, hardPass, hardFail, softPass, softFail, deviations int
}

func loadPeerCases(t *testing.T) []peerCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "peer", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/peer/*.jsonl files")
	}
	sort.Strings(files)
	var all []peerCase
	for _, f := range files {
		all = append(all, readPeerFile(t, f)...)
	}
	return all
}

func readPeerFile(t *testing.T, path string) []peerCase {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []peerCase
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<22) // adversarial cases are ~100 KB lines
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "//") {
			continue
		}
		var c peerCase
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields() // a misspelt field would silently drop an expectation
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		if err := c.validate(); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

func (c peerCase) validate() error {
	if c.Suite == "" {
		return fmt.Errorf("suite: empty")
	}
	switch c.Want {
	case "", "read-only", "write", "unknown", "not-read-only":
	default:
		return fmt.Errorf("want: %q is not read-only, write, unknown or not-read-only", c.Want)
	}
	switch c.WantAction {
	case "", "allow", "ask", "deny", "not-allow":
	default:
		return fmt.Errorf("want_action: %q is not allow, ask, deny or not-allow", c.WantAction)
	}
	switch c.WantRuleDecision {
	case "", "allow", "ask", "deny", RuleNone:
	default:
		return fmt.Errorf("want_rule_decision: %q is not allow, ask, deny or none", c.WantRuleDecision)
	}
	if c.Ours != "" && c.Deviation == "" {
		return fmt.Errorf("ours: set without a deviation")
	}
	switch c.Ours {
	case "", "read-only", "write", "unknown", "not-read-only", "allow", "ask", "deny", "not-allow":
	default:
		return fmt.Errorf("ours: %q is not a safety class or an action", c.Ours)
	}
	if c.Want == "" && !c.needsDecide() {
		return fmt.Errorf("case %q has no expectation", c.Command)
	}
	return nil
}

func (c peerCase) shell() shellcfg.ShellType {
	if c.Shell == "" {
		return shellcfg.Bash
	}
	return shellcfg.ShellType(c.Shell)
}

func (c peerCase) needsDecide() bool {
	return c.WantAction != "" || c.WantRuleDecision != "" || c.WantSegments != nil || c.WantHasSegment != "" ||
		c.WantSuggestions != nil
}

// TestPeerSuites runs every ported peer case. Hard mismatches fail; soft
// ones are logged and counted; deviations are skipped with their reason.
// The per-suite tally is logged at the end (go test -v).
func TestPeerSuites(t *testing.T) {
	cases := loadPeerCases(t)
	tally := map[string]*peerTally{}
	counts := map[string]int{}
	for _, c := range cases {
		tl := tally[c.Suite]
		if tl == nil {
			tl = &peerTally{}
			tally[c.Suite] = tl
		}
		tl.cases++
		counts[c.Suite]++
		c := c
		name := fmt.Sprintf("%s/%03d", c.Suite, counts[c.Suite])
		t.Run(name, func(t *testing.T) {
			if c.Deviation != "" {
				if p := checkDeviation(t, c); p != "" {
					tl.hardFail++
					t.Errorf("%q: documented deviation no longer holds: %s (deviation: %s)", clipPeer(c.Command), p, c.Deviation)
					return
				}
				tl.deviations++
				t.Skipf("deviation from %s on %q: %s", c.Suite, clipPeer(c.Command), c.Deviation)
			}
			problems := runPeerCase(t, c)
			switch {
			case len(problems) == 0 && c.Soft:
				tl.softPass++
			case len(problems) == 0:
				tl.hardPass++
			case c.Soft:
				tl.softFail++
				t.Logf("soft mismatch on %q: %s", clipPeer(c.Command), strings.Join(problems, "; "))
			default:
				tl.hardFail++
				t.Errorf("%q (%s): %s", clipPeer(c.Command), c.Note, strings.Join(problems, "; "))
			}
		})
	}
	logPeerTally(t, tally)
}

func logPeerTally(t *testing.T, tally map[string]*peerTally) {
	names := make([]string, 0, len(tally))
	for n := range tally {
		names = append(names, n)
	}
	sort.Strings(names)
	var total peerTally
	for _, n := range names {
		tl := tally[n]
		t.Logf("%-34s cases %4d  hard %4d pass %3d fail  soft %3d pass %3d fail  deviations %d",
			n, tl.cases, tl.hardPass, tl.hardFail, tl.softPass, tl.softFail, tl.deviations)
		total.cases += tl.cases
		total.hardPass += tl.hardPass
		total.hardFail += tl.hardFail
		total.softPass += tl.softPass
		total.softFail += tl.softFail
		total.deviations += tl.deviations
	}
	t.Logf("%-34s cases %4d  hard %4d pass %3d fail  soft %3d pass %3d fail  deviations %d",
		"TOTAL", total.cases, total.hardPass, total.hardFail, total.softPass, total.softFail, total.deviations)
}

// checkDeviation re-runs a deviation case against the answer we documented
// for it (Ours) and says how it differs, or "" when it still holds.
func checkDeviation(t *testing.T, c peerCase) string {
	if c.Ours == "" {
		return ""
	}
	pinned := c
	pinned.Want, pinned.WantAction, pinned.WantRuleDecision = "", "", ""
	pinned.WantSegments, pinned.WantHasSegment, pinned.WantSuggestions = nil, "", nil
	switch {
	case c.Want != "":
		pinned.Want = c.Ours
	case c.WantAction != "":
		pinned.WantAction = c.Ours
	default:
		return ""
	}
	return strings.Join(runPeerCase(t, pinned), "; ")
}

// runPeerCase returns one line per expectation the gate did not meet.
func runPeerCase(t *testing.T, c peerCase) []string {
	cwd := ""
	var env []string
	if c.GitRepo || len(c.GitConfig) > 0 || len(c.GitHooks) > 0 {
		cwd = peerGitRepo(t, c.GitConfig, c.GitHooks)
		// The command's environment: an empty HOME of its own and no
		// system file, so only the case's local config counts.
		env = []string{"HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1"}
	}
	var problems []string
	if c.Want != "" {
		res := Classify(c.Command, ClassifyOptions{Shell: c.shell(), Cwd: cwd, Env: env, ReadOnlyCommands: c.ReadOnlyCommands})
		if !safetyMatches(c.Want, res.Safety) {
			problems = append(problems, fmt.Sprintf("classify: want %s, got %s (%s)", c.Want, res.Safety, res.Reason))
		}
	}
	if c.needsDecide() {
		problems = append(problems, checkPeerDecision(t, c, cwd, env)...)
	}
	return problems
}

func safetyMatches(want string, got Safety) bool {
	if want == "not-read-only" {
		return got != ReadOnly
	}
	return Safety(want) == got
}

func checkPeerDecision(t *testing.T, c peerCase, cwd string, env []string) []string {
	var p *Policy
	if len(c.Allow)+len(c.Ask)+len(c.Deny)+len(c.ReadOnlyCommands) > 0 {
		p = peerPolicy(t, c)
	}
	d := Decide(Input{Text: c.Command, Shell: c.shell(), Mode: Mode(c.Mode), Policy: p, Cwd: cwd, Env: env})
	var problems []string
	if c.WantRuleDecision != "" && d.RuleDecision != c.WantRuleDecision {
		problems = append(problems, fmt.Sprintf("rule_decision: want %s, got %s", c.WantRuleDecision, d.RuleDecision))
	}
	if c.WantSegments != nil && len(d.Segments) != *c.WantSegments {
		problems = append(problems, fmt.Sprintf("segments: want %d, got %d %q", *c.WantSegments, len(d.Segments), d.Segments))
	}
	if c.WantHasSegment != "" && !containsString(d.Segments, c.WantHasSegment) {
		problems = append(problems, fmt.Sprintf("segments: want one equal to %q, got %q", c.WantHasSegment, d.Segments))
	}
	if c.WantSuggestions != nil && !sameSet(c.WantSuggestions, d.Suggestions) {
		problems = append(problems, fmt.Sprintf("suggestions: want %q, got %q", c.WantSuggestions, d.Suggestions))
	}
	if c.WantAction != "" && !actionMatches(c.WantAction, d.Action) {
		problems = append(problems, fmt.Sprintf("action: want %s, got %s (%s)", c.WantAction, d.Action, d.Reason))
	}
	return problems
}

func actionMatches(want string, got Action) bool {
	if want == "not-allow" {
		return got == Ask || got == Deny
	}
	return Action(want) == got
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !containsString(b, x) {
			return false
		}
	}
	return true
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// peerGitRepo makes a real repository with the given local config, as the
// peers' own tests do (git init, then git config KEY VALUE).
func peerGitRepo(t *testing.T, config [][2]string, hooks []string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH: the case needs a real repository")
	}
	dir := t.TempDir()
	runGit(t, dir, "init", "-q")
	for _, kv := range config {
		runGit(t, dir, "config", kv[0], kv[1])
	}
	for _, h := range hooks {
		path := filepath.Join(dir, ".git", "hooks", h)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	// Hermetic: a host template dir or global config must not plant hooks
	// or keys the case did not ask for.
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func clipPeer(s string) string {
	if len(s) <= 120 {
		return s
	}
	cut := 120
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut-- // never split a rune: the name goes into test output
	}
	return s[:cut] + fmt.Sprintf("…(%d bytes)", len(s))
}

// peerPolicy builds the case's policy the way the loader does for the
// peer's format: Qwen Code's, Gemini CLI's and Codex's bare patterns are
// prefixes, agentexec's own (the bypass corpus) exact.
func peerPolicy(t *testing.T, c peerCase) *Policy {
	m := Exact
	if p, _, _ := strings.Cut(c.Suite, "/"); p == "qwen" || p == "gemini" || p == "codex" {
		m = Prefix
	}
	pol := &Policy{ReadOnlyCommands: c.ReadOnlyCommands, Source: "test"}
	for _, l := range []struct {
		texts []string
		a     Action
	}{{c.Deny, Deny}, {c.Ask, Ask}, {c.Allow, Allow}} {
		for _, text := range l.texts {
			r, ok, err := ParseRuleAs(text, l.a, "test", m)
			if err != nil || !ok {
				t.Fatalf("rule %q: %v", text, err)
			}
			pol.Rules = append(pol.Rules, r)
		}
	}
	if err := pol.Compile(); err != nil {
		t.Fatalf("policy: %v", err)
	}
	return pol
}
