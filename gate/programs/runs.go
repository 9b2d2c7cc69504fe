package programs

// Runs says how a program starts other programs, beyond what its options'
// effects say (RunsShell, RunsProgram, RunsCode, StartsArgv, ShellScript).
type Runs struct {
	// Argv: after the options, the operands are an argv it runs — first
	// VAR=value words when Assigns, then Skip operands of its own
	// (timeout's duration, chroot's root, flock's lock file).
	Argv    bool
	Assigns bool
	Skip    int
	// Lead: its first word, when not an option, is an operand of its own
	// read before the options (setarch ARCH [OPTIONS] PROGRAM); when the
	// first word is an option there is none.
	Lead bool
	// After: the argv starts after this marker word (gdb --args, lldb --)
	// rather than at the first operand.
	After string
	// Joined: the operands, joined by spaces, are shell text it hands to
	// sh -c (watch, ssh's remote command).
	Joined bool
	// Script: the first operand is a script in its language (a shell's,
	// an interpreter's) when no option gave one; with no operand, or "-",
	// it reads the script from standard input (Stdin).
	Script bool
	Stdin  bool
	// Project: it runs project code found in the working directory or
	// named by its operands: recipes, package scripts, build files, tests.
	Project bool
	// StdinArgs: it appends words read from standard input to the argv
	// it runs (xargs).
	StdinArgs bool
	// Replace names the options whose value (or "{}" when it has none)
	// is a string replaced in the argv by words read from standard input
	// (xargs -I REPL, -i, --replace).
	Replace []string
	// Lists: GNU parallel's argument lists (:::, ::::) are appended to the
	// argv it runs.
	Lists bool
	// Text: its first operand is shell text it runs, now or later (trap).
	Text bool
	// Alias: its NAME=VALUE operands define names whose values are shell
	// text run in their place (alias).
	Alias bool
	// Rebind: `-p PATH NAME` makes NAME run PATH (hash).
	Rebind bool
	// Opaque says it runs code the gate cannot read, in which case it is
	// the reason ("loads a builtin from a shared object").
	Opaque string
	// Describe lists options that make it only describe what a name is
	// instead of running it (command -v).
	Describe []string
	// UserShell is su's form: after an optional "-", the first operand is
	// a user and the rest are arguments to that user's shell (`su root -c
	// CMD` runs CMD; -s/--shell names the shell), unless one of ArgvOpts
	// is given (`runuser -u USER CMD …` runs an argv).
	UserShell bool
	ArgvOpts  []string
	// Prefix is prepended to the argv it finds (capsh hands its arguments
	// after -- to bash).
	Prefix []string
	// Unmodelled: some of its subcommands run a command it is given — on
	// this host or another (ip netns exec NS CMD, gcloud compute ssh
	// --command CMD, aws ssm send-command --parameters commands=CMD, az vm
	// run-command invoke --scripts CMD) — in ways the table does not
	// model, so its words are guessed at as an unknown program's are.
	Unmodelled bool
	// LoginShell: given no command after its own operands, it starts a
	// shell that reads its commands from standard input (ssh HOST).
	LoginShell bool
	// StdinShell are the options that make it start a shell, which reads
	// its commands from standard input when no command follows (sudo -s,
	// sudo -i).
	StdinShell []string
	// Addresses are the operand prefixes (lower-case; matched without
	// case) after which the rest of the word is a command it runs through
	// a shell or as an argv: socat's EXEC: and SYSTEM: addresses.
	Addresses []string
	// FileAddresses are the operand prefixes (lower-case; matched without
	// case) after which the word names a file it opens for writing, up
	// to its first ',' (socat's OPEN:, CREATE:, GOPEN:); with a prefix
	// list, a word with a '/' and no ':' is such a file too (socat reads
	// it as GOPEN).
	FileAddresses []string
	// Loads is the subcommand whose operands name code it loads when they
	// are paths (openssl engine ./e.so runs the shared object's code; a
	// bare engine id is one of the system's).
	Loads string
}

// The classifier scanners the table names (see Program.Scanner).
const (
	ScanSed        Scanner = "sed"
	ScanAwk        Scanner = "awk"
	ScanFind       Scanner = "find"
	ScanGit        Scanner = "git"
	ScanKill       Scanner = "kill"
	ScanTest       Scanner = "test"
	ScanPrintf     Scanner = "printf"
	ScanDD         Scanner = "dd"
	ScanEnv        Scanner = "env"
	ScanCd         Scanner = "cd"
	ScanHistory    Scanner = "history"
	ScanUlimit     Scanner = "ulimit"
	ScanCommand    Scanner = "command"
	ScanSet        Scanner = "set"
	ScanXxd        Scanner = "xxd"
	ScanRg         Scanner = "rg"
	ScanTar        Scanner = "tar"
	ScanCompressor Scanner = "compressor"
	ScanSqlite     Scanner = "sqlite"
	ScanSystemctl  Scanner = "systemctl"
	// ScanSpec reads the program with its Opts and Operands rule alone.
	ScanSpec Scanner = "spec"
)

// Operands says what a spec-read program does with its operands.
type Operands uint8

// The operand rules.
const (
	// OperandsRead: operands are files it reads.
	OperandsRead Operands = iota
	// OperandsWrite: every operand is a file it writes (tee).
	OperandsWrite
	// SecondWrites: a second operand is a file it writes (uniq IN OUT).
	SecondWrites
	// NonPlusWrites: an operand not starting with '+' sets state (date).
	NonPlusWrites
	// AnyWrites: any operand sets state (hostname NAME, stty SETTING).
	AnyWrites
	// MustNotHave: the program without an operand only prints; with one
	// it acts (mount DEV DIR, dmesg is the other way round) — unproven.
	AnyUnproven
	// NoOperands: any operand makes it unproven.
	NoOperands
	// ResponseFiles: an operand @FILE is a file of more options (binutils
	// reads them), which the text does not show — unproven.
	ResponseFiles
)

// Targets says what a program does to its operands.
type Targets uint8

// The operand roles the blacklist reads.
const (
	NoTargets Targets = iota
	// Removes deletes its operands (recursively with -r, -R, --recursive).
	Removes
	// Destroys destroys its operands' contents (shred, truncate, unlink).
	Destroys
	// Moves moves every operand but the last to the last (mv).
	Moves
	// CopiesTo writes its last operand (cp, install, ln, rsync, scp).
	CopiesTo
	// WritesAll writes every operand (tee).
	WritesAll
	// Attrs changes its operands' owner, mode or attributes (recursively
	// with -R or --recursive).
	Attrs
	// EditsInPlace rewrites its file operands with -i (sed, and the like).
	EditsInPlace
	// Renames moves each of its operands to a new name (rename): what
	// was there is gone, as mv's sources are.
	Renames
)

// Modelled reports whether r says how the program finds the command it
// runs (nil or the zero Runs does not).
func (r *Runs) Modelled() bool {
	return r != nil && (r.Argv || r.Joined || r.After != "" || r.UserShell || r.Script || r.Stdin ||
		r.Project || r.Text || r.Alias || r.Rebind || r.Opaque != "" || r.StdinArgs || r.Unmodelled || len(r.Addresses) > 0 ||
		r.Loads != "")
}
