package gate

import (
	"fmt"
	"strings"
	"unicode"
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

// commandRules maps literal, case-sensitive command names to their rules.
// It is filled in init to break the initialization cycle through find's
// -exec, which dispatches back into this table.
var commandRules map[string]commandRule

func init() {
	commandRules = map[string]commandRule{}
	for _, n := range readOnlyCommands {
		commandRules[n] = readOnlyRule
	}
	for _, n := range writeCommands {
		commandRules[n] = writeRule
	}
	for _, n := range viewerCommands {
		commandRules[n] = viewerRule
	}
	for n, r := range argvRules {
		commandRules[n] = r
	}
	commandRules["find"] = findRule
	commandRules["git"] = gitCommandRule
}

// readOnlyCommands only read files and print, whatever their arguments;
// each has no option that writes a file, runs a program or changes state.
var readOnlyCommands = []string{
	"cat", "head", "tail", "ls", "wc", "pwd", "echo", "basename", "dirname",
	"realpath", "readlink", "true", "false", ":", "whoami", "id", "groups",
	"uname", "printenv", "tr", "cut", "paste", "comm", "cmp", "diff", "nl",
	"od", "hexdump", "strings", "column", "seq", "sleep", "tac", "rev",
	"fold", "md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "nproc",
	"arch", "grep", "egrep", "fgrep", "ps", "du", "df", "stat", "which",
	"type", "jq", "getconf", "uptime", "free", "join", "exit",
}

// writeCommands change the file system by design (the seed's list and the
// peer's newer additions, plus a few more of the same kind).
var writeCommands = []string{
	"chgrp", "chmod", "chown", "cp", "install", "ln", "mkdir", "mkfifo",
	"mknod", "mv", "rename", "rm", "rmdir", "shred", "touch", "truncate",
	"unlink", "chattr", "csplit", "fallocate", "mktemp", "patch", "split",
	"link", "setfacl", "chcon", "sponge",
}

// viewerCommands are pagers and editors: they can run shell commands from
// their own command line (`less +!cmd`, `vi -c '!cmd'`, `man -P`).
var viewerCommands = []string{
	"less", "more", "most", "pg", "man", "vi", "vim", "nvim", "view", "nano",
	"emacs", "ed", "ex", "info",
}

func readOnlyRule(_ *walker, a argv) finding {
	return finding{ReadOnly, "read-only-command", fmt.Sprintf("`%s` only reads", a.name)}
}

func writeRule(_ *walker, a argv) finding {
	if hasHelp(a) {
		return finding{Unknown, "write-command-help", fmt.Sprintf("`%s --help` prints help instead of writing, which the rules do not prove", a.name)}
	}
	return finding{Write, "write-command", fmt.Sprintf("`%s` is a file-system writer", a.name)}
}

func viewerRule(_ *walker, a argv) finding {
	return finding{Unknown, "pager-or-editor", fmt.Sprintf("`%s` is a pager or editor that can run commands", a.name)}
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

// dispatch finds the rule for a command name. The order matters: the tables
// win over a user's vouch, and the refusal floor can never be vouched.
func (w *walker) dispatch(a argv) finding {
	if rule, ok := commandRules[a.name]; ok {
		return rule(w, a)
	}
	if kind := floorKind(a.name); kind != "" {
		return finding{Unknown, kind, fmt.Sprintf("`%s` is %s; it is never unwrapped", a.name, floorKinds[kind])}
	}
	if w.vouched[a.name] {
		return vouchedRule(w, a)
	}
	return finding{Unknown, "unlisted-command", fmt.Sprintf("`%s` is not a command the rules know", a.name)}
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
	return finding{ReadOnly, "vouched-command", fmt.Sprintf("`%s` is vouched read-only by the user's configuration", a.name)}
}

// vouchArgIsCommand reports whether an argument names a command that a
// vouched tool could run to write or run code. Read-only commands and
// shell builtins (which no program can exec) do not count, as in the
// peer (Qwen vouched-roots `ib list .`, `mytool export data`, `gitw diff`
// → read-only).
func vouchArgIsCommand(base string) bool {
	if base == "" {
		return false
	}
	if readOnlyNames[base] {
		return false
	}
	if _, known := commandRules[base]; known {
		return true
	}
	k := floorKind(base)
	return k != "" && k != "state-builtin"
}

// readOnlyNames indexes readOnlyCommands.
var readOnlyNames = func() map[string]bool {
	m := make(map[string]bool, len(readOnlyCommands))
	for _, n := range readOnlyCommands {
		m[n] = true
	}
	return m
}()

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

// floorKinds names the classes of the refusal floor.
var floorKinds = map[string]string{
	"shell":         "a shell, which runs whatever text it is given",
	"interpreter":   "an interpreter, which runs code",
	"wrapper":       "a wrapper that runs another command",
	"build-tool":    "a build or package tool, which runs project code and scripts",
	"state-builtin": "a builtin that changes shell state for later commands",
	"viewer":        "a pager or editor, which can run commands",
}

// refusalFloor lists, by kind, the names a user can never vouch read-only.
var floorNames = map[string][]string{
	"shell": {"sh", "bash", "zsh", "dash", "ksh", "mksh", "pdksh", "ash", "yash",
		"fish", "csh", "tcsh", "rc", "es", "xonsh", "nu", "elvish", "pwsh",
		"powershell", "cmd", "busybox", "toybox", "rbash", "screen", "tmux"},
	"interpreter": {"python", "python2", "python3", "pypy", "pypy3", "node",
		"nodejs", "deno", "bun", "tsx", "ts-node", "perl", "ruby", "irb", "php",
		"lua", "luajit", "tclsh", "wish", "expect", "java", "jshell", "groovy",
		"scala", "kotlin", "Rscript", "R", "julia", "guile", "racket", "osascript",
		"swift", "dotnet", "erl", "escript", "elixir", "iex", "ghci", "runghc",
		"gdb", "lldb", "sqlite3", "psql", "mysql", "awk", "gawk", "mawk", "nawk",
		"php-cgi"},
	"viewer": {"vim", "vi", "nvim", "view", "emacs", "nano", "ed", "ex", "less",
		"more", "most", "pg", "man", "info"},
	"wrapper": {"env", "xargs", "sudo", "doas", "su", "runuser", "pkexec", "exec",
		"eval", "setsid", "nohup", "timeout", "nice", "ionice", "renice", "time",
		"command", "builtin", "watch", "flock", "chroot", "unshare", "nsenter",
		"script", "parallel", "strace", "ltrace", "valgrind", "taskset", "chrt",
		"stdbuf", "unbuffer", "firejail", "bwrap", "systemd-run", "fakeroot",
		"proot", "setpriv", "capsh", "ssh", "dbus-launch", "entr", "caffeinate",
		"start-stop-daemon", "daemonize", "at", "batch", "crontab", "sg", "newgrp",
		"tini", "dumb-init", "catchsegv", "prlimit", "cgexec", "numactl",
		"run0", "systemd-nspawn", "setarch", "linux32", "linux64", "machinectl"},
	"build-tool": {"make", "gmake", "cmake", "ninja", "meson", "bazel", "buck",
		"cargo", "rustc", "go", "gcc", "g++", "c++", "cc", "clang", "clang++", "ld",
		"npm", "npx", "pnpm", "pnpx", "yarn", "corepack", "pip", "pip3", "pipx",
		"uv", "uvx", "poetry", "pdm", "hatch", "tox", "nox", "conda", "mamba",
		"gem", "bundle", "bundler", "rake", "composer", "mvn", "gradle", "gradlew",
		"ant", "sbt", "lein", "mix", "rebar3", "stack", "cabal", "dub", "nimble",
		"docker", "podman", "buildah", "nerdctl", "kubectl", "helm", "terraform",
		"ansible", "ansible-playbook", "vagrant", "nix", "nix-shell", "apt",
		"apt-get", "dpkg", "yum", "dnf", "rpm", "apk", "pacman", "brew", "snap",
		"flatpak", "systemctl", "service", "curl", "wget", "tar", "zip", "unzip"},
	"state-builtin": {"alias", "unalias", "source", ".", "set", "shopt", "hash",
		"trap", "read", "mapfile", "readarray", "let", "enable", "fc", "declare",
		"typeset", "export", "local", "readonly", "unset", "bind", "complete",
		"compgen", "ulimit", "umask", "history", "disown", "wait", "jobs", "fg",
		"bg", "kill", "pkill", "killall", "caller", "getopts", "shift", "return",
		"exit", "logout", "break", "continue", "suspend", "coproc", "nameref",
		"function", "select"},
}

// floorIndex maps each refusal-floor name to its kind.
var floorIndex = func() map[string]string {
	m := map[string]string{}
	for kind, names := range floorNames {
		for _, n := range names {
			m[n] = kind
		}
	}
	for _, n := range writeCommands {
		m[n] = "write-command"
	}
	return m
}()

func init() { floorKinds["write-command"] = "a file-system writer" }

// floorKind returns the refusal-floor kind of name, or "". Versioned,
// suffixed and differently-cased spellings count as their base:
// python3.12, node20, ruby3, gcc-13, go1.22, pip3.11, bash.exe, Python3.
func floorKind(name string) string {
	if k, ok := floorIndex[name]; ok {
		return k
	}
	if lower := strings.ToLower(name); lower != name {
		// Case-insensitive file systems (macOS, Windows) run python3 for Python3.
		if k := floorKind(lower); k != "" {
			return k
		}
	}
	base := strings.TrimSuffix(strings.TrimSuffix(name, ".exe"), ".EXE")
	base = strings.TrimRight(base, "0123456789.")
	base = strings.TrimRight(base, "-_.")
	if base != name && base != "" {
		return floorKind(base)
	}
	return ""
}

// refusalFloor reports whether name can never be vouched read-only by a
// user: shells, interpreters (in any versioned spelling), wrappers that
// run another command, build tools, builtins that plant shell state, and
// the known writers. Names with a path are refused too, since vouches name
// commands, not files.
func refusalFloor(name string) bool {
	return strings.ContainsAny(name, "/\\") || floorKind(name) != ""
}
