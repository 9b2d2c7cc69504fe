package programs

import (
	"strings"

	"github.com/agentexec/agentexec/internal/lazy"
)

// VarKind says what a variable's value does to the programs that read it.
type VarKind uint8

// The kinds of variables that carry or load code.
const (
	// PlainVar is any other variable.
	PlainVar VarKind = iota
	// CommandVar holds a command some program runs through a shell
	// (PAGER, EDITOR, GIT_SSH_COMMAND, LESSOPEN, PROMPT_COMMAND, …).
	CommandVar
	// PromptVar is expanded as a prompt, whose command substitutions run
	// (PS4 under set -x, PS0–PS2 in an interactive shell).
	PromptVar
	// LoaderVar makes a shell, the dynamic loader or an interpreter load
	// code the text does not show (BASH_ENV, LD_PRELOAD, NODE_OPTIONS, …),
	// or changes which program a name runs (PATH, GIT_EXEC_PATH).
	LoaderVar
	// OptionsVar holds options a program reads as if given on its
	// command line (TAR_OPTIONS): see Program.EnvOptions.
	OptionsVar
)

// commandVars are the variables whose value is a command.
var commandVars = &lazy.Value[map[string]VarKind]{Build: func() map[string]VarKind {
	return map[string]VarKind{
		"PAGER": CommandVar, "MANPAGER": CommandVar, "GIT_PAGER": CommandVar, "SYSTEMD_PAGER": CommandVar,
		"BAT_PAGER": CommandVar, "DELTA_PAGER": CommandVar, "EDITOR": CommandVar, "VISUAL": CommandVar,
		"GIT_EDITOR": CommandVar, "GIT_SEQUENCE_EDITOR": CommandVar, "SUDO_EDITOR": CommandVar,
		"FCEDIT": CommandVar, "GIT_SSH_COMMAND": CommandVar, "GIT_SSH": CommandVar, "GIT_PROXY_COMMAND": CommandVar,
		"GIT_EXTERNAL_DIFF": CommandVar, "GIT_ASKPASS": CommandVar, "SSH_ASKPASS": CommandVar,
		"SUDO_ASKPASS": CommandVar, "RSYNC_RSH": CommandVar, "CVS_RSH": CommandVar, "BROWSER": CommandVar,
		"LESSOPEN": CommandVar, "LESSCLOSE": CommandVar, "PROMPT_COMMAND": CommandVar, "MANROFFOPT": CommandVar,
		"PS0": PromptVar, "PS1": PromptVar, "PS2": PromptVar, "PS3": PromptVar,
		"PS4": PromptVar, "BASH_ENV": LoaderVar, "ENV": LoaderVar, "SHELLOPTS": LoaderVar,
		"BASHOPTS": LoaderVar, "LD_PRELOAD": LoaderVar, "LD_AUDIT": LoaderVar, "LD_LIBRARY_PATH": LoaderVar,
		"PYTHONSTARTUP": LoaderVar, "PYTHONPATH": LoaderVar, "PYTHONHOME": LoaderVar, "PYTHONINSPECT": LoaderVar,
		"NODE_OPTIONS": LoaderVar, "NODE_PATH": LoaderVar, "PERL5OPT": LoaderVar, "PERL5LIB": LoaderVar,
		"PERLLIB": LoaderVar, "RUBYOPT": LoaderVar, "RUBYLIB": LoaderVar, "JAVA_TOOL_OPTIONS": LoaderVar,
		"_JAVA_OPTIONS": LoaderVar, "JDK_JAVA_OPTIONS": LoaderVar, "GIT_EXEC_PATH": LoaderVar,
		"GIT_CONFIG": LoaderVar, "GIT_CONFIG_GLOBAL": LoaderVar, "GIT_CONFIG_SYSTEM": LoaderVar,
		"GIT_CONFIG_PARAMETERS": LoaderVar, "GIT_CONFIG_COUNT": LoaderVar, "GIT_DIR": LoaderVar,
		"GIT_TEMPLATE_DIR": LoaderVar, "PATH": LoaderVar, "IFS": LoaderVar, "RIPGREP_CONFIG_PATH": LoaderVar,
		"MAKEFLAGS": LoaderVar, "NPM_CONFIG_SCRIPT_SHELL": LoaderVar, "npm_config_script_shell": LoaderVar,
		// Where programs find their configuration, which names programs
		// they run (git's core.fsmonitor, aliases, pagers in
		// $HOME/.gitconfig or $XDG_CONFIG_HOME/git/config; zsh's
		// $ZDOTDIR/.zshenv); less's options and key files (LESS='+!CMD',
		// a lesskey file's LESSOPEN); modules loaded from a path (iconv's
		// gconv modules, Python's user site, Java's classes, perl -d's
		// debugger); go's flags (-toolexec=CMD).
		"HOME": LoaderVar, "XDG_CONFIG_HOME": LoaderVar, "ZDOTDIR": LoaderVar,
		"LESS": LoaderVar, "LESSKEY": LoaderVar, "LESSKEYIN": LoaderVar, "LESSKEYIN_SYSTEM": LoaderVar,
		"GCONV_PATH": LoaderVar, "PYTHONUSERBASE": LoaderVar, "PYTHONBREAKPOINT": LoaderVar, "CLASSPATH": LoaderVar,
		"PERL5DB": LoaderVar, "GOFLAGS": LoaderVar,
		// Configuration files whose entries name commands the client runs
		// to get credentials or helpers (aws credential_process, a
		// kubeconfig's exec plugin, docker's credHelpers, a Google
		// executable-sourced credential, cargo's rustc-wrapper, openssl's
		// engines and providers).
		"AWS_CONFIG_FILE": LoaderVar, "AWS_SHARED_CREDENTIALS_FILE": LoaderVar, "KUBECONFIG": LoaderVar,
		"DOCKER_CONFIG": LoaderVar, "CLOUDSDK_CONFIG": LoaderVar, "GOOGLE_APPLICATION_CREDENTIALS": LoaderVar,
		"AZURE_CONFIG_DIR": LoaderVar, "CARGO_HOME": LoaderVar, "OPENSSL_CONF": LoaderVar,
		"OPENSSL_ENGINES": LoaderVar, "OPENSSL_MODULES": LoaderVar,
	}
}}

