package gate

import (
	"cmp"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentexec/agentexec/gate/classify"
	"github.com/agentexec/agentexec/gate/facts"
	p "github.com/agentexec/agentexec/gate/programs"
	"github.com/agentexec/agentexec/internal/lazy"
	"github.com/agentexec/agentexec/internal/lazyre"
	"github.com/agentexec/agentexec/internal/shwalk"
)

// The blacklist denies catastrophic commands in every mode, over any allow
// rule. It decides on what a command does, not on how it is spelt: it reads
// every program start of the facts tree (simple commands, and every argv
// found inside launchers, -c scripts, find -exec, xargs, aliases, …) with
// its program's role from the programs table, and resolves each target
// before matching it: paths cleaned (.., ., //, /proc/self/root/…),
// variables assigned earlier in the text, $HOME and ~ forms, globs and
// braces that can match / or a system directory, relative operands
// against every directory the text can be in (the request's cwd, cd
// targets), long-option abbreviations. What it cannot resolve — a target
// computed at run time, a hidden execution — it reports, and yolo asks.
//
// Sharp edge: it is a list of catastrophes, not a sandbox. It denies what
// would destroy the system, the home directory or the account databases,
// or cut every session; a narrower mistake is the sandbox's and the
// rules' to stop.

// Built-in entries, by name.
var blacklistEntries = &lazy.Value[map[string]string]{Build: func() map[string]string {
	return map[string]string{
		"recursive-delete-root":   "recursively deletes the filesystem root, the home directory or a top-level system directory",
		"no-preserve-root":        "--no-preserve-root exists only to let a command act on the filesystem root",
		"move-system-dir":         "moving the filesystem root, the home directory or a system directory away breaks the system",
		"make-filesystem":         "creating or wiping a filesystem destroys every file on the device",
		"partition-device":        "rewriting a disk's partition table destroys its filesystems",
		"raw-device-write":        "writing raw bytes onto a block device destroys its filesystems",
		"fork-bomb":               "a function that spawns itself in a pipeline or in the background, an endless loop that leaves a process behind each turn, or an unbounded xargs or parallel fed without end exhausts the process table",
		"recursive-chmod-root":    "recursively changing ownership, permissions or attributes of / or a system directory breaks the system",
		"power-off":               "shutting down, rebooting, halting or switching the machine's state ends every session on it",
		"kill-all-processes":      "signalling every process (pid -1, a pattern that matches everything, killall5) ends every session",
		"download-to-shell":       "feeding a download into a shell runs unreviewed code from the network",
		"overwrite-account-files": "overwriting, moving or editing /etc/passwd, /etc/shadow, /etc/group, /etc/gshadow or sudoers can lock everyone out or grant root",
	}
}}

func blEntry(name string) *BlacklistEntry {
	return &BlacklistEntry{Name: name, Reason: blacklistEntries.Get()[name]}
}

// blacklistExtra is a compiled user entry.
type blacklistExtra struct {
	BlacklistExtra
	rule Rule
}

// compileExtras validates blacklist.extra entries.
func compileExtras(extras []BlacklistExtra, source string) ([]blacklistExtra, error) {
	var out []blacklistExtra
	for i, e := range extras {
		if strings.TrimSpace(e.Name) == "" || strings.TrimSpace(e.Pattern) == "" {
			return nil, fmt.Errorf("blacklist.extra[%d]: name and pattern are required", i)
		}
		text := e.Pattern
		if n, _, ok := cutTool(strings.TrimSpace(text)); !ok || !isShellTool(n) {
			text = "Bash(" + text + ")"
		}
		r, ok, err := ParseRule(text, Deny, source)
		if err != nil || !ok {
			return nil, fmt.Errorf("blacklist.extra[%d] %q: bad pattern %q: %v", i, e.Name, e.Pattern, err)
		}
		if e.Reason == "" {
			e.Reason = "listed in the policy's blacklist"
		}
		out = append(out, blacklistExtra{BlacklistExtra: e, rule: r})
	}
	return out, nil
}

// blInput is what the blacklist reads besides the tree.
type blInput struct {
	cwd    string   // the request's working directory ("" unknown)
	home   string   // the HOME the command runs with ("" unknown)
	segs   []string // the rule segments (user entries match them)
	cands  []string // every call's spellings (user entries match them)
	extras []blacklistExtra
	// execGate: a run-time exec gate will watch the run, so project code
	// run by name is not something the blacklist failed to see.
	execGate bool
	// reqEnv are the variables the request sets, which every command of
	// the text inherits.
	reqEnv map[string]string
	// cdSearch: the request's environment sets CDPATH, or BASHOPTS with
	// cdable_vars, so a cd to a name may go anywhere.
	cdSearch bool
	// noCase: the request's BASHOPTS turns on nocaseglob.
	noCase bool
	// inner is set while the literals of inline code are checked: they
	// are not searched for literals again.
	inner bool
}

// shellEnv reads what the command's environment (and the request's
// variables, req) tells bash about where a cd to a name goes and how
// patterns match: CDPATH, and the options BASHOPTS turns on as bash
// starts.
func (in *blInput) shellEnv(env []string, req map[string]string) {
	get := func(k string) string {
		if v, ok := req[k]; ok {
			return v
		}
		return envValue(env, k)
	}
	in.reqEnv = req
	opts := get("BASHOPTS")
	in.cdSearch = get("CDPATH") != "" || colonListHas(opts, "cdable_vars")
	in.noCase = colonListHas(opts, "nocaseglob")
}

// colonListHas reports name among the colon-separated fields of list
// (read in place: nearly every request has no BASHOPTS, and splitting it
// had been an allocation per decision).
func colonListHas(list, name string) bool {
	if list == "" {
		return false // (no field but "", which no caller asks for)
	}
	for f := range strings.SplitSeq(list, ":") {
		if f == name {
			return true
		}
	}
	return false
}

// blResult is the blacklist's verdict: the entry hit, or nil; unseen says
// what it could not resolve (a target or an execution), "" when nothing.
type blResult struct {
	hit    *BlacklistEntry
	unseen string
}

// checkBlacklist matches every call of the tree.
func checkBlacklist(t *facts.Tree, in blInput) blResult {
	b := &blChecker{t: t, in: in}
	b.cwdBuf[0] = in.cwd
	b.cwds = cwdsOf(b.cwdBuf[:1], t)
	if in.cdSearch && t.RelativeCd {
		// The request's CDPATH (or cdable_vars) may send a cd to a name
		// anywhere.
		b.cwds = appendUniqStr(b.cwds, "")
	}
	for _, c := range t.Calls {
		b.at, b.child = c.Span.Start, c.ExpandedElsewhere()
		if e := b.call(c); e != nil {
			return blResult{hit: e}
		}
	}
	// What follows reads words after every call: a variable is sure where
	// its definite assignment holds to the end.
	b.at, b.child = len(t.Src), false
	// A compound command's redirections, and a bare `> F`, open their
	// targets as a simple command's do.
	for _, sr := range t.Redirs {
		if e := b.redirectsOf(sr.Redirs, sr.Text); e != nil {
			return blResult{hit: e}
		}
	}
	for _, pipe := range t.Pipes {
		if e := b.pipe(pipe); e != nil {
			return blResult{hit: e}
		}
	}
	if e := downloadedThenRun(t, in.cwd); e != nil {
		return blResult{hit: e}
	}
	if e := inlineLiterals(t, in); e != nil {
		return blResult{hit: e}
	}
	if u := inlineTargets(t, in); u != "" {
		b.see("%s", u)
	}
	if e, unseen := subscriptCode(t, in); e != nil {
		return blResult{hit: e}
	} else if unseen != "" {
		b.see("%s", unseen)
	}
	if e := forkBombs(t); e != nil {
		return blResult{hit: e}
	}
	if e := floods(t); e != nil {
		return blResult{hit: e}
	}
	if len(in.extras) > 0 {
		if e := checkExtras(in.extras, append(append([]string(nil), in.segs...), in.cands...)); e != nil {
			return blResult{hit: e}
		}
	}
	if b.unseen == "" {
		b.unseen = hiddenUnseen(t, in.execGate)
	}
	return blResult{unseen: b.unseen}
}

// hiddenUnseen names the first hidden execution the blacklist could not
// look into that could hide a shell command: a computed command name, a
// launcher's unreadable command, a shell script fed on stdin, code stored
// in shell state. Code in another language (an interpreter's inline code
// or script, a build tool's project files) is not a shell spelling the
// blacklist reads: the run-time exec gate and the sandbox watch what it
// does, and yolo runs it.
func hiddenUnseen(t *facts.Tree, execGate bool) string {
	for _, h := range t.Hidden {
		switch {
		case h.Kind == facts.ProjectCode, h.Kind == facts.InlineCode:
			continue
		case h.Kind == facts.FedScript && h.Call != nil && h.Call.Prog != nil && h.Call.Prog.Kind.Has(p.Interpreter):
			continue
		}
		return fmt.Sprintf("%s (at byte %d)", h.Why, h.Span.Start)
	}
	if !t.Parsed && t.Err != nil {
		return fmt.Sprintf("the text cannot be read (%v)", t.Err)
	}
	return ""
}

// maxLiterals bounds the string literals of one text's inline code that
// are read as shell text.
const maxLiterals = 256

// inlineLiterals checks the string literals of interpreters' inline code
// as shell text. The code is another language, but what it hands a shell
// (os.system("…"), system "…", execSync('…'), `…`) is a literal in it, so
// a catastrophic command spelled inside the code is refused like one
// spelled outside it. A literal the code only prints is refused too:
// stricter, never looser. A command built at run time is the exec gate's.
func inlineLiterals(t *facts.Tree, in blInput) *BlacklistEntry {
	if in.inner {
		return nil
	}
	inner := blInput{cwd: in.cwd, home: in.home, execGate: in.execGate, cdSearch: in.cdSearch, noCase: in.noCase, inner: true}
	n := 0
	seen := map[*facts.Call]bool{}
	for _, h := range t.Hidden {
		if h.Kind != facts.InlineCode || h.Call == nil || seen[h.Call] {
			continue
		}
		seen[h.Call] = true
		for _, w := range h.Call.Argv {
			if !w.Static {
				continue
			}
			for _, lit := range quotedLiterals(w.Value) {
				if !strings.ContainsAny(lit, " \t|;&<>") {
					continue // a bare word commands nothing catastrophic
				}
				if n++; n > maxLiterals {
					return nil
				}
				lt := facts.Build(lit, facts.Options{Sub: subCommands})
				if r := checkBlacklist(lt, inner); r.hit != nil {
					return r.hit
				}
			}
		}
	}
	return nil
}

// inlineTargets names an account file or a disk that an interpreter's
// inline code spells as a string (python3 -c 'open("/etc/passwd", "w")',
// node -e 'fs.writeFileSync("/dev/sda", …)'): the code may write it, and
// whether it does is in a language the blacklist does not read, so yolo
// asks. A code that only reads one asks too: stricter, never looser.
func inlineTargets(t *facts.Tree, in blInput) string {
	if in.inner {
		return ""
	}
	seen := map[*facts.Call]bool{}
	for _, h := range t.Hidden {
		if h.Kind != facts.InlineCode || h.Call == nil || seen[h.Call] {
			continue
		}
		seen[h.Call] = true
		for _, w := range h.Call.Argv[1:] {
			if !w.Static {
				continue
			}
			for _, lit := range quotedLiterals(w.Value) {
				if v := cleanPath(lit); strings.HasPrefix(v, "/") && (accountFile(v) || isBlockDevice(v)) {
					return fmt.Sprintf("the inline code of `%s` names %s, which it may write", h.Call.Base, clipText(v))
				}
			}
		}
	}
	return ""
}

// subscriptCode checks the command substitutions inside quoted array
// subscripts, which bash evaluates as arithmetic — running them — when
// unset, let, test -v, printf -v, read or a nameref is handed the word
// (`unset 'a[$(rm -rf /)]'`). A word that only looks like one (grep's
// pattern) is checked too: stricter, never looser. What cannot be parsed
// is unseen.
func subscriptCode(t *facts.Tree, in blInput) (*BlacklistEntry, string) {
	if in.inner {
		return nil, ""
	}
	inner := blInput{cwd: in.cwd, home: in.home, execGate: in.execGate, cdSearch: in.cdSearch, noCase: in.noCase, inner: true}
	n := 0
	check := func(w facts.Word, where string) (*BlacklistEntry, string) {
		open, end := strings.IndexByte(w.Value, '['), strings.LastIndexByte(w.Value, ']')
		if !w.Static || open < 0 || end < open || !strings.ContainsAny(w.Value[open:end], "$`") {
			return nil, ""
		}
		if n++; n > maxLiterals {
			return nil, "too many quoted subscripts to read (at `" + clipText(where) + "`)"
		}
		st := facts.Build(": "+w.Value[open+1:end], facts.Options{Sub: subCommands})
		if !st.Parsed {
			return nil, "the quoted subscript in `" + clipText(where) + "` runs code the blacklist cannot read"
		}
		if r := checkBlacklist(st, inner); r.hit != nil {
			return r.hit, ""
		}
		return nil, ""
	}
	for _, c := range t.Calls {
		for _, w := range c.Argv[1:] {
			if e, unseen := check(w, c.Text); e != nil || unseen != "" {
				return e, unseen
			}
		}
	}
	for _, w := range t.ArithWords {
		if e, unseen := check(w, w.Raw); e != nil || unseen != "" {
			return e, unseen
		}
	}
	// A variable's value is evaluated as arithmetic wherever its name is
	// ($((x)), a[x], [[ x -eq 1 ]], an integer's assignment), so a value
	// holding a subscript with a substitution runs it there.
	for name, vals := range t.Vars {
		for _, v := range vals {
			if e, unseen := check(facts.Word{Value: v, Static: true, Raw: name + "=" + v}, name+"="+v); e != nil || unseen != "" {
				return e, unseen
			}
		}
	}
	return nil, ""
}

