package classify

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/agentexec/agentexec/gate/programs"
)

// finding is one rule's finding: a class, the rule's name, and a sentence
// naming the fact it rests on.
type finding struct {
	s    Safety
	rule string
	why  string
}

// argv is a simple command after quote removal. vals[i] is the static value
// of argument i; dyn[i] is true when that argument is computed at run time
// or is a glob pattern, in which case vals[i] must not be trusted.
type argv struct {
	name  string
	vals  []string
	dyn   []bool
	pre   []string // for a dynamic argument, its leading literal text (`--signal=` of `--signal="$S"`)
	multi []bool   // the argument may expand to other than one word (unquoted expansion, glob); nil: unknown
	inner bool     // run by find -exec, not by the shell: no builtins
}

// newArgv makes an argv with room for n arguments: one array for the
// strings and one for the flags, split between the fields.
func newArgv(name string, n int) argv {
	strs, flags := make([]string, 2*n), make([]bool, 2*n)
	return argv{name: name, vals: strs[:0:n], pre: strs[n:n], dyn: flags[:0:n], multi: flags[n:n]}
}

// dynamic reports whether any argument is computed at run time or globbed.
func (a argv) dynamic() bool {
	for _, d := range a.dyn {
		if d {
			return true
		}
	}
	return false
}

// commandRule classifies one known command.
type commandRule func(w *walker, a argv) finding

// scannerRules are the classifier's routines for the programs whose table
// entry names a scanner: what their arguments do decides.
var scannerRules map[programs.Scanner]commandRule

// The table is read at first use: scannerRules refers to findRule, which
// dispatches back into it.
func init() {
	scannerRules = map[programs.Scanner]commandRule{
		programs.ScanSed: sedRule, programs.ScanAwk: awkRule, programs.ScanFind: findRule,
		programs.ScanGit: gitCommandRule, programs.ScanKill: killRule, programs.ScanTest: testRule,
		programs.ScanPrintf: printfRule, programs.ScanDD: ddRule, programs.ScanEnv: envRule,
		programs.ScanCd: cdRule, programs.ScanHistory: historyRule, programs.ScanUlimit: ulimitRule,
		programs.ScanCommand: commandBuiltinRule, programs.ScanSet: setRule, programs.ScanXxd: xxdRule,
		programs.ScanRg: rgRule, programs.ScanSpec: specRule, programs.ScanTar: tarRule,
	}
}

func readOnlyRule(_ *walker, a argv) finding {
	return finding{ReadOnly, "read-only-command", "`" + a.name + "` only reads"}
}

func writeRule(_ *walker, a argv) finding {
	if p := programs.Lookup(a.name); p != nil && len(p.Defuses) > 0 && !a.dynamic() {
		if f, ok := defusedRule(p, a); ok {
			return f
		}
	}
	if hasHelp(a) {
		return finding{Unknown, "write-command-help", "`" + a.name + " --help` prints help instead of writing, which the rules do not prove"}
	}
	return finding{Write, "write-command", "`" + a.name + "` is a file-system writer"}
}

// defusedRule classifies a writer given one of its list-mode words. With
// an option grammar in the table, only a word read as an option counts (in
// `gzip -S -c f` the -c is -S's value, and gzip compresses f in place),
// every option must be known, and an option that writes or runs something
// decides; without one, the words are matched as they stand.
func defusedRule(p *programs.Program, a argv) (finding, bool) {
	listMode := finding{ReadOnly, "list-mode", fmt.Sprintf("`%s %s` only lists, tests or writes to standard output", a.name, strings.Join(a.vals, " "))}
	if p.Opts == nil {
		return listMode, listsOnly(p.Defuses, a.vals)
	}
	parsed := p.Opts.Parse(staticArgs(a.vals))
	if f, _ := optionFinding(a.name, parsed); f.s == Write || f.s == Unknown {
		return f, true
	}
	for _, f := range parsed.Found {
		spelled := "-" + f.Name
		if f.Long {
			spelled = "--" + f.Name
		}
		if slices.Contains(p.Defuses, spelled) {
			return listMode, true
		}
	}
	return finding{}, false
}

