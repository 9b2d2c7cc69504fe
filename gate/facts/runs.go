package facts

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	p "github.com/agentexec/agentexec/gate/programs"
	"github.com/agentexec/agentexec/internal/lazy"
)

// runs reads what a call starts: by its program's entry in the table.
func (b *builder) runs(c *Call) {
	if c.Name == "" {
		why := "the command name `%s` is computed at run time"
		if c.Argv[0].Glob {
			why = "the command name `%s` is a glob pattern, which names whatever file matches"
		}
		b.hide(DynamicName, c.Span, c, why, clip(c.Argv[0].Raw))
		v, ok := Lenient(c.Argv[0].Node)
		if !ok {
			return
		}
		// $"rm" is rm to every stricter reader: read on as that name.
		c.Name, c.Base = v, path.Base(v)
	}
	prog := p.Lookup(c.Base)
	if prog == nil && c.Base != c.Name {
		prog = nil
	}
	c.Prog = prog
	if strings.Contains(c.Name, "/") && !path.IsAbs(c.Name) {
		b.hide(ProjectCode, c.Span, c, "`%s` runs the file %s from the working directory", clip(c.Name), clip(c.Name))
	}
	if strings.Contains(c.Name, "/") {
		b.writtenScript(c, c.Name, true)
	}
	if prog == nil {
		if sub, ok := strings.CutPrefix(c.Base, "git-"); ok && p.IsGitCommand(sub) {
			// git's commands are also programs of its exec path:
			// /usr/lib/git-core/git-push is `git push`.
			git := []Word{{Value: "git", Static: true, Raw: "git"}, {Value: sub, Static: true, Raw: sub}}
			b.argvCall(c, append(git, c.Argv[1:]...), fmt.Sprintf("`%s` is `git %s`, which", clip(c.Name), sub), false)
			return
		}
		b.guess(c, c.Argv[1:])
		return
	}
	args := c.Argv[1:]
	if prog.StdinCommands != p.NoStdinCommands {
		b.stdinCommands(c, prog, args)
	}
	if len(prog.EnvOptions) > 0 {
		b.envOptions(c, prog)
	}
	if len(prog.EnvCommands) > 0 {
		b.envCommands(c, prog, args)
	}
	if prog.Names != nil {
		b.names(c, prog, args)
	}
	if prog.Compound {
		b.compoundCall(c, args)
	}
	if prog.Declares {
		b.declCall(c, args)
	}
	if prog.Unsets {
		b.unsetCall(args)
	}
	if prog.Shopts {
		b.shoptCall(args)
	}
	switch {
	case prog.Runs != nil && prog.Runs.Opaque != "":
		if len(args) == 0 || !onlyListing(args) {
			// With no argument it acts on its standard input or the
			// history (crontab installs what it reads, fc reruns).
			b.hide(ShellState, c.Span, c, "%s, which the gate cannot read", prog.Runs.Opaque)
		}
	case prog.Runs != nil && prog.Runs.Alias:
		b.alias(c, args)
	case prog.Runs != nil && prog.Runs.Rebind:
		b.rebindDecl(c, args)
	case prog.Runs != nil && prog.Runs.Text:
		b.trap(c, prog, args)
	case prog.Kind.Has(p.Shell) && prog.Opts != nil:
		b.shell(c, prog, args)
	case prog.Kind.Has(p.Shell) && !prog.Kind.Has(p.Launcher):
		if len(args) > 0 || c.Stdin != nil {
			b.hide(Unreadable, c.Span, c, "`%s` is %s whose arguments the gate does not read", c.Base, prog.Why)
		}
	case prog.Scanner == p.ScanGit:
		b.git(c, args)
	case prog.Scanner == p.ScanFind:
		b.find(c, args)
	case prog.Scanner == p.ScanSed || prog.Scanner == p.ScanAwk || prog.Scanner == p.ScanSqlite:
		b.sub(c, prog, args)
	case prog.Scanner == p.ScanTar:
		b.uncertain(c, prog, b.options(c, prog, args))
	case prog.Runs != nil && (prog.Runs.Argv || prog.Runs.Joined || prog.Runs.After != "" || prog.Runs.UserShell):
		b.launcher(c, prog, args)
	case prog.Kind.Has(p.Interpreter):
		b.interpreter(c, prog, args)
	case prog.Runs != nil && prog.Runs.Script:
		b.sourceFile(c, args)
	case prog.Chdir:
		b.cdCall(c)
	case prog.Kind.Has(p.Viewer):
		b.viewer(c, args)
	case prog.Runs != nil && prog.Runs.Project:
		if b.toolbox(c, prog, args) {
			return
		}
		if !probe(prog, args) {
			b.hide(ProjectCode, c.Span, c, "`%s` is %s: what it starts is decided by the project's files", c.Base, prog.Why)
			b.guess(c, args)
		}
	case prog.Runs != nil && prog.Runs.Stdin:
		c.script, c.ScriptStdin = true, true
	case prog.Runs != nil && prog.Runs.Unmodelled:
		b.guess(c, args)
	case prog.Runs != nil && len(prog.Runs.Addresses) > 0:
		b.addresses(c, prog, args)
	case prog.Kind.Has(p.Launcher) && len(args) > 0 && !prog.Runs.Modelled() && (prog.Opts == nil || !prog.Opts.CarriesCommands()):
		// A launcher whose table entry does not say which of its words
		// are the command it runs (tmux, bwrap, proot, crontab …).
		b.hide(Unreadable, c.Span, c, "`%s` is %s, and the gate does not model which of its arguments are the command it runs", c.Base, prog.Why)
	case prog.Opts != nil:
		parsed := b.options(c, prog, args)
		b.uncertain(c, prog, parsed)
		if prog.Runs != nil && prog.Runs.Loads != "" {
			b.loads(c, prog, args, parsed)
		}
	}
}

// loads reads the operands after prog's loading subcommand: a path among
// them (or a word computed at run time) is code it loads.
func (b *builder) loads(c *Call, prog *p.Program, args []Word, parsed p.Parsed) {
	if len(parsed.Operands) == 0 || !args[parsed.Operands[0]].Static || args[parsed.Operands[0]].Value != prog.Runs.Loads {
		return
	}
	for _, i := range parsed.Operands[1:] {
		if a := args[i]; !a.Static || strings.Contains(a.Value, "/") {
			b.hide(ProjectCode, c.Span, c, "`%s %s` loads %s, whose code runs", c.Base, prog.Runs.Loads, clip(a.Raw))
			return
		}
	}
}

// uncertain records where the model of a command line ends: for a launcher
// or a program with command-carrying options, an option the table does not
// know may be another spelling of one that runs a command.
func (b *builder) uncertain(c *Call, prog *p.Program, parsed p.Parsed) {
	// A guessed call's words are only a guess at a command (pip install
	// -e . is pip's subcommand, not install's options): an option it does
	// not know is no evidence of anything.
	if parsed.Unknown != "" && (prog.Kind.Has(p.Launcher) || prog.Opts.CarriesCommands()) && !c.Guessed() {
		b.hide(Unreadable, c.Span, c, "`%s` is given the option `-%s`, which the gate does not know, so what it runs is uncertain", c.Base, strings.TrimLeft(parsed.Unknown, "-"))
	}
}

// escapes reads the shell text code in prog's language hands to the shell
// (vim's :!cmd, gdb's shell cmd) as this text's commands.
func (b *builder) escapes(c *Call, prog *p.Program, code, what string) {
	if prog == nil || prog.Escape == p.NoEscape {
		return
	}
	for _, sh := range prog.Escape.ShellTexts(code) {
		b.payload(c, sh, fmt.Sprintf("the shell command %s hands on", what))
	}
}

// plusCommands reads a viewer's +cmd operands (less +cmd, vim +cmd) in
// its language; a viewer's other operands are files.
func (b *builder) plusCommands(c *Call, prog *p.Program, args []Word) {
	for _, a := range args {
		if cmd, ok := strings.CutPrefix(a.Value, "+"); ok && a.Static {
			b.escapes(c, prog, cmd, fmt.Sprintf("`%s %s`", c.Base, clip(a.Raw)))
		}
	}
}

// onlyListing reports an argument list that only lists (-l, -p) or
// prints (fc -l).
func onlyListing(args []Word) bool {
	for _, a := range args {
		if !a.Static || (a.Value != "-l" && a.Value != "-p" && a.Value != "-L" && a.Value != "-P") {
			return false
		}
	}
	return true
}