// quotedLiterals returns the contents of the '…', "…" and `…` literals of
// code, with backslash escapes of the quote and of the backslash undone:
// the common ground of the languages given inline code (Python, Perl,
// Ruby, JavaScript, PHP, Lua, Tcl).
func quotedLiterals(code string) []string {
	var out []string
	for i := 0; i < len(code); i++ {
		q := code[i]
		if q != '\'' && q != '"' && q != '`' {
			continue
		}
		var b strings.Builder
		j := i + 1
		for ; j < len(code) && code[j] != q; j++ {
			if code[j] == '\\' && j+1 < len(code) && (code[j+1] == q || code[j+1] == '\\') {
				j++
			}
			b.WriteByte(code[j])
		}
		if j >= len(code) {
			break // unterminated: the rest is no literal
		}
		out = append(out, b.String())
		i = j
	}
	return out
}

func checkExtras(extras []blacklistExtra, cands []string) *BlacklistEntry {
	for _, e := range extras {
		for _, c := range cands {
			if e.rule.Match(normalizeBlanks(c)) {
				return &BlacklistEntry{Name: e.Name, Reason: e.Reason}
			}
		}
	}
	return nil
}

// blChecker checks one tree.
type blChecker struct {
	t      *facts.Tree
	in     blInput
	cwds   []string // every directory the text's commands may run in; "" unknown
	unseen string
	links  []linkName // names the text makes for other paths (ln), read once
	linked bool
	cwdBuf [2]string // room for the cwds of a text without cd
	// at and child are where the words being resolved are expanded: the
	// offset of their call in the decided text, and whether another
	// process expands them (facts.Tree.Expand).
	at    int
	child bool
	// scratch is lent to the call being checked.
	scratch blScratch
}

func (b *blChecker) see(format string, args ...any) {
	if b.unseen == "" {
		b.unseen = fmt.Sprintf(format, args...)
	}
}

// cwdsOf lists the directories the text's commands may run in: the
// request's (out holds it), and every cd target (relative ones resolved
// against each).
func cwdsOf(out []string, t *facts.Tree) []string {
	for _, d := range t.Cds {
		switch {
		case d == facts.Home || strings.HasPrefix(d, "/"):
			out = appendUniqStr(out, path.Clean(d))
		default:
			for _, base := range append([]string(nil), out...) {
				if base != "" {
					out = appendUniqStr(out, path.Join(base, d))
				} else if strings.HasPrefix(d, "..") {
					out = appendUniqStr(out, "")
				}
			}
		}
	}
	if t.CdUnknown {
		out = appendUniqStr(out, "")
	}
	return out
}

func appendUniqStr(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

// target is one resolved operand: its possible absolute paths (or
// patterns), or unknown when the blacklist cannot tell.
type target struct {
	paths   []string
	unknown bool
	raw     string
}

// resolve turns a word into the paths it can name.
func (b *blChecker) resolve(w facts.Word) target {
	t := target{raw: w.Raw}
	var vals []string
	switch {
	case w.Hole:
		t.unknown = true
		return t
	case w.Static && (w.Value == "~" || strings.HasPrefix(w.Value, "~/")):
		// A quoted ~ is a file named ~ to bash, but an agent writing it
		// means the home directory: the stricter reading.
		vals = []string{w.Value, facts.Home + w.Value[1:]}
	case w.Static:
		vals = []string{w.Value}
	case w.Node != nil:
		var complete bool
		vals, complete = b.expand(w.Node)
		// The values found are each one the word may take, even where
		// it may take others too.
		t.unknown = !complete
		if vals == nil {
			t.unknown = true
			return t
		}
	default:
		t.unknown = true
		return t
	}
	noCase := b.t.NoCaseGlob || b.in.noCase
	for _, v := range vals {
		for _, pth := range b.absolute(v) {
			if pth == "" {
				t.unknown = true
				continue
			}
			t.paths = append(t.paths, pth)
			if noCase && strings.ContainsAny(pth, "*?[") {
				// Under nocaseglob, /E*C matches /etc.
				t.paths = append(t.paths, foldGlob(pth))
			}
		}
	}
	return t
}

// foldGlob rewrites a pattern to match as it does under nocaseglob: each
// letter matches either case ([eE]), within bracket expressions too.
func foldGlob(pat string) string {
	var sb strings.Builder
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case c == '\\' && i+1 < len(pat):
			i++
			sb.WriteString(foldByte(pat[i]))
		case c == '[':
			end := bracketEnd(pat, i)
			if end < 0 {
				sb.WriteByte(c)
				continue
			}
			body := pat[i+1 : end]
			neg := ""
			if strings.HasPrefix(body, "!") || strings.HasPrefix(body, "^") {
				neg, body = body[:1], body[1:]
			}
			sb.WriteString("[" + neg + body)
			if !strings.Contains(body, "[:") {
				sb.WriteString(swapCase(body))
			}
			sb.WriteByte(']')
			i = end
		default:
			sb.WriteString(foldByte(c))
		}
	}
	return sb.String()
}

// bracketEnd is the index of the ] closing the bracket expression at i
// (a ] first in it is a member), or -1.
func bracketEnd(pat string, i int) int {
	j := i + 1
	if j < len(pat) && (pat[j] == '!' || pat[j] == '^') {
		j++
	}
	if j < len(pat) && pat[j] == ']' {
		j++
	}
	if k := strings.IndexByte(pat[j:], ']'); k >= 0 {
		return j + k
	}
	return -1
}

func foldByte(c byte) string {
	switch {
	case c >= 'a' && c <= 'z':
		return "[" + string(c) + string(c-'a'+'A') + "]"
	case c >= 'A' && c <= 'Z':
		return "[" + string(c-'A'+'a') + string(c) + "]"
	}
	return string(c)
}

func swapCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = c - 'a' + 'A'
		case c >= 'A' && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}

// expand resolves a word with every value the text gives its variables
// where it is expanded (bounded), HOME as facts.Home; complete is false
// when a variable may hold a value the text does not show.
func (b *blChecker) expand(n *syntax.Word) ([]string, bool) {
	return b.t.Expand(n, b.at, b.child)
}

// absolute makes a value absolute against every directory the command may
// run in, cleaned, with /proc/…/root prefixes dropped. "" stands for a
// path relative to an unknown directory that could be catastrophic.
func (b *blChecker) absolute(v string) []string {
	if rest, self, ok := procDirAlias(v); ok {
		if self {
			// /proc/self/cwd/X is X from where the command runs.
			return b.absolute(rest)
		}
		out := []string{cleanPath(v)}
		if riskyRelative(rest) {
			out = append(out, "") // under a directory the text does not show
		}
		return out
	}
	if strings.HasPrefix(v, "/") {
		return b.linkAlias(v, b.homeAlias([]string{cleanPath(v)}))
	}
	var out []string
	for _, d := range b.cwds {
		if d == "" {
			if riskyRelative(v) {
				out = append(out, "")
			}
			continue
		}
		out = append(out, cleanPath(path.Join(d, v)))
	}
	return b.linkAlias(v, b.homeAlias(out))
}

// linkName is a name the text makes for another path: every spelling of
// the name (absolute, or relative when the directory is unknown) and the
// target it stands for.
type linkName struct {
	names  []string
	target string
}

// linkAlias adds, for a path that is or is under a name the text links
// (ln -s /dev/sda d; cat img > d), the same path under the link's target.
func (b *blChecker) linkAlias(v string, paths []string) []string {
	if !b.linked {
		b.linked = true
		b.links = textLinks(b.t, b.in.cwd)
	}
	if len(b.links) == 0 {
		return paths
	}
	cands := append([]string{path.Clean(v)}, paths...)
	for _, l := range b.links {
		for _, c := range cands {
			for _, n := range l.names {
				if c == n || strings.HasPrefix(c, n+"/") {
					paths = append(paths, cleanPath(l.target+c[len(n):]))
				}
			}
		}
	}
	return paths
}

// textLinks reads the links the text makes (Program.Links): ln TARGET
// NAME, and ln TARGET DIR (the name DIR/TARGET's base too). A target
// relative to the link's directory is read from every directory the text
// can be in; only absolute targets can be the system's paths.
func textLinks(t *facts.Tree, cwd string) []linkName {
	var out []linkName
	var bases []string
	for _, c := range t.Calls {
		if c.Prog == nil || !c.Prog.Links {
			continue
		}
		var ops []string
		for _, a := range c.Argv[1:] {
			if a.Static && !strings.HasPrefix(a.Value, "-") {
				ops = append(ops, a.Value)
			}
		}
		if len(ops) < 2 {
			continue
		}
		if bases == nil {
			bases = textDirs(t, cwd)
		}
		name := ops[len(ops)-1]
		for _, target := range ops[:len(ops)-1] {
			if !path.IsAbs(target) {
				continue
			}
			names := append(placesOf(name, bases), placesOf(path.Join(name, path.Base(target)), bases)...)
			out = append(out, linkName{names: names, target: path.Clean(target)})
		}
	}
	return out
}

// homeAlias adds, for each path in or at the home directory the command
// runs with, the same path spelled from facts.Home: /home/me/* is ~/* when
// HOME is /home/me.
func (b *blChecker) homeAlias(paths []string) []string {
	h := b.in.home
	if h == "" || h == "/" {
		return paths
	}
	for _, v := range paths {
		if v == h || strings.HasPrefix(v, h+"/") {
			paths = append(paths, facts.Home+v[len(h):])
		}
	}
	return paths
}

// riskyRelative reports a relative operand that is catastrophic when run
// from / or a system directory: ., .., *, a top-level name.
func riskyRelative(v string) bool {
	c := path.Clean(v)
	if c == "." || strings.HasPrefix(c, "..") || strings.ContainsAny(c, "*?[") {
		return true
	}
	return catastrophic(cleanPath("/" + c))
}

// procRoot matches the /proc/PID/root and /proc/self/cwd-style aliases of
// the filesystem root.
var procRoot = lazyre.New(`^/proc/(self|thread-self|[0-9]+)(/task/[0-9]+)?/root(/|$)`)

// procCwd and procFd match the /proc links that stand for a directory:
// a process's working directory, and a descriptor (which may be one the
// shell opened on a directory: exec 3</etc) used as a directory.
var (
	procCwd = lazyre.New(`^/proc/(self|thread-self|[0-9]+)(?:/task/[0-9]+)?/cwd(?:/(.*))?$`)
	procFd  = lazyre.New(`^/(?:proc/(?:self|thread-self|[0-9]+)(?:/task/[0-9]+)?/fd/[0-9]+|dev/fd/[0-9]+|dev/std(?:in|out|err))/(.*)$`)
)

// procDirAlias reads a path through such a link: the rest of the path
// below it ("." for the directory itself), and whether the link is the
// command's own working directory (self).
func procDirAlias(v string) (rest string, self, ok bool) {
	c := path.Clean(v)
	if !strings.HasPrefix(c, "/proc/") && !strings.HasPrefix(c, "/dev/") {
		return "", false, false // what both expressions start with
	}
	v = c + map[bool]string{true: "/", false: ""}[strings.HasSuffix(v, "/")]
	if m := procCwd.Regexp().FindStringSubmatch(strings.TrimSuffix(v, "/")); m != nil {
		rest = m[2]
		if rest == "" {
			rest = "."
		}
		return rest, m[1] == "self" || m[1] == "thread-self", true
	}
	if m := procFd.Regexp().FindStringSubmatch(v); m != nil {
		rest = m[1]
		if rest == "" {
			rest = "."
		}
		return rest, false, true
	}
	return "", false, false
}

// cleanPath cleans p and drops /proc/…/root prefixes.
func cleanPath(v string) string {
	v = path.Clean(v)
	for i := 0; i < 8 && strings.HasPrefix(v, "/proc/"); i++ { // (what procRoot starts with)
		loc := procRoot.Regexp().FindStringIndex(v)
		if loc == nil {
			break
		}
		v = path.Clean("/" + v[loc[1]:])
	}
	return v
}

// systemDirs are the directories whose loss breaks the system: the
// top-level ones with their lib64/multiarch siblings, and the key ones
// below /usr and /var.
var systemDirs = lazy.NewSet(
	"/bin", "/boot", "/dev", "/etc", "/home", "/lib",
	"/lib32", "/lib64", "/libx32", "/media", "/mnt", "/opt",
	"/proc", "/root", "/run", "/sbin", "/srv", "/sys",
	"/usr", "/var", "/snap", "/nix", "/boot/efi", "/usr/bin",
	"/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32", "/usr/local",
	"/usr/sbin", "/usr/share", "/usr/include", "/usr/libexec",
	"/var/lib", "/var/log", "/etc/ssh", "/usr/local/bin", "/usr/local/lib",
	"/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu", "/lib/i386-linux-gnu", "/usr/lib/i386-linux-gnu",
	"/System", "/Library", "/Applications", "/Users", "/private",
)

// catastrophic reports a path (or glob pattern) that is, or can match, /,
// a system directory or a home directory.
func catastrophic(v string) bool {
	if v == "/" || homeDir(v) {
		return true
	}
	if systemDirs.Has(v) {
		return true
	}
	if !strings.ContainsAny(v, "*?[") {
		return false
	}
	for _, dir := range catastrophicPaths.Get() {
		if facts.GlobMatch(v, dir) {
			return true
		}
	}
	// A pattern in a home directory's own level (~/*, ~/.*, /home/bob/*)
	// empties it.
	return homeDir(path.Dir(v))
}

// homeParents are the directories whose entries are, by convention, the
// users' home directories.
var homeParents = lazy.NewSet("/home", "/Users", "/export/home", "/usr/home")

// homeDir reports a path (or pattern) that is, or can match, a home
// directory: the command's own (~, $HOME), ~user, or an entry of a
// directory that holds the users' homes (/home/bob, /home/*).
func homeDir(v string) bool {
	if v == facts.Home || strings.HasPrefix(v, facts.HomeOf) && !strings.Contains(v[len(facts.HomeOf):], "/") {
		return true
	}
	return v != "/" && homeParents.Has(path.Dir(v))
}

// catastrophicPaths are what a glob is tested against.
var catastrophicPaths = &lazy.Value[[]string]{Build: func() []string {
	return append([]string{"/", facts.Home}, systemDirs.Words()...)
}}

// anyCatastrophic reports whether a target can name a catastrophic path;
// unknown targets are reported to b.see with the command's text.
func (b *blChecker) anyCatastrophic(c *facts.Call, ts []target) bool {
	for _, t := range ts {
		for _, v := range t.paths {
			if catastrophic(v) {
				return true
			}
		}
		if t.unknown {
			b.see("the blacklist cannot resolve `%s` in `%s`", clipText(t.raw), clipText(c.Text))
		}
	}
	return false
}

