package facts

import (
	"path"
	"strings"

	p "github.com/agentexec/agentexec/gate/programs"
)

// Where the table's model of a program ends, its operands may still be a
// command it runs: a program the table does not know (setarch's aliases
// i386 and x86_64, runcon, systemd-inhibit, a vendor CLI), a package
// manager or build tool whose run/exec subcommands start what follows
// (npx rm, uv run rm, poetry run rm), a project script handed a command
// (./retry.sh rm x). The gate cannot say which words such a program runs,
// so it guesses — over-approximating, for the stricter readers only:
//
//   - every operand that names a program the table knows (one a program
//     can exec: not a shell builtin), by name or path, starts a command
//     made of it and the words after it;
//   - every operand (or --option=value) that is shell text, with a blank
//     in it, may be run by a shell (sg GROUP 'CMD', nix-shell --run 'CMD'),
//     and so may static text fed to its standard input;
//   - any program may run a command named in a variable it is given that
//     the table has no fact about (GH_PAGER='CMD' gh …): see guessAssigns.
//
// A guessed call (Call.Guess, and every call started from one) is what the
// program *may* run: deny and ask rules that match it ask rather than deny,
// and the blacklist refuses it as it refuses a literal in inline code.
// Allow rules never need to cover it (it is not run by the shell), so a
// guess can only make a decision stricter. A call guessed from a suffix of
// the operands guesses no further itself — every suffix it could add is
// already one of the outer guesses — but the calls it runs do (su -c TEXT
// inside, read afresh).

// guess records what c, whose operands the table does not model, may run.
func (b *builder) guess(c *Call, args []Word) {
	if c.suffix {
		return
	}
	c.guessIn = true
	for i, a := range args {
		if !a.Static || a.Glob {
			// A computed word, a brace expansion or a glob may still be a
			// program's name (Z=rm; i386 $Z, i386 /bin/r?): the guessed
			// call then has a dynamic name, which hides what it runs.
			if b.mayNameProgram(a) {
				b.guessArgv(c, args[i:])
			}
			continue
		}
		if a.Hole || a.Value == "" {
			continue
		}
		v := a.Value
		if strings.HasPrefix(v, "-") {
			b.guessOption(c, v, args[i+1:])
			continue
		}
		if programWord(v) {
			b.guessArgv(c, args[i:])
		}
		if k, val, ok := strings.Cut(v, "="); ok && k != "" && !strings.ContainsAny(k, " \t\n'\"/") {
			// A variable given as an operand (make SHELL=rm, make CC=rm
			// x.o, ./configure CC=rm) names a program the tool runs, as
			// one in its environment does (guessAssigns); so does a
			// quoted string in a configuration value (cargo --config
			// 'target.T.runner="rm"' and runner=["rm","-f"] ran rm).
			for _, prog := range valuePrograms(val) {
				b.guessArgv(c, []Word{{Value: prog, Static: true, Raw: prog}})
			}
		}
		if shellText(v) {
			for _, t := range guessTexts(v) {
				b.guessText(c, t)
			}
		}
	}
}

// maxClusterGuess bounds the option letters read before a short option's
// attached value (-qp'CMD').
const maxClusterGuess = 6

// guessOption reads an option word of a program the table does not model
// for the command its value may be: --opt=TEXT and a short option's
// attached -oTEXT (after up to maxClusterGuess letters: -qp'rm -rf ~',
// hyperfine's -p) are shell text when they have a blank, and --opt=PROG
// naming a program the table knows may start it with the words after
// (--exec=rm -rf /).
func (b *builder) guessOption(c *Call, v string, rest []Word) {
	if _, val, ok := strings.Cut(v, "="); ok {
		if shellText(val) {
			b.guessText(c, val)
		}
		for _, q := range valuePrograms(val) {
			if q != val {
				b.guessArgv(c, []Word{{Value: q, Static: true, Raw: q}})
			}
		}
		if programWord(val) {
			prog := Word{Value: val, Static: true, Raw: val}
			b.guessArgv(c, append([]Word{prog}, rest...))
			if args, ok := propertyArgs(rest); ok {
				b.guessArgv(c, append([]Word{prog}, args...))
			}
		}
	}
	if strings.HasPrefix(v, "--") || !shellText(v) {
		return
	}
	for k := 2; k < len(v) && k <= 1+maxClusterGuess && !strings.ContainsAny(v[1:k], " \t\n="); k++ {
		if shellText(v[k:]) {
			b.guessText(c, v[k:])
		}
	}
}

