// Package classify is the three-state safety classifier (read-only,
// write, unknown) over the mvdan.cc/sh/v3 AST, with its scanners for the
// sub-languages and command lines that decide (sed scripts, awk programs,
// find expressions, git subcommands and configuration). What each program
// is comes from gate/programs, the one table of command facts.
//
// The classifier's guarantees: a parse error, a panic, input past the size,
// depth or operator bounds, and anything it has no rule for are Unknown,
// never a guess; results combine write > unknown > read-only; command
// names match literally and case-sensitively (no PATH, alias or function
// resolution; /bin/rm and ./cat are Unknown); wrappers, shells and
// interpreters are never unwrapped.
//
// What read-only does not prove: that the command is harmless. A read-only
// command can read secrets, print a lot, run forever or load the machine.
// The proof covers the text and the environment given to Classify; a
// binary that is not what its name says, a kernel or filesystem with side
// effects on read (atime, FUSE, /proc), or git configuration outside what
// gitconfig.Risk reads are outside it. The sandbox, not the classifier, is
// what contains a command.
package classify

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentexec/agentexec/gate/facts"
	"github.com/agentexec/agentexec/gate/programs"
	"github.com/agentexec/agentexec/internal/lazy"
	"github.com/agentexec/agentexec/shellcfg"
	"mvdan.cc/sh/v3/syntax"
)

// Options are the inputs of a classification besides the text.
// The zero value classifies bash text with no directory-dependent checks.
type Options struct {
	// Shell selects the grammar: bash (default), sh (POSIX), cmd or powershell.
	Shell shellcfg.ShellType
	// Cwd, when set, enables the checks that depend on the directory the
	// command runs in (git configuration that runs programs).
	Cwd string
	// Env is the environment the command will run with ("K=V" entries);
	// variables such as GIT_CONFIG_* make git commands unknown. It is the
	// only environment the classifier reads: with Cwd set, git's global
	// configuration is found from its HOME and XDG_CONFIG_HOME, and an Env
	// without HOME makes git commands unknown.
	Env []string
	// RequestEnv are the variables the request itself sets or changes (the
	// agent's choice, unlike the inherited environment and the policy's
	// env.set): one that changes which program runs or makes programs load
	// code (PATH, LD_*, GIT_*, NODE_OPTIONS, …) makes the command Unknown.
	RequestEnv map[string]string
	// ReadOnlyCommands are user-vouched command names that classify like cat,
	// except those on the refusal floor (shells, interpreters, wrappers,
	// known writers), which can never be vouched.
	ReadOnlyCommands []string
	// MaxBytes caps the text length (default 64 KiB); longer is Unknown.
	MaxBytes int
	// MaxDepth caps nesting depth found by the pre-scan (default 256,
	// never more than 10,000); 16 times it (at most 20,000) caps the total
	// count of nesting tokens.
	MaxDepth int
	// MaxOperators caps the count of | & ; and newlines outside quotes
	// found by the pre-scan (default 4096, never more than 65,536).
	MaxOperators int

	// Tree is the text's facts, already parsed by the caller (gate.Decide
	// parses once for everything it decides); nil makes Classify parse the
	// text itself.
	Tree *facts.Tree
}

// Result is a classification with its evidence.
type Result struct {
	Safety Safety `json:"safety"`
	// Reason is one sentence on what decided the class.
	Reason string `json:"reason"`
	// Evidence lists, per statement or command, the class, the rule that
	// decided it and the source span.
	Evidence []Evidence `json:"evidence,omitempty"`
}

// Evidence is one piece of a classification: which rule gave which class to
// which part of the text.
type Evidence struct {
	Offset int    `json:"offset"` // byte offset of the span start
	End    int    `json:"end"`    // byte offset just past the span
	Text   string `json:"text"`
	Safety Safety `json:"safety"`
	Rule   string `json:"rule"`
	// Detail is a sentence on the fact the rule found.
	Detail string `json:"detail,omitempty"`
}

// Classify returns the three-state safety class of a command text.
//
// Read-only means every command the text runs is on a list of commands the
// rules prove not to change files, processes, git state or the network,
// used with arguments the rules understand. It does not prove the command
// is harmless: a read-only command can still read secrets, take a long
// time, or print a lot, and the proof holds only for the text as given
// (aliases, functions and PATH are not resolved: every name must be the
// literal name of a known tool). Write means the text contains positive
// evidence of a mutation; Unknown means neither could be proved. Any parse
// error, panic, or input past the size and depth bounds is Unknown.
func Classify(text string, opt Options) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = verdictResult(Unknown, "panic", fmt.Sprintf("the classifier failed (%v), so nothing is proved", r))
		}
	}()
	switch opt.Shell {
	case shellcfg.Cmd, shellcfg.PowerShell:
		return classifyWindows(text, opt.Shell, opt)
	case "", shellcfg.Bash, shellcfg.Sh:
	default:
		return verdictResult(Unknown, "unknown-shell", fmt.Sprintf("shell %q is not one the classifier knows", opt.Shell))
	}
	if res, ok := precheck(text, opt); !ok {
		return res
	}
	if v := envRisk(opt.Env); v.s != "" {
		return verdictResult(v.s, v.rule, v.why)
	}
	if v := requestEnvRisk(opt.RequestEnv); v.s != "" {
		return verdictResult(v.s, v.rule, v.why)
	}
	res = classifyPOSIX(text, opt)
	if res.Safety == ReadOnly && strings.Contains(text, "\\\n") {
		res = recheckContinuations(text, opt, res)
	}
	return res
}

