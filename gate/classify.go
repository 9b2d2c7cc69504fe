package gate

import "github.com/agentexec/agentexec/shellcfg"

// ClassifyOptions are the inputs of a classification besides the text.
// The zero value classifies bash text with no directory-dependent checks.
type ClassifyOptions struct {
	// Shell selects the grammar: bash (default), sh (POSIX), cmd or powershell.
	Shell shellcfg.ShellType
	// Cwd, when set, enables the checks that depend on the directory the
	// command runs in (git configuration that runs programs).
	Cwd string
	// Env is the environment the command will run with ("K=V" entries);
	// variables such as GIT_CONFIG_* make git commands unknown.
	Env []string
	// ReadOnlyCommands are user-vouched command names that classify like cat,
	// except those on the refusal floor (shells, interpreters, wrappers,
	// known writers), which can never be vouched.
	ReadOnlyCommands []string
	// MaxBytes caps the text length (default 64 KiB); longer is Unknown.
	MaxBytes int
	// MaxDepth caps nesting depth found by the pre-scan (default 256).
	MaxDepth int
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
}

// Classify returns the three-state safety class of a command text.
// Placeholder until the classifier issue lands: everything is Unknown.
func Classify(text string, opt ClassifyOptions) Result {
	return Result{Safety: Unknown, Reason: "classifier not implemented yet"}
}

// ClassifyInDir classifies bash text as it would run in cwd.
func ClassifyInDir(text, cwd string) Result {
	return Classify(text, ClassifyOptions{Shell: shellcfg.Bash, Cwd: cwd})
}
