package classify

import (
	"fmt"
	"strings"

	"github.com/agentexec/agentexec/gate/programs"
	"github.com/agentexec/agentexec/internal/lazy"
)

// Per-tool argv rules. Tools whose options can write or run programs are
// read with an accept-list: every option they may use is listed with its
// value arity, and any option not listed is Unknown. A deny-list cannot
// converge (sort alone has six spellings of its output option once
// clusters and abbreviations count), an accept-list fails closed.

// specRule classifies a program by the option grammar and operand rule of
// its table entry: every option must be one the table knows (an accept-
// list: a deny-list cannot converge — sort alone has six spellings of its
// output option once clusters and abbreviations count), an option that
// writes makes it Write, one that runs a program or is not proven harmless
// makes it Unknown, and then its operands decide.
func specRule(_ *walker, a argv) finding {
	p := programs.Lookup(a.name)
	if p == nil || p.Opts == nil {
		return finding{Unknown, "unlisted-command", fmt.Sprintf("`%s` is not a command the rules know", a.name)}
	}
	if a.dynamic() {
		return finding{Unknown, "dynamic-argument", fmt.Sprintf("`%s` has an argument computed at run time, which could be any option", a.name)}
	}
	parsed := p.Opts.Parse(staticArgs(a.vals))
	f, help := optionFinding(a.name, parsed)
	if help && (f.s == Write || p.Opts.HelpUnproven) {
		// Help wins over the write in the tool, but the rules do not
		// prove it (Qwen shellAstParser `sort -o output --help` → unknown).
		return finding{Unknown, a.name + "-help", fmt.Sprintf("`%s --help` prints help instead of writing, which the rules do not prove", a.name)}
	}
	if f.s == Write || f.s == Unknown {
		return f
	}
	return operandsRule(p, a, operandValues(a.vals, parsed))
}

func staticArgs(vals []string) []programs.Arg {
	out := make([]programs.Arg, len(vals))
	for i, v := range vals {
		out[i] = programs.Arg{Value: v, Static: true}
	}
	return out
}

func operandValues(vals []string, parsed programs.Parsed) []string {
	out := make([]string, len(parsed.Operands))
	for i, j := range parsed.Operands {
		out[i] = vals[j]
	}
	return out
}

// optionFinding is the worst class the options give, and whether help
// was asked for.
func optionFinding(tool string, parsed programs.Parsed) (finding, bool) {
	var worst finding
	note := func(s Safety, rule, why string) {
		if worst.s == "" || Merge(worst.s, s) != worst.s {
			worst = finding{s, rule, why}
		}
	}
	if parsed.Unknown != "" {
		note(Unknown, "unknown-option", fmt.Sprintf("`%s` option `-%s` is not one the rules know", tool, strings.TrimLeft(parsed.Unknown, "-")))
	}
	help := false
	for _, f := range parsed.Found {
		rule := tool + "-" + f.Name
		switch f.Opt.Effect {
		case programs.Help:
			help = true
		case programs.Writes:
			switch {
			case f.Long && f.Spelled != f.Name:
				// Qwen shellAstParser `sort --out=output` → unknown: the peer
				// does not resolve abbreviations of writing options.
				note(Unknown, rule, fmt.Sprintf("`%s` abbreviates a writing option (value %q)", tool, f.Value))
			case f.InCluster:
				// Qwen shellAstParser `sort -roout`, `tree -Cofile` → unknown:
				// the peer does not read a writing option inside a cluster.
				note(Unknown, rule, fmt.Sprintf("`%s` has a writing option inside a cluster (value %q)", tool, f.Value))
			case f.Opt.Arity == programs.ReqArg && f.Value == "":
				// Qwen shellAstParser `sort --output=` → unknown.
				note(Unknown, rule, fmt.Sprintf("the output option has an empty value (%s)", rule))
			default:
				note(Write, rule, whyOf(f))
			}
		case programs.Harmless:
			if f.Name == "help" || f.Name == "version" {
				help = true
			}
		default:
			note(Unknown, rule, whyOf(f))
		}
	}
	return worst, help
}

