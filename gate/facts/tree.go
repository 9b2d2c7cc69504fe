// Package facts reads a command text once into the facts every part of the
// gate decides on: the statements, every program start the text can make
// (simple commands, and the argv found inside launchers, shells' -c
// scripts, find -exec, xargs, trap, aliases, …) with its words resolved
// where static, its redirections and assignments, and every hidden
// execution — anything that can start a program the gate cannot read as
// plain argv — with its source span and why.
//
// What programs run what is read from the programs table; nothing here
// names a program. The tree over-approximates for the stricter consumers
// (deny rules, the blacklist): where the reading of a launcher's options is
// uncertain, both readings are recorded, and where the model ends, a
// Hidden says so. It never decides anything itself.
package facts

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/agentexec/agentexec/gate/programs"
)

// Span is a byte range of the decided text.
type Span struct{ Start, End int }

// Word is one word of a command as the gate reads it.
type Word struct {
	// Value is the word after quote removal, when Static.
	Value  string
	Static bool
	// Glob reports an unquoted glob character: the word may expand to
	// other words (file names).
	Glob bool
	// Raw is the source text (for a word the gate made, a placeholder).
	Raw string
	// Node is the parsed word; nil for a word the gate made.
	Node *syntax.Word
	// Hole marks a word whose value only exists at run time and that the
	// gate added itself: find's {} or the words xargs reads.
	Hole bool
}

// Assign is one VAR=value word before a command (or standing alone).
type Assign struct {
	Name  string
	Value Word // Node is nil for an array or a bare NAME=
	Raw   string
}

// Redir is one redirection of a statement.
type Redir struct {
	Op syntax.RedirOperator
	// N is the descriptor written before the operator ("" for the default).
	N      string
	Target Word
	Node   *syntax.Redirect
}

// Call is one program start the text can make.
type Call struct {
	Argv []Word
	// Name is argv[0]'s static value ("" when computed at run time);
	// Base is its last path element.
	Name, Base string
	// Prog is the table's entry for Base, nil when the table does not know
	// it or the name is dynamic.
	Prog    *programs.Program
	Assigns []Assign
	Redirs  []Redir
	// Text is the source text of the statement the call stands in (its
	// redirections included), from the text it was parsed from: the
	// decided text, or a payload (a -c script, an alias value).
	Text string
	// Span is where it stands in the decided text; a nested call has the
	// span of the word (or command) that carries it.
	Span Span
	// Via is the call that starts this one (nil when the shell runs it
	// directly) and How says how ("the command `sudo` runs", "bash -c").
	Via *Call
	How string
	// Depth counts the Via links and payload parses above the call.
	Depth int
	// Tail: more words are appended at run time (xargs' input, find's {}).
	Tail bool
	// Guess: the gate only guesses the call may run — an operand of a
	// program whose operands it does not model (see guess.go).
	Guess bool
	// Stdin is what the text feeds the call's standard input, when it
	// shows it.
	Stdin *Input
	// WriteRedir reports an output redirection into a file.
	WriteRedir bool
	// InSubst reports a call inside a command or process substitution.
	InSubst bool
	// Stmt and Node are the parsed statement and command (nil for an argv
	// found inside another call).
	Stmt *syntax.Stmt
	Node *syntax.CallExpr

	// ScriptStdin: it reads its script (a shell's, an interpreter's) from
	// standard input.
	ScriptStdin bool
	// ScriptFile is the static name of the script file it runs (bash F,
	// python3 F, source F), "" when none.
	ScriptFile string

	// ownStdin: what it reads from standard input is its own commands
	// (Program.StdinCommands), not a shell's.
	ownStdin bool
	// script: ScriptStdin, not yet read; the builder reads the script once
	// it knows what feeds it.
	script bool
	// suffix: a guess made of a suffix of its guesser's operands.
	suffix bool
	// guessIn: the call's program is not modelled, so static text fed to
	// its standard input may be commands it runs (guessStdin).
	guessIn bool
}

// Input is what feeds a call's standard input.
type Input struct {
	Kind InputKind
	// From is the upstream call of a pipe (the last simple command of the
	// element before).
	From *Call
	// Text is the content of a here-string or here-document, when Static.
	Text   string
	Static bool
	// Target is the file of a `<` redirection.
	Target Word
	// Node is the redirection, or the process substitution's word.
	Node syntax.Node
}

// InputKind says where standard input comes from.
type InputKind uint8

// The kinds of input.
const (
	FromPipe InputKind = iota + 1
	FromHereString
	FromHereDoc
	FromFile
	FromProcSubst
	FromFd
)

// StmtRedirs is the redirections of one statement that no Call carries.
type StmtRedirs struct {
	Redirs []Redir
	// Text is the statement's source text, Span where it stands in the
	// decided text.
	Text string
	Span Span
}

// HiddenKind classifies hidden executions.
type HiddenKind uint8