// ClassifyInDir classifies bash text as it would run in cwd with an empty
// environment: without HOME, git's global configuration is unknown, so
// git subcommands that only read come back unknown. Classify with Env
// set classifies them against the configuration.
func ClassifyInDir(text, cwd string) Result {
	return Classify(text, Options{Shell: shellcfg.Bash, Cwd: cwd})
}

// precheck applies the bounds and the suspicious-character scan that come
// before any parsing.
func precheck(text string, opt Options) (Result, bool) {
	maxBytes := orDefault(opt.MaxBytes, facts.MaxBytes)
	if len(text) > maxBytes {
		return verdictResult(Unknown, "too-long", fmt.Sprintf("command too long: %d bytes is over the %d-byte limit", len(text), maxBytes)), false
	}
	if strings.TrimSpace(text) == "" {
		return verdictResult(Unknown, "empty", "the command is empty"), false
	}
	if sus := shellcfg.Scan(text); len(sus) > 0 {
		r := verdictResult(Unknown, "suspicious-character", fmt.Sprintf("the text contains a %s at byte %d, which may hide what runs", sus[0].Name, sus[0].Offset))
		r.Evidence[0].Offset, r.Evidence[0].End = sus[0].Offset, sus[0].Offset+1
		return r, false
	}
	if t := opt.Tree; t != nil && t.Parsed && t.Src == text && opt.MaxDepth <= 0 && opt.MaxOperators <= 0 {
		// facts.Parse read this text within the default bounds already.
		return Result{}, true
	}
	lim := facts.Limits(opt.MaxDepth, opt.MaxOperators)
	ps := facts.Prescan(text, lim)
	switch {
	case ps.Depth > lim.Depth:
		return verdictResult(Unknown, "too-deep", fmt.Sprintf("command nested too deeply: more than %d levels", lim.Depth)), false
	case ps.Openers > lim.Openers:
		return verdictResult(Unknown, "too-deep", fmt.Sprintf("command has too many nesting tokens: more than %d", lim.Openers)), false
	case ps.Operators > lim.Operators:
		return verdictResult(Unknown, "too-many-operators", fmt.Sprintf("command has too many operators: more than %d", lim.Operators)), false
	}
	return Result{}, true
}

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// envRisk finds variables in the environment the command will run with
// that make bash run code no rule sees: a startup file (BASH_ENV, ENV),
// exported functions that shadow any command name (BASH_FUNC_name%%),
// tracing that expands PS4, preloaded libraries, and a PATH with a relative
// entry, through which `ls` may resolve to ./ls.
func envRisk(env []string) finding {
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "BASH_ENV" || k == "ENV" || k == "SHELLOPTS" || k == "BASHOPTS" || k == "PS4":
			return finding{Unknown, "shell-environment", fmt.Sprintf("the environment sets %s, which makes bash run or trace code before the command", k)}
		case strings.HasPrefix(k, "BASH_FUNC_"):
			return finding{Unknown, "shell-environment", fmt.Sprintf("the environment exports the function %s, which may shadow any command", k)}
		case k == "LD_PRELOAD" || k == "LD_AUDIT" || k == "LD_LIBRARY_PATH":
			return finding{Unknown, "shell-environment", fmt.Sprintf("the environment sets %s, which loads code into every program", k)}
		case k == "PATH" && relativePath(v):
			return finding{Unknown, "shell-environment", "PATH has an empty or relative entry, so a command name may resolve to a file in the working directory"}
		}
	}
	return finding{}
}

// requestEnvNames are variables a request may not set without the command
// becoming Unknown: each changes which program a name runs, or makes a
// shell, a loader, an interpreter, git or a build tool run code of the
// variable's choosing (BASH_ENV, LD_PRELOAD, GIT_SSH_COMMAND, NODE_OPTIONS
// --require, PYTHONSTARTUP, PERL5OPT -M, RUBYOPT -r, JAVA_TOOL_OPTIONS
// -javaagent, a pager or editor, a config home holding aliases).
var requestEnvNames = lazy.NewSet(
	"PATH", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS",
	"PS4", "IFS", "CDPATH", "GLOBIGNORE", "PROMPT_COMMAND",
	"HOME", "ZDOTDIR", "XDG_CONFIG_HOME", "INPUTRC",
	"NODE_OPTIONS", "NODE_PATH",
	"PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE",
	"PYTHONINSPECT", "PYTHONBREAKPOINT",
	"PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB",
	"RUBYOPT", "RUBYLIB",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH",
	"GCONV_PATH", "LESSOPEN", "LESSCLOSE", "PAGER", "MANPAGER",
	"EDITOR", "VISUAL", "BROWSER", "SSH_ASKPASS", "SUDO_ASKPASS",
	"GOFLAGS", "RUSTC_WRAPPER", "CC", "CXX", "MAKEFLAGS",
)