// probe reports whether args are exactly one of the program's version or
// help forms.
func probe(prog *p.Program, args []Word) bool {
	for _, w := range args {
		if !w.Static || w.Hole {
			return false // (Statics' test)
		}
	}
	return prog.IsProbe(len(args), func(i int) string { return args[i].Value })
}

func toArgs(ws []Word) []p.Arg {
	out := make([]p.Arg, len(ws))
	for i, w := range ws {
		out[i] = p.Arg{Value: w.Value, Static: w.Static && !w.Glob && !w.Hole}
	}
	return out
}

// options reads the option effects that run something: a shell text, a
// program, inline code, a file, an argv after the option.
func (b *builder) options(c *Call, prog *p.Program, args []Word) p.Parsed {
	if prog.Opts == nil {
		return p.Parsed{}
	}
	parsed := prog.Opts.Parse(toArgs(args))
	for _, f := range parsed.Found {
		b.effect(c, prog, f, args)
	}
	if alt := prog.Opts.Alt; alt != nil {
		for _, f := range alt.Parse(toArgs(args)).Found {
			if !slices.ContainsFunc(parsed.Found, func(g p.Found) bool { return g.Index == f.Index && g.Name == f.Name }) {
				b.effect(c, prog, f, args)
			}
		}
	}
	if w, ok := optionComputed(args, parsed); ok && prog.Opts.CarriesCommands() && !c.Guessed() {
		// tar $X, sort $X, zip $X: the word may be (or split into) the
		// option that runs a command (--to-command=, --compress-program=,
		// -TT).
		b.hide(Unreadable, c.Span, c, "the word `%s` of `%s` is computed at run time and may be one of its options that run a command", clip(w.Raw), c.Base)
	}
	if prog.Operands == p.ResponseFiles && prog.Opts.CarriesCommands() {
		// @FILE is read as more options, which may be the ones that run
		// code (ar @opts with --plugin in it).
		for _, i := range parsed.Operands {
			if a := args[i]; !a.Static || strings.HasPrefix(a.Value, "@") {
				b.hide(ProjectCode, c.Span, c, "`%s` may read more options from a file (%s), such as ones that run code", c.Base, clip(a.Raw))
				break
			}
		}
	}
	return parsed
}

// optionComputed returns the first computed word among the options (before
// a -- or the stop) that may be an option: one bash may split, or an
// operand position's word whose literal start is not surely a non-dash.
// A computed value of a known option is that option's value, unless it
// splits.
func optionComputed(args []Word, parsed p.Parsed) (Word, bool) {
	operand := map[int]bool{}
	for _, i := range parsed.Operands {
		operand[i] = true
	}
	for i := 0; i < parsed.Rest && i < len(args); i++ {
		w := args[i]
		switch {
		case w.Static:
		case MaySplit(w.Node):
			return w, true
		case operand[i] && !nonDashStart(w.Node):
			return w, true
		}
	}
	return Word{}, false
}

// effect reads one option's effect.
func (b *builder) effect(c *Call, prog *p.Program, f p.Found, args []Word) {
	what := "the option `" + f.Dashed() + "` of `" + c.Base + "`"
	switch f.Opt.Effect {
	case p.RunsShell, p.RunsProgram:
		switch {
		case !f.HasValue:
		case !f.ValueStatic:
			b.hide(Unreadable, c.Span, c, "%s runs a command computed at run time", what)
		case prog.Scanner == p.ScanTar && f.Name == "checkpoint-action":
			if cmd, ok := strings.CutPrefix(f.Value, "exec="); ok {
				b.payload(c, cmd, what)
			}
		case f.Opt.Commands != nil:
			b.ownCommand(c, f, args, what)
		case f.Opt.Absolute && !path.IsAbs(f.Value):
		case f.Opt.Effect == p.RunsProgram && (f.Opt.Rest || f.Name == "S" || f.Name == "split-string"):
			rest := args[min(len(args), f.ValueAt+1):]
			b.argvCall(c, append(envSplit(f.Value), rest...), what, false)
		case f.Opt.Effect == p.RunsProgram:
			b.argvCall(c, splitWords(f.Value), what, f.Opt.Appends)
		default:
			b.payload(c, f.Value, what)
		}
	case p.PipesTo:
		switch {
		case !f.HasValue:
		case !f.ValueStatic:
			b.hide(Unreadable, c.Span, c, "%s is computed at run time, and may be a command it pipes its output into", what)
		case strings.HasPrefix(f.Value, "|") || strings.HasPrefix(f.Value, "!"):
			b.payload(c, f.Value[1:], what)
		}
	case p.RunsCode:
		b.hide(InlineCode, c.Span, c, "%s runs inline code (%s), which the gate cannot read", what, clip(f.Value))
		if f.ValueStatic {
			b.escapes(c, prog, f.Value, what)
		}
	case p.RunsFile:
		switch {
		case !f.HasValue:
		case prog.StdinCommands == p.StdinOwnCommands && f.ValueStatic && stdinNames.Has(f.Value):
			// Its commands from standard input are read as the ones it
			// reads without the option (sftp -b - host <<< '!cmd').
		case !f.ValueStatic && procSubstWord(computedValue(f, args).Node),
			f.ValueStatic && (stdinNames.Has(f.Value) || f.Value != "/dev/null" && (strings.HasPrefix(f.Value, "/dev/") || strings.HasPrefix(f.Value, "/proc/"))):
			// What it reads is fed by the text (curl -K - fed `output =
			// F`; a process substitution's output): not a file of the
			// project's.
			b.hide(FedScript, c.Span, c, "%s reads its instructions from standard input, a substitution or a descriptor, which the gate cannot read", what)
		default:
			b.hide(ProjectCode, c.Span, c, "%s runs %s", what, clip(f.Value))
		}
	case p.StartsArgv:
		end := f.Index + 1
		for end < len(args) && !(args[end].Static && (args[end].Value == ";" || args[end].Value == "+")) {
			end++
		}
		b.argvCall(c, args[f.Index+1:end], what, true)
	case p.Unproven:
		b.keyed(c, prog, f, what)
	}
}

// toolbox reads a build tool's command line for the option that runs one
// of its own commands instead of the project (cmake -E): true when given.
func (b *builder) toolbox(c *Call, prog *p.Program, args []Word) bool {
	if prog.Opts == nil {
		return false
	}
	for _, f := range prog.Opts.Parse(toArgs(args)).Found {
		if f.Opt.Commands != nil {
			b.effect(c, prog, f, args)
			return true
		}
	}
	return false
}

// ownCommand reads an option naming one of the program's own commands
// (cmake -E rm -f x) as the argv it acts as, with the words after it.
func (b *builder) ownCommand(c *Call, f p.Found, args []Word, what string) {
	as, ok := f.Opt.Commands.As[f.Value]
	switch {
	case !ok:
		b.hide(Unreadable, c.Span, c, "%s names %s, a command the gate does not know", what, clip(f.Value))
	case as != "":
		rest := args[min(len(args), f.ValueAt+1):]
		b.argvCall(c, append(splitWords(as), rest...), what, false)
	}
}

// commandKey is a KEY of a KEY=VALUE option as its program compares it:
// without case, blanks, '_' or '-' (wgetrc reads use_askpass, useAskPass
// and use-askpass alike; reading ssh's keys so is only stricter).
func commandKey(k string) string {
	return strings.NewReplacer("_", "", "-", "", " ", "", "\t", "").Replace(strings.ToLower(k))
}

// computedValue is the word that holds an option's computed value: the
// option's own word when it is computed (--config=<(…)), else the word
// its value was read from.
func computedValue(f p.Found, args []Word) Word {
	w := args[min(f.Index, len(args)-1)]
	if w.Static && f.ValueAt > f.Index && f.ValueAt < len(args) {
		w = args[f.ValueAt]
	}
	return w
}

// keyed reads a KEY=VALUE option whose key names a command (ssh -o
// ProxyCommand=…).
func (b *builder) keyed(c *Call, prog *p.Program, f p.Found, what string) {
	if len(prog.CommandKeys) == 0 || !f.HasValue {
		return
	}
	if !f.ValueStatic {
		b.hide(Unreadable, c.Span, c, "%s is computed at run time and may name a command", what)
		return
	}
	key, val, ok := strings.Cut(f.Value, "=")
	if !ok {
		key, val, _ = strings.Cut(f.Value, " ")
	}
	key = commandKey(key)
	for _, k := range prog.CommandKeys {
		if key == commandKey(k) {
			b.payload(c, strings.TrimSpace(val), what)
		}
	}
}