// valuePrograms are the programs the table knows that a configuration
// value names: the value itself, or one of its quoted strings ("rm",
// ['rm', '-f']).
func valuePrograms(val string) []string {
	var out []string
	if programWord(val) {
		out = append(out, val)
	}
	for i := 0; i < len(val) && len(out) < maxGuessTexts; i++ {
		q := val[i]
		if q != '"' && q != '\'' {
			continue
		}
		end := strings.IndexByte(val[i+1:], q)
		if end < 0 {
			break
		}
		if lit := val[i+1 : i+1+end]; programWord(lit) {
			out = append(out, lit)
		}
		i += end + 1
	}
	return out
}

// propertyArgs are the arguments a program named by one option may be
// given by the options after it, as a build tool's plugin takes them
// (mvn exec:exec -Dexec.executable=rm -Dexec.args='-rf /' runs rm -rf /):
// each option's value, split on blanks, in place of the option; ok is
// false when no option there has a value.
func propertyArgs(rest []Word) (args []Word, ok bool) {
	for _, w := range rest {
		if _, val, has := strings.Cut(w.Value, "="); w.Static && has && strings.HasPrefix(w.Value, "-") {
			args, ok = append(args, splitWords(val)...), true
			continue
		}
		args = append(args, w)
	}
	return args, ok
}

// maxGuessTexts bounds the texts one word is read as.
const maxGuessTexts = 16

// guessTexts are the shell texts a word with a blank may carry: the word,
// the value of a KEY=VALUE word (aws … --parameters commands=CMD), and
// each quoted string in it (JSON or a list: commands=["CMD"]) — a vendor
// CLI hands any of them to a shell.
func guessTexts(v string) []string {
	out := []string{v}
	if k, val, ok := strings.Cut(v, "="); ok && k != "" && !strings.ContainsAny(k, " \t\n'\"") && shellText(val) && !strings.HasPrefix(val, "[") && !strings.HasPrefix(val, "{") {
		out = append(out, val)
	}
	for i := 0; i < len(v) && len(out) < maxGuessTexts; i++ {
		q := v[i]
		if q != '"' && q != '\'' {
			continue
		}
		var lit strings.Builder
		j := i + 1
		for ; j < len(v) && v[j] != q; j++ {
			if v[j] == '\\' && q == '"' && j+1 < len(v) {
				j++
			}
			lit.WriteByte(v[j])
		}
		if j < len(v) && shellText(lit.String()) {
			out = append(out, lit.String())
		}
		i = j
	}
	return out
}

// programWord reports a word that names a program the table knows, by
// its name or a path to it (/usr/bin/rm, ./rm — not @types/node or
// src/node, which name packages and directories).
func programWord(v string) bool {
	if strings.Contains(v, "/") && !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "./") {
		return false
	}
	return execable(path.Base(v))
}

// mayNameProgram reports a computed or glob word that may expand to the
// name of a program the table knows: its values from the text's own
// assignments and braces, or a glob pattern that matches such a name.
func (b *builder) mayNameProgram(a Word) bool {
	if a.Hole || a.Node == nil {
		return false
	}
	vals, ok := Resolve(a.Node, b.knownVars())
	if !ok {
		return false
	}
	for _, v := range vals {
		if programWord(v) || globNamesProgram(v) {
			return true
		}
	}
	return false
}

// globNamesProgram reports an absolute glob pattern whose last element
// matches the name of a program the table knows (/bin/r?, /usr/*/rm).
func globNamesProgram(v string) bool {
	if !hasGlobByte(v) {
		return false
	}
	dir, base := path.Split(v)
	if !strings.HasPrefix(dir, "/") {
		// *.txt, ./*, src/*: the project's files, which are not the
		// programs the rules name (a file there named like one is the
		// exec gate's to see).
		return false
	}
	found := false
	p.All(func(prog *p.Program) {
		if !found && execable(prog.Name) {
			found = GlobMatch(base, prog.Name)
		}
	})
	return found
}