// whyOf completes an option's reason with its value.
func whyOf(f programs.Found) string {
	if strings.Contains(f.Opt.Why, "%") {
		return fmt.Sprintf(f.Opt.Why, f.Value)
	}
	if f.Opt.Why != "" {
		return f.Opt.Why
	}
	return fmt.Sprintf("option `%s` is not proven harmless", f.Name)
}

// operandsRule applies the table's operand rule.
func operandsRule(p *programs.Program, a argv, ops []string) finding {
	switch p.Operands {
	case programs.SecondWrites:
		if len(ops) >= 2 && !inertTargets.Has(ops[1]) {
			return finding{Write, a.name + "-output", fmt.Sprintf("`%s IN OUT` writes its output to %q", a.name, ops[1])}
		}
	case programs.OperandsWrite:
		for _, f := range ops {
			if !inertTargets.Has(f) {
				return finding{Write, a.name + "-file", fmt.Sprintf("`%s` writes to the file %q", a.name, f)}
			}
		}
		if len(ops) == 0 {
			// Qwen shellAstParser `tee` → unknown: the peer proves tee only
			// through its file operands.
			return finding{Unknown, a.name + "-usage", fmt.Sprintf("`%s` without a file operand is not proven read-only by the peer's rules", a.name)}
		}
		return finding{ReadOnly, a.name + "-stdout", fmt.Sprintf("`%s` without a file only copies its input to its output", a.name)}
	case programs.NonPlusWrites:
		for _, o := range ops {
			if !strings.HasPrefix(o, "+") {
				return finding{Write, a.name + "-set", fmt.Sprintf("`%s %s` sets the system clock", a.name, o)}
			}
		}
	case programs.AnyWrites:
		if len(ops) > 0 {
			return finding{Write, a.name + "-set", fmt.Sprintf("`%s %s` changes system state", a.name, ops[0])}
		}
	case programs.ResponseFiles:
		for _, o := range ops {
			if strings.HasPrefix(o, "@") {
				return finding{Unknown, a.name + "-response-file", fmt.Sprintf("`%s` reads more options from the file %q, which the rules cannot see", a.name, o[1:])}
			}
		}
	case programs.AnyUnproven, programs.NoOperands:
		if len(ops) > 0 {
			return finding{Unknown, a.name + "-operand", fmt.Sprintf("`%s` with an operand does more than print", a.name)}
		}
	}
	return readOnlyRule(nil, a)
}

// rgRule reads ripgrep's flags; a config file named by RIPGREP_CONFIG_PATH
// can add --pre to every run, so its presence in the environment is Unknown.
func rgRule(w *walker, a argv) finding {
	if w != nil && envHas(w.opt.Env, "RIPGREP_CONFIG_PATH") {
		return finding{Unknown, "rg-config", "RIPGREP_CONFIG_PATH names a config file that may add --pre to every ripgrep run"}
	}
	return specRule(w, a)
}

func envHas(env []string, name string) bool {
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k == name {
			return true
		}
	}
	return false
}

// tarRemote reports an archive name GNU tar reads as [user@]host:file — a
// colon with no slash before it — which it reaches by starting rsh (or
// --rsh-command) and the remote rmt, unless --force-local. Without -f,
// $TAPE names the archive.
func tarRemote(w *walker, parsed programs.Parsed) (string, bool) {
	if parsed.Has("force-local") {
		return "", false
	}
	var names []string
	for _, f := range parsed.Found {
		if f.Name == "f" || f.Name == "file" {
			names = append(names, f.Value)
		}
	}
	if len(names) == 0 && w != nil {
		names = append(names, envValue(w.opt.Env, "TAPE"))
	}
	for _, n := range names {
		if i := strings.IndexByte(n, ':'); i > 0 && !strings.Contains(n[:i], "/") {
			return n, true
		}
	}
	return "", false
}