// The kinds of hidden execution.
const (
	// DynamicName: the command name is computed at run time (a variable,
	// a substitution, a glob, a brace expansion, $IFS).
	DynamicName HiddenKind = iota + 1
	// Unreadable: a program runs a command the text does not spell
	// statically (a launcher's dynamic or unmodelled arguments, sed's
	// s///e, a dynamic -c script).
	Unreadable
	// InlineCode: an interpreter (or a tool's sub-language) is given code.
	InlineCode
	// FedScript: a shell or interpreter reads its script from standard
	// input, a file or a process substitution.
	FedScript
	// ShellState: code is stored in the shell's state and run later
	// (trap, PS4, aliases, hash -p, enable -f, BASH_ENV).
	ShellState
	// ProjectCode: project code is run by name (./build.sh, bash
	// build.sh, make, npm test); what it starts is only seen at run time.
	ProjectCode
)

// Hidden is one hidden execution.
type Hidden struct {
	Kind HiddenKind
	Span Span
	// Why is a sentence naming what runs and why the gate cannot read it.
	Why string
	// Call is the call it belongs to (nil for shell state planted by an
	// assignment alone).
	Call *Call
}

// Tree is everything the gate reads from one text.
type Tree struct {
	Src string
	// File is the parse of Src; nil when Parsed is false.
	File   *syntax.File
	Parsed bool
	// Err is the parse error, or why the text was not parsed (too long,
	// too deep).
	Err error
	// Calls lists every program start found, outer calls before the calls
	// nested in them.
	Calls []*Call
	// Hidden lists every hidden execution, in the order found.
	Hidden []Hidden
	// Vars maps each variable assigned a static value anywhere in the
	// text to every value it is given (a variable's value at a given
	// point is one of them, or its value from before the text).
	Vars map[string][]string
	// Cds lists the static targets of every cd, pushd and env -C/--chdir.
	Cds []string
	// CdUnknown reports a change of directory the gate cannot follow.
	CdUnknown bool
	// RelativeCd reports a cd to a name (not /…, ./…, ../…), which bash
	// looks up in CDPATH first, or as a variable under cdable_vars.
	RelativeCd bool
	// CdSearch: the text turns on cdable_vars (or a shell option it
	// computes), so a cd to a name may go to a variable's value.
	CdSearch bool
	// NoCaseGlob: the text turns on nocaseglob (or a shell option it
	// computes), so its patterns match names in any case (/E*C is /etc).
	NoCaseGlob bool
	// vs is what the text's variables are sure to hold (values.go).
	vs varState
	// keyword: the text turns on set -k (keyword), so NAME=VALUE words
	// after a command's name are assignments to its environment.
	keyword bool
	// keywordLate: a call read set -k on after calls before it were read
	// without it (Build then reads the text again).
	keywordLate bool
	// Funcs maps function names to their definitions.
	Funcs map[string][]*syntax.FuncDecl
	// Pipes lists each pipeline's elements, left to right: for each
	// element, the calls it runs.
	Pipes [][][]*Call
	// Redirs lists the redirections no simple command carries: those of a
	// compound command (`{ …; } > F`, `( … ) > F`, a loop's, a function
	// definition's) and of a statement without a command (`> F`,
	// `X=1 > F`). Bash opens (and truncates) their targets all the same.
	Redirs []StmtRedirs
	// ArithWords are the words `let` evaluates as arithmetic expressions
	// (a quoted 'a[$(cmd)]' among them runs cmd).
	ArithWords []Word
	// Floods are the loops that never end by their condition (while true,
	// until false, for ((;;))) and start a command in the background each
	// turn without waiting for it: every turn leaves one more process.
	Floods []Span
	// Truncated reports that a bound (calls, payload depth or size) cut
	// the reading short: what was not read is hidden (and recorded so).
	Truncated bool

	// gitAliases are the git aliases the text plants with `git config
	// alias.NAME VALUE` (lower-cased names), read by later git calls.
	gitAliases  map[string]string
	arrays      map[string]bool   // names the text makes arrays (a=(…), declare -a a)
	written     map[string]string // file → the static text the text writes into it
	unread      map[string]bool   // files the text writes with text it cannot read
	integers    map[string]bool   // names declared with the integer attribute (declare -i)
	nestedBytes int
	aliases     map[string][]string // alias name → values, for rebind
	hashed      map[string][]string // hash -p name → paths, for rebind
	callsBuf    [4]*Call            // room for a short text's calls
}

// HasHidden reports whether the tree holds a hidden execution of a kind
// in kinds (any kind when none is given).
func (t *Tree) HasHidden(kinds ...HiddenKind) bool {
	for _, h := range t.Hidden {
		if len(kinds) == 0 {
			return true
		}
		for _, k := range kinds {
			if h.Kind == k {
				return true
			}
		}
	}
	return false
}

// Statics returns the static values of ws and whether all were static.
func Statics(ws []Word) ([]string, bool) {
	out := make([]string, len(ws))
	ok := true
	for i, w := range ws {
		out[i] = w.Value
		ok = ok && w.Static && !w.Hole
	}
	return out, ok
}

// arrayName records a name the text makes an array.
func (t *Tree) arrayName(name string) {
	if t.arrays == nil {
		t.arrays = map[string]bool{}
	}
	t.arrays[name] = true
}
