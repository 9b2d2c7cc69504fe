// Package programs is the one table of facts about the programs and shell
// builtins a command text can run: what each one is (a shell, a launcher,
// a writer, a reader, …), how it reads its options (GNU getopt_long rules:
// clusters, --opt=value, optional values, unique-prefix abbreviations,
// --), and which of its options or operands carry a command, a script or
// code. Every consumer reads it — the classifier, the blacklist, the
// rules' reading of nested commands, the suggestions and the vouching
// floor — so a fact about a program is written once, here.
//
// The table describes programs as their GNU/Linux builds behave (checked
// against the versions on Debian 12). A name the table does not know is
// nil from Lookup: callers must treat it as unknown, never as harmless.
// Facts are keyed by the literal, case-sensitive name a shell would look
// up; Family maps versioned or suffixed spellings (python3.13t, gcc-13,
// node20) onto the family they belong to, for the vouching floor only.
package programs

import (
	"strings"
	"sync"

	"github.com/agentexec/agentexec/internal/lazy"
)

// Kind is a set of what a program is. A program may be several things:
// busybox is a shell and a launcher, curl a network client and a
// downloader.
type Kind uint32

// The kinds. Reader, Writer and Viewer drive the classifier; Shell,
// Interpreter, Launcher, Privilege, BuildTool, PackageManager, Emulator,
// StateBuiltin and Viewer form the vouching floor (never vouched
// read-only); the rest name what the blacklist and the suggestions look
// for.
const (
	// Builtin: bash runs it itself (no PATH lookup, no exec).
	Builtin Kind = 1 << iota
	// Shell reads and runs shell text: -c, a script file, or stdin.
	Shell
	// Interpreter runs code in its own language: inline, a file, stdin.
	Interpreter
	// Launcher runs another program named by its operands or options.
	Launcher
	// Privilege runs a command as another user or with other credentials.
	Privilege
	// Writer changes the file system by design.
	Writer
	// Reader only reads and prints, whatever options it is given.
	Reader
	// Viewer is a pager or editor: it can run commands from its command
	// line, its keys or its environment (LESSOPEN, PAGER).
	Viewer
	// BuildTool runs project code: recipes, build scripts, compilers'
	// plugins, test runners.
	BuildTool
	// PackageManager installs packages and runs their scripts.
	PackageManager
	// NetworkClient opens network connections.
	NetworkClient
	// Downloader fetches a URL's content (download-to-shell).
	Downloader
	// Emulator runs foreign binaries or whole systems.
	Emulator
	// StateBuiltin changes shell state that later commands inherit.
	StateBuiltin
	// Signaller sends signals to processes.
	Signaller
	// DiskFormatter makes a file system or wipes a device's contents.
	DiskFormatter
	// Partitioner edits a device's partition table.
	Partitioner
	// PowerControl shuts down, reboots or switches the system's state.
	PowerControl
	// AccountTool changes the account databases (passwd, shadow, group).
	AccountTool
	// Compiler turns source into programs (and may run plugins, macros).
	Compiler
)

// Floor is every kind the user can never vouch read-only: each runs code
// or other programs, or plants state, whatever its arguments look like.
const Floor = Shell | Interpreter | Launcher | Privilege | BuildTool | PackageManager |
	Emulator | StateBuiltin | Viewer | Compiler

// Has reports whether k includes every kind in x.
func (k Kind) Has(x Kind) bool { return k&x == x }

// Any reports whether k includes any kind in x.
func (k Kind) Any(x Kind) bool { return k&x != 0 }