// envValue is the value of name in env, "" when it is not set.
func envValue(env []string, name string) string {
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v
		}
	}
	return ""
}

// ddOperands are dd's key=value operands that do not write.
var ddOperands = lazy.NewSet(
	"if", "bs", "ibs", "obs", "cbs", "skip",
	"iseek", "seek", "oseek", "count", "conv",
	"iflag", "oflag", "status",
)

func ddRule(_ *walker, a argv) finding {
	if a.dynamic() {
		return finding{Unknown, "dynamic-argument", "`dd` has an operand computed at run time"}
	}
	hasOf := false
	for _, v := range a.vals {
		k, val, ok := strings.Cut(v, "=")
		hasOf = hasOf || (k == "of" && ok)
		switch {
		case k == "of" && ok && !inertTargets.Has(val):
			return finding{Write, "dd-of", fmt.Sprintf("`dd of=%s` writes a file", val)}
		case k == "of" && ok, v == "--help", v == "--version":
		case !ok || !ddOperands.Has(k):
			return finding{Unknown, "unknown-option", fmt.Sprintf("`dd` operand %q is not one the rules know", v)}
		}
	}
	if !hasOf && len(a.vals) > 0 && !hasHelp(a) {
		// Qwen shellAstParser `dd if=input` → unknown: only an inert of=
		// is proven read-only.
		return finding{Unknown, "dd-no-of", "`dd` without of= is not proven read-only by the peer's rules"}
	}
	return readOnlyRule(nil, a)
}

// printfRule: -v assigns a variable (and evaluates its subscript), and a
// format computed at run time could be -v.
func printfRule(_ *walker, a argv) finding {
	i := 0
	if i < len(a.vals) && !a.dyn[i] && a.vals[i] == "--" {
		i++
	}
	switch {
	case i >= len(a.vals):
		return readOnlyRule(nil, a)
	case a.dyn[i]:
		return finding{Unknown, "printf-dynamic-format", "the `printf` format is computed at run time and could be -v"}
	case i == 0 && strings.HasPrefix(a.vals[i], "-v"):
		return finding{Unknown, "printf-v", "`printf -v` assigns a shell variable and evaluates its subscript"}
	case i == 0 && len(a.vals[i]) > 1 && a.vals[i][0] == '-' && a.vals[i] != "--help":
		return finding{Unknown, "unknown-option", fmt.Sprintf("`printf` option %q is not one the rules know", a.vals[i])}
	}
	return readOnlyRule(nil, a)
}

// killListing are kill/pkill/killall options that list or describe rather
// than signal (killall also reads the single-dash `-help`).
var killListing = lazy.NewSet(
	"-l", "-L", "--list", "--table", "-h",
	"--help", "-V", "--version", "-help",
)

// killRule: signalling a process is a write, except signal 0 (a probe),
// listing, and a signal computed at run time.
func killRule(_ *walker, a argv) finding {
	if len(a.vals) == 0 {
		return finding{Unknown, "kill-usage", fmt.Sprintf("`%s` without arguments signals nothing", a.name)}
	}
	for i := 0; i < len(a.vals); i++ {
		v := a.vals[i]
		if a.dyn[i] {
			if p := argPrefix(a, i); p == "-" || signalOption(a.name, p) {
				return finding{Unknown, "kill-dynamic-signal", fmt.Sprintf("the signal given to `%s` is computed at run time", a.name)}
			}
			continue
		}
		if v == "--" {
			break
		}
		if killListing.Has(v) || strings.HasPrefix(v, "--list") {
			return finding{Unknown, "kill-list", fmt.Sprintf("`%s %s` lists signals or prints help", a.name, v)}
		}
		sig, next, ok := signalValue(a.name, v)
		if !ok {
			continue
		}
		if next {
			i++
			if i >= len(a.vals) || a.dyn[i] {
				return finding{Unknown, "kill-dynamic-signal", fmt.Sprintf("the signal given to `%s` is computed at run time", a.name)}
			}
			sig = a.vals[i]
		}
		if isSignalZero(sig) {
			return finding{Unknown, "kill-signal-0", fmt.Sprintf("`%s` with signal 0 only probes whether a process exists", a.name)}
		}
	}
	return finding{Write, "process-signal", fmt.Sprintf("`%s` signals a process", a.name)}
}