// splitArgs is a call's arguments as bash passes them: an unquoted
// expansion whose variables each hold one value the text shows there is
// split into its fields (X='-rf /'; rm $X gives rm -rf and /).
func (b *blChecker) splitArgs(c *facts.Call) []facts.Word {
	args := c.Argv[1:]
	var out []facts.Word
	for i, a := range args {
		fields, ok := b.t.Fields(a, b.at, b.child)
		if !ok {
			if out != nil {
				out = append(out, a)
			}
			continue
		}
		if out == nil {
			out = append(make([]facts.Word, 0, len(args)+len(fields)), args[:i]...)
		}
		out = append(out, fields...)
	}
	if out == nil {
		return args
	}
	return out
}

// parsed reads a call's options with its program's grammar (a program
// without one: every word starting with '-' is an option without value).
type blCall struct {
	c        *facts.Call
	prog     *p.Program
	args     []facts.Word
	parsed   p.Parsed
	operands []facts.Word
}

func newBlCall(c *facts.Call, args []facts.Word) blCall {
	return newBlCallIn(c, args, nil)
}

// blScratch is room a checker lends the call it is checking: the
// operands and parser arguments of one call, reused by the next (each
// allocated anew had been a fifth of a long pipeline's bytes). Only the
// calls checked one after another by blChecker.call use it; nothing keeps
// a call's slices past its check.
type blScratch struct {
	operands []facts.Word
	args     []p.Arg
}

// newBlCallIn is newBlCall with the slices taken from s when s is not
// nil.
func newBlCallIn(c *facts.Call, args []facts.Word, s *blScratch) blCall {
	bc := blCall{c: c, prog: c.Prog, args: args}
	if s != nil && len(s.operands) == 0 {
		bc.operands = s.operands
	}
	if bc.prog != nil && bc.prog.Opts != nil {
		bc.parsed = bc.prog.Opts.Parse(argsIn(bc.args, s))
		if allOperands(bc.parsed.Operands, len(bc.args)) {
			bc.operands = sealed(bc.args)
			return bc
		}
		if len(bc.parsed.Operands) > 0 && cap(bc.operands) < len(bc.parsed.Operands) {
			bc.operands = make([]facts.Word, 0, len(bc.parsed.Operands))
		}
		for _, i := range bc.parsed.Operands {
			bc.operands = append(bc.operands, bc.args[i])
		}
		return bc
	}
	// Without a grammar no option has a value, so the options are not
	// listed (each letter of a cluster was one, and a long find
	// expression has thousands): has reads them from the words.
	if !optionWord(bc.args) {
		bc.operands = sealed(bc.args) // every word is an operand (echo's thousands)
		return bc
	}
	done := false
	for _, a := range bc.args {
		switch {
		case done || !a.Static || !strings.HasPrefix(a.Value, "-") || a.Value == "-":
			if cap(bc.operands) == 0 {
				bc.operands = make([]facts.Word, 0, len(bc.args))
			}
			bc.operands = append(bc.operands, a)
		case a.Value == "--":
			done = true
		}
	}
	return bc
}

// sameStart reports two slices over the same first element (operands
// that are the call's words, not the scratch's room).
func sameStart(a, b []facts.Word) bool {
	return len(a) > 0 && len(b) > 0 && &a[0] == &b[0]
}

// optionWord reports a word read as an option when there is no grammar:
// static, starting with '-', not "-" itself (`--` among them).
func optionWord(ws []facts.Word) bool {
	for _, a := range ws {
		if a.Static && strings.HasPrefix(a.Value, "-") && a.Value != "-" {
			return true
		}
	}
	return false
}

// allOperands reports operand indexes that are every one of n words.
func allOperands(idx []int, n int) bool {
	if len(idx) != n || n == 0 {
		return false
	}
	for i, x := range idx {
		if x != i {
			return false
		}
	}
	return true
}

// sealed is ws with no room past its end: a check that appends to a
// call's operands copies them instead of writing into the call's words.
func sealed(ws []facts.Word) []facts.Word { return ws[:len(ws):len(ws)] }

// release hands bc's slices back to s for the next call, emptied.
func (s *blScratch) release(bc *blCall) {
	if s == nil {
		return
	}
	if cap(bc.operands) > cap(s.operands) && !sameStart(bc.operands, bc.args) {
		s.operands = bc.operands
	}
	// Not cleared: the next call overwrites what it uses, and what is
	// left lives only as long as the checker.
	s.operands = s.operands[:0]
}

func argsOf(ws []facts.Word) []p.Arg { return argsIn(ws, nil) }

// argsIn is argsOf in s's room when s is not nil (the parser keeps no
// reference to its arguments).
func argsIn(ws []facts.Word, s *blScratch) []p.Arg {
	var out []p.Arg
	if s != nil && cap(s.args) >= len(ws) {
		out = s.args[:len(ws)]
	} else {
		out = make([]p.Arg, len(ws))
		if s != nil {
			s.args = out
		}
	}
	for i, w := range ws {
		out[i] = p.Arg{Value: w.Value, Static: w.Static && !w.Hole}
	}
	return out
}

func (bc *blCall) has(names ...string) bool {
	if bc.prog != nil && bc.prog.Opts != nil {
		return bc.parsed.Has(names...)
	}
	return bareOptionsHave(bc.args, names)
}

// bareOptionsHave reads the options of words that have no grammar: each
// word before `--` that starts with '-' (not "-" itself) is an option
// named by the word without its dashes and, when it has one dash, by
// each letter of it too (-rf is "rf", "r" and "f").
func bareOptionsHave(args []facts.Word, names []string) bool {
	for _, a := range args {
		switch {
		case !a.Static || !strings.HasPrefix(a.Value, "-") || a.Value == "-":
			continue
		case a.Value == "--":
			return false
		}
		if slicesHas(names, strings.TrimLeft(a.Value, "-")) {
			return true
		}
		if strings.HasPrefix(a.Value, "--") {
			continue
		}
		for i := 1; i < len(a.Value); {
			_, n := utf8.DecodeRuneInString(a.Value[i:])
			if slicesHas(names, a.Value[i:i+n]) {
				return true
			}
			i += n
		}
	}
	return false
}

// keeps reports a compressor that keeps its operands: told to write to
// standard output, list or test (its defusing options, read by its
// grammar) or -k/--keep, or one that removes them only when told to
// (zstd --rm: its triggers) and is not. Only programs with defusing words
// are asked.
func (bc *blCall) keeps() bool {
	if len(bc.prog.Defuses) == 0 || bc.prog.Opts == nil {
		return false
	}
	if bc.has("k", "keep") || len(bc.prog.Triggers) > 0 && !bc.word(bc.prog.Triggers) {
		return true
	}
	for _, d := range bc.prog.Defuses {
		if bc.has(strings.TrimLeft(d, "-")) {
			return true
		}
	}
	return false
}

// defusedBy reports one of words (a program's Defuses — --help, unzip -l,
// gzip -c — or a partitioner's listing words) read as an option. With a
// grammar the parse says: in `unzip a.zip x -l` the -l is a member, in
// `gzip -S -c f` -c is -S's value. Without one, a word counts only where
// no option before it can take it as its value and before any `--`: as
// the first argument or after an operand (mkfs.ext4 -L --help /dev/sda
// formats the device, labelled "--help"; confirmed on an image).
func (bc *blCall) defusedBy(words []string) bool {
	if bc.prog.Opts != nil {
		for _, w := range words {
			if bc.has(strings.TrimLeft(w, "-")) {
				return true
			}
		}
		return false
	}
	valued := false // the word before may take the next as its value
	for _, a := range bc.args {
		if !a.Static {
			valued = true
			continue
		}
		if a.Value == "--" {
			return false
		}
		if !valued {
			for _, w := range words {
				if a.Value == w || strings.HasPrefix(w, "--") && strings.HasPrefix(a.Value, w+"=") {
					return true
				}
			}
		}
		valued = strings.HasPrefix(a.Value, "-") && a.Value != "-" && !strings.Contains(a.Value, "=")
	}
	return false
}

// words reports whether any static argument is one of words.
func (bc *blCall) word(words []string) bool {
	for _, a := range bc.args {
		if !a.Static {
			continue
		}
		for _, w := range words {
			if a.Value == w || strings.HasPrefix(w, "--") && strings.HasPrefix(a.Value, w+"=") {
				return true
			}
		}
	}
	return false
}

func (b *blChecker) targets(ws []facts.Word) []target {
	out := make([]target, len(ws))
	for i, w := range ws {
		out[i] = b.resolve(w)
	}
	return out
}

// call checks one program start.
func (b *blChecker) call(c *facts.Call) *BlacklistEntry {
	if e := b.redirects(c); e != nil {
		return e
	}
	if c.Prog == nil {
		return b.unmodelledOutputs(c)
	}
	v := newBlCallIn(c, b.splitArgs(c), &b.scratch)
	for _, name := range c.Prog.EnvOptions {
		// Options from the environment are the program's options
		// (TAR_OPTIONS='-C /' tar -xf a.tar extracts into /, UNZIP='-d
		// /etc' unzip …): their options join the command line's.
		for _, ws := range facts.EnvOptionWords(b.t, b.in.reqEnv, name) {
			if c.Prog.Opts != nil {
				v.parsed.Found = append(v.parsed.Found[:len(v.parsed.Found):len(v.parsed.Found)], c.Prog.Opts.Parse(argsOf(ws)).Found...)
			}
		}
	}
	e := b.checkCall(&v)
	b.scratch.release(&v) // not deferred: call's many returns would make a defer the slow kind
	return e
}

// checkCall runs the checks of one program start.
func (b *blChecker) checkCall(bc *blCall) *BlacklistEntry {
	if bc.has("no-preserve-root") {
		return blEntry("no-preserve-root")
	}
	// Called one by one rather than from a list of method values, so
	// that bc stays on the stack.
	if e := b.targetsCheck(bc); e != nil {
		return e
	}
	if e := b.diskCheck(bc); e != nil {
		return e
	}
	if e := b.powerCheck(bc); e != nil {
		return e
	}
	if e := b.killCheck(bc); e != nil {
		return e
	}
	if e := b.accountToolCheck(bc); e != nil {
		return e
	}
	if e := b.ddCheck(bc); e != nil {
		return e
	}
	if e := b.findCheck(bc); e != nil {
		return e
	}
	if e := b.watchdogCheck(bc); e != nil {
		return e
	}
	if e := b.scriptWrites(bc); e != nil {
		return e
	}
	if e := b.optionWrites(bc); e != nil {
		return e
	}
	if e := b.extractCheck(bc); e != nil {
		return e
	}
	if e := b.archiveCheck(bc); e != nil {
		return e
	}
	b.bindCheck(bc)
	return b.shellFromDownload(bc)
}

// optionWrites: the files a program's options write (the Writes effect:
// sort -o F, tree -o F, iconv -o F; a PipesTo value that names a file:
// strace -o F) and the operands its operand rule writes (uniq IN OUT,
// tee's) are opened as a redirection's target is.
func (b *blChecker) optionWrites(bc *blCall) *BlacklistEntry {
	bc.parsed.Found = append(bc.parsed.Found, rcFound(bc)...)
	var ws []facts.Word
	for _, f := range bc.parsed.Found {
		if f.HasValue && !f.ValueStatic && f.Opt.Effect == p.Writes {
			b.see("the blacklist cannot resolve the file the option `%s` of `%s` writes", f.Dashed(), bc.c.Base)
		}
		if !f.HasValue || !f.ValueStatic {
			continue
		}
		switch {
		case f.Opt.Effect == p.Writes, f.Opt.Effect == p.PipesTo && !strings.HasPrefix(f.Value, "|") && !strings.HasPrefix(f.Value, "!"):
			ws = append(ws, facts.Word{Value: f.Value, Static: true, Raw: f.Value})
		}
	}
	switch {
	case bc.prog.Operands == p.SecondWrites, len(bc.prog.SecondWritesWith) > 0 && bc.has(bc.prog.SecondWritesWith...):
		if len(bc.operands) >= 2 {
			ws = append(ws, bc.operands[1])
		}
	case bc.prog.Operands == p.OperandsWrite:
		ws = append(ws, bc.operands...)
	}
	args := bc.args
	for i, a := range args {
		if !a.Static {
			continue
		}
		next := func() {
			if i+1 < len(args) {
				ws = append(ws, args[i+1])
			}
		}
		switch {
		case bc.prog.Scanner == p.ScanFind && (a.Value == "-fprint" || a.Value == "-fprint0" || a.Value == "-fprintf" || a.Value == "-fls"):
			next() // find's file-printing actions open their file first
		}
	}
	if bc.prog.Scanner == p.ScanGit {
		ws = append(ws, gitOutputs(args)...)
		if e := b.gitWorkTree(bc, args); e != nil {
			return e
		}
	}
	if bc.prog.Scanner == p.ScanXxd {
		// xxd IN OUT writes OUT, a hex dump or (-r) the bytes.
		vals := make([]string, len(args))
		for i, a := range args {
			vals[i] = a.Value
		}
		if ops, _ := p.XxdOperands(vals); len(ops) >= 2 {
			ws = append(ws, args[ops[1]])
		}
	}
	ws = append(ws, b.savedDownloads(bc)...)
	ws = append(ws, b.envWrites(bc)...)
	ws = append(ws, pieces(bc)...)
	ws = append(ws, fileAddresses(bc)...)
	ws = append(ws, decompressed(bc)...)
	if downloads(bc.c) && bc.prog.Opts == nil {
		// A downloader the table models (curl, wget) has its output
		// options among the Writes above.
		ws = append(ws, downloadOutputs(args)...)
	}
	if len(ws) == 0 {
		return nil
	}
	return b.deviceOrAccount(bc.c, ws)
}

// pieces is the first file a splitter writes (Program.Pieces): its
// prefix — an option's value or an operand — and the first suffix, so a
// prefix in /etc/sudoers.d names a sudoers file there while /etc/passwd
// as a prefix names only /etc/passwdaa.
func pieces(bc *blCall) []facts.Word {
	pc := bc.prog.Pieces
	if pc == nil {
		return nil
	}
	prefix := facts.Word{Value: pc.Default, Static: true, Raw: pc.Default}
	if pc.Operand > 0 && len(bc.operands) >= pc.Operand {
		prefix = bc.operands[pc.Operand-1]
	}
	for _, f := range bc.parsed.Found {
		if slices.Contains(pc.Prefix, f.Name) && f.HasValue {
			prefix = facts.Word{Value: f.Value, Static: f.ValueStatic, Raw: f.Value}
		}
	}
	if !prefix.Static {
		return []facts.Word{prefix}
	}
	return []facts.Word{{Value: prefix.Value + pc.First, Static: true, Raw: prefix.Raw + pc.First}}
}