// listsOnly reports an argument list holding one of a writer's list-mode
// words, alone or in a short cluster (gzip -dc, unzip -l).
func listsOnly(words, vals []string) bool {
	for _, v := range vals {
		if v == "--" {
			return false
		}
		for _, w := range words {
			if v == w || len(w) == 2 && w[0] == '-' && len(v) > 2 && v[0] == '-' && v[1] != '-' && strings.IndexByte(v[1:], w[1]) >= 0 {
				return true
			}
		}
	}
	return false
}

func viewerRule(_ *walker, a argv) finding {
	return finding{Unknown, "pager-or-editor", "`" + a.name + "` is a pager or editor that can run commands"}
}

// hasHelp reports a --help or --version before any `--`.
func hasHelp(a argv) bool {
	for i, v := range a.vals {
		if a.dyn[i] {
			continue
		}
		if v == "--" {
			return false
		}
		if v == "--help" || v == "--version" {
			return true
		}
	}
	return false
}

// dispatch finds the rule for a command name in the programs table. The
// order matters: the table wins over a user's vouch, and the refusal floor
// can never be vouched.
func (w *walker) dispatch(a argv) finding { return w.dispatchProg(a, programs.Lookup(a.name)) }

// dispatchProg is dispatch with a's table entry (programs.Lookup) at hand.
func (w *walker) dispatchProg(a argv, p *programs.Program) finding {
	if p != nil {
		if f, ok := w.byProgram(p, a); ok {
			return f
		}
	}
	if kind := floorKind(a.name); kind != "" {
		return finding{Unknown, kind, "`" + a.name + "` is " + floorWhy(a.name) + "; it is never unwrapped"}
	}
	if w.vouched[a.name] {
		return vouchedRule(w, a)
	}
	return finding{Unknown, "unlisted-command", "`" + a.name + "` is not a command the rules know"}
}

// byProgram classifies a command by its table entry: its scanner, else
// its kind. ok is false for a program the classifier has no reading of
// (a network client, a disk tool), which falls through to the floor.
func (w *walker) byProgram(p *programs.Program, a argv) (finding, bool) {
	if rule, ok := scannerRules[p.Scanner]; ok {
		return rule(w, a), true
	}
	switch {
	case p.Kind.Has(programs.Reader):
		return readOnlyRule(w, a), true
	case p.Kind.Has(programs.Writer):
		return writeRule(w, a), true
	case p.Kind.Has(programs.Viewer):
		return viewerRule(w, a), true
	case p.Kind.Any(programs.Floor) && probeForm(p, a):
		return finding{ReadOnly, "version-query", fmt.Sprintf("`%s %s` only prints a version or help", a.name, strings.Join(a.vals, " "))}, true
	}
	return finding{}, false
}

// probeForm reports an argument list that is exactly one of the program's
// version or help forms.
func probeForm(p *programs.Program, a argv) bool {
	if a.dynamic() || a.inner {
		return false
	}
	return p.IsProbe(len(a.vals), func(i int) string { return a.vals[i] })
}

// vouchedRule classifies a user-vouched command like cat, as long as every
// argument is a plain static word that names no command able to write or
// run code (so a vouched tool cannot smuggle `rm` through as an argument it
// runs), it carries none of git's redirecting options, and a git-shaped
// verb passes git's own rules (a vouched root may be a git frontend).
func vouchedRule(w *walker, a argv) finding {
	for i, v := range a.vals {
		if a.dyn[i] || !(vouchPlainWord(v) || (a.inner && v == "{}")) {
			return finding{Unknown, "vouched-command-argument", fmt.Sprintf("vouched `%s` has an argument that is not a plain static word", a.name)}
		}
		for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == '=' || r == ',' || r == ':' }) {
			base := part[strings.LastIndexByte(part, '/')+1:]
			if vouchArgIsCommand(base) {
				return finding{Unknown, "vouched-command-argument", fmt.Sprintf("vouched `%s` is given the command name `%s` as an argument", a.name, base)}
			}
		}
	}
	if f, bad := vouchedGitShape(w, a); bad {
		return f
	}
	return finding{ReadOnly, "vouched-command", "`" + a.name + "` is vouched read-only by the user's configuration"}
}