// execable reports a name the table knows as a program another program
// can start: shell builtins (cd, export, eval) exist only inside a shell,
// but kill is a program too.
func execable(name string) bool {
	prog := p.Lookup(name)
	if prog == nil {
		return false
	}
	return !prog.Kind.Has(p.Builtin) || prog.Kind.Has(p.Signaller)
}

// shellText reports a word that reads as a command line rather than one
// argument: it has a blank in it.
func shellText(v string) bool {
	// A byte loop: ContainsAny on a short word calls IndexRune per byte.
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == ' ' || c == '\t' || c == '\n' {
			return true
		}
	}
	return false
}

// guessArgv records argv as a command c may start.
func (b *builder) guessArgv(c *Call, argv []Word) {
	how := "`" + clip(c.Base) + "` is not modelled by the gate, and it may run"
	if b.depth+1 > MaxPayloadDepth*4 {
		b.t.Truncated = true
		b.hide(Unreadable, c.Span, c, "%s a command nested too deeply to read", how)
		return
	}
	n := &Call{Argv: argv, Text: joinRaw(argv), Span: c.Span, Via: c, How: how, Depth: c.Depth + 1, InSubst: c.InSubst, Guess: true, suffix: true}
	if !b.add(n) {
		return
	}
	saved := b.depth
	b.depth = n.Depth
	b.runs(n)
	b.depth = saved
}

// guessText records the commands of a shell text c may run. Text bash
// cannot parse is no command a shell could run, so it adds nothing.
func (b *builder) guessText(c *Call, text string) {
	how := "`" + clip(c.Base) + "` is not modelled by the gate, and it may run the shell text"
	if b.depth+1 > MaxPayloadDepth || b.t.payloadBytes()+len(text) > MaxPayloadBytes {
		b.t.Truncated = true
		b.hide(Unreadable, c.Span, c, "%s %q, which is nested too deeply (or too large) to read", how, clip(text))
		return
	}
	f, err := Parse(text, b.opt.POSIX)
	if err != nil {
		return
	}
	b.t.nestedBytes += len(text)
	sp := c.Span
	nb := &builder{t: b.t, opt: b.opt, src: text, outer: &sp, via: c, how: how, depth: b.depth + 1, walk: b.walk, guessing: true}
	nb.stmts(f.Stmts)
}

// guessAssigns reads the variables a command is given: a program may run
// a command named in one the table has no fact about (GH_PAGER, AWS_PAGER,
// KUBECTL_EXTERNAL_DIFF, RUSTC_WRAPPER, a vendor's …), so a value that
// names a known program or is shell text is a guessed command.
func (b *builder) guessAssigns(c *Call, assigns []Assign) {
	for _, a := range assigns {
		v := a.Value.Value
		if p.Var(a.Name) != p.PlainVar || !a.Value.Static || a.Value.Node == nil || v == "" {
			continue
		}
		switch {
		case shellText(v):
			b.guessText(c, v)
		case programWord(v):
			b.guessArgv(c, []Word{{Value: v, Static: true, Raw: v}})
		}
	}
}

// guessStdin reads the static text fed to an unmodelled program's
// standard input (a here-string, a here-document, echo's words through a
// pipe) as shell text it may run: echo 'rm x' | vendor-cli.
func (b *builder) guessStdin(c *Call) {
	c.guessIn = false
	in := c.Stdin
	switch {
	case (in.Kind == FromHereString || in.Kind == FromHereDoc) && in.Static:
		b.guessText(c, in.Text)
	case in.Kind == FromPipe && in.From != nil && in.From.Prog != nil && in.From.Prog.OnlyPrints():
		if outs, ok := EchoOutputs(in.From); ok {
			for _, text := range outs {
				b.guessText(c, text)
			}
		}
	}
}

// Guessed reports a call the gate only guesses may run: a Guess, or a
// call started from one.
func (c *Call) Guessed() bool {
	for x := c; x != nil; x = x.Via {
		if x.Guess {
			return true
		}
	}
	return false
}