// fileAddresses are the files a relay's operands name for it to write
// (Runs.FileAddresses: socat - OPEN:/etc/sudoers,append appends its
// input there; socat - /etc/passwd is GOPEN).
func fileAddresses(bc *blCall) []facts.Word {
	r := bc.prog.Runs
	if r == nil || len(r.FileAddresses) == 0 {
		return nil
	}
	var ws []facts.Word
	for _, o := range bc.operands {
		if !o.Static {
			continue
		}
		name, low := "", strings.ToLower(o.Value)
		for _, pre := range r.FileAddresses {
			if strings.HasPrefix(low, pre) {
				name = o.Value[len(pre):]
			}
		}
		if name == "" && strings.Contains(o.Value, "/") && !strings.Contains(o.Value, ":") {
			name = o.Value
		}
		if name, _, _ = strings.Cut(name, ","); name != "" {
			ws = append(ws, facts.Word{Value: name, Static: true, Raw: name})
		}
	}
	return ws
}

// envWrites are the files a program's environment names for it to write
// (Program.EnvWrites: GIT_TRACE=/etc/sudoers git status appends git's
// trace there): each absolute value the text or the request gives the
// variable. A value computed at run time is one the blacklist cannot
// resolve.
func (b *blChecker) envWrites(bc *blCall) []facts.Word {
	var ws []facts.Word
	for _, name := range bc.prog.EnvWrites {
		vals := b.t.Vars[name]
		if v, ok := b.in.reqEnv[name]; ok {
			vals = append(vals[:len(vals):len(vals)], v)
		}
		for _, v := range vals {
			if path.IsAbs(v) {
				ws = append(ws, facts.Word{Value: v, Static: true, Raw: v})
			}
		}
		for x := bc.c; x != nil; x = x.Via {
			for _, a := range x.Assigns {
				if a.Name == name && !a.Value.Static {
					b.see("the blacklist cannot resolve the file %s names for `%s` to write", name, bc.c.Base)
				}
			}
		}
	}
	return ws
}

// rcFound reads the startup-file commands an option gives (wget -e CMD,
// Program.RcCommands) as the long options they stand for.
func rcFound(bc *blCall) []p.Found {
	rc := bc.prog.RcCommands
	if rc == nil {
		return nil
	}
	var args []p.Arg
	for _, f := range bc.parsed.Found {
		if f.Opt.Effect != p.Unproven || !f.HasValue || !f.ValueStatic {
			continue
		}
		k, v, ok := strings.Cut(f.Value, "=")
		k = strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(strings.TrimSpace(k)))
		if long, known := rc[k]; ok && known {
			args = append(args, p.Arg{Value: "--" + long + "=" + strings.TrimSpace(v), Static: true})
		}
	}
	if len(args) == 0 {
		return nil
	}
	return bc.prog.Opts.Parse(args).Found
}

// savedDownloads are the files a downloader saves its downloads in
// (Program.Saves): its relative output files in its directory option's
// directory, and each URL under the last segment of its path when it
// names them so (wget http://x/passwd in /etc, curl --output-dir /etc -O
// http://x/passwd).
func (b *blChecker) savedDownloads(bc *blCall) []facts.Word {
	s := bc.prog.Saves
	if s == nil {
		return nil
	}
	dir, named := "", false
	for _, f := range bc.parsed.Found {
		switch {
		case slices.Contains(s.Dir, f.Name) && f.HasValue && !f.ValueStatic:
			b.see("`%s` saves into a directory computed at run time", bc.c.Base)
			return nil
		case slices.Contains(s.Dir, f.Name) && f.HasValue:
			dir = f.Value
		case slices.Contains(s.Named, f.Name):
			named = true
		}
	}
	var ws []facts.Word
	if dir != "" {
		for _, f := range bc.parsed.Found {
			if f.Opt.Effect == p.Writes && f.HasValue && f.ValueStatic && !path.IsAbs(f.Value) && f.Value != "-" {
				ws = append(ws, facts.Word{Value: path.Join(dir, f.Value), Static: true, Raw: f.Value})
			}
		}
	}
	if len(s.Remote) == 0 && named || len(s.Remote) > 0 && !bc.has(s.Remote...) {
		return ws
	}
	for _, o := range bc.operands {
		if name := urlName(o); name != "" {
			ws = append(ws, facts.Word{Value: path.Join(cmp.Or(dir, "."), name), Static: true, Raw: o.Raw})
		}
	}
	return ws
}

// decompressed are the files a compressor writes when it decompresses in
// place (Program.Decompresses): each operand without its suffix.
func decompressed(bc *blCall) []facts.Word {
	d := bc.prog.Decompresses
	if d == nil || !d.Always && !bc.has(d.Modes...) {
		return nil
	}
	for _, o := range bc.prog.Defuses {
		if bc.has(strings.TrimLeft(o, "-")) {
			return nil // to standard output, a listing or a test
		}
	}
	var ws []facts.Word
	for _, o := range bc.operands {
		for _, s := range d.Suffixes {
			if f, ok := strings.CutSuffix(o.Value, s); ok && o.Static && f != "" {
				ws = append(ws, facts.Word{Value: f, Static: true, Raw: o.Raw})
				break
			}
		}
	}
	return ws
}

// urlName is the last segment of a static URL's path, the name a
// downloader saves it under ("" for none, or a word that is no URL).
func urlName(w facts.Word) string {
	_, rest, ok := strings.Cut(w.Value, "://")
	if !w.Static || !ok {
		return ""
	}
	rest, _, _ = strings.Cut(rest, "?")
	rest, _, _ = strings.Cut(rest, "#")
	_, p, ok := strings.Cut(rest, "/")
	if !ok {
		return ""
	}
	if name := path.Base("/" + p); name != "/" {
		return name
	}
	return ""
}

// unmodelledOutputs: a program the table does not model may write the
// file its output option names, as the option's spelling says (pandoc
// x.md -o /etc/passwd, gpg --output /etc/shadow …): a device or an
// account file there is refused as a redirection's target is.
func (b *blChecker) unmodelledOutputs(c *facts.Call) *BlacklistEntry {
	var ws []facts.Word
	args := c.Argv[1:]
	for i, a := range args {
		if !a.Static {
			continue
		}
		for _, o := range p.OutputOptions {
			switch {
			case a.Value == o && i+1 < len(args):
				ws = append(ws, args[i+1])
			case strings.HasPrefix(a.Value, o+"="):
				ws = append(ws, facts.Word{Value: a.Value[len(o)+1:], Static: true, Raw: a.Raw})
			case o == "-o" && len(a.Value) > 2 && strings.HasPrefix(a.Value, "-o") && a.Value[2] == '/':
				ws = append(ws, facts.Word{Value: a.Value[2:], Static: true, Raw: a.Raw}) // -o/etc/passwd
			}
		}
	}
	if len(ws) == 0 {
		return nil
	}
	return b.deviceOrAccount(c, ws)
}

// gitWorkTree: a git command that empties its work tree (clean -fd)
// where the work tree is the root, a home or a system directory is a
// recursive delete of it; one that fills it with the repository's files
// (checkout, reset --hard, …) where it holds the account files writes
// files the text does not name there, so yolo asks. The work tree is
// --work-tree's, GIT_WORK_TREE's, else the directory -C or the working
// directory names (git may find the repository above it: the top is at
// least as wide).
func (b *blChecker) gitWorkTree(bc *blCall, args []facts.Word) *BlacklistEntry {
	tree, i := facts.Word{Value: ".", Static: true, Raw: "."}, 0
	for _, a := range bc.c.Assigns {
		if a.Name == "GIT_WORK_TREE" {
			tree = a.Value
		}
	}
	explicit := tree.Raw != "."
	for i < len(args) && args[i].Static && strings.HasPrefix(args[i].Value, "-") {
		name, val, hasVal := strings.Cut(args[i].Value, "=")
		w := facts.Word{Value: val, Static: true, Raw: val}
		if p.GitGlobalValued.Has(name) && !hasVal && i+1 < len(args) {
			i++
			w = args[i]
		}
		switch {
		case name == "--work-tree":
			tree, explicit = w, true
		case name == "-C" && !explicit && w.Static && path.IsAbs(w.Value):
			tree = w
		case name == "-C" && !explicit && w.Static:
			tree.Value, tree.Raw = path.Join(tree.Value, w.Value), path.Join(tree.Raw, w.Raw)
		case name == "-C" && !explicit:
			tree = w
		}
		i++
	}
	if i >= len(args) || !args[i].Static {
		return nil
	}
	sub, rest := args[i].Value, argsOf(args[i+1:])
	switch {
	case sub == "clean" && gitCleanForced(rest):
		if b.anyCatastrophic(bc.c, b.targets([]facts.Word{tree})) {
			return blEntry("recursive-delete-root")
		}
	case p.GitFills.Has(sub) || gitHasAny(rest, p.GitFillsWith[sub]):
		if !tree.Static {
			b.see("`git %s` writes the repository's files into a work tree computed at run time", sub)
			return nil
		}
		for _, d := range b.resolve(tree).paths {
			if isAccountDir(d) {
				b.see("`git %s` writes the repository's files into %s, where they may replace the account files: what it writes is not in the text", sub, d)
				return nil
			}
		}
	}
	return nil
}

// gitCleanForced reports `git clean` words that remove untracked
// directories: -f (or --force) and -d, without -n/--dry-run.
func gitCleanForced(rest []p.Arg) bool {
	force, dirs := false, false
	for _, a := range rest {
		v := a.Value
		switch {
		case !a.Static:
			return true // may be any option
		case v == "--":
			return force && dirs
		case v == "--force":
			force = true
		case v == "--dry-run":
			return false
		case strings.HasPrefix(v, "--"):
		case strings.HasPrefix(v, "-"):
			force = force || strings.Contains(v, "f")
			dirs = dirs || strings.Contains(v, "d")
			if strings.Contains(v, "n") {
				return false
			}
		}
	}
	return force && dirs
}

func gitHasAny(rest []p.Arg, opts []string) bool {
	for _, a := range rest {
		if a.Static && slices.Contains(opts, a.Value) {
			return true
		}
	}
	return false
}

// gitOutputs are the files a git command line writes by its subcommand's
// output options (programs.GitOutputs) or operand (bundle create F).
func gitOutputs(args []facts.Word) []facts.Word {
	i := 0
	for i < len(args) && args[i].Static && strings.HasPrefix(args[i].Value, "-") {
		if name, _, hasVal := strings.Cut(args[i].Value, "="); p.GitGlobalValued.Has(name) && !hasVal {
			i++
		}
		i++
	}
	if i >= len(args) || !args[i].Static {
		return nil
	}
	sub, rest := args[i].Value, args[i+1:]
	var ws []facts.Word
	if o := p.GitOutputs.Get()[sub]; o != nil {
		for _, f := range o.Parse(argsOf(rest)).Found {
			if f.Opt.Effect == p.Writes && f.HasValue && f.ValueStatic {
				ws = append(ws, facts.Word{Value: f.Value, Static: true, Raw: f.Value})
			}
		}
	}
	if after, ok := p.GitWritesAfter[sub]; ok {
		for j, a := range rest {
			if a.Static && a.Value == after && j+1 < len(rest) {
				ws = append(ws, rest[j+1])
				break
			}
		}
	}
	return ws
}

// scriptWrites: the files a sed, awk or sqlite3 script opens for
// writing (sed 'w F', awk 'print > "F"', sqlite3's .output F and
// writefile('F', …)) are opened as a redirection's target is — truncated
// when the script starts, whatever it then writes. sqlite3's script may
// come from its standard input too, and a file it may write that the
// text does not name is one the blacklist cannot resolve.
func (b *blChecker) scriptWrites(bc *blCall) *BlacklistEntry {
	sc := bc.prog.Scanner
	if sc != p.ScanSed && sc != p.ScanAwk && sc != p.ScanSqlite {
		return nil
	}
	vals, ok := facts.Statics(bc.args)
	if !ok {
		return nil
	}
	files, unknown := classify.SubWrites(sc, vals)
	if sc == p.ScanSqlite {
		for _, text := range fedTexts(bc.c) {
			f, u := classify.SubWrites(sc, []string{":memory:", text})
			files, unknown = append(files, f...), unknown || u
		}
		if unknown {
			b.see("`%s` may write a file its script computes or reads from elsewhere", bc.c.Base)
		}
	}
	if len(files) == 0 {
		return nil
	}
	ws := make([]facts.Word, len(files))
	for i, f := range files {
		ws[i] = facts.Word{Value: f, Static: true, Raw: f}
	}
	return b.deviceOrAccount(bc.c, ws)
}

// fedTexts are the scripts a call reads from its standard input that the
// text spells (a static here-string or here-document, the output of
// echo or printf piped in); what the text does not spell is the facts'
// to hide.
func fedTexts(c *facts.Call) []string {
	in := c.Stdin
	switch {
	case !c.ScriptStdin || in == nil:
	case (in.Kind == facts.FromHereString || in.Kind == facts.FromHereDoc) && in.Static:
		return []string{in.Text}
	case in.Kind == facts.FromPipe && in.From != nil && in.From.Prog != nil && in.From.Prog.OnlyPrints():
		if outs, ok := facts.EchoOutputs(in.From); ok {
			return outs
		}
	}
	return nil
}

// watchdogCheck: a program given a watchdog device opens it (the model
// does not know which programs open their operands; those that only print
// their words are left alone), and an open watchdog reboots the machine
// unless it is fed.
func (b *blChecker) watchdogCheck(bc *blCall) *BlacklistEntry {
	if bc.prog.OnlyPrints() {
		return nil
	}
	for _, a := range bc.args {
		if !a.Static {
			continue
		}
		for _, v := range []string{a.Value, a.Value[strings.IndexByte(a.Value, '=')+1:]} {
			if isWatchdog(v) {
				return blEntry("power-off")
			}
		}
	}
	return nil
}