// vouchArgIsCommand reports whether an argument names a command that a
// vouched tool could run to write or run code: anything the table knows
// that is not a plain reader, or anything on the refusal floor. Read-only
// commands and shell builtins (which no program can exec) do not count,
// as in the peer (Qwen vouched-roots `ib list .`, `mytool export data`,
// `gitw diff` → read-only).
func vouchArgIsCommand(base string) bool {
	if base == "" {
		return false
	}
	if p := programs.Lookup(base); p != nil {
		return !plainReader(p) && !p.Kind.Has(programs.Builtin)
	}
	if p := programs.Family(base); p != nil {
		return !plainReader(p) && !p.Kind.Has(programs.Builtin)
	}
	return false
}

// plainReader reports a program the classifier reads as read-only by its
// kind alone.
func plainReader(p *programs.Program) bool {
	return p.Kind.Has(programs.Reader) && p.Scanner == "" && !p.Kind.Any(programs.Floor|programs.Writer)
}

// vouchPlainWord reports whether v holds only letters, digits and _ @ % + = : , . / -.
func vouchPlainWord(v string) bool {
	for _, r := range v {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("_@%+=:,./-", r):
		case r > 127 && (isLetterOrDigit(r)):
		default:
			return false
		}
	}
	return true
}

func isLetterOrDigit(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// floorKind returns the refusal-floor class of name — "shell",
// "interpreter", "wrapper", "build-tool", "state-builtin", "viewer",
// "write-command", "system-tool" — or "" when a user may vouch it. The
// table's entry decides, found under any versioned, suffixed or
// differently-cased spelling (python3.12, node20, gcc-13, bash.exe,
// Python3): only plain readers are off the floor.
func floorKind(name string) string {
	p := programs.Family(name)
	if p == nil || plainReader(p) {
		return ""
	}
	k := p.Kind
	switch {
	case k.Has(programs.Shell):
		return "shell"
	case k.Has(programs.Interpreter):
		return "interpreter"
	case k.Any(programs.Launcher | programs.Privilege | programs.Emulator):
		return "wrapper"
	case k.Any(programs.BuildTool | programs.PackageManager | programs.Compiler):
		return "build-tool"
	case k.Has(programs.StateBuiltin):
		return "state-builtin"
	case k.Has(programs.Viewer):
		return "viewer"
	case k.Has(programs.Writer):
		return "write-command"
	case k.Has(programs.Reader) && p.Scanner != "":
		return ""
	}
	return "system-tool"
}

// floorWhy says what a floor name is, from its table entry.
func floorWhy(name string) string {
	if p := programs.Family(name); p != nil && p.Why != "" {
		if strings.HasPrefix(p.Why, "a ") || strings.HasPrefix(p.Why, "an ") {
			return p.Why
		}
		// A phrase that says what it does ("runs a command as a
		// systemd unit"), as the table words most entries.
		return "a command that " + p.Why
	}
	return "a command that runs code or changes state"
}

// refusalFloor reports whether name can never be vouched read-only by a
// user: shells, interpreters (in any versioned spelling), wrappers that
// run another command, build tools, builtins that plant shell state, the
// known writers and system tools. Names with a path are refused too, since
// vouches name commands, not files.
func refusalFloor(name string) bool {
	return strings.ContainsAny(name, "/\\") || floorKind(name) != ""
}
