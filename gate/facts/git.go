package facts

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentexec/agentexec/gate/gitconfig"
	p "github.com/agentexec/agentexec/gate/programs"
)

// git reads what a git command line runs: aliases and program-naming keys
// given with -c, the subcommands' command options (rebase -x, bisect run,
// submodule foreach, …), aliases planted with git config, and ext::
// remotes.
func (b *builder) git(c *Call, args []Word) {
	i := 0
	aliases := map[string]string{} // from -c alias.NAME=VALUE, this call only
	for i < len(args) {
		a := args[i]
		if !a.Static {
			b.hide(Unreadable, c.Span, c, "a global option of `git` is computed at run time")
			return
		}
		v := a.Value
		if !strings.HasPrefix(v, "-") {
			break
		}
		name, val, hasVal := strings.Cut(v, "=")
		if p.GitGlobalValued.Has(name) && !hasVal && name != "--list-cmds" {
			if i+1 >= len(args) {
				return
			}
			i++
			val, hasVal = args[i].Value, args[i].Static
			if !args[i].Static {
				if name == "-c" {
					b.hide(Unreadable, c.Span, c, "the value of `git %s` is computed at run time and may name a program git runs", name)
				}
				i++ // -C, --git-dir, …: where git works, not what it runs
				continue
			}
		}
		switch {
		case name == "-c" && hasVal:
			b.gitConfig(c, val, "-c")
			if key, v, ok := strings.Cut(val, "="); ok && strings.HasPrefix(strings.ToLower(key), "alias.") {
				aliases[strings.ToLower(key[len("alias."):])] = v
			}
		case name == "--config-env":
			b.hide(Unreadable, c.Span, c, "`git --config-env` takes a configuration value from the environment, which may name a program")
		case name == "--exec-path" && hasVal:
			b.hide(Unreadable, c.Span, c, "`git --exec-path` makes git run its commands from %s", clip(val))
		}
		i++
	}
	if i >= len(args) {
		return
	}
	sub, rest := args[i].Value, args[i+1:]
	if !args[i].Static {
		b.hide(Unreadable, c.Span, c, "the subcommand of `git` is computed at run time")
		return
	}
	if !p.IsGitCommand(sub) {
		b.gitAlias(c, args[:i], sub, rest, aliases)
		return
	}
	for _, w := range rest {
		if w.Static && strings.HasPrefix(w.Value, "ext::") {
			b.payload(c, strings.TrimPrefix(w.Value, "ext::"), "the command of an ext:: remote")
		}
	}
	if sub == "config" {
		b.gitConfigCmd(c, rest)
	}
	for _, r := range p.GitRuns.Get()[sub] {
		b.gitRun(c, sub, r, rest)
	}
}

// gitConfig reads one `-c key=value`.
func (b *builder) gitConfig(c *Call, kv, how string) {
	key, val, _ := strings.Cut(kv, "=")
	lk := strings.ToLower(key)
	switch {
	case strings.HasPrefix(lk, "alias."):
		if cmd, ok := strings.CutPrefix(strings.TrimSpace(val), "!"); ok {
			b.payload(c, cmd, fmt.Sprintf("the git alias %s", key[len("alias."):]))
		}
	case p.GitSafeConfigKey(lk):
	default:
		b.hide(Unreadable, c.Span, c, "`git %s %s` sets configuration that may name a program git runs", how, clip(kv))
	}
}

// gitConfigCmd reads `git config [--global…] KEY VALUE` (and `git config
// set KEY VALUE`): an alias it plants is read as later git commands run
// it, and a key whose value is a command later git commands run (a
// pager, an fsmonitor hook, a remote's ext:: URL) has that command read
// as this text's, since the configuration it writes is not on disk when
// the gate reads the repository's.
func (b *builder) gitConfigCmd(c *Call, args []Word) {
	parsed := p.GitConfigOpts.Parse(toArgs(args))
	for _, f := range parsed.Found {
		if p.GitConfigReads.Has(f.Name) {
			return
		}
	}
	var ops []Word
	for _, i := range parsed.Operands {
		ops = append(ops, args[i])
	}
	if len(ops) > 0 && ops[0].Static && ops[0].Value == "set" {
		ops = ops[1:]
	} else if len(ops) > 0 && ops[0].Static && p.GitConfigReads.Has(ops[0].Value) {
		return
	}
	if len(ops) < 2 {
		return
	}
	if !ops[0].Static {
		b.hide(ShellState, c.Span, c, "`git config` sets a key computed at run time, which may name a program later git commands run")
		return
	}
	b.gitPlant(c, ops[0].Value, ops[1])
}

// gitConfigValue reads an option's KEY=VALUE configuration (clone -c).
func (b *builder) gitConfigValue(c *Call, f p.Found) {
	if !f.ValueStatic {
		b.hide(ShellState, c.Span, c, "`git` is given configuration computed at run time, which may name a program git runs")
		return
	}
	key, val, _ := strings.Cut(f.Value, "=")
	b.gitPlant(c, key, Word{Value: val, Static: true, Raw: val})
}