// argPrefix is the literal text a dynamic argument starts with ("" when
// unknown, as for argvs built by find -exec).
func argPrefix(a argv, i int) string {
	if i < len(a.pre) {
		return a.pre[i]
	}
	return ""
}

// signalOption reports whether a dynamic word starting with p names the
// signal: `--signal=$S`, or `-s$S` where -s is the signal option.
func signalOption(name, p string) bool {
	switch {
	case strings.HasPrefix(p, "--signal"):
		return true
	case p == "-s":
		return name != "pkill"
	case p == "-n":
		return name == "kill"
	}
	return false
}

// signalValue finds a signal in an option: -s SIG / --signal SIG (next is
// true: the value is the next word), -sSIG, --signal=SIG, -SIG. kill also
// reads -n SIG. For pkill, -s is the session and -n "newest", and for
// killall -n is a namespace PID, so those are no signal options (Qwen
// shellAstParser: `pkill -n 0`, `pkill -s 0 process`, `killall -n0 process`
// → write).
func signalValue(name, v string) (sig string, next, ok bool) {
	sOpt := name != "pkill"
	nOpt := name == "kill"
	switch {
	case v == "--signal", v == "-s" && sOpt, v == "-n" && nOpt:
		return "", true, true
	case strings.HasPrefix(v, "--signal="):
		return v[len("--signal="):], false, true
	case strings.HasPrefix(v, "-s") && sOpt, strings.HasPrefix(v, "-n") && nOpt:
		return v[2:], false, true
	case len(v) > 1 && v[0] == '-' && v[1] != '-':
		return v[1:], false, true
	}
	return "", false, false
}

func isSignalZero(sig string) bool {
	s := strings.TrimPrefix(strings.ToUpper(sig), "SIG")
	return s != "" && strings.Trim(s, "0") == ""
}

// xxdRule: `xxd IN OUT` (with or without -r) writes OUT (xxd's grammar:
// programs.XxdOperands).
func xxdRule(_ *walker, a argv) finding {
	if a.dynamic() {
		return finding{Unknown, "dynamic-argument", "`xxd` has an argument computed at run time"}
	}
	ops, unknown := programs.XxdOperands(a.vals)
	if unknown != "" {
		return finding{Unknown, "unknown-option", fmt.Sprintf("`xxd` option %q is not one the rules know", unknown)}
	}
	if len(ops) >= 2 && !inertTargets.Has(a.vals[ops[1]]) {
		return finding{Write, "xxd-output", fmt.Sprintf("`xxd IN OUT` writes %q", a.vals[ops[1]])}
	}
	return readOnlyRule(nil, a)
}

// arithTestOps compare integers; under `[[` bash evaluates their operands
// as arithmetic.
var arithTestOps = lazy.NewSet("-eq", "-ne", "-lt", "-le", "-gt", "-ge")

// testRule classifies test, [ and (under sh) [[. `-v NAME` and `-R NAME`
// evaluate a subscript in NAME, and with [[ so do arithmetic operands. A
// computed word in an operator position could be either, so test's fixed
// argument-count grammar decides where computed words are safe.
func testRule(_ *walker, a argv) finding {
	if f, bad := testSplitRisk(a); bad {
		return f
	}
	args, dyn := a.vals, a.dyn
	if (a.name == "[" || a.name == "[[") && len(args) > 0 && !dyn[len(args)-1] {
		args, dyn = args[:len(args)-1], dyn[:len(dyn)-1]
	}
	for i, v := range args {
		if dyn[i] {
			continue
		}
		if (v == "-v" || v == "-R") && i+1 < len(args) && (dyn[i+1] || !isName(args[i+1])) {
			return finding{Unknown, "arithmetic-test", fmt.Sprintf("`%s %s` evaluates the subscript of its operand, which may run a command", a.name, v)}
		}
		if a.name == "[[" && arithTestOps.Has(v) && !intOperands(args, dyn, i) {
			return finding{Unknown, "arithmetic-test", fmt.Sprintf("`[[ … %s … ]]` evaluates its operands as arithmetic, which may run a command", v)}
		}
	}
	if !testDynSafe(dyn) {
		return finding{Unknown, "test-dynamic-operator", fmt.Sprintf("a computed word in `%s` could be an operator such as -v", a.name)}
	}
	return finding{ReadOnly, "test", fmt.Sprintf("`%s` only tests files and strings", a.name)}
}