// Program is one entry of the table.
type Program struct {
	// Name is the literal command name.
	Name string
	// Kind says what it is.
	Kind Kind
	// Opts is how it reads its options; nil means the table does not
	// model them (a reader whose every option is harmless, or a program
	// the classifier never proves read-only).
	Opts *Options
	// Runs says how it starts other programs, if it does; nil for a
	// program that never does (or whose ways are all in Opts' effects).
	Runs *Runs
	// Scanner names the classifier routine for it when neither its kind
	// nor its options decide alone (sed scripts, find expressions, git
	// subcommands, kill signals, …); "" means the kind and Opts decide.
	Scanner Scanner
	// Operands says what a spec-read program (Scanner ScanSpec) does with
	// its operands.
	Operands Operands
	// SecondWritesWith are the options that make its second operand a
	// file it writes (ptx -G, System V mode: ptx IN OUT).
	SecondWritesWith []string
	// Probe lists the exact argument lists that only print a version or
	// help (`--version`, `version`, `-V`): for a shell, interpreter or
	// build tool, those forms and nothing else are read-only.
	Probe []string
	// Subcommand is how many words after the name a rule suggested for it
	// keeps: 1 for git (git commit *), 2 for npm run (npm run build *) —
	// see SubcommandDepth — and 0 for a program without subcommands.
	Subcommand int
	// Why is a short phrase on what it is, for reasons ("a shell").
	Why string
	// Targets says what it does to its operands, for the blacklist.
	Targets Targets
	// RemovesSources are the options that make it delete the files it
	// reads once it has archived or copied them (tar --remove-files, zip
	// -m, rsync --remove-source-files, 7z -sdel): its operands — a
	// copier's but the last — are removed as rm -r removes them.
	RemovesSources []string
	// Triggers are the words (options, subcommands or operands) that make
	// a destructive program (a disk tool, a power or account tool) do its
	// damage; empty means any invocation does. Defuses are the words that
	// make it harmless whatever else is given (--help, shutdown -c), and
	// Lists the words that make a partitioner only print.
	Triggers []string
	Defuses  []string
	// Chdir: it changes the shell's working directory (cd, pushd).
	Chdir bool
	// Echo: it writes its operands, joined by spaces, to standard output
	// (so `echo TEXT | sh` runs TEXT).
	Echo bool
	// NoPrefixRule marks writers whose prefix rule (rm *) would allow far
	// more than one command asked for: suggestions name the exact command.
	NoPrefixRule bool
	// CommandKeys are the keys of a KEY=VALUE option value whose VALUE is
	// a command it runs (ssh -o ProxyCommand=…), lower-cased.
	CommandKeys []string
	// Names says which of a builtin's words name the variables it sets
	// (read NAME, printf -v NAME); nil for a program that sets none.
	Names *NameArgs
	// EnvCommands are the environment variables whose value it runs as a
	// command in place of a helper (zgrep's GREP, zdiff's DIFF).
	EnvCommands []string
	// EnvOptions are the environment variables it reads options from, as
	// if given before its command line (tar's TAR_OPTIONS): their options'
	// effects are its options' effects.
	EnvOptions []string
	// EnvWrites are the environment variables whose value, an absolute
	// path, names a file it writes (git appends its traces to
	// GIT_TRACE's file, GIT_TRACE2_EVENT's, …).
	EnvWrites []string
	// Compound: it reads an argument NAME=(…) as a compound array
	// assignment however the parenthesis is quoted, and expands its
	// elements — a quoted $(cmd) there runs (declare -a 'a=($(cmd))',
	// local -A 'm=([k]=`cmd`)'); given -a or -A, or naming an array, a
	// value computed at run time is re-read the same way.
	Compound bool
	// Declares: it reads each operand, after expansion and quote removal,
	// as NAME=VALUE, an assignment (declare, typeset, local, readonly,
	// export): `export 'BASH_ENV=f'` and `export "BASH_ENV"=f` assign as
	// the unquoted form does, and an operand computed at run time may
	// assign any variable.
	Declares bool
	// Unsets: it unsets the variables its operands name (unset; -f
	// names functions instead).
	Unsets bool
	// Shopts: it turns on the shell options its operands name with -s
	// (shopt -s nocaseglob), which change how later words expand.
	Shopts bool
	// Endless: it writes without end (yes), so what reads it reads forever.
	Endless bool
	// SlashContents: a source operand ending in / stands for the
	// directory's contents, copied into the destination (rsync x/ dst).
	SlashContents bool
	// Extracts says how an archiver writes an archive's members, and
	// Archive how it names the archive it writes; nil for any other
	// program.
	Extracts *Extracts
	Archive  *ArchiveFile
	// Pieces says how a splitter names the files it writes; nil for any
	// other program.
	Pieces *Pieces
	// Saves is where a downloader saves what it fetches under the URL's
	// name (wget http://x/passwd writes ./passwd).
	Saves *Saves
	// RcCommands are the commands of its startup file that an Unproven
	// option also takes (wget -e CMD), by name without case, '_' or '-',
	// each as the long option it stands for (wget -e
	// output_document=F is --output-document=F).
	RcCommands map[string]string
	// Decompresses is when a compressor decompresses its operands in
	// place, writing each without its suffix (gzip -df /etc/passwd.gz
	// replaced /etc/passwd).
	Decompresses *Decompresses
	// Binds says how a container runner binds host paths into the
	// containers it starts; nil for any other program.
	Binds *Binds
	// Escape is the language of the code its options (RunsCode) and its
	// +cmd operands give it, when that language can hand text to the
	// shell (vim's :!cmd, gdb's shell cmd); for a database shell whose
	// options the table does not model, every argument is read so.
	Escape Escape
	// Links: its last operand becomes another name for its first (ln
	// TARGET NAME, -s or not): what is later done to NAME is done to
	// TARGET.
	Links bool
	// Transparent: a launcher that runs its command as the shell would,
	// changing only how long or at what priority or buffering it runs
	// (timeout, nice, ionice, stdbuf), so an allow rule that covers the
	// command covers it run through this launcher, as Claude Code reads
	// such wrappers. It writes no file (nohup does) and runs nothing else.
	Transparent bool
	// StdinCommands: it reads commands from standard input when the text
	// feeds it one: a shell's (script without -c starts one), or its own
	// language, whose escapes run shell commands (gdb's shell and !, ex's
	// !). StdinIf are options it needs for that (vim's -e), StdinUnless
	// options that stop it (gdb -batch, script -c).
	StdinCommands StdinKind
	StdinIf       []string
	StdinUnless   []string
}