// gitPlant reads configuration key set to val, which later git commands
// act on.
func (b *builder) gitPlant(c *Call, key string, val Word) {
	if strings.HasPrefix(strings.ToLower(key), "alias.") {
		if !val.Static {
			b.hide(ShellState, c.Span, c, "`git config` defines an alias from a value computed at run time")
			return
		}
		name := strings.ToLower(key[len("alias."):])
		if b.t.gitAliases == nil {
			b.t.gitAliases = map[string]string{}
		}
		b.t.gitAliases[name] = val.Value
		if cmd, ok := strings.CutPrefix(strings.TrimSpace(val.Value), "!"); ok {
			b.payload(c, cmd, fmt.Sprintf("the git alias %s", name))
		}
		return
	}
	switch gitconfig.PlantedKey(key) {
	case gitconfig.PlantOpaque:
		b.hide(ShellState, c.Span, c, "`git` sets %s, which makes later git commands read configuration the text does not show", clip(key))
	case gitconfig.PlantCommand:
		if !val.Static {
			b.hide(ShellState, c.Span, c, "`git` sets %s to a value computed at run time, which later git commands may run", clip(key))
			return
		}
		cmd, appends := gitconfig.PlantedCommand(key, val.Value)
		what := fmt.Sprintf("the command later git commands run from the configuration %s", key)
		switch {
		case cmd == "":
		case appends && plainArgv(cmd):
			b.argvCall(c, splitWords(cmd), what, true) // only begun: git adds the words
		default:
			b.payload(c, cmd, what)
		}
	}
}

// gitAlias reads a subcommand that is not one of git's own commands: an
// alias the text defines is read as the git command line it stands for
// (`git -c alias.p=push p` is `git push`); any other is an alias from
// configuration, a git-NAME program on PATH or an autocorrected command,
// which the gate cannot read.
func (b *builder) gitAlias(c *Call, globals []Word, sub string, rest []Word, aliases map[string]string) {
	v, ok := aliases[strings.ToLower(sub)]
	if !ok {
		v, ok = b.t.gitAliases[strings.ToLower(sub)]
	}
	switch {
	case ok && strings.HasPrefix(strings.TrimSpace(v), "!"):
		return // a shell alias: its command was read where it was defined
	case ok:
		argv := append(append(append([]Word{c.Argv[0]}, globals...), splitWords(v)...), rest...)
		b.argvCall(c, argv, fmt.Sprintf("the git alias %s", sub), false)
	default:
		b.hide(Unreadable, c.Span, c, "`git %s` is not one of git's commands: git runs it as an alias from its configuration, a `git-%s` program on PATH or a command help.autocorrect picks, which the gate cannot read", clip(sub), clip(sub))
	}
}

// gitLine reads the git command line a subcommand runs from its operands
// (for-each-repo): read as `git WORDS` is, with git's own name.
func (b *builder) gitLine(c *Call, sub string, parsed p.Parsed, args []Word) {
	if parsed.Dynamic {
		b.hide(Unreadable, c.Span, c, "an argument of `git %s` is computed at run time and may be an option or the git command it runs", sub)
		return
	}
	if len(parsed.Operands) == 0 {
		return
	}
	argv := append([]Word{c.Argv[0]}, args[parsed.Operands[0]:]...)
	b.argvCall(c, argv, fmt.Sprintf("the git command `git %s` runs in each repository", sub), false)
}

// gitRun reads one way a subcommand runs a command: the words after an
// operand (bisect run), or its command options read with the
// subcommand's grammar, in every spelling git accepts.
func (b *builder) gitRun(c *Call, sub string, r p.GitRun, args []Word) {
	what := fmt.Sprintf("the command `git %s` runs", sub)
	if r.After == "" {
		parsed := r.Opts.Parse(toArgs(args))
		if r.Git {
			b.gitLine(c, sub, parsed, args)
			return
		}
		for _, f := range parsed.Found {
			b.effect(c, c.Prog, f, args)
			if slices.Contains(r.Config, f.Name) && f.HasValue {
				b.gitConfigValue(c, f)
			}
		}
		return
	}
	for i, w := range args {
		if !w.Static || w.Value != r.After {
			continue
		}
		rest := args[i+1:]
		for len(rest) > 0 && rest[0].Static && strings.HasPrefix(rest[0].Value, "--") {
			rest = rest[1:] // submodule foreach --recursive
		}
		if !r.Joined {
			b.argvCall(c, rest, what, false)
			return
		}
		vals, ok := Statics(rest)
		if !ok {
			b.hide(Unreadable, c.Span, c, "%s is computed at run time", what)
			return
		}
		b.payload(c, strings.Join(vals, " "), what)
		return
	}
}