// appendedVars are the command variables whose command its reader runs
// with arguments after its words: git runs GIT_SSH_COMMAND with the host
// and the remote command, an editor variable with the file, an askpass
// with the prompt, a browser with the URL. The value is only the start
// of that command line (GIT_SSH_COMMAND='ssh -i key' is no login shell).
var appendedVars = lazy.NewSet("GIT_SSH_COMMAND", "GIT_SSH", "GIT_PROXY_COMMAND", "RSYNC_RSH", "CVS_RSH",
	"GIT_EXTERNAL_DIFF", "EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "SUDO_EDITOR", "FCEDIT",
	"GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", "BROWSER")

// VarAppends reports a command variable whose reader appends arguments
// to its command.
func VarAppends(name string) bool { return appendedVars.Has(name) }

// Var returns the kind of a variable name (BASH_FUNC_x%% and GIT_CONFIG_KEY_n
// included).
func Var(name string) VarKind {
	if k, ok := commandVars.Get()[name]; ok {
		return k
	}
	if k, ok := programVars.Get()[name]; ok {
		return k
	}
	if strings.HasPrefix(name, "BASH_FUNC_") || strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_") {
		return LoaderVar
	}
	return PlainVar
}

// programVars are the variables some program of the table reads as a
// command (EnvCommands) or as options (EnvOptions): whoever reads them, a
// value planted for later commands is code or options the text does not
// show them with.
var programVars = &lazy.Value[map[string]VarKind]{Build: func() map[string]VarKind {
	m := map[string]VarKind{}
	All(func(p *Program) {
		for _, v := range p.EnvCommands {
			m[v] = CommandVar
		}
		for _, v := range p.EnvOptions {
			m[v] = OptionsVar
		}
	})
	return m
}}

// inertVars are variables known to select a behaviour their programs
// already have — a mode, a locale, colour, a target platform, verbosity —
// and never to name a file, a program, code or where code comes from.
// Every other variable may (npm_config_*, RUSTFLAGS' -C linker=, GOPROXY,
// PYTHONWARNINGS' category imports a module), so only these are inert.
var inertVars = lazy.NewSet(
	"NODE_ENV", "BABEL_ENV", "RAILS_ENV", "RACK_ENV", "APP_ENV", "CI", "DEBUG", "PORT",
	"RUST_BACKTRACE", "RUST_LOG", "RUST_TEST_THREADS", "CARGO_TERM_COLOR", "CARGO_INCREMENTAL",
	"TZ", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_COLLATE", "LC_NUMERIC", "LC_TIME",
	"TERM", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "COLUMNS", "LINES",
	"PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONIOENCODING",
	"GOOS", "GOARCH", "GOARM", "GOAMD64", "CGO_ENABLED", "GOMAXPROCS", "GOTRACEBACK", "GOGC", "GOMEMLIMIT",
	"NODE_NO_WARNINGS",
)

// Inert reports whether assigning name before a command changes only how
// the command behaves in ways it already offers (NODE_ENV=test npm test
// runs npm test), so an allow rule for the command covers it with that
// assignment. False for every variable not known to be so.
func Inert(name string) bool { return inertVars.Has(name) && Var(name) == PlainVar }

// shellSets are the variables bash itself assigns as a text runs (or
// takes from its own state), so no value the text gives them holds
// for long: cd sets PWD and OLDPWD, every command sets _, read sets
// REPLY, getopts OPTARG and OPTIND, [[ =~ ]] BASH_REMATCH.
var shellSets = lazy.NewSet(
	"_", "PWD", "OLDPWD", "REPLY", "RANDOM", "SRANDOM", "SECONDS", "EPOCHSECONDS",
	"EPOCHREALTIME", "LINENO", "BASHPID", "BASH_COMMAND", "BASH_REMATCH", "MAPFILE",
	"OPTARG", "OPTIND", "HISTCMD", "PIPESTATUS", "FUNCNAME", "BASH_SOURCE", "BASH_LINENO",
	"BASH_ARGV", "BASH_ARGC", "BASH_ARGV0", "BASH_SUBSHELL", "DIRSTACK", "COLUMNS", "LINES",
	"COPROC", "COPROC_PID", "UID", "EUID", "PPID", "GROUPS", "HOSTNAME", "SHLVL", "BASHOPTS",
	"SHELLOPTS", "COMP_WORDS", "COMP_CWORD", "COMP_LINE", "COMP_POINT", "READLINE_LINE",
	"READLINE_POINT", "READLINE_MARK",
)

// ShellSets reports a variable bash assigns itself as the text runs.
func ShellSets(name string) bool { return shellSets.Has(name) }