func intOperands(args []string, dyn []bool, i int) bool {
	for _, j := range []int{i - 1, i + 1} {
		if j < 0 || j >= len(args) || dyn[j] || !isIntString(args[j]) {
			return false
		}
	}
	return true
}

func isIntString(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	return digitsOnly(s)
}

// testDynSafe reports whether computed words sit only where test reads an
// operand: with one argument anywhere, with two the second, with three the
// first and third.
func testDynSafe(dyn []bool) bool {
	switch len(dyn) {
	case 0, 1:
		return true
	case 2:
		return !dyn[0]
	case 3:
		return !dyn[1]
	}
	for _, d := range dyn {
		if d {
			return false
		}
	}
	return true
}

// envRule: `env` alone prints the environment; with anything else it runs
// a command or changes the environment of one.
func envRule(_ *walker, a argv) finding {
	if len(a.vals) == 0 {
		return finding{ReadOnly, "env-print", "`env` without arguments only prints the environment"}
	}
	return finding{Unknown, "wrapper", "`env` with arguments runs another command; wrappers are not unwrapped"}
}

// cdRule keeps the peer's compatibility: cd only moves this shell, but it is
// remembered because a later git cannot be judged in the new directory.
func cdRule(w *walker, a argv) finding {
	if a.inner {
		return finding{Unknown, "builtin-exec", fmt.Sprintf("`%s` is a shell builtin, not a program find can run", a.name)}
	}
	if w != nil {
		w.sawCd = true
	}
	return finding{ReadOnly, "cd", fmt.Sprintf("`%s` only changes this shell's directory", a.name)}
}

func sedRule(_ *walker, a argv) finding {
	if a.dynamic() {
		return finding{Unknown, "dynamic-argument", "`sed` has an argument computed at run time, which could be a script or an option"}
	}
	s, why := classifySed(a.vals)
	return finding{s.norm(), "sed", "sed: " + why}
}

func awkRule(_ *walker, a argv) finding {
	if a.dynamic() {
		return finding{Unknown, "dynamic-argument", fmt.Sprintf("`%s` has an argument computed at run time, which could be a program or an option", a.name)}
	}
	s, why := classifyAwk(a.vals)
	return finding{s.norm(), "awk", a.name + ": " + why}
}

// historyRule: listing the history reads it; -c -d -s change it and -w -a
// write the history file.
func historyRule(_ *walker, a argv) finding {
	switch {
	case len(a.vals) == 0, len(a.vals) == 1 && !a.dyn[0] && digitsOnly(a.vals[0]):
		return finding{ReadOnly, "history-list", "`history` only lists the shell history"}
	case !a.dynamic() && (contains1(a.vals, "-w") || contains1(a.vals, "-a")):
		return finding{Write, "history-write", "`history -w/-a` writes the history file"}
	}
	return finding{Unknown, "state-builtin", "`history` with options changes the shell history"}
}

// ulimitRule: options alone print limits; a value sets one.
func ulimitRule(_ *walker, a argv) finding {
	for i, v := range a.vals {
		if a.dyn[i] || !strings.HasPrefix(v, "-") {
			return finding{Unknown, "state-builtin", "`ulimit` with a value changes a resource limit for later commands"}
		}
	}
	return finding{ReadOnly, "ulimit-print", "`ulimit` without a value only prints limits"}
}