// envSplit splits env -S's string as GNU env does: blanks separate words;
// '…' is literal; "…" and bare words take backslash escapes (\t, \n,
// \_ for a space, \c ends the string); # at a word's start begins a
// comment; ${NAME} expands, which the gate cannot know: such a word is a
// hole.
func envSplit(v string) []Word {
	var out []Word
	var cur strings.Builder
	inWord, dyn := false, false
	flush := func() {
		if inWord {
			w := Word{Value: cur.String(), Static: !dyn, Raw: cur.String(), Hole: dyn}
			out = append(out, w)
		}
		cur.Reset()
		inWord, dyn = false, false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			flush()
		case c == '#' && !inWord:
			return out
		case c == '\'':
			inWord = true
			j := strings.IndexByte(v[i+1:], '\'')
			if j < 0 {
				return append(out, Word{Raw: v, Hole: true})
			}
			cur.WriteString(v[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(v) && v[i] != '"'; i++ {
				if v[i] == '\\' && i+1 < len(v) {
					i++
					cur.WriteByte(envEscape(v[i]))
					continue
				}
				if v[i] == '$' {
					dyn = true
				}
				cur.WriteByte(v[i])
			}
		case c == '\\' && i+1 < len(v):
			i++
			if v[i] == 'c' {
				flush()
				return out
			}
			inWord = true
			cur.WriteByte(envEscape(v[i]))
		case c == '$':
			inWord, dyn = true, true
			cur.WriteByte(c)
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	flush()
	return out
}

// envEscape is the byte env -S reads for a backslash escape.
func envEscape(c byte) byte {
	switch c {
	case 't':
		return '\t'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 'f':
		return '\f'
	case 'v':
		return '\v'
	case '_':
		return ' '
	}
	return c
}

// splitWords splits a value on blanks, as tar -I and rsync -e do.
func splitWords(v string) []Word {
	var out []Word
	for _, f := range strings.Fields(v) {
		out = append(out, Word{Value: f, Static: true, Raw: f})
	}
	return out
}

// plainArgv reports text that bash would split into words on blanks
// alone: no quote, expansion, glob, operator or comment (a ~ only
// becomes a path).
func plainArgv(v string) bool {
	return !strings.ContainsAny(v, "'\"\\$`;&|<>(){}[]*?#!\n")
}

// stdinNames are the file names that read a script from standard input.
var stdinNames = lazy.NewSet("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/proc/thread-self/fd/0")

// shell reads a shell's command line with bash's rules: -c makes the
// first operand the script, whatever options come between; else the first
// operand is a script file; else the script comes from standard input.
func (b *builder) shell(c *Call, prog *p.Program, args []Word) {
	if probe(prog, args) {
		return // bash --version prints and exits: it reads no script
	}
	parsed := prog.Opts.Parse(toArgs(args))
	if parsed.Unknown != "" && !c.Guessed() {
		b.hide(Unreadable, c.Span, c, "`%s` is given the option `-%s`, which the gate does not know, so what it runs cannot be read", c.Base, strings.TrimLeft(parsed.Unknown, "-"))
	}
	if parsed.Dynamic && (len(parsed.Operands) == 0 || !args[parsed.Operands[0]].Static) {
		b.hide(Unreadable, c.Span, c, "an argument of `%s` is computed at run time and may be an option or the script", c.Base)
		return
	}
	if parsed.Has("c") {
		if len(parsed.Operands) == 0 {
			if c.Tail && c.Via != nil {
				// xargs sh -c: the script is the first word xargs reads
				// (with -0 or -d, the whole line), so what feeds xargs
				// is the script.
				c.Via.script, c.Via.ScriptStdin = true, true
			}
			return
		}
		s := args[parsed.Operands[0]]
		what := fmt.Sprintf("the script `%s -c` runs", c.Base)
		if !s.Static || s.Hole {
			b.hide(Unreadable, c.Span, c, "%s is computed at run time", what)
			return
		}
		b.payload(c, s.Value, what)
		return
	}
	if len(parsed.Operands) > 0 && !parsed.Has("s") {
		b.scriptOperand(c, args[parsed.Operands[0]], args[parsed.Operands[0]+1:])
		return
	}
	c.script, c.ScriptStdin = true, true
}

// scriptOperand reads the script file a shell or interpreter is given,
// and rest, the arguments the script is given.
func (b *builder) scriptOperand(c *Call, f Word, rest []Word) {
	switch {
	case procSubstWord(f.Node):
		b.hide(FedScript, c.Span, c, "`%s` runs the script a process substitution prints", c.Base)
	case !f.Static || f.Hole:
		b.hide(Unreadable, c.Span, c, "`%s` runs a script file whose name is computed at run time", c.Base)
	case stdinNames.Has(f.Value):
		c.script, c.ScriptStdin = true, true
	case strings.HasPrefix(f.Value, "/dev/tcp/") || strings.HasPrefix(f.Value, "/dev/udp/") || strings.HasPrefix(f.Value, "/dev/fd/") || strings.HasPrefix(f.Value, "/proc/"):
		b.hide(FedScript, c.Span, c, "`%s` runs a script read from %s", c.Base, f.Value)
	default:
		c.ScriptFile = f.Value
		b.hide(ProjectCode, c.Span, c, "`%s` runs the script file %s", c.Base, clip(f.Value))
		b.writtenScript(c, f.Value, false)
		b.guess(c, rest)
	}
}

func procSubstWord(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, part := range w.Parts {
		if _, ok := part.(*syntax.ProcSubst); ok {
			return true
		}
	}
	return false
}

// interpreter reads an interpreter's command line: inline code, a module
// or file it runs, or a script from standard input.
func (b *builder) interpreter(c *Call, prog *p.Program, args []Word) {
	if probe(prog, args) {
		return
	}
	if prog.Opts == nil {
		if len(args) > 0 {
			b.hide(InlineCode, c.Span, c, "`%s` is %s, and the gate does not read its arguments", c.Base, prog.Why)
			for _, a := range args {
				if a.Static {
					b.escapes(c, prog, a.Value, fmt.Sprintf("an argument of `%s`", c.Base))
				}
			}
		} else {
			c.script, c.ScriptStdin = true, true
		}
		return
	}
	parsed := b.options(c, prog, args)
	for _, f := range parsed.Found {
		if f.Opt.Effect == p.RunsCode || f.Opt.Effect == p.RunsFile {
			return
		}
	}
	if parsed.Unknown != "" {
		b.hide(Unreadable, c.Span, c, "`%s` is given the option `-%s`, which the gate does not know", c.Base, strings.TrimLeft(parsed.Unknown, "-"))
		return
	}
	if len(parsed.Operands) > 0 {
		b.scriptOperand(c, args[parsed.Operands[0]], args[parsed.Operands[0]+1:])
		return
	}
	c.script, c.ScriptStdin = true, true
}

// sourceFile reads `source FILE` and `. FILE`.
func (b *builder) sourceFile(c *Call, args []Word) {
	if len(args) == 0 {
		return
	}
	if c.Prog != nil && c.Prog.Kind.Has(p.Builtin) {
		// The file's assignments are the shell's own.
		b.unsureAll()
	}
	b.scriptOperand(c, args[0], args[1:])
}

// viewer reads a pager or editor: options and +commands that run editor
// commands, which can run programs.
func (b *builder) viewer(c *Call, args []Word) {
	if prog := c.Prog; prog.Opts != nil {
		// Its command line is modelled: options by their effects, an
		// option the table does not know is uncertain, and a +cmd
		// operand gives editor commands.
		parsed := b.options(c, prog, args)
		b.uncertain(c, prog, parsed)
		for _, i := range parsed.Operands {
			a := args[i]
			if !a.Static {
				if b0 := literalStart(a.Node); b0 != 0 && b0 != '-' && b0 != '+' && !MaySplit(a.Node) {
					continue // "./$f": a file, whatever it holds
				}
				// Its commands may be shell commands (+!CMD): computed,
				// the blacklist cannot read them.
				b.hide(Unreadable, c.Span, c, "`%s` is %s, and `%s`, computed at run time, may give it commands to run", c.Base, whyOf(c), clip(a.Raw))
				return
			}
			if strings.HasPrefix(a.Value, "+") {
				b.hide(InlineCode, c.Span, c, "`%s` is %s, and `%s` gives it commands to run", c.Base, whyOf(c), clip(a.Raw))
				b.plusCommands(c, prog, args)
				return
			}
		}
		return
	}
	for _, a := range args {
		if !a.Static {
			if b0 := literalStart(a.Node); b0 != 0 && b0 != '-' && b0 != '+' && !MaySplit(a.Node) {
				continue // "./$f": a file, whatever it holds
			}
			b.hide(Unreadable, c.Span, c, "`%s` is %s, and `%s`, computed at run time, may give it commands to run", c.Base, whyOf(c), clip(a.Raw))
			return
		}
		v := a.Value
		if strings.HasPrefix(v, "+") || v == "-c" || v == "--cmd" || v == "-S" || v == "-x" ||
			v == "--eval" || v == "-e" || v == "-l" || v == "-f" || v == "--batch" || v == "-P" ||
			strings.HasPrefix(v, "--pager") || v == "-H" || strings.HasPrefix(v, "--html") || strings.HasPrefix(v, "--eval=") {
			b.hide(InlineCode, c.Span, c, "`%s` is %s, and `%s` gives it commands to run", c.Base, whyOf(c), clip(v))
			b.plusCommands(c, c.Prog, args)
			return
		}
	}
}

func whyOf(c *Call) string {
	if c.Prog != nil {
		return c.Prog.Why
	}
	return "a program"
}

// launcher reads the command a launcher runs: its options, then (VAR=value
// words and) its own operands, then the argv.
func (b *builder) launcher(c *Call, prog *p.Program, args []Word) {
	r := prog.Runs
	if r.After != "" {
		b.after(c, prog, args)
		return
	}
	if r.Lead && len(args) > 0 {
		if !args[0].Static && !c.Guessed() {
			b.hide(Unreadable, c.Span, c, "the first word of `%s` is computed, so whether it is an option or an operand before the command it runs is not known", c.Base)
			return
		}
		if !strings.HasPrefix(args[0].Value, "-") {
			args = args[1:] // setarch ARCH: read before the options
		}
	}
	parsed := p.Parsed{Rest: 0}
	if prog.Opts != nil {
		parsed = b.options(c, prog, args)
	}
	for _, d := range r.Describe {
		if parsed.Has(d) {
			return
		}
	}
	if parsed.Unknown != "" && !c.Guessed() {
		b.hide(Unreadable, c.Span, c, "`%s` is given the option `-%s`, which the gate does not know, so the command it runs is uncertain", c.Base, strings.TrimLeft(parsed.Unknown, "-"))
	}
	if r.UserShell && !parsed.Has(r.ArgvOpts...) {
		b.userShell(c, prog, parsed, args[parsed.Rest:])
		return
	}
	rest := args[parsed.Rest:]
	if r.Assigns {
		for len(rest) > 0 && rest[0].Static && isAssignWord(rest[0].Value) {
			b.launcherVar(c, rest[0].Value)
			rest = rest[1:]
		}
	}
	if f, ok := parsed.First(p.Chdir); ok {
		// env -C DIR, sudo -D DIR: the command starts in DIR; a computed
		// one is a directory the gate cannot follow.
		b.cd(f.Value, f.ValueStatic)
	}
	skipped := len(rest)
	for i := 0; i < r.Skip && len(rest) > 0; i++ {
		rest = rest[1:]
	}
	if w, ok := splitBefore(args[:parsed.Rest], args[parsed.Rest:][:skipped-len(rest)]); ok && !c.Guessed() {
		// T="5 rm -rf"; timeout $T / runs rm: the words bash makes of an
		// option value or a skipped operand decide where the command starts.
		b.hide(Unreadable, c.Span, c, "the word `%s` before the command `%s` runs may split into several words, so where that command starts is computed at run time", clip(w.Raw), c.Base)
		return
	}
	if prog.Opts == nil && len(rest) > 0 && (!rest[0].Static || strings.HasPrefix(rest[0].Value, "-")) && !c.Guessed() {
		b.hide(Unreadable, c.Span, c, "`%s` is given the option `%s`, and the gate does not model its options, so the command it runs is uncertain", c.Base, clip(rest[0].Raw))
		return
	}
	if r.Skip > 0 && prog.Opts != nil && len(rest) > 0 && rest[0].Static && strings.HasPrefix(rest[0].Value, "-") {
		// Options may follow the launcher's own operands (flock FILE -c
		// CMD, perf stat -e EVENT CMD): an unknown one leaves the command
		// uncertain.
		again := b.options(c, prog, rest)
		b.uncertain(c, prog, again)
		rest = rest[again.Rest:]
		parsed.Found = append(parsed.Found, again.Found...)
	}
	if sh, ok := parsed.First(p.RunsShell); ok && len(rest) == 0 {
		if !sh.HasValue {
			// sudo -s, sudo -i without a command: the shell reads its
			// commands from standard input.
			c.script, c.ScriptStdin = true, true
		}
		return
	}
	if split, ok := parsed.First(p.RunsProgram); ok && (split.Name == "S" || split.Name == "split-string") {
		return // env -S: the split words and the rest are one argv, read already
	}
	if r.Lists {
		rest = b.parallelLists(c, rest)
	}
	if repl := replaceString(r, parsed); repl != "" {
		rest = replaced(rest, repl)
	}
	what := fmt.Sprintf("the command `%s` runs", c.Base)
	switch {
	case len(rest) == 0:
		// A login shell only when nothing appends a command: rsync -e
		// ssh gives ssh the host and the command after its words.
		if r.Stdin || r.LoginShell && !c.Tail || len(r.StdinShell) > 0 && parsed.Has(r.StdinShell...) {
			c.script, c.ScriptStdin = true, true
		}
	case r.Joined:
		vals, ok := Statics(rest)
		if !ok {
			b.hide(Unreadable, c.Span, c, "%s is computed at run time", what)
			return
		}
		b.payload(c, strings.Join(vals, " "), what)
	default:
		b.argvCall(c, append(prefixWords(r.Prefix), rest...), what, r.StdinArgs)
	}
}

// splitBefore returns the first of the words a launcher reads before its
// command (options, their values, its own operands) that bash may turn
// into several words or none: an unquoted expansion, a glob, a brace.
func splitBefore(groups ...[]Word) (Word, bool) {
	for _, ws := range groups {
		for _, w := range ws {
			if !w.Static && MaySplit(w.Node) {
				return w, true
			}
		}
	}
	return Word{}, false
}

// replaceString is the string an xargs-like launcher replaces in its argv
// with the words it reads (-I REPL; -i and --replace default to {}), ""
// when none is given.
func replaceString(r *p.Runs, parsed p.Parsed) string {
	for _, f := range parsed.Found {
		for _, name := range r.Replace {
			if f.Name != name {
				continue
			}
			if !f.HasValue || f.Value == "" {
				return "{}"
			}
			if !f.ValueStatic {
				return "\x00" // any word may be replaced: none is static
			}
			return f.Value
		}
	}
	return ""
}

// replaced marks the words holding repl as holes: their value is read at
// run time (sh -c {} runs each input line as shell text).
func replaced(argv []Word, repl string) []Word {
	out := make([]Word, len(argv))
	for i, w := range argv {
		out[i] = w
		if !w.Static || repl == "\x00" || strings.Contains(w.Value, repl) {
			out[i] = Word{Raw: w.Raw, Node: w.Node, Hole: true, Glob: w.Glob}
		}
	}
	return out
}

// userShell reads su's form: [-] USER ARG…, where the ARGs go to the
// user's shell (-s/--shell, else sh), after -c CMD when one was given.
func (b *builder) userShell(c *Call, prog *p.Program, parsed p.Parsed, rest []Word) {
	// su permutes: options may follow "-" and the user (su - root -c CMD).
	more := func() {
		if len(rest) > 0 && rest[0].Static && len(rest[0].Value) > 1 && strings.HasPrefix(rest[0].Value, "-") {
			again := b.options(c, prog, rest)
			b.uncertain(c, prog, again)
			parsed.Found = append(parsed.Found, again.Found...)
			rest = rest[again.Rest:]
		}
	}
	if len(rest) > 0 && rest[0].Static && rest[0].Value == "-" {
		rest = rest[1:]
		more()
	}
	if len(rest) > 0 {
		rest = rest[1:] // the user
		more()
	}
	shell := Word{Value: "sh", Static: true, Raw: "sh"}
	for _, f := range parsed.Found {
		if (f.Name == "s" || f.Name == "shell") && f.HasValue {
			shell = Word{Value: f.Value, Static: f.ValueStatic, Raw: f.Value}
		}
	}
	argv := []Word{shell}
	if cmd, ok := parsed.First(p.RunsShell); ok && cmd.HasValue {
		argv = append(argv, Word{Value: "-c", Static: true, Raw: "-c"}, Word{Value: cmd.Value, Static: cmd.ValueStatic, Raw: cmd.Value})
	} else if len(rest) == 0 && shell.Value == "sh" {
		// An interactive login shell: it reads its commands from
		// standard input (su <<< 'CMD' runs CMD).
		c.script, c.ScriptStdin = true, true
		return
	}
	b.argvCall(c, append(argv, rest...), fmt.Sprintf("the shell `%s` runs", c.Base), false)
}

func prefixWords(ws []string) []Word {
	out := make([]Word, len(ws))
	for i, w := range ws {
		out[i] = Word{Value: w, Static: true, Raw: w}
	}
	return out
}

// after reads a launcher whose argv follows a marker (gdb --args prog …,
// lldb -- prog …); without the marker its first operand is the program.
func (b *builder) after(c *Call, prog *p.Program, args []Word) {
	what := fmt.Sprintf("the program `%s` runs", c.Base)
	marker := len(args)
	for i, a := range args {
		if a.Static && a.Value == prog.Runs.After {
			marker = i
			break
		}
	}
	head := args[:marker]
	if prog.Kind.Has(p.Interpreter) {
		// The words before the marker are the debugger's own: options that
		// give it commands run them (gdb -ex 'shell …' --args prog).
		if prog.Opts == nil {
			for _, a := range head {
				if !a.Static || strings.HasPrefix(a.Value, "-") {
					b.hide(InlineCode, c.Span, c, "`%s` is given options the gate does not read (%s), which may be commands to run", c.Base, clip(a.Raw))
					return
				}
			}
		} else {
			b.uncertain(c, prog, b.options(c, prog, head))
		}
	}
	if marker < len(args) {
		b.argvCall(c, append(prefixWords(prog.Runs.Prefix), args[marker+1:]...), what, false)
		return
	}
	for _, a := range head {
		if !a.Static || !strings.HasPrefix(a.Value, "-") {
			b.argvCall(c, []Word{a}, what, false)
			return
		}
	}
}

// parallelLists reads GNU parallel's command as the words before the first
// ::: marker followed by the list items, which parallel appends; with no
// command words, each item is a command line of its own.
func (b *builder) parallelLists(c *Call, args []Word) []Word {
	for i, a := range args {
		if !a.Static || !strings.HasPrefix(a.Value, ":::") {
			continue
		}
		var items []Word
		for _, x := range args[i+1:] {
			if !(x.Static && strings.HasPrefix(x.Value, ":::")) {
				items = append(items, x)
			}
		}
		if i == 0 {
			for _, it := range items {
				if it.Static {
					b.payload(c, it.Value, "a command line `parallel` runs")
				} else {
					b.hide(Unreadable, c.Span, c, "a command line `parallel` runs is computed at run time")
				}
			}
			return nil
		}
		return append(append([]Word(nil), args[:i]...), items...)
	}
	return args
}

// launcherVar reads a VAR=value word a launcher sets for its command.
func (b *builder) launcherVar(c *Call, kv string) {
	name, val, _ := strings.Cut(kv, "=")
	b.setVar(name, val)
	b.commandVar(c, Assign{Name: name, Value: Word{Value: val, Static: true, Raw: val}, Raw: kv})
}

// envOptions reads the options a program takes from the environment
// (TAR_OPTIONS), with every value the text gives the variable: their
// effects are the program's (a --to-command there runs as one on the
// command line does).
func (b *builder) envOptions(c *Call, prog *p.Program) {
	for _, name := range prog.EnvOptions {
		for x := c; x != nil; x = x.Via {
			for _, a := range x.Assigns {
				if a.Name == name && !a.Value.Static && a.Value.Node != nil {
					b.hide(Unreadable, c.Span, c, "the options `%s` reads from %s are computed at run time", c.Base, name)
				}
			}
		}
		for _, ws := range EnvOptionWords(b.t, b.opt.Env, name) {
			b.uncertain(c, prog, b.options(c, prog, ws))
		}
	}
}

// EnvOptionWords are the option words each value of the variable name
// gives a program that reads its options from it (Program.EnvOptions):
// every value the text gives it and the request's (env), each split as
// tar splits TAR_OPTIONS — into words as the shell would, quotes and
// backslashes honoured (env -S's rules).
func EnvOptionWords(t *Tree, env map[string]string, name string) [][]Word {
	var out [][]Word
	for _, v := range t.Vars[name] {
		out = append(out, envSplit(v))
	}
	if v, ok := env[name]; ok {
		out = append(out, envSplit(v))
	}
	return out
}

// envCommands reads the commands a program runs from the environment in
// place of a helper (GREP='CMD' zgrep), with every value the text gives
// the variable and the program's own arguments after it, as the helper
// gets them.
func (b *builder) envCommands(c *Call, prog *p.Program, args []Word) {
	for _, name := range prog.EnvCommands {
		vals := b.t.Vars[name]
		if v, ok := b.opt.Env[name]; ok {
			vals = append(append([]string(nil), vals...), v)
		}
		for _, v := range vals {
			if v != "" {
				b.payload(c, v+" "+joinRawSource(args), fmt.Sprintf("the command in %s, which `%s` runs", name, c.Base))
			}
		}
	}
}

// isAssignWord reports a NAME=value word.
func isAssignWord(w string) bool {
	i := 0
	for i < len(w) && (w[i] == '_' || (w[i]|0x20 >= 'a' && w[i]|0x20 <= 'z') || (i > 0 && w[i] >= '0' && w[i] <= '9')) {
		i++
	}
	return i > 0 && i < len(w) && w[i] == '='
}

// trap reads `trap CODE SIGNAL…`: CODE runs later.
func (b *builder) trap(c *Call, prog *p.Program, args []Word) {
	parsed := prog.Opts.Parse(toArgs(args))
	if parsed.Has("l") || parsed.Has("p") || len(parsed.Operands) < 2 {
		return
	}
	code := args[parsed.Operands[0]]
	switch {
	case !code.Static:
		b.hide(ShellState, c.Span, c, "the code `trap` runs later is computed at run time")
	case code.Value == "" || code.Value == "-":
	default:
		b.payload(c, code.Value, "the code `trap` runs later")
	}
}

// alias records NAME=VALUE definitions: the value runs wherever NAME is
// used (with expand_aliases), so it is read now and again at each use.
func (b *builder) alias(c *Call, args []Word) {
	for _, a := range args {
		if !a.Static {
			b.hide(ShellState, c.Span, c, "an alias is defined from a value computed at run time")
			continue
		}
		name, val, ok := strings.Cut(a.Value, "=")
		if !ok || strings.HasPrefix(a.Value, "-") {
			continue
		}
		if b.t.aliases == nil {
			b.t.aliases = map[string][]string{}
		}
		b.t.aliases[name] = append(b.t.aliases[name], val)
		b.payload(c, val, fmt.Sprintf("the alias `%s`", name))
	}
}

// rebindDecl records `hash -p PATH NAME`: NAME runs PATH from now on.
func (b *builder) rebindDecl(c *Call, args []Word) {
	for i := 0; i+2 < len(args); i++ {
		if !args[i].Static || args[i].Value != "-p" {
			continue
		}
		file, name := args[i+1], args[i+2]
		if !file.Static || !name.Static {
			b.hide(ShellState, c.Span, c, "`hash -p` binds a command name to a file computed at run time")
			return
		}
		if b.t.hashed == nil {
			b.t.hashed = map[string][]string{}
		}
		b.t.hashed[name.Value] = append(b.t.hashed[name.Value], file.Value)
		b.hide(ShellState, c.Span, c, "`hash -p %s %s` makes `%s` run %s", clip(file.Value), clip(name.Value), clip(name.Value), clip(file.Value))
		return
	}
}

// rebind reads every call of a name an alias or hash -p rebound as what
// it really runs.
func (b *builder) rebind() {
	if len(b.t.aliases) == 0 && len(b.t.hashed) == 0 {
		return
	}
	calls := b.t.Calls
	for _, c := range calls {
		if c.Name == "" || c.Via != nil && c.How != "" && strings.HasPrefix(c.How, "the alias") {
			continue
		}
		for _, val := range b.t.aliases[c.Name] {
			b.payload(c, val+" "+joinRawSource(c.Argv[1:]), fmt.Sprintf("the alias `%s`", c.Name))
		}
		for _, file := range b.t.hashed[c.Name] {
			argv := append([]Word{{Value: file, Static: true, Raw: file}}, c.Argv[1:]...)
			b.argvCall(c, argv, fmt.Sprintf("`%s`, bound by hash -p", c.Name), false)
		}
	}
}

func joinRawSource(ws []Word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.Raw
	}
	return strings.Join(parts, " ")
}

// commandVar reads an assignment whose variable carries or loads code.
func (b *builder) commandVar(c *Call, a Assign) {
	sp := Span{}
	if c != nil {
		sp = c.Span
	}
	switch p.Var(a.Name) {
	case p.CommandVar:
		what := fmt.Sprintf("the command in %s", a.Name)
		switch {
		case a.Value.Node == nil && !a.Value.Static:
		case !a.Value.Static:
			b.hide(Unreadable, sp, c, "%s is computed at run time", what)
		case a.Value.Value != "" && c != nil && p.VarAppends(a.Name) && plainArgv(a.Value.Value):
			// Its reader gives the command more words (ssh -i key HOST
			// git-upload-pack …): read as an argv that is only begun.
			b.argvCall(c, splitWords(a.Value.Value), what, true)
		case a.Value.Value != "" && c != nil:
			b.payload(c, strings.TrimPrefix(strings.TrimPrefix(a.Value.Value, "||"), "|"), what)
		case a.Value.Value != "":
			b.hide(ShellState, sp, c, "%s (%s) runs when a program reads it", what, clip(a.Value.Value))
		}
	case p.PromptVar:
		if !a.Value.Static || strings.ContainsAny(a.Value.Value, "$`") {
			b.hide(ShellState, sp, c, "%s is expanded as a prompt, which runs the commands in it", a.Name)
		}
	case p.OptionsVar:
		// On a command, the program reads the options (envOptions); set
		// for later commands, they are options the text does not show.
		if c == nil {
			b.hide(ShellState, sp, c, "setting %s gives options to the programs that read it later", a.Name)
		}
	case p.LoaderVar:
		if a.Name == "PATH" && a.Value.Static && !relativePath(a.Value.Value) {
			return
		}
		b.hide(ShellState, sp, c, "setting %s changes what code programs load or which program a name runs", a.Name)
	}
}

// relativePath reports a PATH with an empty or relative entry.
func relativePath(v string) bool {
	for _, dir := range strings.Split(v, ":") {
		if !strings.HasPrefix(dir, "/") {
			return true
		}
	}
	return false
}

// cd records a change of directory for the blacklist.
func (b *builder) cd(dir string, static bool) {
	if !static {
		b.t.CdUnknown = true
		return
	}
	b.t.Cds = append(b.t.Cds, dir)
}

// stdinFromRedirs records what a statement's redirections feed its first
// call's standard input, then reads a script fed that way.
func (b *builder) stdinFromRedirs(c *Call, rs []Redir) {
	if in := inputOf(rs); in != nil {
		c.Stdin = in
		b.fedFromPipe(c)
	}
}

// inherit gives a call that has no standard input of its own the one its
// shell reads (a compound command's `{ …; } < F`, a standing `exec < F`):
// what it reads, a script among it, is what that input gives.
func (b *builder) inherit(c *Call, in *Input) {
	if in != nil && c.Stdin == nil {
		c.Stdin = in
		b.fedFromPipe(c)
	}
}

// inputOf is what redirections feed standard input (the last wins), nil
// when none does.
func inputOf(rs []Redir) *Input {
	var in *Input
	for _, r := range rs {
		if r.N != "" && r.N != "0" {
			continue
		}
		switch r.Op {
		case syntax.RdrIn:
			if procSubstWord(r.Target.Node) {
				in = &Input{Kind: FromProcSubst, Target: r.Target, Node: r.Node}
			} else {
				in = &Input{Kind: FromFile, Target: r.Target, Node: r.Node}
			}
		case syntax.WordHdoc:
			in = &Input{Kind: FromHereString, Target: r.Target, Node: r.Node}
			if r.Target.Static {
				in.Text, in.Static = r.Target.Value, true
			}
		case syntax.Hdoc, syntax.DashHdoc:
			in = &Input{Kind: FromHereDoc, Node: r.Node}
			if h := r.Node.Hdoc; h != nil {
				if quotedDelim(r.Node.Word) {
					in.Text, in.Static = hdocText(h), true
				} else if v, ok := Static(h); ok {
					in.Text, in.Static = v, true
				}
			} else {
				in.Static = true
			}
		case syntax.DplIn:
			in = &Input{Kind: FromFd, Target: r.Target, Node: r.Node}
		}
	}
	return in
}

// fedOwn reads the commands a program reads from its standard input in
// its own language (gdb <<< 'shell rm x', ex f <<< '!rm x'): the shell
// commands its escapes hand on, when the text shows them.
func (b *builder) fedOwn(c *Call, in *Input) {
	what := fmt.Sprintf("the commands `%s` reads from its standard input", c.Base)
	var texts []string
	switch {
	case (in.Kind == FromHereString || in.Kind == FromHereDoc) && in.Static:
		texts = []string{in.Text}
	case in.Kind == FromPipe && in.From != nil && in.From.Prog != nil && in.From.Prog.OnlyPrints():
		outs, ok := EchoOutputs(in.From)
		if ok {
			texts = outs
		}
	case in.Kind == FromFile && in.Target.Static && in.Target.Value == "/dev/null":
		return // nothing to read
	}
	if texts == nil {
		b.hide(Unreadable, c.Span, c, "%s, which can run shell commands, are computed at run time", what)
		return
	}
	b.hide(InlineCode, c.Span, c, "`%s` is %s, and %s can run shell commands", c.Base, whyOf(c), what)
	for _, t := range texts {
		b.escapes(c, c.Prog, t, fmt.Sprintf("`%s` reads from its standard input and", c.Base))
	}
}

// hdocText is a quoted here-document's body, verbatim.
func hdocText(w *syntax.Word) string {
	var sb strings.Builder
	for _, part := range w.Parts {
		if l, ok := part.(*syntax.Lit); ok {
			sb.WriteString(l.Value)
		}
	}
	return sb.String()
}

// fedFromPipe reads what a call's standard input, just set, feeds it: a
// script, or the commands an unmodelled program may run.
func (b *builder) fedFromPipe(c *Call) {
	if c.script {
		b.fedScript(c)
	}
	if c.guessIn {
		b.guessStdin(c)
	}
}

// stdinCommands marks a call that reads commands from its standard input
// (Program.StdinCommands) as a shell reading its script does, unless its
// options say otherwise.
func (b *builder) stdinCommands(c *Call, prog *p.Program, args []Word) {
	var parsed p.Parsed
	if prog.Opts != nil {
		parsed = prog.Opts.Parse(toArgs(args))
	}
	if len(prog.StdinIf) > 0 && !parsed.Has(prog.StdinIf...) || parsed.Has(prog.StdinUnless...) {
		return
	}
	c.script, c.ScriptStdin = true, true
	c.ownStdin = prog.StdinCommands == p.StdinOwnCommands
}

// fedScript reads the script c reads from its standard input.
func (b *builder) fedScript(c *Call) {
	in := c.Stdin
	c.script = false
	what := fmt.Sprintf("the script `%s` reads from its standard input", c.Base)
	if c.ownStdin {
		b.fedOwn(c, in)
		return
	}
	if c.Prog != nil && c.Prog.Scanner == p.ScanSqlite {
		b.fedSub(c, in, what)
		return
	}
	if c.Prog != nil && c.Prog.Kind.Has(p.Interpreter) && !c.Prog.Kind.Has(p.Shell) {
		// Code in another language (perl <<< 'system "rm x"'): reading
		// it as shell text would see other commands than it runs.
		b.hide(InlineCode, c.Span, c, "`%s` is %s, and %s is code the gate cannot read", c.Base, c.Prog.Why, what)
		return
	}
	switch in.Kind {
	case FromHereString, FromHereDoc:
		if in.Static {
			b.payload(c, in.Text, what)
			return
		}
		b.hide(FedScript, c.Span, c, "%s is computed at run time", what)
	case FromPipe:
		if up := in.From; up != nil && up.Prog != nil && up.Prog.OnlyPrints() {
			if outs, ok := EchoOutputs(up); ok {
				for _, text := range outs {
					b.payload(c, text, what)
				}
				return
			}
		}
		b.hide(FedScript, c.Span, c, "%s comes from the command before it in the pipe", what)
	case FromFile:
		if in.Target.Static && !stdinNames.Has(in.Target.Value) && !strings.HasPrefix(in.Target.Value, "/dev/") && !strings.HasPrefix(in.Target.Value, "/proc/") {
			b.hide(ProjectCode, c.Span, c, "`%s` runs the script file %s", c.Base, clip(in.Target.Value))
			if text, ok := b.t.written[path.Clean(in.Target.Value)]; ok && c.Prog.Kind.Has(p.Shell) {
				b.payload(c, text, fmt.Sprintf("the script %s, which the text writes,", clip(in.Target.Value)))
			}
			return
		}
		b.hide(FedScript, c.Span, c, "%s comes from %s", what, clip(in.Target.Raw))
	default:
		b.hide(FedScript, c.Span, c, "%s comes from a substitution or descriptor", what)
	}
}

// fedSub reads the sub-language script a program reads from its standard
// input (sqlite3's SQL and dot commands): static text is read as its
// arguments would be, anything else hides what it runs.
func (b *builder) fedSub(c *Call, in *Input, what string) {
	switch {
	case in.Kind == FromHereString || in.Kind == FromHereDoc:
		if in.Static {
			b.subScript(c, c.Prog, []string{in.Text})
			return
		}
	case in.Kind == FromPipe:
		if up := in.From; up != nil && up.Prog != nil && up.Prog.OnlyPrints() {
			if outs, ok := EchoOutputs(up); ok {
				for _, text := range outs {
					b.subScript(c, c.Prog, []string{text})
				}
				return
			}
		}
	case in.Kind == FromFile:
		if in.Target.Static && !stdinNames.Has(in.Target.Value) && !strings.HasPrefix(in.Target.Value, "/dev/") && !strings.HasPrefix(in.Target.Value, "/proc/") {
			b.hide(ProjectCode, c.Span, c, "`%s` runs the script file %s", c.Base, clip(in.Target.Value))
			return
		}
	}
	// Code in another language, as an interpreter's script is.
	b.hide(FedScript, c.Span, c, "%s may run programs through its dot commands, and the gate cannot read it", what)
}

// finish reads what is left once the whole text is read: calls that read
// a script from a standard input nothing in the text feeds.
func (t *Tree) finish() {
	for _, c := range t.Calls {
		if c.script && (c.Guessed() || c.ownStdin) {
			// A guessed shell's standard input is the guessing program's
			// to give (docker run -it IMG bash), and an editor's or a
			// debugger's unfed standard input is the run's (vim -es -c
			// CMD f reads none): nothing the text feeds.
			c.script = false
			continue
		}
		if c.script {
			c.script = false
			t.Hidden = append(t.Hidden, Hidden{Kind: FedScript, Span: c.Span, Call: c,
				Why: fmt.Sprintf("`%s` reads a script from standard input", c.Base)})
		}
	}
}

// find reads find's actions that run a command: -exec, -execdir, -ok and
// -okdir CMD … ; (or +), with {} standing for each file found.
func (b *builder) find(c *Call, args []Word) {
	if w, ok := findComputed(args); ok && !c.Guessed() {
		b.hide(Unreadable, c.Span, c, "the word `%s` of `find` is computed at run time and may be a primary such as -exec or -delete", clip(w.Raw))
	}
	for k := 0; k < len(args); k++ {
		a := args[k]
		if !a.Static || !p.FindRuns.Has(a.Value) {
			continue
		}
		j := k + 1
		for j < len(args) && !(args[j].Static && (args[j].Value == ";" || args[j].Value == "+")) {
			j++
		}
		inner := make([]Word, 0, j-k-1)
		for _, w := range args[k+1 : j] {
			if w.Static && strings.Contains(w.Value, "{}") {
				w = Word{Raw: w.Value, Hole: true}
			}
			inner = append(inner, w)
		}
		plus := j < len(args) && args[j].Value == "+"
		b.argvCall(c, inner, fmt.Sprintf("the command `find %s` runs", a.Value), plus)
		k = j
	}
}

// findComputed returns the first computed word of a find command line
// that may stand for primaries: any word bash may split, and a word that
// could start with a dash where find reads one — the value of a one-value
// primary (-name "$p") cannot, nor can a word whose literal start is not a
// dash ("./$d"); the words of an -exec command are its argv.
func findComputed(args []Word) (Word, bool) {
	for k := 0; k < len(args); k++ {
		w := args[k]
		switch {
		case w.Static && p.FindRuns.Has(w.Value):
			// The command's words are its argv (read as a call), up to
			// the ; or + that ends it; a computed one among them may be
			// that ; (and split, more words after it).
			for k+1 < len(args) && !(args[k+1].Static && (args[k+1].Value == ";" || args[k+1].Value == "+")) {
				k++
				if a := args[k]; !a.Static && (MaySplit(a.Node) || !nonDashStart(a.Node) || literalStart(a.Node) == ';' || literalStart(a.Node) == '+') {
					return a, true
				}
			}
		case w.Static:
		case MaySplit(w.Node):
			return w, true
		case k > 0 && args[k-1].Static && p.FindOneValue(args[k-1].Value):
		case nonDashStart(w.Node):
		default:
			return w, true
		}
	}
	return Word{}, false
}

// nonDashStart reports a word whose value surely starts with a byte other
// than '-'.
func nonDashStart(w *syntax.Word) bool {
	b := literalStart(w)
	return b != 0 && b != '-'
}

// literalStart is the first byte of w's value when its first part is an
// unquoted or quoted literal that shows it, else 0 ($'\x2d' and \- may
// be a dash).
func literalStart(w *syntax.Word) byte {
	if w == nil || len(w.Parts) == 0 {
		return 0
	}
	var lit string
	switch part := w.Parts[0].(type) {
	case *syntax.Lit:
		lit = part.Value
	case *syntax.SglQuoted:
		if !part.Dollar {
			lit = part.Value
		}
	case *syntax.DblQuoted:
		if len(part.Parts) > 0 {
			if l, ok := part.Parts[0].(*syntax.Lit); ok {
				lit = l.Value
			}
		}
	}
	if lit == "" || lit[0] == '\\' {
		return 0
	}
	return lit[0]
}

// sub reads a program whose sub-language runs commands (sed's e command,
// awk's system(), sqlite's .shell).
func (b *builder) sub(c *Call, prog *p.Program, args []Word) {
	vals, ok := Statics(args)
	if !ok {
		if len(args) > 0 {
			b.hide(Unreadable, c.Span, c, "an argument of `%s` is computed at run time and may be a script that runs commands", c.Base)
		}
		return
	}
	if b.opt.Sub == nil {
		if len(args) > 0 {
			b.hide(Unreadable, c.Span, c, "`%s` is given a script, which may run commands", c.Base)
		}
		return
	}
	b.subScript(c, prog, vals)
	if prog.Scanner == p.ScanSqlite && sqliteReadsStdin(vals) {
		// No SQL on the command line: the script (SQL and dot commands)
		// comes from standard input, read once the builder knows it.
		c.script, c.ScriptStdin = true, true
	}
}

// subScript reads the commands a sub-language script runs (vals are the
// program's arguments, or the script it reads from standard input).
func (b *builder) subScript(c *Call, prog *p.Program, vals []string) {
	cmds, opaque := b.opt.Sub(prog.Scanner, vals)
	for _, cmd := range cmds {
		b.payload(c, cmd, fmt.Sprintf("a command `%s` runs from its script", c.Base))
	}
	if opaque != "" {
		b.hide(Unreadable, c.Span, c, "`%s` %s, which the rules cannot see", c.Base, opaque)
	}
}

// sqliteReadsStdin reports an sqlite3 command line that may read its
// script from standard input: no SQL operand after the database, or an
// option whose value the gate cannot tell from an operand.
func sqliteReadsStdin(args []string) bool {
	operands := 0
	for _, a := range args {
		switch {
		case p.SqliteFlags.Has(strings.Replace(a, "--", "-", 1)):
		case strings.HasPrefix(a, "-"):
			return true
		default:
			operands++
		}
	}
	return operands < 2
}

// clip shortens text quoted in a reason.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// addresses reads the operands that name a command by a prefix
// (Runs.Addresses: socat EXEC:CMD, SYSTEM:CMD): the rest of the word runs,
// options after a comma and all (the stricter reading). A computed
// operand may be such an address.
func (b *builder) addresses(c *Call, prog *p.Program, args []Word) {
	for _, a := range args {
		if !a.Static || a.Hole {
			b.hide(Unreadable, c.Span, c, "`%s` is given an address computed at run time, which may be a command it runs", c.Base)
			continue
		}
		low := strings.ToLower(a.Value)
		for _, pre := range prog.Runs.Addresses {
			if strings.HasPrefix(low, pre) {
				b.payload(c, a.Value[len(pre):], fmt.Sprintf("the address `%s` of `%s`", clip(a.Value), c.Base))
				break
			}
		}
	}
}

// A script the text itself writes and then runs (echo 'CMD' > s.sh; sh
// s.sh, cat > s.sh <<EOF … EOF, then ./s.sh) runs what was written: the
// file's static content is read as the script, as a -c script is. Content
// the text does not show (a computed word, a download) is left to the
// project-code and download rules.

// recordWrites notes the static text c writes into files: echo's and
// printf's words redirected to a file, and a here-string or here-document
// that cat or tee copies to a file (tee's operands too).
func (b *builder) recordWrites(c *Call) {
	if c.Prog == nil {
		b.unreadWrites(c, false)
		return
	}
	text, ok := "", false
	switch {
	case c.Prog.OnlyPrints():
		var vals []string
		if vals, ok = Statics(c.Argv[1:]); ok {
			for len(vals) > 0 && c.Prog.Echo && strings.HasPrefix(vals[0], "-") && len(vals[0]) > 1 && strings.Trim(vals[0][1:], "neE") == "" {
				vals = vals[1:]
			}
			// Escapes are read as echo -e and printf read them (\n, the
			// format's): the stricter reading of both.
			text = strings.ReplaceAll(strings.Join(vals, "\n"), `\n`, "\n") + "\n"
		}
	case (c.Base == "cat" || c.Base == "tee") && c.Stdin != nil && c.Stdin.Static &&
		(c.Stdin.Kind == FromHereString || c.Stdin.Kind == FromHereDoc):
		text, ok = c.Stdin.Text+"\n", true
	}
	b.unreadWrites(c, ok)
	if !ok {
		return
	}
	var files []string
	for _, r := range c.Redirs {
		if (r.N == "" || r.N == "1") && r.Target.Static && (r.Op == syntax.RdrOut || r.Op == syntax.AppOut || r.Op == syntax.ClbOut || r.Op == syntax.RdrAll || r.Op == syntax.AppAll) {
			files = append(files, r.Target.Value)
		}
	}
	if c.Base == "tee" {
		for _, a := range c.Argv[1:] {
			if a.Static && !strings.HasPrefix(a.Value, "-") {
				files = append(files, a.Value)
			}
		}
	}
	for _, f := range files {
		if b.t.written == nil {
			b.t.written = map[string]string{}
		}
		f = path.Clean(f)
		if len(b.t.written[f])+len(text) <= MaxPayloadBytes {
			b.t.written[f] += text
		}
	}
}

// writtenScript reads the file c runs as a script, when the text wrote it
// and a shell runs it: c is a shell or source, or (direct) the file is
// run by name and its #! line, if any, names a shell.
func (b *builder) writtenScript(c *Call, file string, direct bool) {
	text, ok := b.t.written[path.Clean(file)]
	if !ok {
		return
	}
	switch {
	case direct:
		if line, _, _ := strings.Cut(text, "\n"); strings.HasPrefix(line, "#!") {
			f := strings.Fields(line[2:])
			if len(f) > 0 && path.Base(f[0]) == "env" && len(f) > 1 {
				f = f[1:]
			}
			if len(f) == 0 || !p.Is(path.Base(f[0]), p.Shell) {
				return // another interpreter's code
			}
		}
	case c.Prog == nil || !c.Prog.Kind.Has(p.Shell) && !(c.Prog.Runs != nil && c.Prog.Runs.Script && c.Prog.Kind.Has(p.Builtin)):
		return
	}
	b.payload(c, text, fmt.Sprintf("the script %s, which the text writes,", clip(file)))
}

// The text's own scripts. A file the text writes and then runs as a
// script (bash F, . F, ./F, sh < F) is the text's code, not the
// project's: written records what the gate can read of it (echo's and
// printf's words, a here-document cat or tee copies), and unread the
// files it writes in ways it cannot — a compound command's or another
// descriptor's redirection ({ echo …; } > F, exec 3>F), words computed at
// run time, a copier's or mover's target (echo … > x; mv x F). Running
// one of those hides what it runs (finishScripts).

// unreadWrites records the files c writes whose text the gate does not
// know (known: c's printed text was recorded for its standard output).
func (b *builder) unreadWrites(c *Call, known bool) {
	for _, r := range c.Redirs {
		if !writeOp(r.Op) || !r.Target.Static {
			continue
		}
		if !known || r.N != "" && r.N != "1" {
			b.unreadFile(r.Target.Value)
		}
	}
	if c.Prog == nil {
		return
	}
	switch c.Prog.Targets {
	case p.EditsInPlace:
		if !inPlace(c.Argv[1:]) {
			return // perl script.pl, ruby x.rb: no -i, nothing is edited
		}
		fallthrough
	case p.Moves, p.CopiesTo, p.WritesAll:
		// Every operand may be the file written (cp -t DIR, mv's
		// sources into a directory named later): the stricter reading.
		for _, a := range c.Argv[1:] {
			if a.Static && !strings.HasPrefix(a.Value, "-") {
				b.unreadFile(a.Value)
			}
		}
	}
}

// inPlace reports an in-place editor's words that may edit its files:
// --in-place, or a short cluster holding i (sed -ni, perl -pi.bak), or a
// word computed at run time, which may be one.
func inPlace(args []Word) bool {
	for _, a := range args {
		switch {
		case !a.Static:
			return true
		case strings.HasPrefix(a.Value, "--in-place"), a.Value == "--inplace":
			return true
		case strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "--") && strings.Contains(a.Value, "i"):
			return true
		}
	}
	return false
}

// unreadStmtWrites records the files a compound command's redirections
// (or a bare one) write.
func (b *builder) unreadStmtWrites(rs []Redir) {
	for _, r := range rs {
		if writeOp(r.Op) && r.Target.Static {
			b.unreadFile(r.Target.Value)
		}
	}
}

func (b *builder) unreadFile(f string) {
	if b.t.unread == nil {
		b.t.unread = map[string]bool{}
	}
	b.t.unread[path.Clean(f)] = true
}

func writeOp(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.ClbOut, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
		return true
	}
	return false
}

// finishScripts hides each run of a script the text writes in a way the
// gate cannot read.
func (t *Tree) finishScripts() {
	if len(t.unread) == 0 {
		return
	}
	for _, c := range t.Calls {
		var file string
		switch {
		case c.ScriptFile != "":
			file = c.ScriptFile
		case strings.Contains(c.Name, "/"):
			file = c.Name
		case c.Stdin != nil && c.Stdin.Kind == FromFile && c.Stdin.Target.Static && c.Prog != nil &&
			(c.Prog.Kind.Any(p.Shell|p.Interpreter) || c.Prog.Runs != nil && c.Prog.Runs.Script):
			file = c.Stdin.Target.Value
		default:
			continue
		}
		if t.unread[path.Clean(file)] {
			t.Hidden = append(t.Hidden, Hidden{Kind: Unreadable, Span: c.Span, Call: c,
				Why: fmt.Sprintf("`%s` runs %s, which the text writes with content the gate cannot read", c.Base, clip(file))})
		}
	}
}