// Extracts is how an archiver's command line says where it writes the
// archive's members, files the text names only when it lists them: Modes
// are the options that make it extract (tar -x, --extract, --get; none
// for a program that extracts unless one of its Defuses is given, as
// unzip), Dir those naming the directory it writes into (tar -C,
// --directory; unzip -d; else the working directory), and Members the
// index of the first operand that names a member (unzip's first is the
// archive). DirFirst are the modes whose first operand is the directory
// it writes into (cpio -p DIR copies the files it reads there).
// Commands are the first operands that make a program without an option
// grammar extract (7z x, 7z e), and Attached the switches whose attached
// rest names the directory (7z -o/etc).
type Extracts struct {
	Modes, Dir []string
	Members    int
	DirFirst   []string
	Commands   []string
	Attached   []string
}

// Pieces is how a splitter names the files it writes: a prefix — the
// value of one of Prefix (csplit -f P), else its operand number Operand
// (1-based; split IN P), else Default — followed by a suffix, First the
// first piece's (split writes Paa, Pab, …; csplit P00, P01, …).
type Pieces struct {
	Prefix         []string
	Operand        int
	Default, First string
}

// Saves is how a downloader's command line says where its downloads land
// besides the files its Writes options name: Dir are the options naming
// the directory they are saved in (wget -P, curl --output-dir; else the
// working directory), Remote those that save each URL under the last
// segment of its path (curl -O) — none when it always does unless one
// of Named gives the download a name (wget -O).
type Saves struct {
	Dir, Remote, Named []string
}

// Decompresses says when a compressor decompresses in place — with one
// of Modes (gzip -d), or Always (gunzip) — and the suffixes it strips
// from an operand to name the file it writes.
type Decompresses struct {
	Modes    []string
	Always   bool
	Suffixes []string
}

// StdinKind is what a program reads from standard input as commands.
type StdinKind uint8

// The kinds of commands read from standard input.
const (
	NoStdinCommands StdinKind = iota
	// StdinShellText: a shell reads it (script starts $SHELL).
	StdinShellText
	// StdinOwnCommands: its own commands, which can run shell commands.
	StdinOwnCommands
)

// ArchiveFile is how an archiver names the archive it writes: in one of
// the Creates modes (tar -c, -r, -u, -A), the value of a File option (tar
// -f F, --file=F); with First, its first operand (zip ARCHIVE FILE…),
// unless one of its Defuses is given.
type ArchiveFile struct {
	Creates, File []string
	First         bool
}

// Binds is how a container runner's command line binds host paths into a
// container (docker run -v SRC:DST[:OPTS], --mount
// type=bind,source=SRC,target=DST[,readonly]): what the container runs
// may then write the host's SRC through DST, and the gate reads that
// command's paths as the container's, never as the host's. Every word is
// read, whatever its subcommand (run, create, service create, compose
// run): one that only looks like a bind is read as one, the stricter.
type Binds struct {
	// Volume are the options whose value is SRC:DST[:OPTS] ("v",
	// "volume"); Bools the short options without a value that may come
	// before a Volume letter in one cluster (-itv SRC:DST).
	Volume []string
	Bools  string
	// Mount are the options whose value is a KEY=VALUE,… list (--mount).
	Mount []string
}

