package gate

import (
	"strings"

	"github.com/agentexec/agentexec/internal/lazyre"
)

// knownSubcommands are the tools whose "Always allow" rule names the root
// and its subcommand (git commit *) rather than the root alone.
var knownSubcommands = map[string]bool{
	"git": true, "npm": true, "yarn": true, "pnpm": true, "bun": true, "docker": true,
	"podman": true, "pip": true, "pip3": true, "cargo": true, "kubectl": true,
	"go": true, "gh": true, "helm": true, "terraform": true, "dotnet": true,
	"brew": true, "apt": true, "apt-get": true, "systemctl": true, "make": true,
	"uv": true, "poetry": true, "mvn": true, "gradle": true, "composer": true,
}

// twoLevel are root+subcommand pairs whose next word is part of the rule
// too (npm run build, docker compose up).
var twoLevel = map[string]bool{
	"npm run": true, "yarn run": true, "pnpm run": true, "bun run": true,
	"docker compose": true, "podman compose": true, "gh pr": true, "gh issue": true,
	"kubectl rollout": true,
}

// launcherName matches what can run an arbitrary program: no rule naming
// it is ever suggested, whatever its arguments.
var launcherName = lazyre.New(`^(sh|bash|zsh|dash|ksh|mksh|ash|fish|csh|tcsh|busybox|pwsh|powershell|cmd|python[0-9.]*|pypy[0-9.]*|perl[0-9.]*|ruby[0-9.]*|node[0-9.]*|nodejs|deno|bun|tsx|ts-node|php[0-9.]*|lua[0-9.]*|java|osascript|sudo|doas|su|env|xargs|exec|eval|source|\.|setsid|nohup|timeout|nice|ionice|time|command|builtin|chroot|ssh|watch|parallel|flock|script|unshare|nsenter|stdbuf|unbuffer|strace|ltrace|find|awk|gawk|mawk|sed)$`)

// suggestFor returns the minimal rules that would allow the commands the
// shell really runs (parsed calls, so never text inside a comment), or
// nil when any of them cannot be vouched for by a rule: a launcherSpec or
// interpreter, a dynamic name, or a name on the refusal floor without a
// narrower form.
func suggestFor(calls []callFact) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range calls {
		r, ok := suggestCall(c)
		if !ok {
			return nil
		}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// suggestCall proposes one rule for one command.
func suggestCall(c callFact) (string, bool) {
	if len(c.argv) == 0 || !allStaticArgs(c.argv) || c.hiddenSubst {
		return "", false
	}
	root := c.argv[0].val
	if launcherName.MatchString(root) || strings.ContainsAny(root, "*/") && !strings.HasPrefix(root, "./") {
		return "", false
	}
	if c.writeRedir {
		// Only a rule spelling the redirection covers it: this one.
		return exactRule(c)
	}
	words := []string{root}
	rest := c.argv[1:]
	if knownSubcommands[root] && len(rest) > 0 && subcommandWord(rest[0].val) {
		words = append(words, rest[0].val)
		rest = rest[1:]
		if twoLevel[strings.Join(words, " ")] && len(rest) > 0 && subcommandWord(rest[0].val) {
			words = append(words, rest[0].val)
			rest = rest[1:]
		}
	} else if onFloor(root) {
		return exactRule(c)
	}
	if c.assigns != "" {
		words = append([]string{c.assigns}, words...)
	}
	rule := strings.Join(words, " ")
	if len(rest) > 0 {
		rule += " *"
	}
	return "Bash(" + rule + ")", !strings.Contains(rule, ")")
}

// exactRule is the rule for exactly this command, for a writer whose
// prefix rule would allow too much (rm -rf build, never rm *).
func exactRule(c callFact) (string, bool) {
	t := normalizeBlanks(c.text)
	if strings.ContainsAny(t, "*()\n") {
		return "", false
	}
	return "Bash(" + t + ")", true
}

var subcommandWordRe = lazyre.New(`^[a-z][a-z0-9:_.-]*$`)

func subcommandWord(s string) bool { return subcommandWordRe.MatchString(s) }

// floorWriters are the known writers whose prefix rule (rm *) would allow
// far more than the command asked for.
var floorWriters = map[string]bool{
	"rm": true, "rmdir": true, "mv": true, "cp": true, "dd": true, "tee": true,
	"chmod": true, "chown": true, "chgrp": true, "ln": true, "shred": true,
	"truncate": true, "install": true, "kill": true, "pkill": true, "killall": true,
	"curl": true, "wget": true, "rsync": true, "scp": true, "unlink": true,
}

// onFloor reports names no prefix rule should cover.
func onFloor(name string) bool { return floorWriters[name] || refusalFloor(name) }