// requestEnvPrefixes are families of such variables.
var requestEnvPrefixes = []string{"LD_", "DYLD_", "GIT_", "BASH_FUNC_", "npm_config_", "NPM_CONFIG_", "PIP_", "CARGO_", "DOCKER_"}

// requestEnvRisk finds the first variable of the request's own that the
// command could be steered by (sorted, so the reason is stable).
func requestEnvRisk(env map[string]string) finding {
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		// Every variable the table knows to carry code, load it, name a
		// program or hold a program's options (TAR_OPTIONS='-I CMD',
		// MANOPT='--pager=CMD') is one.
		risky := requestEnvNames.Has(k) || programs.Var(k) != programs.PlainVar
		for _, p := range requestEnvPrefixes {
			risky = risky || strings.HasPrefix(k, p)
		}
		if risky {
			return finding{Unknown, "shell-environment", fmt.Sprintf("the request sets %s, which can change which program runs or make it run other code", k)}
		}
	}
	return finding{}
}

func relativePath(path string) bool {
	for _, dir := range strings.Split(path, ":") {
		if !strings.HasPrefix(dir, "/") {
			return true
		}
	}
	return false
}

// recheckContinuations guards against the `"$\<newline>(cmd)"` differential
// (qwen-code#8582): bash removes every backslash-newline before it looks for
// `$(`, so the text is classified again with them removed, and any
// disagreement fails closed.
func recheckContinuations(text string, opt Options, res Result) Result {
	joined := strings.ReplaceAll(text, "\\\n", "")
	again, ok := precheck(joined, opt)
	if ok {
		again = classifyPOSIX(joined, opt)
	}
	if again.Safety == ReadOnly {
		return res
	}
	r := verdictResult(Unknown, "line-continuation", "with its backslash-newlines joined the text reads differently, so nothing is proved")
	r.Evidence = append(r.Evidence, again.Evidence...)
	return r
}

// The parsers, pooled per language. Function literals that capture
// nothing keep the pools static data: nothing is built at start-up.
var (
	bashParsers  = sync.Pool{New: func() any { return newParser(syntax.LangBash) }}
	posixParsers = sync.Pool{New: func() any { return newParser(syntax.LangPOSIX) }}
)

func newParser(lang syntax.LangVariant) *syntax.Parser {
	return syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(false))
}

// parserPool returns the pool for lang, nil for a language the classifier
// does not parse.
func parserPool(lang syntax.LangVariant) *sync.Pool {
	switch lang {
	case syntax.LangBash:
		return &bashParsers
	case syntax.LangPOSIX:
		return &posixParsers
	}
	return nil
}

// classifyPOSIX parses and walks bash or sh text.
func classifyPOSIX(text string, opt Options) Result {
	lang := syntax.LangBash
	if opt.Shell == shellcfg.Sh {
		lang = syntax.LangPOSIX
	}
	var f *syntax.File
	var err error
	if t := opt.Tree; t != nil && t.Parsed && t.Src == text {
		f = t.File
	} else {
		f, err = parse(text, lang)
	}
	if err != nil {
		r := verdictResult(Unknown, "parse-error", fmt.Sprintf("the text does not parse as %s: %v", lang, err))
		r.Evidence[0].Offset, r.Evidence[0].End = errorSpan(err, len(text))
		return r
	}
	if len(f.Stmts) == 0 {
		return verdictResult(Unknown, "empty", "the command has no statements")
	}
	w := newWalker(text, opt, f)
	w.stmts(f.Stmts)
	return w.result()
}

// errorSpan locates a parse error. mvdan returns ParseError and LangError
// as values, so errors.As needs value targets (a pointer target never
// matches).
func errorSpan(err error, n int) (int, int) {
	var pe syntax.ParseError
	var le syntax.LangError
	off := n
	switch {
	case errors.As(err, &pe):
		off = int(pe.Pos.Offset())
	case errors.As(err, &le):
		off = int(le.Pos.Offset())
	}
	return min(off, n), n
}

// parse runs a pooled parser. A parser that panicked is dropped rather than
// returned to the pool, since its state may be poisoned.
func parse(text string, lang syntax.LangVariant) (f *syntax.File, err error) {
	pool := parserPool(lang)
	p := pool.Get().(*syntax.Parser)
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("parser panic: %v", r)
			return
		}
		pool.Put(p)
	}()
	return p.Parse(strings.NewReader(text), "")
}

// verdictResult is a Result with one piece of evidence covering nothing in
// particular: a finding reached before or instead of the walk.
func verdictResult(s Safety, rule, detail string) Result {
	return Result{
		Safety:   s,
		Reason:   detail + " (rule: " + rule + ")",
		Evidence: []Evidence{{Safety: s, Rule: rule, Detail: detail}},
	}
}
