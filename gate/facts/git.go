package facts

import (
	"fmt"
	"strings"

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

// gitConfigCmd reads `git config [--global…] alias.x '!cmd'`, which plants
// an alias later git commands run.
func (b *builder) gitConfigCmd(c *Call, args []Word) {
	var ops []Word
	for _, w := range args {
		if w.Static && strings.HasPrefix(w.Value, "-") {
			continue
		}
		ops = append(ops, w)
	}
	if len(ops) >= 2 && ops[0].Static && strings.HasPrefix(strings.ToLower(ops[0].Value), "alias.") {
		if !ops[1].Static {
			b.hide(ShellState, c.Span, c, "`git config` defines an alias from a value computed at run time")
			return
		}
		name := strings.ToLower(ops[0].Value[len("alias."):])
		if b.t.gitAliases == nil {
			b.t.gitAliases = map[string]string{}
		}
		b.t.gitAliases[name] = ops[1].Value
		if cmd, ok := strings.CutPrefix(strings.TrimSpace(ops[1].Value), "!"); ok {
			b.payload(c, cmd, fmt.Sprintf("the git alias %s", name))
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

// gitRun reads one way a subcommand runs a command.
func (b *builder) gitRun(c *Call, sub string, r p.GitRun, args []Word) {
	what := fmt.Sprintf("the command `git %s` runs", sub)
	if r.After != "" {
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
		return
	}
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			continue
		}
		for _, o := range r.Opts {
			val, ok := gitOptValue(args, i, o)
			if !ok {
				continue
			}
			switch {
			case val == nil:
			case !val.Static:
				b.hide(Unreadable, c.Span, c, "%s (%s) is computed at run time", what, o)
			case r.Shell:
				b.payload(c, val.Value, what)
			default:
				b.argvCall(c, splitWords(val.Value), what, false)
			}
		}
	}
}

// gitOptValue reads option o at args[i]: --opt=V, --opt V, -oV, -o V (a
// nil value for an option given without one, as grep -O alone).
func gitOptValue(args []Word, i int, o string) (*Word, bool) {
	v := args[i].Value
	switch {
	case v == o:
		if i+1 < len(args) && !(o == "-O" || o == "--open-files-in-pager") {
			return &args[i+1], true
		}
		return nil, true
	case strings.HasPrefix(o, "--") && strings.HasPrefix(v, o+"="):
		return &Word{Value: v[len(o)+1:], Static: true, Raw: v}, true
	case !strings.HasPrefix(o, "--") && strings.HasPrefix(v, o) && len(v) > len(o):
		return &Word{Value: v[len(o):], Static: true, Raw: v}, true
	}
	return nil, false
}