// commandBuiltinRule: `command -v/-V NAME` only describes NAME; any other
// form runs a command, bypassing functions, and is not unwrapped.
func commandBuiltinRule(_ *walker, a argv) finding {
	if len(a.vals) >= 2 && !a.dyn[0] && (a.vals[0] == "-v" || a.vals[0] == "-V") && !a.inner {
		return finding{ReadOnly, "command-v", "`command -v` only prints how a name would resolve"}
	}
	return finding{Unknown, "wrapper", "`command` runs another command; wrappers are not unwrapped"}
}

// setOptions are the options set may toggle without changing how later
// words are parsed or what runs: errexit, nounset, pipefail, xtrace (PS4
// from the environment is refused separately), noglob, noclobber, verbose,
// noexec.
var setOptions = lazy.NewSet("errexit", "nounset", "pipefail", "xtrace", "noglob", "noclobber", "verbose", "noexec")

// setRule accepts `set` alone (prints variables) and the option forms
// above; anything else (set -k, set +B, set -- args, set -T) is Unknown.
func setRule(_ *walker, a argv) finding {
	for i := 0; i < len(a.vals); i++ {
		v := a.vals[i]
		switch {
		case a.dyn[i]:
			return finding{Unknown, "state-builtin", "`set` has an argument computed at run time"}
		case len(v) > 1 && (v[0] == '-' || v[0] == '+') && strings.HasSuffix(v, "o") && strings.Trim(v[1:len(v)-1], "euxfCvn") == "":
			if i+1 >= len(a.vals) || a.dyn[i+1] || !setOptions.Has(a.vals[i+1]) {
				return finding{Unknown, "state-builtin", "`set -o` changes a shell option the rules do not model"}
			}
			i++
		case len(v) > 1 && (v[0] == '-' || v[0] == '+') && strings.Trim(v[1:], "euxfCvn") == "":
		default:
			return finding{Unknown, "state-builtin", fmt.Sprintf("`set %s` changes shell state the rules do not model", v)}
		}
	}
	return finding{ReadOnly, "set-options", "`set` only prints variables or toggles error-handling and tracing options"}
}

func contains1(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// tarRule: listing (-t, --list) with no option that runs a program, or
// extraction to standard output (-x -O), only reads; every other mode
// writes.
func tarRule(w *walker, a argv) finding {
	if a.dynamic() {
		return finding{Unknown, "dynamic-argument", "`tar` has an argument computed at run time, which could be any option"}
	}
	p := programs.Lookup(a.name)
	parsed := p.Opts.Parse(staticArgs(a.vals)) // the old-style key (tar tzf x.tgz) too: Options.Key
	f, _ := optionFinding(a.name, parsed)
	if f.s == Unknown || f.s == Write {
		return f
	}
	if name, ok := tarRemote(w, parsed); ok {
		return finding{Unknown, "tar-remote", fmt.Sprintf("`tar` reads %q as an archive on another host and starts a remote shell to reach it", name)}
	}
	switch {
	case parsed.Has("c", "create", "r", "append", "u", "update", "A", "catenate", "concatenate", "delete", "remove-files"):
		return finding{Write, "tar-write", "`tar` creates or changes an archive"}
	case parsed.Has("t", "list"):
		return finding{ReadOnly, "tar-list", "`tar -t` only lists an archive"}
	case parsed.Has("x", "extract", "get") && parsed.Has("O", "to-stdout"):
		return finding{ReadOnly, "tar-stdout", "`tar -xO` extracts to standard output"}
	case parsed.Has("x", "extract", "get", "d", "diff", "compare"):
		if parsed.Has("d", "diff", "compare") {
			return finding{ReadOnly, "tar-diff", "`tar -d` only compares"}
		}
		return finding{Write, "tar-extract", "`tar -x` writes the archive's files"}
	}
	return finding{Unknown, "tar-mode", "`tar` without a mode the rules know"}
}