// NameArgs says which words of a builtin name the variables it sets:
// Grammar reads its options, NameOpts are the options whose value is a
// name (printf -v, read -a, wait -p), and Operand is the operand that is
// one (1-based: getopts OPTSTRING NAME is 2), or -1 for every operand
// (read A B C).
type NameArgs struct {
	Grammar  *Options
	NameOpts string
	Operand  int
}

// Scanner names a classifier routine. The values are owned by the
// classifier; the table only says which one reads a program.
type Scanner string

// Lookup returns the table's entry for a literal command name, or nil.
// Names of a family that grows with its file systems (mkfs.ext4,
// fsck.vfat) are looked up by their prefix.
func Lookup(name string) *Program {
	if p := lookup(name); p != nil {
		return p
	}
	for _, f := range prefixFamilies {
		if len(name) > len(f.prefix) && strings.HasPrefix(name, f.prefix) {
			return lookup(f.base)
		}
	}
	for _, pre := range vendorPrefixes {
		if base, ok := strings.CutPrefix(name, pre); ok {
			if p := lookup(base); p != nil && vendorSpelled(p) {
				return p
			}
		}
	}
	return nil
}

// OutputOptions are the spellings programs conventionally give the option
// that names the file they write (pandoc -o, gpg --output, -out, most
// compilers' -o): how a program the table does not model is read for the
// file it may write.
var OutputOptions = []string{"-o", "--output", "-out", "--out", "--outfile", "--output-file", "-outfile"}

// vendorPrefixes are the prefixes packagers install GNU and uutils
// coreutils under beside a system's own (Homebrew's grm, gcp, gtimeout;
// uutils' uu-rm and, on Homebrew, urm), so a writer's or launcher's name
// with one is that program.
var vendorPrefixes = []string{"g", "uu-", "u"}

// vendorSpelled reports an entry a vendor-prefixed name may stand for: a
// writer or launcher the classifier never proves read-only. A prefixed
// name that is some other program is then read more strictly, never less
// (a reader's or a scanned program's prefixed name stays unknown).
func vendorSpelled(p *Program) bool {
	return p.Kind.Any(Writer|Launcher) && !p.Kind.Any(Reader|Builtin|Viewer|Shell|Interpreter) && p.Scanner == ""
}

// prefixFamilies map a name prefix to the entry every name with it is.
var prefixFamilies = []struct{ prefix, base string }{{"mkfs.", "mkfs"}, {"mkfs_", "mkfs"}, {"fsck.", "fsck"}, {"mkswap.", "mkswap"}}

// Is reports whether name is in the table with every kind in k.
func Is(name string, k Kind) bool {
	p := Lookup(name)
	return p != nil && p.Kind.Has(k)
}

// KindOf returns the kinds of name, 0 when unknown.
func KindOf(name string) Kind {
	if p := Lookup(name); p != nil {
		return p.Kind
	}
	return 0
}

// All calls f for every entry, in table order.
func All(f func(*Program)) {
	groups, _ := tables()
	for _, g := range groups {
		for i := range g {
			f(&g[i])
		}
	}
}

// SubcommandDepth returns how many words after argv[0] a suggested rule
// keeps for argv: 1 for `git commit`, 2 for `npm run build`, 0 when the
// program has no subcommands.
func SubcommandDepth(argv []string) int {
	p := lookup(argv[0])
	if p == nil || p.Subcommand == 0 || len(argv) < 2 {
		return 0
	}
	if p.Subcommand > 1 && len(argv) > 2 && twoLevel.Has(argv[0]+" "+argv[1]) {
		return 2
	}
	return 1
}

// twoLevel are the program+subcommand pairs whose next word names what
// runs (npm run build, docker compose up).
var twoLevel = lazy.NewSet(
	"npm run", "yarn run", "pnpm run", "bun run",
	"docker compose", "podman compose", "gh pr", "gh issue",
	"kubectl rollout",
)

// OnlyPrints reports a program that writes its words out and opens none
// of them (echo, printf): a path among its words is text.
func (p *Program) OnlyPrints() bool { return p.Echo || p.Scanner == ScanPrintf }