// isWatchdog reports a path to a hardware watchdog (/dev/watchdog,
// /dev/watchdogN): opening one starts its timer.
func isWatchdog(v string) bool {
	if !strings.HasPrefix(v, "/") {
		return false
	}
	n, ok := strings.CutPrefix(path.Clean(v), "/dev/watchdog")
	return ok && strings.Trim(n, "0123456789") == ""
}

// recursive reports -r, -R or --recursive (any abbreviation).
func (bc *blCall) recursive() bool { return bc.has("r", "R", "recursive") }

// stdinOperands are the words a call receives at run time from its
// launcher's standard input (xargs appends what it reads): the words an
// echo upstream prints, or a hole when the input cannot be read.
func stdinOperands(c *facts.Call) []facts.Word {
	if !c.Tail || c.Via == nil || c.Via.Prog == nil || c.Via.Prog.Runs == nil || !c.Via.Prog.Runs.StdinArgs {
		return nil
	}
	hole := []facts.Word{{Raw: "(the words " + c.Via.Base + " reads)", Hole: true}}
	in := c.Via.Stdin
	switch {
	case in == nil:
		return hole
	case in.Kind == facts.FromPipe && in.From != nil && in.From.Prog != nil && in.From.Prog.OnlyPrints():
		outs, ok := facts.EchoOutputs(in.From)
		if !ok {
			return hole
		}
		return xargsWords(c.Via, strings.Join(outs, "\n"))
	case (in.Kind == facts.FromHereString || in.Kind == facts.FromHereDoc) && in.Static:
		return xargsWords(c.Via, in.Text)
	}
	return hole
}

// xargsWords are the words xargs may make of text: split at blanks (its
// default), at NULs (-0), at its -d delimiter, or one per line (-I, -L):
// every reading's words, since the blacklist only needs each word it can
// be given.
func xargsWords(x *facts.Call, text string) []facts.Word {
	seps := []func(rune) bool{
		func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r' || r == 0
		},
		func(r rune) bool { return r == '\n' },
	}
	if x.Prog != nil && x.Prog.Opts != nil {
		for _, f := range x.Prog.Opts.Parse(argsOf(x.Argv[1:])).Found {
			if (f.Name == "d" || f.Name == "delimiter") && f.HasValue {
				if !f.ValueStatic {
					return []facts.Word{{Raw: "(the words xargs reads, split at a delimiter computed at run time)", Hole: true}}
				}
				d := []rune(echoDelim(f.Value))
				if len(d) > 0 {
					seps = append(seps, func(r rune) bool { return r == d[0] })
				}
			}
		}
	}
	var out []facts.Word
	seen := map[string]bool{}
	for _, sep := range seps {
		for _, w := range strings.FieldsFunc(text, sep) {
			if w = strings.TrimSpace(w); w != "" && !seen[w] {
				seen[w] = true
				out = append(out, facts.Word{Value: w, Static: true, Raw: w})
			}
		}
	}
	return out
}

// removedSources: an archiver or copier told to delete what it read
// (Program.RemovesSources: tar --remove-files, zip -m, rsync
// --remove-source-files) removes its sources as rm -r does, so a system
// directory or an account file among them is refused as rm's operand is.
func (b *blChecker) removedSources(bc *blCall, ops []facts.Word) *BlacklistEntry {
	if len(bc.prog.RemovesSources) == 0 || !bc.has(bc.prog.RemovesSources...) {
		return nil
	}
	if bc.prog.Targets == p.CopiesTo && len(ops) > 0 {
		ops = ops[:len(ops)-1] // the destination
	}
	ops = b.braceOperands(ops)
	if b.anyCatastrophic(bc.c, b.targets(ops)) {
		return blEntry("recursive-delete-root")
	}
	return b.accountTargets(bc.c, ops)
}