// IsProbe reports whether the n words word(0) … word(n-1), joined by
// single blanks, are one of the program's Probe forms. The words are
// compared in place, not joined: the facts and the classifier ask it of
// every call of a shell, interpreter or build tool.
func (p *Program) IsProbe(n int, word func(int) string) bool {
	for _, f := range p.Probe {
		if joinedIs(n, word, f) {
			return true
		}
	}
	return false
}

// joinedIs reports whether the n words joined by single blanks are f.
func joinedIs(n int, word func(int) string, f string) bool {
	for i := range n {
		if i > 0 {
			if f == "" || f[0] != ' ' {
				return false
			}
			f = f[1:]
		}
		v := word(i)
		if !strings.HasPrefix(f, v) {
			return false
		}
		f = f[len(v):]
	}
	return f == ""
}

// Family returns the entry a versioned, suffixed or differently-cased
// spelling belongs to: python3.13t, python3.12, luajit-2.1.0-beta3,
// ghc-9.6.6, php8.3-cli, node20, javac11, gcc-13, bash.exe, Python3. It
// tries the name as given first. nil when no spelling is in the table.
// Only the vouching floor uses it: a command runs by its literal name.
func Family(name string) *Program {
	if p := lookup(name); p != nil {
		return p // the common case, without listing the other spellings
	}
	if lowerLetters(name) {
		return nil // no other spelling: no case, suffix or version to drop
	}
	for _, n := range familyNames(name)[1:] {
		if p := lookup(n); p != nil {
			return p
		}
	}
	return nil
}

// lowerLetters reports a name of ASCII lower-case letters only, which
// familyNames lists alone (an unknown command in most texts).
func lowerLetters(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] < 'a' || name[i] > 'z' {
			return false
		}
	}
	return true
}

// familyNames lists the spellings Family tries, most specific first.
func familyNames(name string) []string {
	out := []string{name}
	add := func(n string) {
		if n != "" && n != out[len(out)-1] {
			out = append(out, n)
		}
	}
	n := strings.ToLower(name)
	add(n)
	for _, suf := range []string{".exe", ".com", ".bat", ".cmd"} {
		n = strings.TrimSuffix(n, suf)
	}
	add(n)
	for _, suf := range []string{"-cli", "-cgi", "-fpm", "-static", "-dbg", "-debug"} {
		n = strings.TrimSuffix(n, suf)
	}
	add(n)
	for i := 0; i < 4; i++ {
		n = trimVersion(n)
		add(n)
	}
	return out
}

// trimVersion drops one trailing version part: -2.1.0-beta3, a t/m/d
// flavour letter, .12 of python3.12, the 20 of node20.
func trimVersion(n string) string {
	if i := strings.LastIndexAny(n, "-_"); i > 0 && hasDigit(n[i+1:]) {
		return n[:i]
	}
	if k := len(n); k > 1 && strings.IndexByte("tmdu", n[k-1]) >= 0 && isDigit(n[k-2]) {
		return n[:k-1] // python3.13t, python3.12m, python3.11d
	}
	if i := strings.LastIndexByte(n, '.'); i > 0 && isDigit(n[i-1]) && allDigits(n[i+1:]) {
		return n[:i]
	}
	j := len(n)
	for j > 0 && (isDigit(n[j-1]) || n[j-1] == '.') {
		j--
	}
	if j == 0 {
		return n
	}
	return n[:j]
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			return true
		}
	}
	return false
}

// tables returns the table and the index that maps names to its entries,
// built on first use rather than at package initialization: building them
// allocates about a megabyte in a few thousand maps, which every process
// would pay at start-up though `agentexec version` or `audit verify` never
// reads them.
var tables = sync.OnceValues(func() ([][]Program, map[string]*Program) {
	groups := buildTable()
	n := 0
	for _, g := range groups {
		n += len(g)
	}
	m := make(map[string]*Program, n)
	for _, g := range groups {
		for i := range g {
			p := &g[i]
			if _, dup := m[p.Name]; dup {
				panic("programs: " + p.Name + " is in the table twice")
			}
			m[p.Name] = p
		}
	}
	return groups, m
})

// Warm builds the table and its index now. A process that will decide
// starts it in the background (go programs.Warm()) so that the build, a
// millisecond or so, overlaps its other start-up work; a lookup meanwhile
// waits for it.
func Warm() { tables() }

// lookup is the index entry for an exact name, or nil.
func lookup(name string) *Program {
	_, index := tables()
	return index[name]
}