// echoDelim decodes xargs -d's escapes (\n, \t, \0, \\, \xHH, \NNN).
func echoDelim(v string) string {
	switch v {
	case `\n`:
		return "\n"
	case `\t`:
		return "\t"
	case `\0`:
		return "\x00"
	case `\\`:
		return `\`
	}
	return v
}

// targetsCheck applies the program's operand role.
func (b *blChecker) targetsCheck(bc *blCall) *BlacklistEntry {
	ops := bc.operands
	if in := stdinOperands(bc.c); len(in) > 0 {
		ops = append(append([]facts.Word(nil), ops...), in...)
	}
	if e := b.removedSources(bc, ops); e != nil {
		return e
	}
	switch bc.prog.Targets {
	case p.Removes:
		if bc.keeps() {
			return nil
		}
		if bc.recursive() && b.anyCatastrophic(bc.c, b.targets(ops)) {
			return blEntry("recursive-delete-root")
		}
		return b.accountTargets(bc.c, ops)
	case p.Attrs:
		if bc.recursive() && b.anyCatastrophic(bc.c, b.targets(ops)) {
			return blEntry("recursive-chmod-root")
		}
		return b.accountTargets(bc.c, ops)
	case p.Destroys:
		return b.deviceOrAccount(bc.c, ops)
	case p.WritesAll:
		return b.deviceOrAccount(bc.c, ops)
	case p.CopiesTo:
		ops = b.braceOperands(ops)
		if dir, srcs, ok := targetDir(bc, ops); ok {
			// cp -t DIR SRC…: each source lands in DIR under its name.
			var dest []facts.Word
			for _, s := range srcs {
				if s.Static {
					dest = append(dest, facts.Word{Value: path.Join(dir.Value, path.Base(s.Value)), Static: true, Raw: s.Raw})
				}
			}
			if e := b.copiedInto(bc, srcs, dir, bc.recursive() || bc.has("a", "archive")); e != nil {
				return e
			}
			return b.deviceOrAccount(bc.c, append(dest, dir))
		}
		if len(ops) < 2 {
			return nil
		}
		dest := ops[len(ops)-1:]
		if e := b.copiedInto(bc, ops[:len(ops)-1], dest[0], bc.recursive() || bc.has("a", "archive")); e != nil {
			return e
		}
		if bc.has("delete", "del", "delete-before", "delete-during", "delete-after", "delete-excluded", "delete-delay") ||
			bc.word([]string{"--delete", "--del", "--delete-before", "--delete-during", "--delete-after", "--delete-excluded", "--delete-delay"}) {
			if b.anyCatastrophic(bc.c, b.targets(dest)) {
				return blEntry("recursive-delete-root")
			}
		}
		return b.deviceOrAccount(bc.c, dest)
	case p.Moves:
		ops = b.braceOperands(ops)
		if dir, srcs, ok := targetDir(bc, ops); ok {
			// mv -t DIR SRC…: every operand is moved.
			if b.anyCatastrophic(bc.c, b.targets(srcs)) {
				return blEntry("move-system-dir")
			}
			if e := b.copiedInto(bc, srcs, dir, true); e != nil {
				return e
			}
			return b.accountTargets(bc.c, srcs)
		}
		if len(ops) < 2 {
			return nil
		}
		if b.anyCatastrophic(bc.c, b.targets(ops[:len(ops)-1])) {
			return blEntry("move-system-dir")
		}
		if e := b.copiedInto(bc, ops[:len(ops)-1], ops[len(ops)-1], true); e != nil {
			return e
		}
		if e := b.accountTargets(bc.c, ops); e != nil {
			return e
		}
		return b.deviceOrAccount(bc.c, ops[len(ops)-1:])
	case p.Renames:
		ops = b.braceOperands(ops)
		if b.anyCatastrophic(bc.c, b.targets(ops)) {
			return blEntry("move-system-dir")
		}
		return b.accountTargets(bc.c, ops)
	case p.EditsInPlace:
		if bc.has("i", "in-place") || bc.word([]string{"-i", "--in-place", "-pi", "-ip"}) || inPlaceCluster(bc.args) {
			return b.accountTargets(bc.c, bc.args)
		}
	}
	return nil
}

// inPlaceCluster reports a short cluster holding i (sed -ni, -pi.bak).
func inPlaceCluster(args []facts.Word) bool {
	for _, a := range args {
		if a.Static && strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "--") && strings.Contains(a.Value, "i") {
			return true
		}
	}
	return false
}

// deviceOrAccount: a write onto a block device or an account file.
func (b *blChecker) deviceOrAccount(c *facts.Call, ws []facts.Word) *BlacklistEntry {
	ts := b.targets(ws)
	for _, t := range ts {
		for _, v := range t.paths {
			if isBlockDevice(v) {
				return blEntry("raw-device-write")
			}
			if isPowerFile(v) {
				return blEntry("power-off")
			}
		}
	}
	return b.writtenTargets(c, ws, ts, true)
}

// accountTargets: an operand naming an account file.
func (b *blChecker) accountTargets(c *facts.Call, ws []facts.Word) *BlacklistEntry {
	return b.writtenTargets(c, ws, b.targets(ws), false)
}

// writtenTargets: an operand (ws, resolved as ts) naming an account file. With overwrite (the
// operand's content is replaced: cp's destination, tee's files, a
// truncation, an option's output file), a target the text computes, which
// the blacklist cannot resolve, may be one or a disk, as a redirection's
// may: cp x "$(cat dest)" is unseen, like > "$(cat dest)". A removal of
// one computed name (rm "$tmp") is left to run, as before; the paths find
// and xargs fill in (holes) are what they list.
func (b *blChecker) writtenTargets(c *facts.Call, ws []facts.Word, ts []target, overwrite bool) *BlacklistEntry {
	for i, t := range ts {
		for _, v := range t.paths {
			if accountFile(v) {
				return blEntry("overwrite-account-files")
			}
		}
		if overwrite && t.unknown && !ws[i].Hole {
			b.see("the blacklist cannot resolve `%s` in `%s`, which `%s` writes", clipText(t.raw), clipText(c.Text), c.Base)
		}
	}
	return nil
}

// blockDevice matches the device nodes of disks, partitions and their
// aliases (by-id, by-uuid, block/M:N, mapper, LVM volumes), and raw memory.
var blockDevice = lazyre.New(`^/dev/(sd|hd|vd|xvd|nvme|mmcblk|md|dm-|loop|sr|nbd|rbd|zd|ubd|bcache|disk[0-9/]|rdisk|mapper/|block/|mem$|kmem$|port$)`)

// diskNames are a disk of each kind blockDevice names, for the patterns
// that may expand to one.
var diskNames = []string{"/dev/sda", "/dev/sdb", "/dev/sda1", "/dev/hda", "/dev/vda", "/dev/vda1", "/dev/xvda",
	"/dev/nvme0n1", "/dev/nvme0n1p1", "/dev/mmcblk0", "/dev/mmcblk0p1", "/dev/md0", "/dev/dm-0", "/dev/loop0",
	"/dev/sr0", "/dev/nbd0", "/dev/rbd0", "/dev/zd0", "/dev/ubda", "/dev/bcache0", "/dev/disk0", "/dev/rdisk0",
	"/dev/mem", "/dev/kmem", "/dev/port"}

// nonDiskDevDirs are /dev subdirectories that hold no disks: /dev/X/Y
// elsewhere may be an LVM volume.
var nonDiskDevDirs = lazy.NewSet(
	"pts", "shm", "fd", "net", "input", "snd", "dri",
	"bus", "char", "cpu", "hugepages", "mqueue", "vfio",
	"usb", "serial", "v4l", "bsg", "vhost-net", "tcp", "udp",
)

func isBlockDevice(v string) bool {
	if strings.HasPrefix(v, "/dev/") && blockDevice.MatchString(v) { // (what blockDevice starts with)
		return true
	}
	if strings.HasPrefix(v, "/dev/") && strings.ContainsAny(v, "*?[") {
		// A pattern bash expands to a disk (/dev/s?a, /dev/[s]da).
		for _, d := range diskNames {
			if facts.GlobMatch(v, d) {
				return true
			}
		}
	}
	if rest, ok := strings.CutPrefix(v, "/dev/"); ok {
		if dir, _, ok := strings.Cut(rest, "/"); ok && !nonDiskDevDirs.Has(dir) {
			return true // /dev/VG/LV
		}
	}
	if rest, ok := strings.CutPrefix(v, "/sys/"); ok {
		return strings.HasPrefix(rest, "block/") || strings.HasPrefix(rest, "class/block/") || strings.Contains(rest, "/device/delete")
	}
	return false
}

// powerFiles are the files a write to which reboots, halts or suspends
// the machine: the magic SysRq trigger and the kernel's sleep state
// (echo mem > /sys/power/state suspends it, disk hibernates it).
var powerFiles = lazy.NewSet("/proc/sysrq-trigger", "/sys/power/state")

func isPowerFile(v string) bool { return powerFiles.Has(v) }

// accountFiles are the files whose overwrite locks users out or grants root.
var accountFiles = lazy.NewSet(accountFileList...)

func accountFile(v string) bool {
	if accountFiles.Has(v) || strings.HasPrefix(v, "/etc/sudoers.d/") || v == "/etc/sudoers.d" {
		return true
	}
	if !strings.ContainsAny(v, "*?[") {
		return false
	}
	// A glob that can match one (/etc/pass*, /etc/shad?w, /etc/sudoers.d/*)
	// names it.
	for _, f := range accountFileList {
		if facts.GlobMatch(v, f) {
			return true
		}
	}
	return facts.GlobMatch(v, "/etc/sudoers.d") || strings.HasPrefix(v, "/etc/sudoers.d/")
}

// accountFileList is accountFiles as a list, for matching globs.
var accountFileList = []string{"/etc/passwd", "/etc/shadow", "/etc/group", "/etc/gshadow",
	"/etc/sudoers", "/etc/master.passwd", "/etc/passwd-", "/etc/shadow-"}

// redirects checks output redirections onto block devices, account files
// and the sysrq trigger; a target computed at run time is unseen.
func (b *blChecker) redirects(c *facts.Call) *BlacklistEntry {
	return b.redirectsOf(c.Redirs, c.Text)
}

// redirectsOf checks one statement's redirections (text is the
// statement's, for what the blacklist could not resolve).
func (b *blChecker) redirectsOf(rs []facts.Redir, text string) *BlacklistEntry {
	for _, r := range rs {
		if r.Target.Static && isWatchdog(r.Target.Value) {
			return blEntry("power-off") // opened, for reading or writing
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.ClbOut, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
		case syntax.DplOut:
			if r.Target.Static && facts.IsFdWord(r.Target.Value) {
				continue
			}
		default:
			continue
		}
		t := b.resolve(r.Target)
		for _, v := range t.paths {
			switch {
			case isBlockDevice(v):
				return blEntry("raw-device-write")
			case accountFile(v):
				return blEntry("overwrite-account-files")
			case isPowerFile(v):
				return blEntry("power-off")
			}
		}
		if t.unknown {
			b.see("the blacklist cannot resolve the redirection target `%s` in `%s`", clipText(r.Target.Raw), clipText(text))
		}
	}
	return nil
}

// triggered reports whether a destructive program's arguments make it do
// its damage: no defusing word, and a trigger word (or none needed).
func triggered(bc *blCall) bool {
	if bc.defusedBy(bc.prog.Defuses) {
		return false
	}
	return len(bc.prog.Triggers) == 0 || bc.triggeredBy(bc.prog.Triggers)
}

// triggeredBy reports one of a tool's trigger words among its arguments
// as its option parser may read them: a short option (-w) inside a
// cluster too (badblocks -sw), a long one (--zero-superblock) also by a
// prefix (getopt_long: mdadm --zero), any other word as spelt
// (luksFormat, 0). With a grammar the parse says; without one the
// stricter reading is taken (any letter of a single-dash word, any
// prefix of the long name).
func (bc *blCall) triggeredBy(words []string) bool {
	if bc.prog.Opts != nil {
		for _, w := range words {
			if strings.HasPrefix(w, "-") && bc.has(strings.TrimLeft(w, "-")) {
				return true
			}
		}
	}
	for _, a := range bc.args {
		if !a.Static {
			continue
		}
		for _, w := range words {
			switch {
			case a.Value == w:
				return true
			case bc.prog.Opts != nil:
			case len(w) == 2 && w[0] == '-' && w[1] != '-':
				if len(a.Value) > 2 && a.Value[0] == '-' && a.Value[1] != '-' && strings.IndexByte(a.Value[1:], w[1]) >= 0 {
					return true
				}
			case strings.HasPrefix(w, "--"):
				name, _, _ := strings.Cut(a.Value, "=")
				if len(name) > 2 && strings.HasPrefix(name, "--") && strings.HasPrefix(w, name) {
					return true
				}
			}
		}
	}
	return false
}

// diskCheck: formatters and wipers, partitioners given a device.
func (b *blChecker) diskCheck(bc *blCall) *BlacklistEntry {
	switch {
	case bc.prog.Kind.Has(p.DiskFormatter):
		if !triggered(bc) {
			return nil
		}
		if bc.c.Base == "blkdiscard" {
			return blEntry("raw-device-write")
		}
		return blEntry("make-filesystem")
	case bc.prog.Kind.Has(p.Partitioner):
		if bc.defusedBy(bc.prog.Defuses) {
			return nil
		}
		// Triggers of a partitioner are its listing words; a listing is
		// one action among the others given (sgdisk -Z -p zaps, then
		// prints; parted -s D mklabel gpt print), so only a command line
		// of listing words and paths surely only prints.
		lists := bc.defusedBy(bc.prog.Triggers)
		if lists && onlyWords(bc, bc.prog.Triggers) {
			return nil
		}
		for _, t := range b.targets(bc.operands) {
			for _, v := range t.paths {
				if strings.HasPrefix(v, "/dev/") && lists {
					b.see("`%s` lists a partition table among other words, which may change it", bc.c.Base)
					return nil
				}
				if strings.HasPrefix(v, "/dev/") {
					return blEntry("partition-device")
				}
			}
		}
	}
	return nil
}

// onlyWords reports a command line of the given words and of paths (the
// devices a partitioner lists) and nothing else.
func onlyWords(bc *blCall, words []string) bool {
	for _, a := range bc.args {
		if !a.Static || !slices.Contains(words, a.Value) && (strings.HasPrefix(a.Value, "-") || !strings.Contains(a.Value, "/")) {
			return false
		}
	}
	return true
}

// powerCheck: shutdown and its kin, systemctl's state verbs and targets.
func (b *blChecker) powerCheck(bc *blCall) *BlacklistEntry {
	if !bc.prog.Kind.Has(p.PowerControl) {
		return nil
	}
	if bc.prog.Scanner == p.ScanSystemctl {
		return systemctlPower(bc)
	}
	if triggered(bc) {
		return blEntry("power-off")
	}
	return nil
}

// powerTargets are the systemd targets that end every session.
var powerTargets = lazy.NewSet(
	"reboot.target", "poweroff.target", "halt.target", "kexec.target",
	"suspend.target", "hibernate.target", "hybrid-sleep.target", "suspend-then-hibernate.target", "sleep.target",
	"rescue.target", "emergency.target", "ctrl-alt-del.target",
	"runlevel0.target", "runlevel1.target", "runlevel6.target", "soft-reboot.target",
	"exit.target", "reboot", "poweroff", "halt", "rescue", "emergency",
)

// systemctlPower: the first operand is a state verb, or isolate/start/…
// names a power target.
func systemctlPower(bc *blCall) *BlacklistEntry {
	if bc.defusedBy(bc.prog.Defuses) {
		return nil
	}
	// The verb is the first operand of systemctl's grammar (the values
	// of -t, -s, --root … are not); with an option the grammar does not
	// know, any word may be the verb.
	var ops []string
	for _, a := range bc.operands {
		if a.Static {
			ops = append(ops, a.Value)
		}
	}
	if bc.parsed.Unknown != "" || bc.parsed.Dynamic {
		ops = ops[:0]
		for _, a := range bc.args {
			if a.Static && !strings.HasPrefix(a.Value, "-") && slices.Contains(bc.prog.Triggers, a.Value) {
				return blEntry("power-off")
			}
			if a.Static && !strings.HasPrefix(a.Value, "-") {
				ops = append(ops, a.Value)
			}
		}
	}
	if len(ops) == 0 {
		return nil
	}
	for _, t := range bc.prog.Triggers {
		if ops[0] == t {
			return blEntry("power-off")
		}
	}
	switch ops[0] {
	case "isolate", "start", "restart", "try-restart", "reload-or-restart", "enable --now":
		for _, o := range ops[1:] {
			if powerTargets.Has(o) {
				return blEntry("power-off")
			}
		}
	}
	return nil
}

// killCheck: pid -1 (any spelling bash reads as -1), a pattern that
// matches every process, every process of root, killall5.
func (b *blChecker) killCheck(bc *blCall) *BlacklistEntry {
	if !bc.prog.Kind.Has(p.Signaller) {
		return nil
	}
	if bc.prog.Scanner != p.ScanKill {
		if triggered(bc) && bc.c.Base == "killall5" {
			return blEntry("kill-all-processes")
		}
		return nil
	}
	if bc.c.Base == "kill" {
		args := bc.args
		if in := stdinOperands(bc.c); len(in) > 0 {
			args = append(append([]facts.Word(nil), args...), in...)
		}
		if e := killPids(args); e != nil {
			return e
		}
		if initSignal(args) {
			return blEntry("kill-all-processes")
		}
		return b.killComputed(bc, args)
	}
	if e := killPattern(bc); e != nil {
		return e
	}
	for _, a := range bc.operands {
		if !a.Static || a.Hole {
			b.see("`%s` is given a pattern computed at run time (`%s`), which may match every process", bc.c.Base, clipText(a.Raw))
			break
		}
	}
	return nil
}

// killComputed reads kill's words known only at run time. A variable the
// text assigns is resolved (X=-1; kill -9 $X); pids a process listing
// prints are what it selects — every process when it lists them all and
// nothing after it selects by name (kill $(ps aux | awk '{print $2}')), a
// subset when something does (ps aux | grep node | awk …, pgrep node);
// $!, $$ and the like are one process. Anything else (a pid file, a
// variable from elsewhere) may be -1, which the blacklist cannot see.
func (b *blChecker) killComputed(bc *blCall, args []facts.Word) *BlacklistEntry {
	for i, a := range args {
		if a.Static && !a.Hole {
			continue
		}
		if a.Hole {
			if up := bc.c.Via.Stdin; up != nil && up.Kind == facts.FromPipe {
				switch b.pidListing(b.pipeCalls(up.From)) {
				case listingAll:
					return blEntry("kill-all-processes") // ps aux | awk '{print $2}' | xargs kill
				case listingSome:
					continue // pgrep node | xargs kill
				}
			}
			b.see("`kill` is given pids read at run time (%s), which may be -1 (every process)", a.Raw)
			continue
		}
		if a.Node == nil {
			continue
		}
		if vals, complete := b.expand(a.Node); vals != nil && !hasSubst(a.Node) {
			resolved := append([]facts.Word(nil), args...)
			for _, v := range vals {
				resolved[i] = facts.Word{Value: v, Static: true, Raw: v}
				for _, f := range strings.Fields(v) {
					if isMinusOne(f) {
						return blEntry("kill-all-processes")
					}
				}
				if e := killPids(resolved); e != nil {
					return e
				}
			}
			if complete {
				continue
			}
		}
		if onePid(a.Node) {
			continue
		}
		switch b.pidListing(b.wordCalls(bc.c, a)) {
		case listingAll:
			return blEntry("kill-all-processes")
		case listingSome:
			continue
		}
		b.see("`kill` is given pids computed at run time (`%s`), which may be -1 (every process)", clipText(a.Raw))
	}
	return nil
}

// hasSubst reports a command or process substitution in w.
func hasSubst(w *syntax.Word) bool {
	found := false
	shwalk.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			found = true
		}
		return !found
	})
	return found
}

// onePid reports a word made only of the parameters that hold one
// process's id: $!, $$, $PPID, $BASHPID.
func onePid(w *syntax.Word) bool {
	parts := w.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) != 1 {
		return false
	}
	pe, ok := parts[0].(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Exp != nil || pe.Index != nil || pe.Length || pe.Excl || pe.Slice != nil || pe.Repl != nil {
		return false
	}
	switch pe.Param.Value {
	case "!", "$", "PPID", "BASHPID":
		return true
	}
	return false
}

// wordCalls are the calls inside the substitutions of c's word a.
func (b *blChecker) wordCalls(c *facts.Call, a facts.Word) []*facts.Call {
	start, end := int(a.Node.Pos().Offset()), int(a.Node.End().Offset())
	var out []*facts.Call
	for _, x := range b.t.Calls {
		if x.InSubst && x != c && x.Depth == c.Depth && x.Span.Start >= start && x.Span.End <= end {
			out = append(out, x)
		}
	}
	return out
}

// pipeCalls are the calls of the pipeline whose element ends with last:
// every call of the pipeline up to and including last's element.
func (b *blChecker) pipeCalls(last *facts.Call) []*facts.Call {
	if last == nil {
		return nil
	}
	for _, pipe := range b.t.Pipes {
		var out []*facts.Call
		for _, calls := range pipe {
			out = append(out, calls...)
			for _, c := range calls {
				if c == last {
					return out
				}
			}
		}
	}
	return []*facts.Call{last}
}

// A process listing's selection.
type listing uint8

const (
	listingUnknown listing = iota // not only a listing: the output may be anything
	listingSome                   // pids of the processes a name or pattern selects
	listingAll                    // every pid
)

// pidListing reads calls that print pids: process listers (pgrep, pidof,
// ps, lsof -t, jobs -p, fuser) and the filters and projections after them
// (grep, awk, cut, tail, …). It lists every process when a lister of
// every process is not followed by a selection by name (a grep without
// -v, an awk or sed script with a pattern or string, pgrep/pidof's own
// pattern).
func (b *blChecker) pidListing(calls []*facts.Call) listing {
	if len(calls) == 0 {
		return listingUnknown
	}
	all, selected, lister := false, false, false
	for _, c := range calls {
		switch c.Base {
		case "pgrep", "pidof", "ps", "lsof", "jobs", "fuser", "pstree":
			lister = true
			if listsEveryProcess(c) {
				all = true
			} else {
				selected = true
			}
		case "grep", "egrep", "fgrep", "rg":
			inverted := false
			for _, a := range c.Argv[1:] {
				long, isLong := strings.CutPrefix(a.Value, "--")
				long, _, _ = strings.Cut(long, "=")
				switch {
				case !a.Static:
					inverted = true // it may be -v
				case isLong:
					// --invert-match and its abbreviations (--inv…).
					inverted = inverted || len(long) >= 3 && strings.HasPrefix("invert-match", long)
				case strings.HasPrefix(a.Value, "-"):
					inverted = inverted || strings.Contains(a.Value, "v")
				}
			}
			selected = selected || !inverted
		case "awk", "gawk", "mawk", "nawk", "sed":
			for _, a := range c.Argv[1:] {
				if !a.Static || strings.ContainsAny(a.Value, "/\"~") {
					selected = true
				}
			}
		case "cut", "tr", "head", "tail", "sort", "uniq", "xargs", "cat", "tac":
			if c.Base == "cat" || c.Base == "tac" {
				if len(c.Argv) > 1 {
					return listingUnknown // a file's contents
				}
			}
		default:
			return listingUnknown
		}
	}
	switch {
	case !lister:
		return listingUnknown // a file's or a filter's words
	case all && !selected:
		return listingAll
	}
	return listingSome
}

// substCalls are the calls inside the command substitutions of c's
// computed words.
func (b *blChecker) substCalls(c *facts.Call) []*facts.Call {
	var out []*facts.Call
	for _, a := range c.Argv[1:] {
		if a.Static || a.Node == nil {
			continue
		}
		start, end := int(a.Node.Pos().Offset()), int(a.Node.End().Offset())
		for _, x := range b.t.Calls {
			if x.InSubst && x != c && x.Depth == c.Depth && x.Span.Start >= start && x.Span.End <= end {
				out = append(out, x)
			}
		}
	}
	return out
}

// listsEveryProcess reports a process lister whose output is every pid:
// pgrep with a pattern that matches every name (or every process of
// root), ps selecting every process (-e, -A, ax, aux, --all).
func listsEveryProcess(c *facts.Call) bool {
	switch c.Base {
	case "pgrep":
		pk := *c
		pk.Prog = p.Lookup("pkill")
		if pk.Prog == nil {
			return false
		}
		v := newBlCall(&pk, pk.Argv[1:])
		return killPattern(&v) != nil
	case "ps":
		for _, a := range c.Argv[1:] {
			if !a.Static {
				continue
			}
			v := a.Value
			if v == "-e" || v == "-A" || v == "--all" || !strings.HasPrefix(v, "-") && strings.Contains(v, "x") && strings.Contains(v, "a") {
				return true
			}
			if strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsAny(v[1:], "eA") {
				return true // -e, -A, -ef, -eo FORMAT: every process
			}
		}
	}
	return false
}

// killPids reads kill's arguments: the first may be a signal (-9, -KILL,
// -s SIG, -n N); every later -N that bash reads as -1 is the pid -1.
func killPids(args []facts.Word) *BlacklistEntry {
	sigDone := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Static {
			continue
		}
		v := a.Value
		switch {
		case v == "--":
			sigDone = true
		case !sigDone && (v == "-s" || v == "-n" || v == "--signal"):
			i++
			sigDone = true
		case !sigDone && strings.HasPrefix(v, "-") && i == 0:
			sigDone = true // -9, -KILL, -SIGKILL (alone: a signal and no pid)
		case isMinusOne(v):
			return blEntry("kill-all-processes")
		default:
			sigDone = true
		}
	}
	return nil
}

// initSignal: a signal to pid 1 that ends it or its system — KILL, TERM,
// INT (systemd reboots on it), the real-time signals systemd powers off,
// reboots or halts on, SEGV/ABRT/QUIT (a crash): in a container pid 1's
// end is every process's, and systemd reads several as power requests.
// kill -0 1 (a probe) and HUP (reload) are left alone.
func initSignal(args []facts.Word) bool {
	sig, pid1 := "TERM", false
	for i, a := range args {
		if !a.Static {
			continue
		}
		v := a.Value
		switch {
		case (v == "-s" || v == "-n" || v == "--signal") && i+1 < len(args):
			sig = strings.ToUpper(strings.TrimPrefix(args[i+1].Value, "SIG"))
		case strings.HasPrefix(v, "-") && len(v) > 1 && i == 0:
			sig = strings.ToUpper(strings.TrimPrefix(v[1:], "SIG"))
		case v == "1" || strings.TrimLeft(v, "0") == "1":
			if i == 0 || args[i-1].Value != "-s" && args[i-1].Value != "-n" && args[i-1].Value != "--signal" {
				pid1 = true
			}
		}
	}
	if !pid1 {
		return false
	}
	switch sig {
	case "0", "HUP", "1", "USR1", "USR2", "10", "12", "CONT", "18", "WINCH", "28":
		return false
	}
	return true
}

// isMinusOne reports a word bash's kill reads as the pid -1 (-1, -01, -001).
func isMinusOne(v string) bool {
	// kill reads a pid as strtoimax does: blanks around it are ignored,
	// so " -1" and $'\t-01' are -1 too.
	n, err := strconv.ParseInt(strings.Trim(v, " \t\n\v\f\r"), 10, 64)
	return err == nil && n == -1
}

// matchAll are names a pattern that matches every process matches.
var matchAll = []string{"systemd", "init", "sshd", "bash", "x", "Xorg"}

// killPattern reads pkill and killall: a pattern matching every name, or
// every process of root.
func killPattern(bc *blCall) *BlacklistEntry {
	for _, a := range bc.args {
		if a.Static && isMinusOne(a.Value) {
			return blEntry("kill-all-processes")
		}
	}
	root := false
	for i, a := range bc.args {
		if !a.Static {
			continue
		}
		if (a.Value == "-u" || a.Value == "-U" || a.Value == "--euid" || a.Value == "--uid" || a.Value == "--user") && i+1 < len(bc.args) {
			u := bc.args[i+1].Value
			root = root || u == "root" || u == "0"
		}
		if strings.HasPrefix(a.Value, "-u") && (a.Value[2:] == "root" || a.Value[2:] == "0") {
			root = true
		}
	}
	pats := patternOperands(bc)
	if len(pats) == 0 {
		if root {
			return blEntry("kill-all-processes")
		}
		return nil
	}
	for _, pat := range pats {
		if matchesEverything(pat) {
			return blEntry("kill-all-processes")
		}
	}
	return nil
}

// patternOperands are pkill's/killall's non-option words, minus option
// values.
func patternOperands(bc *blCall) []string {
	var out []string
	valued := map[string]bool{"-u": true, "-U": true, "-g": true, "-G": true, "-P": true, "-s": true, "-t": true, "-n": false, "--signal": true, "-F": true, "--pidfile": true, "--euid": true, "--uid": true, "--user": true, "--group": true, "--parent": true, "--session": true, "--terminal": true, "-o": true, "-y": true, "--older-than": true, "--younger-than": true}
	for i := 0; i < len(bc.args); i++ {
		a := bc.args[i]
		if !a.Static {
			continue
		}
		if valued[a.Value] {
			i++
			continue
		}
		if strings.HasPrefix(a.Value, "-") && a.Value != "-" {
			continue
		}
		out = append(out, a.Value)
	}
	return out
}

// matchesEverything reports a process-name regexp that matches every name.
func matchesEverything(pat string) bool {
	re, err := regexp.Compile(pat)
	if err != nil {
		return false
	}
	for _, n := range matchAll {
		if !re.MatchString(n) {
			return false
		}
	}
	return true
}

// accountToolCheck: tools that change the account databases.
func (b *blChecker) accountToolCheck(bc *blCall) *BlacklistEntry {
	if bc.prog.Kind.Has(p.AccountTool) && triggered(bc) {
		return blEntry("overwrite-account-files")
	}
	return nil
}

// ddCheck: dd's of= onto a device or an account file.
func (b *blChecker) ddCheck(bc *blCall) *BlacklistEntry {
	if bc.prog.Scanner != p.ScanDD {
		return nil
	}
	for _, a := range bc.args {
		if !a.Static {
			if strings.HasPrefix(a.Raw, "of=") || !strings.Contains(a.Raw, "=") {
				b.see("the blacklist cannot resolve `%s` in `%s`", clipText(a.Raw), clipText(bc.c.Text))
			}
			continue
		}
		of, ok := strings.CutPrefix(a.Value, "of=")
		if !ok {
			continue
		}
		w := facts.Word{Value: of, Static: true, Raw: of}
		if e := b.deviceOrAccount(bc.c, []facts.Word{w}); e != nil {
			return e
		}
	}
	return nil
}

// findCheck: find rooted at a catastrophic path that deletes what it
// finds (-delete, or -exec/-execdir of a remover).
func (b *blChecker) findCheck(bc *blCall) *BlacklistEntry {
	if bc.prog.Scanner != p.ScanFind {
		return nil
	}
	var roots []facts.Word
	del := false
	for _, a := range bc.args {
		if a.Static && (a.Value == "-delete") {
			del = true
		}
	}
	for _, c := range b.t.Calls {
		if c.Via == bc.c && c.Prog != nil && (c.Prog.Targets == p.Removes || c.Prog.Targets == p.Destroys) {
			del = true
		}
	}
	for _, a := range bc.args {
		if a.Static && (strings.HasPrefix(a.Value, "-") || a.Value == "(" || a.Value == "!") {
			break
		}
		roots = append(roots, a)
	}
	if del && b.anyCatastrophic(bc.c, b.targets(roots)) {
		return blEntry("recursive-delete-root")
	}
	return nil
}

// pipe: a download (or a /dev/tcp read) in a pipeline feeding, further
// right, a shell or interpreter that reads its script from standard input.
func (b *blChecker) pipe(elems [][]*facts.Call) *BlacklistEntry {
	down, listed := false, false
	for _, calls := range elems {
		if down {
			for _, c := range calls {
				if readsScriptStdin(c) || scriptFromArgs(c) {
					return blEntry("download-to-shell")
				}
			}
		}
		if listed && len(calls) > 0 {
			for _, c := range calls {
				if c.Base == "kill" && c.Tail && c.Via != nil && c.Via.Prog != nil && c.Via.Prog.Runs != nil && c.Via.Prog.Runs.StdinArgs {
					return blEntry("kill-all-processes") // pgrep . | xargs kill
				}
			}
		}
		// The element right after a lister alone gets its every pid.
		listed = len(calls) == 1 && listsEveryProcess(calls[0])
		for _, c := range calls {
			if downloads(c) {
				down = true
			}
		}
	}
	return nil
}

// downloadedThenRun: a file a download may have written — a downloader's
// standard output redirected to it, or a word of the downloader's command
// line naming it (curl -o F, wget -O F, lwp-download URL F), or a file
// under the directory a clone fills — run later in the text as a script
// (bash F, source F, python3 F) or a program (./F). Both paths are read
// from every directory the text can be in (git clone URL d && cd d &&
// ./install.sh runs d/install.sh).
func downloadedThenRun(t *facts.Tree, cwd string) *BlacklistEntry {
	var files []string
	var dirs []string
	var bases []string
	for _, c := range t.Calls {
		if run := ranFile(c); run != "" && (len(files) > 0 || len(dirs) > 0) {
			if bases == nil {
				bases = textDirs(t, cwd)
			}
			for _, r := range placesOf(run, bases) {
				for _, f := range files {
					if slicesHas(placesOf(f, bases), r) {
						return blEntry("download-to-shell")
					}
				}
				for _, d := range dirs {
					for _, dp := range placesOf(d, bases) {
						if under(r, dp) {
							return blEntry("download-to-shell")
						}
					}
				}
			}
		}
		var got []string
		switch {
		case downloads(c):
			got = downloadedFiles(c)
		case c.Prog != nil && c.Prog.Extracts != nil:
			if dir, ok := extractsDownload(c, files); ok {
				dirs = append(dirs, dir)
			}
		default:
			var dir string
			got, dir = remoteCopies(c)
			if dir != "" {
				dirs = append(dirs, dir)
			}
		}
		files = append(files, got...)
	}
	return nil
}

// extractsDownload reports an archive extraction whose archive a download
// gives — fed by a downloader's pipe, or a file the text downloaded
// (files: those so far) — and the directory it fills: every file under it
// was downloaded (curl -sL URL | tar xz && ./install.sh runs the
// download). The archiver's command line is read as extractCheck reads
// it (Program.Extracts).
func extractsDownload(c *facts.Call, files []string) (string, bool) {
	bc := newBlCall(c, c.Argv[1:])
	if !extracting(&bc) {
		return "", false
	}
	into, archive, _ := extraction(&bc)
	if len(into) != 1 || !into[0].Static {
		return "", false
	}
	fromPipe := c.Stdin != nil && c.Stdin.Kind == facts.FromPipe && c.Stdin.From != nil && downloads(c.Stdin.From)
	if (archive == nil || archive.Static && archive.Value == "-") && fromPipe || archive != nil && archive.Static && slicesHas(files, archive.Value) {
		return into[0].Value, true
	}
	return "", false
}

// under reports whether path r lies in directory d ("." when the request
// gave no working directory: every relative path not leaving it).
func under(r, d string) bool {
	if d == "." {
		return !path.IsAbs(r) && r != ".." && !strings.HasPrefix(r, "../")
	}
	return strings.HasPrefix(r, d+"/")
}

// textDirs are the directories the text's commands may run in, from cwd
// (or "." when it is unknown) through every static cd target; a change
// the gate cannot follow adds none.
func textDirs(t *facts.Tree, cwd string) []string {
	if cwd == "" {
		cwd = "."
	}
	var out []string
	for _, d := range cwdsOf([]string{cwd}, t) {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

// placesOf is every path v names from the directories bases.
func placesOf(v string, bases []string) []string {
	if path.IsAbs(v) {
		return []string{path.Clean(v)}
	}
	out := make([]string, 0, len(bases))
	for _, b := range bases {
		out = append(out, path.Join(b, v))
	}
	return out
}

func slicesHas(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// remoteCopies lists what a copy from another host writes: scp's and
// rsync's destination (and the copied file in it) when a source is
// HOST:PATH, and the directory `git clone URL [DIR]` fills (returned as
// dir: every file under it was downloaded).
func remoteCopies(c *facts.Call) (files []string, dir string) {
	if c.Prog == nil {
		return nil, ""
	}
	git := c.Prog.Scanner == p.ScanGit
	if !git && (!c.Prog.Kind.Has(p.NetworkClient) || c.Prog.Targets != p.CopiesTo) {
		return nil, "" // neither a clone nor a download: its operands are not listed
	}
	var ops []string
	for _, a := range c.Argv[1:] {
		if a.Static && !strings.HasPrefix(a.Value, "-") {
			ops = append(ops, a.Value)
		}
	}
	if git {
		if len(ops) < 2 || ops[0] != "clone" || !strings.Contains(ops[1], "://") && remotePath(ops[1]) == "" {
			return nil, "" // not a clone, or one from a local directory
		}
		if len(ops) >= 3 {
			return nil, ops[2]
		}
		return nil, strings.TrimSuffix(path.Base(ops[1]), ".git")
	}
	if !c.Prog.Kind.Has(p.NetworkClient) || c.Prog.Targets != p.CopiesTo || len(ops) < 2 {
		return nil, ""
	}
	dest := ops[len(ops)-1]
	if remotePath(dest) != "" {
		return nil, "" // an upload
	}
	for _, src := range ops[:len(ops)-1] {
		if rp := remotePath(src); rp != "" {
			files = append(files, dest, path.Join(dest, path.Base(rp)))
		}
	}
	return files, ""
}

// remotePath is the path of a [USER@]HOST:PATH operand, "" for a local one
// (a path with a / before any colon, or a URL).
func remotePath(v string) string {
	i := strings.IndexByte(v, ':')
	if i <= 0 || strings.Contains(v[:i], "/") || strings.HasPrefix(v[i:], "://") {
		return ""
	}
	return v[i+1:]
}

// downloadedFiles lists the files a download may write: its standard
// output's redirect targets and the static words of its command line that
// may name a file (not URLs, options, @uploads or - for stdout).
func downloadedFiles(c *facts.Call) []string {
	var out []string
	for _, r := range c.Redirs {
		if (r.N == "" || r.N == "1") && r.Target.Static && (r.Op == syntax.RdrOut || r.Op == syntax.AppOut || r.Op == syntax.RdrAll || r.Op == syntax.AppAll || r.Op == syntax.RdrClob) {
			out = append(out, r.Target.Value)
		}
	}
	for _, a := range c.Argv[1:] {
		v := a.Value
		if _, val, ok := strings.Cut(v, "="); ok && strings.HasPrefix(v, "--") {
			v = val // --output=F, --output-document=F
		}
		if !a.Static || v == "" || v == "-" || strings.HasPrefix(v, "-") || strings.HasPrefix(v, "@") {
			continue
		}
		if _, rest, ok := strings.Cut(v, "://"); ok {
			// wget URL and curl -O URL name the file after the URL's last
			// path element.
			rest, _, _ = strings.Cut(rest, "?")
			if i := strings.LastIndexByte(rest, '/'); i >= 0 && i+1 < len(rest) {
				out = append(out, rest[i+1:])
			}
			continue
		}
		out = append(out, v)
	}
	return out
}

// ranFile is the file a call runs as a script or a program, "" if none.
func ranFile(c *facts.Call) string {
	if c.ScriptFile != "" {
		return c.ScriptFile
	}
	if c.Prog == nil && strings.Contains(c.Name, "/") {
		return c.Name
	}
	return ""
}

// downloads reports a downloader or a read from a network path.
func downloads(c *facts.Call) bool {
	if c.Prog != nil && c.Prog.Kind.Has(p.Downloader) {
		return true
	}
	if c.Stdin != nil && c.Stdin.Kind == facts.FromFile && isNetPath(c.Stdin.Target.Value) {
		return true
	}
	for _, a := range c.Argv[1:] {
		if a.Static && isNetPath(a.Value) {
			return true
		}
	}
	return false
}

func isNetPath(v string) bool {
	return strings.HasPrefix(v, "/dev/tcp/") || strings.HasPrefix(v, "/dev/udp/")
}

// readsScriptStdin reports a shell or interpreter that reads its program
// from standard input.
func readsScriptStdin(c *facts.Call) bool {
	// source /dev/stdin and . /dev/fd/0 run what they read as the shell's
	// own script.
	return c.ScriptStdin && c.Prog != nil && (c.Prog.Kind.Any(p.Shell|p.Interpreter) || c.Prog.Runs != nil && c.Prog.Runs.Script)
}

// scriptFromArgs reports a shell or interpreter started by a program that
// builds its arguments from its standard input (xargs) whose code is one
// of those words: sh -c {} with -I, or bash -c with the input appended
// after the -c (curl … | xargs -0 bash -c runs the download).
func scriptFromArgs(c *facts.Call) bool {
	if c.Via == nil || c.Via.Prog == nil || c.Via.Prog.Runs == nil || !c.Via.Prog.Runs.StdinArgs ||
		c.Prog == nil || !c.Prog.Kind.Any(p.Shell|p.Interpreter) {
		return false
	}
	for _, w := range c.Argv[1:] {
		if w.Hole {
			return true
		}
	}
	last := c.Argv[len(c.Argv)-1]
	return c.Tail && len(c.Argv) > 1 && last.Static && strings.HasPrefix(last.Value, "-")
}

// shellFromDownload: a shell, interpreter, source or eval given a
// download through a substitution (bash <(curl …), sh -c "$(curl …)",
// bash < <(curl …), sh <<< "$(curl …)") or a network path as input.
func (b *blChecker) shellFromDownload(bc *blCall) *BlacklistEntry {
	runsText := bc.prog.Kind.Any(p.Shell|p.Interpreter) || bc.prog.Runs != nil && (bc.prog.Runs.Script || bc.prog.Runs.Joined && bc.prog.Kind.Has(p.Builtin))
	if !runsText {
		return nil
	}
	for _, a := range bc.args {
		if a.Node != nil && b.substDownloads(a.Node) {
			return blEntry("download-to-shell")
		}
		if a.Static && isNetPath(a.Value) {
			return blEntry("download-to-shell")
		}
	}
	if in := bc.c.Stdin; in != nil {
		switch {
		case in.Kind == facts.FromFile && isNetPath(in.Target.Value):
			return blEntry("download-to-shell")
		case in.Kind == facts.FromFd && b.fdDownloads(in.Target.Value):
			return blEntry("download-to-shell")
		case in.Node != nil && b.substDownloads(in.Node):
			return blEntry("download-to-shell")
		}
	}
	return nil
}

// substDownloads reports a substitution under n that runs a downloader.
func (b *blChecker) substDownloads(n syntax.Node) bool {
	found := false
	shwalk.Walk(n, func(x syntax.Node) bool {
		if ce, ok := x.(*syntax.CallExpr); ok && !found {
			for _, c := range b.t.Calls {
				if c.Node == ce && downloads(c) {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// fdDownloads reports a descriptor the text opened on /dev/tcp or
// /dev/udp, or on a substitution that downloads (exec 3< <(curl …)).
func (b *blChecker) fdDownloads(fd string) bool {
	for _, c := range b.t.Calls {
		for _, r := range c.Redirs {
			if r.N == fd && (r.Target.Static && isNetPath(r.Target.Value) || r.Node != nil && b.substDownloads(r.Node)) {
				return true
			}
		}
	}
	return false
}

// forkBombs finds functions that reach themselves (directly or through
// other functions) at least twice, one of those in a pipeline or in the
// background: :(){ :|:& };: and every renamed or mutually recursive form.
func forkBombs(t *facts.Tree) *BlacklistEntry {
	if len(t.Funcs) == 0 {
		return nil // the common case: no function, no maps to make
	}
	calls := map[string][]string{} // function → functions its body calls
	spawns := map[string]bool{}    // its body calls a function in a pipe or background
	counts := map[string]int{}
	for name, decls := range t.Funcs {
		for _, fd := range decls {
			shwalk.Walk(fd.Body, func(n syntax.Node) bool {
				switch n := n.(type) {
				case *syntax.Stmt:
					if ce, ok := n.Cmd.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
						if callee, ok := facts.Static(ce.Args[0]); ok && t.Funcs[callee] != nil {
							calls[name] = append(calls[name], callee)
							counts[name]++
							if n.Background {
								spawns[name] = true
							}
						}
					}
				case *syntax.BinaryCmd:
					if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
						for _, side := range []*syntax.Stmt{n.X, n.Y} {
							if ce, ok := side.Cmd.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
								if callee, ok := facts.Static(ce.Args[0]); ok && t.Funcs[callee] != nil {
									spawns[name] = true
								}
							}
						}
					}
				}
				return true
			})
		}
	}
	for name := range calls {
		if spawns[name] && counts[name] >= 2 && reaches(calls, name, name, map[string]bool{}) {
			return blEntry("fork-bomb")
		}
	}
	return startedBombs(t)
}

// startedBombs finds the same recursion in the calls a function's body
// starts by any route the facts read — eval's text (f(){ eval f\|f\&; }),
// a launcher's argv, a -c script (an exported function) — as well as
// directly: each call is owned by the function whose body holds it or
// the call that started it, and spawns when it, or a call above it, is a
// pipeline's element, runs in the background or in a command or process
// substitution (each a new process: f(){ echo $(f) $(f) & }).
func startedBombs(t *facts.Tree) *BlacklistEntry {
	inBody := map[*syntax.Stmt]string{}
	for name, decls := range t.Funcs {
		for _, fd := range decls {
			shwalk.Walk(fd.Body, func(n syntax.Node) bool {
				if s, ok := n.(*syntax.Stmt); ok {
					inBody[s] = name
				}
				return true
			})
		}
	}
	piped := map[*facts.Call]bool{}
	for _, pipe := range t.Pipes {
		if len(pipe) > 1 {
			for _, elem := range pipe {
				for _, c := range elem {
					piped[c] = true
				}
			}
		}
	}
	calls := map[string][]string{}
	spawns := map[string]bool{}
	for _, c := range t.Calls {
		if t.Funcs[c.Name] == nil {
			continue
		}
		owner, spawn := "", false
		for x := c; x != nil && owner == ""; x = x.Via {
			spawn = spawn || piped[x] || x.InSubst || x.Stmt != nil && x.Stmt.Background
			if x.Stmt != nil {
				owner = inBody[x.Stmt]
			}
		}
		if owner == "" {
			continue
		}
		calls[owner] = append(calls[owner], c.Name)
		spawns[owner] = spawns[owner] || spawn
	}
	for name := range calls {
		if spawns[name] && len(calls[name]) >= 2 && reaches(calls, name, name, map[string]bool{}) {
			return blEntry("fork-bomb")
		}
	}
	return nil
}

// reaches reports whether from's calls lead back to target.
func reaches(calls map[string][]string, from, target string, seen map[string]bool) bool {
	for _, c := range calls[from] {
		if c == target {
			return true
		}
		if !seen[c] {
			seen[c] = true
			if reaches(calls, c, target, seen) {
				return true
			}
		}
	}
	return false
}

// floods: processes started without bound — an endless loop that leaves
// one behind each turn (facts' Floods), or a launcher running its commands
// with no limit on how many at once (xargs -P 0, parallel -j 0, or a
// limit past any process table) fed by a pipe that never ends (yes, a
// read of /dev/zero or /dev/urandom).
func floods(t *facts.Tree) *BlacklistEntry {
	if len(t.Floods) > 0 {
		return blEntry("fork-bomb")
	}
	for _, pipe := range t.Pipes {
		endless := false
		for _, calls := range pipe {
			if endless {
				for _, c := range calls {
					if unboundedConcurrency(c) {
						return blEntry("fork-bomb")
					}
				}
			}
			endless = false
			for _, c := range calls {
				if endlessOutput(c) {
					endless = true
				}
			}
		}
	}
	return nil
}

// maxSaneConcurrency is past any process table a command could mean.
const maxSaneConcurrency = 4096

// unboundedConcurrency reports a launcher told to run its commands with no
// limit on how many at once.
func unboundedConcurrency(c *facts.Call) bool {
	if c.Prog == nil || c.Prog.Opts == nil {
		return false
	}
	for _, f := range c.Prog.Opts.Parse(argsOf(c.Argv[1:])).Found {
		if f.Opt.Effect != p.Concurrency || !f.HasValue {
			continue
		}
		if !f.ValueStatic {
			return true // computed: may be 0
		}
		n, err := strconv.Atoi(strings.TrimSuffix(f.Value, "%"))
		if err == nil && (n <= 0 || n >= maxSaneConcurrency) {
			return true
		}
	}
	return false
}

// endlessOutput reports a call whose output never ends: a program that
// writes without end, or one reading a device that never runs dry.
func endlessOutput(c *facts.Call) bool {
	if c.Prog != nil && c.Prog.Endless {
		return true
	}
	if c.Prog == nil || !c.Prog.Kind.Has(p.Reader) {
		return false
	}
	for _, a := range c.Argv[1:] {
		if a.Static && endlessDevice(a.Value) {
			return true
		}
	}
	for _, r := range c.Redirs {
		if r.Op == syntax.RdrIn && r.Target.Static && endlessDevice(r.Target.Value) {
			return true
		}
	}
	return false
}

func endlessDevice(v string) bool {
	switch path.Clean(v) {
	case "/dev/zero", "/dev/urandom", "/dev/random", "/dev/full":
		return true
	}
	return false
}

// downloadOutputs are the files a downloader's output options name: curl
// -o F (also ending a cluster: -sSo F), --output F, wget -O F,
// --output-document=F (an upload's file is read, not written).
func downloadOutputs(args []facts.Word) []facts.Word {
	var out []facts.Word
	for i, a := range args {
		if !a.Static {
			continue
		}
		v := a.Value
		switch {
		case v == "--output" || v == "--output-document":
			if i+1 < len(args) {
				out = append(out, args[i+1])
			}
		case strings.HasPrefix(v, "--output=") || strings.HasPrefix(v, "--output-document="):
			_, f, _ := strings.Cut(v, "=")
			out = append(out, facts.Word{Value: f, Static: true, Raw: a.Raw})
		case len(v) > 1 && v[0] == '-' && v[1] != '-':
			if k := strings.IndexAny(v, "oO"); k > 0 {
				if k+1 < len(v) {
					out = append(out, facts.Word{Value: v[k+1:], Static: true, Raw: a.Raw})
				} else if i+1 < len(args) {
					out = append(out, args[i+1])
				}
			}
		}
	}
	return out
}

// braceOperands spells out operands a brace expansion makes several of
// (mv /etc/passwd{,.bak} is mv /etc/passwd /etc/passwd.bak), so the
// operands' positions are bash's.
func (b *blChecker) braceOperands(ops []facts.Word) []facts.Word {
	var out []facts.Word
	changed := false
	for _, o := range ops {
		if o.Node != nil && !o.Hole && strings.ContainsAny(o.Raw, "{") {
			if vals, _ := b.expand(o.Node); len(vals) > 1 {
				for _, v := range vals {
					out = append(out, facts.Word{Value: v, Static: true, Raw: o.Raw})
				}
				changed = true
				continue
			}
		}
		out = append(out, o)
	}
	if !changed {
		return ops
	}
	return out
}

// targetDir reads a copier's or mover's target-directory option (-t DIR,
// -tDIR, a cluster ending in t, --target-directory=DIR or any prefix of
// it): the directory and the operands that are sources. ops are the
// call's operands as the blacklist split them (a separate DIR among them).
func targetDir(bc *blCall, ops []facts.Word) (dir facts.Word, srcs []facts.Word, ok bool) {
	var sep *facts.Word
	for i, a := range bc.args {
		if !a.Static {
			continue
		}
		v := a.Value
		switch {
		case strings.HasPrefix(v, "--"):
			name, val, has := strings.Cut(v[2:], "=")
			if len(name) < 3 || !strings.HasPrefix("target-directory", name) {
				continue
			}
			if has {
				dir, ok = facts.Word{Value: val, Static: true, Raw: a.Raw}, true
			} else if i+1 < len(bc.args) {
				dir, ok, sep = bc.args[i+1], true, &bc.args[i+1]
			}
		case len(v) > 1 && v[0] == '-' && strings.IndexByte(v, 't') > 0:
			k := strings.IndexByte(v, 't')
			if k+1 < len(v) {
				dir, ok = facts.Word{Value: v[k+1:], Static: true, Raw: a.Raw}, true
			} else if i+1 < len(bc.args) {
				dir, ok, sep = bc.args[i+1], true, &bc.args[i+1]
			}
		}
		if ok {
			break
		}
	}
	if !ok {
		return dir, nil, false
	}
	for _, o := range ops {
		if sep != nil && o.Raw == sep.Raw && o.Value == sep.Value {
			sep = nil // the directory word, counted once
			continue
		}
		srcs = append(srcs, o)
	}
	return dir, srcs, true
}
