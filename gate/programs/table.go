package programs

import (
	"slices"
	"strings"
)

// buildTable lists every program and builtin the gate knows, grouped by
// what it is. Options are GNU's (Debian 12) unless a comment says
// otherwise. It runs once, on first use (see tables). The groups are kept
// as they are built: copying them into one slice would copy every entry
// again, a third of what building the table costs.
func buildTable() [][]Program {
	return [][]Program{
		builtins(),
		readers(),
		helperReaders(),
		specReaders(),
		writers(),
		viewers(),
		shells(),
		interpreters(),
		launchers(),
		buildTools(),
		packageManagers(),
		network(),
		system(),
		versionControl(),
	}
}

func concat(groups ...[]Program) []Program {
	n := 0
	for _, g := range groups {
		n += len(g)
	}
	out := make([]Program, 0, n)
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// each makes one entry per name with the same kind and phrase.
func each(k Kind, why string, names ...string) []Program {
	out := make([]Program, len(names))
	for i, n := range names {
		out[i] = Program{Name: n, Kind: k, Why: why}
	}
	return out
}

// one wraps entries written out in full.
func one(ps ...Program) []Program { return ps }

// longs lists long options by arity: names without a value, with a
// required value, with an optional one (each space-separated).
func longs(none, req, opt string) *Longs { return &Longs{None: none, Req: req, Opt: opt} }

// eff is an option of the given arity and effect.
func eff(a Arity, e Effect, why string) Opt { return Opt{Arity: a, Effect: e, Why: why} }

// The phrases reasons use for each kind.
const (
	whyReader   = "only reads and prints"
	whyWriter   = "a file-system writer"
	whyViewer   = "a pager or editor, which can run commands"
	whyShell    = "a shell, which runs whatever text it is given"
	whyInterp   = "an interpreter, which runs code"
	whyLauncher = "a wrapper that runs another command"
	whyBuild    = "a build tool or task runner, which runs project code and scripts"
	whyPkg      = "a package manager, which installs packages and runs their scripts"
	whyState    = "a builtin that changes shell state for later commands"
	whyPriv     = "a privilege tool that runs a command as another user"
	whyEmu      = "an emulator or compatibility layer that runs other programs"
	whyNet      = "a network client"
	whyCompiler = "a compiler, which can run plugins and build scripts"
)

func builtins() []Program {
	st := func(name string, r *Runs, o *Options) Program {
		return Program{Name: name, Kind: Builtin | StateBuiltin, Why: whyState, Runs: r, Opts: o}
	}
	lb := func(name string, r Runs, o *Options) Program {
		return Program{Name: name, Kind: Builtin | Launcher, Why: whyLauncher, Runs: &r, Opts: o}
	}
	callback := eff(ReqArg, RunsShell, "runs %q as a callback")
	return concat(
		each(Builtin|Reader, whyReader, "pwd", "true", "false", ":", "type", "exit",
			"help", "times", "caller"),
		one(
			// `jobs -x CMD ARGS` runs CMD (with job specs replaced by
			// process group ids); bash's getopt stops at the first operand.
			Program{Name: "jobs", Kind: Builtin | Reader, Scanner: ScanSpec, Why: whyReader, Opts: Launch("lnprs", "", nil).
				Short("x", eff(NoArg, StartsArgv, "`jobs -x` runs the command that follows it%s"))},
			Program{Name: "dirs", Kind: Builtin | Reader, Scanner: ScanSpec, Why: whyReader, Opts: Launch("lpv", "", nil).
				Short("c", eff(NoArg, Unproven, "`dirs -c` clears the shell's directory stack%s"))},
		),
		one(Program{Name: "echo", Kind: Builtin | Reader, Why: whyReader, Echo: true}),
		declares(compound(each(Builtin|StateBuiltin, whyState, "declare", "typeset", "local", "readonly"))),
		declares(each(Builtin|StateBuiltin, whyState, "export")),
		one(
			Program{Name: "unset", Kind: Builtin | StateBuiltin, Why: whyState, Unsets: true},
			Program{Name: "shopt", Kind: Builtin | StateBuiltin, Why: whyState, Shopts: true}),
		each(Builtin|StateBuiltin, whyState, "unalias", "let",
			"compopt", "umask", "disown", "fg", "bg",
			"shift", "return", "logout", "break", "continue", "suspend", "function", "select",
			"coproc", "nameref"),
		one(
			Program{Name: "set", Kind: Builtin | StateBuiltin, Scanner: ScanSet, Why: whyState},
			Program{Name: "history", Kind: Builtin | StateBuiltin, Scanner: ScanHistory, Why: whyState},
			Program{Name: "ulimit", Kind: Builtin | StateBuiltin, Scanner: ScanUlimit, Why: whyState},
			Program{Name: "cd", Kind: Builtin | StateBuiltin, Scanner: ScanCd, Chdir: true, Why: whyState},
			Program{Name: "pushd", Kind: Builtin | StateBuiltin, Scanner: ScanCd, Chdir: true, Why: whyState},
			Program{Name: "popd", Kind: Builtin | StateBuiltin, Scanner: ScanCd, Chdir: true, Why: whyState},
			st("alias", &Runs{Alias: true}, nil),
			st("hash", &Runs{Rebind: true}, nil),
			st("trap", &Runs{Text: true}, Launch("lp", "", nil)),
			st("enable", &Runs{Opaque: "`enable -f` loads a builtin from a shared object"}, nil),
			st("fc", &Runs{Opaque: "`fc` runs commands again from the history"}, nil),
			st("bind", &Runs{Opaque: "`bind -x` binds a key to a command"}, nil),
			st("complete", nil, Opts("abcdefgjksuvDEI", "AGWFPSXo", nil).Short("C", callback)),
			// compgen takes complete's options and runs -C's command at once.
			st("compgen", nil, Launch("abcdefgjksuvDEI", "AGWFPSXoV", nil).Short("C", callback)),
			named(st("mapfile", nil, Opts("t", "dnOsu", nil).Short("c", Opt{Arity: ReqArg}).Short("C", callback)), "", 1),
			named(st("readarray", nil, Opts("t", "dnOsu", nil).Short("c", Opt{Arity: ReqArg}).Short("C", callback)), "", 1),
			// The builtins that set the variables their words name.
			named(st("read", nil, Launch("ers", "adinNptu", nil)), "a", -1),
			named(st("getopts", nil, Launch("", "", nil)), "", 2),
			named(st("wait", nil, Launch("fn", "p", nil)), "p", 0),
			st("source", &Runs{Script: true}, nil),
			st(".", &Runs{Script: true}, nil),
			lb("eval", Runs{Joined: true}, nil),
			lb("exec", Runs{Argv: true}, Launch("cl", "a", nil)),
			func() Program {
				p := lb("command", Runs{Argv: true, Describe: []string{"v", "V"}}, Launch("pvV", "", nil))
				p.Scanner = ScanCommand
				return p
			}(),
			lb("builtin", Runs{Argv: true}, nil),
			// GNU time -o/--output writes its report to the file.
			lb("time", Runs{Argv: true}, Launch("apqv", "f", longs("append portability quiet verbose help version", "format", "")).
				Short("o", eff(ReqArg, Writes, "`time -o` writes its report to %q")).Long(eff(ReqArg, Writes, "`time --output` writes its report to %q"), "output")),
			Program{Name: "test", Kind: Builtin | Reader, Scanner: ScanTest, Why: "only tests files and strings"},
			Program{Name: "[", Kind: Builtin | Reader, Scanner: ScanTest, Why: "only tests files and strings"},
			Program{Name: "[[", Kind: Builtin | Reader, Scanner: ScanTest, Why: "only tests files and strings"},
			Program{Name: "printf", Kind: Builtin | Reader, Scanner: ScanPrintf, Why: whyReader, Names: &NameArgs{Grammar: Launch("", "v", nil), NameOpts: "v"}},
			Program{Name: "kill", Kind: Builtin | Signaller, Scanner: ScanKill, NoPrefixRule: true, Why: "sends signals to processes"},
		),
	)
}

// compound marks the builtins that re-read NAME=(…) arguments as compound
// assignments (bash 5.2: declare, typeset, local, readonly; export does
// not, even for an array).
func compound(ps []Program) []Program {
	for i := range ps {
		ps[i].Compound = true
	}
	return ps
}

// declares marks the builtins that read their operands as assignments.
func declares(ps []Program) []Program {
	for i := range ps {
		ps[i].Declares = true
	}
	return ps
}

// named gives a builtin the words that name the variables it sets, read
// with its own option grammar.
func named(prog Program, nameOpts string, operand int) Program {
	prog.Names = &NameArgs{Grammar: prog.Opts, NameOpts: nameOpts, Operand: operand}
	return prog
}

func readers() []Program {
	return append(readerNames(),
		// yes prints its words, joined, without end.
		Program{Name: "yes", Kind: Reader, Why: whyReader, Echo: true, Endless: true})
}

func readerNames() []Program {
	return each(Reader, whyReader,
		"cat", "head", "tail", "ls", "wc", "basename", "dirname", "realpath", "readlink",
		"whoami", "id", "groups", "uname", "printenv", "tr", "cut", "paste", "comm", "cmp",
		"diff", "nl", "od", "hexdump", "strings", "column", "seq", "sleep", "tac", "rev",
		"fold", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum",
		"b2sum", "cksum", "sum", "nproc", "arch", "grep", "egrep", "fgrep", "ps", "du", "df",
		"stat", "which", "jq", "getconf", "uptime", "free", "join",
		// Text filters and formatters that print to standard output.
		"expand", "unexpand", "fmt", "pr", "numfmt", "look", "tsort", "factor", "expr",
		"base32", "basenc", "colrm",
		// Decompressors and archive listers that write to standard output.
		"zcat", "bzcat", "xzcat", "lzcat", "zipinfo",
		// System inspectors.
		"lscpu", "lsblk", "locale", "getfacl", "lsattr", "lsmod", "lspci", "lsusb",
		"findmnt", "w", "users", "tty", "logname",
		"hostid", "vmstat", "iostat", "mpstat", "pstree", "pgrep", "pidof", "cal", "ncal",
		"lsipc", "lslocks", "lsns", "lsirq", "lsmem", "readelf",
		"size", "objdump", "whereis", "env-update-check", "tree-sitter-version",
	)
}

// helperReaders are the compressed-file wrappers (shell scripts) that run
// grep, diff or cmp through a variable naming the helper: GREP='CMD'
// zgrep runs CMD (gzip's, xz's, bzip2's and zstd's scripts on Debian 12).
func helperReaders() []Program {
	with := func(vars []string, names ...string) []Program {
		out := each(Reader, whyReader, names...)
		for i := range out {
			out[i].EnvCommands = vars
		}
		return out
	}
	return concat(
		with([]string{"GREP"}, "zgrep", "zegrep", "zfgrep", "xzgrep", "xzegrep", "xzfgrep", "zstdgrep", "lzgrep", "lzegrep", "lzfgrep"),
		with([]string{"GREP", "EGREP", "FGREP"}, "bzgrep", "bzegrep", "bzfgrep"),
		with([]string{"DIFF", "CMP"}, "zcmp", "zdiff", "xzcmp", "xzdiff", "bzcmp", "bzdiff", "lzcmp", "lzdiff"),
	)
}

func specReaders() []Program {
	return one(
		Program{Name: "sort", Kind: Reader, Scanner: ScanSpec, Why: whyReader, Opts: Opts("bcCdfghiMmnRrsuVz", "ktST", longs(
			"ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort human-numeric-sort numeric-sort random-sort reverse version-sort merge stable unique zero-terminated debug help version",
			"key field-separator buffer-size temporary-directory random-source files0-from parallel sort batch-size",
			"check")).
			Short("o", eff(ReqArg, Writes, "sort writes its output to %q")).Long(eff(ReqArg, Writes, "sort writes its output to %q"), "output").
			Long(eff(ReqArg, RunsProgram, "sort --compress-program runs %q on its temporary files"), "compress-program").Unproven()},
		Program{Name: "tree", Kind: Reader, Scanner: ScanSpec, Why: whyReader, Opts: Opts("adlfxqNQpugshDFvtcUrCnASJXi", "LPIHT", longs(
			"help version inodes device noreport nolinks dirsfirst filesfirst du si prune matchdirs metafirst gitignore ignore-case info fflinks",
			"charset filelimit timefmt sort hintro houtro gitfile infofile", "")).
			Short("o", eff(ReqArg, Writes, "tree writes its output to %q")).
			Short("R", eff(NoArg, Writes, "tree -R writes an 00Tree.html file into every directory%s")).NoAbbrev().Unproven()},
		Program{Name: "uniq", Kind: Reader, Scanner: ScanSpec, Operands: SecondWrites, Why: whyReader, Opts: Opts("cdDuiz", "fsw", longs(
			"count repeated unique ignore-case zero-terminated help version", "skip-fields skip-chars check-chars", "all-repeated group"))},
		Program{Name: "tee", Kind: Reader | Writer, Scanner: ScanSpec, Operands: OperandsWrite, Targets: WritesAll, NoPrefixRule: true, Why: "copies its input to files", Opts: Opts("aip", "", longs(
			"append ignore-interrupts help version", "", "output-error"))},
		Program{Name: "date", Kind: Reader, Scanner: ScanSpec, Operands: NonPlusWrites, Why: whyReader, Opts: Opts("uR", "dfr", longs(
			"utc universal rfc-email rfc-2822 debug resolution help version", "date file reference rfc-3339", "iso-8601")).
			Short("I", eff(OptArg, Harmless, "")).
			Short("s", eff(ReqArg, Writes, "`date -s %q` sets the system clock")).Long(eff(ReqArg, Writes, "`date -s %q` sets the system clock"), "set")},
		// The long name, aliases, domain and addresses are looked up through
		// NSS: with the name missing from /etc/hosts, a DNS query goes out
		// (gate's TestHostnameResolveConfirm). -s, -y and -I do not resolve.
		Program{Name: "hostname", Kind: Reader, Scanner: ScanSpec, Operands: AnyWrites, Why: whyReader, Opts: Opts("Isy", "", longs(
			"all-ip-addresses short yp nis help version", "", "")).
			Short("b", eff(NoArg, Writes, "`hostname` sets the host name%s")).Long(eff(NoArg, Writes, "`hostname` sets the host name%s"), "boot").
			Short("F", eff(ReqArg, Writes, "`hostname -F %q` sets the host name from a file")).Long(eff(ReqArg, Writes, "`hostname -F %q` sets the host name from a file"), "file").
			Short("aAdfi", eff(NoArg, Network, "`hostname` looks the host name up through the resolver, which may query DNS over the network%s")).
			Long(eff(NoArg, Network, "`hostname` looks the host name up through the resolver, which may query DNS over the network%s"), "alias", "all-fqdns", "domain", "fqdn", "long", "ip-address")},
		Program{Name: "file", Kind: Reader, Scanner: ScanSpec, Why: whyReader, Opts: Opts("bcdEhiklLNnrsSv0", "eFfmP", longs(
			"brief checking-printout debug extension mime mime-type mime-encoding keep-going list no-dereference dereference no-pad no-buffer raw special-files print0 apple help version",
			"exclude exclude-quiet files-from separator magic-file parameter", "")).
			Short("C", eff(NoArg, Writes, "`file -C` compiles a magic file and writes it%s")).Long(eff(NoArg, Writes, "`file -C` compiles a magic file and writes it%s"), "compile").
			Short("zZp", eff(NoArg, Unproven, "`file` runs decompressors or changes access times%s")).
			Long(eff(NoArg, Unproven, "`file` runs decompressors or changes access times%s"), "uncompress", "uncompress-noreport", "preserve-date", "no-sandbox")},
		Program{Name: "base64", Kind: Reader, Scanner: ScanSpec, Why: whyReader, Opts: Opts("dDi", "wb", longs(
			"decode ignore-garbage help version", "wrap break input", "")).
			Short("o", eff(ReqArg, Writes, "`base64 -o` writes its output to %q")).Long(eff(ReqArg, Writes, "`base64 -o` writes its output to %q"), "output")},
		Program{Name: "shuf", Kind: Reader, Scanner: ScanSpec, Why: whyReader, Opts: Opts("erz", "inR", longs(
			"echo repeat zero-terminated help version", "input-range head-count random-source", "")).
			Short("o", eff(ReqArg, Writes, "`shuf -o` writes its output to %q")).Long(eff(ReqArg, Writes, "`shuf -o` writes its output to %q"), "output")},
		Program{Name: "iconv", Kind: Reader, Scanner: ScanSpec, Why: whyReader, Opts: Opts("lcs", "ft", longs(
			"list silent verbose help version usage", "from-code to-code", "")).
			Short("o", eff(ReqArg, Writes, "`iconv -o` writes its output to %q")).Long(eff(ReqArg, Writes, "`iconv -o` writes its output to %q"), "output")},
		Program{Name: "sdiff", Kind: Reader, Scanner: ScanSpec, Why: whyReader, Opts: Opts("abBdEHilstWZ", "Iw", longs(
			"text ignore-blank-lines ignore-space-change minimal ignore-tab-expansion speed-large-files ignore-case left-column suppress-common-lines expand-tabs ignore-all-space ignore-trailing-space strip-trailing-cr help version",
			"ignore-matching-lines width tabsize", "")).
			Short("o", eff(ReqArg, Writes, "`sdiff -o` writes the merged file %q")).Long(eff(ReqArg, Writes, "`sdiff -o` writes the merged file %q"), "output").
			Long(eff(ReqArg, RunsProgram, "`sdiff --diff-program` runs %q"), "diff-program")},
		// util-linux 2.38: -p is --force-prefix, a flag (read as taking a
		// value, it hid the -C after it: dmesg -p -C cleared the log).
		Program{Name: "dmesg", Kind: Reader, Scanner: ScanSpec, Operands: NoOperands, Why: "prints the kernel log", Opts: Opts("dehHkLPrStTuxwpJW", "fFls", longs(
			"show-delta reltime human kernel nopager raw syslog ctime notime userspace decode follow follow-new help version noescape json force-prefix",
			"facility file level buffer-size since until time-format", "color")).
			Short("cCDEn", eff(NoArg, Writes, "`dmesg` clears or reconfigures the kernel log%s")).
			Long(eff(NoArg, Writes, "`dmesg` clears or reconfigures the kernel log%s"), "clear", "read-clear", "console-off", "console-on").
			Long(eff(ReqArg, Writes, "`dmesg` sets the console level to %q"), "console-level")},
		Program{Name: "stty", Kind: Reader, Scanner: ScanSpec, Operands: AnyWrites, Why: "prints terminal settings", Opts: Opts("ag", "F", longs("all save help version", "file", ""))},
		Program{Name: "mount", Kind: Reader, Scanner: ScanSpec, Operands: AnyWrites, Why: "lists mounts", Opts: Opts("lhV", "t", longs("show-labels help version", "types", ""))},
		Program{Name: "gofmt", Kind: Reader, Scanner: ScanSpec, Why: "prints formatted Go source", Opts: func() *Options {
			o := Opts("", "", longs("l d e s", "r", ""))
			o.SingleDashLong = true
			return o.Short("ldes", Opt{}).Short("r", Opt{Arity: ReqArg}).
				Short("w", eff(NoArg, Writes, "`gofmt -w` rewrites the files%s")).Long(eff(NoArg, Writes, "`gofmt -w` rewrites the files%s"), "w").
				Long(eff(ReqArg, Writes, "`gofmt -cpuprofile` writes %q"), "cpuprofile")
		}()},
		Program{Name: "shfmt", Kind: Reader, Scanner: ScanSpec, Why: "prints formatted shell source", Opts: Opts("ldsfkbn", "ip", longs(
			"list diff simplify minify keep-padding binary-next-line switch-case space-redirects func-next-line find help version to-json from-json",
			"indent language-dialect filename apply-ignore", "")).
			Short("w", eff(NoArg, Writes, "`shfmt -w` rewrites the files%s")).Long(eff(NoArg, Writes, "`shfmt -w` rewrites the files%s"), "write")},
		Program{Name: "clang-format", Kind: Reader, Scanner: ScanSpec, Why: "prints formatted C source", Opts: func() *Options {
			o := Opts("n", "", longs("dry-run Werror help version dump-config sort-includes verbose output-replacements-xml", "style fallback-style assume-filename lines offset length cursor qualifier-alignment files ferror-limit", ""))
			o.SingleDashLong = true
			return o.Short("i", eff(NoArg, Writes, "`clang-format -i` rewrites the files%s")).Long(eff(NoArg, Writes, "`clang-format -i` rewrites the files%s"), "i")
		}()},
		// ptx -G (System V mode) writes its output to a second operand.
		Program{Name: "ptx", Kind: Reader, Scanner: ScanSpec, Why: whyReader, SecondWritesWith: []string{"G", "traditional"}, Opts: Opts("AfrRtOT", "FMSWbgiow", longs(
			"auto-reference ignore-case references right-side-refs typeset-mode help version",
			"flag-truncation macro-name sentence-regexp word-regexp break-file gap-size ignore-file only-file width format", "")).
			Short("G", eff(NoArg, Unproven, "`ptx -G` writes its output to its second operand%s")).
			Long(eff(NoArg, Unproven, "`ptx --traditional` writes its output to its second operand%s"), "traditional")},
		Program{Name: "diff3", Kind: Reader, Scanner: ScanSpec, Why: whyReader, Opts: Opts("AeE3xXimaTv", "L", longs(
			"show-all ed show-overlap easy-only overlap-only merge text strip-trailing-cr initial-tab help version", "label", "")).
			Long(eff(ReqArg, RunsProgram, "`diff3 --diff-program` runs %q to compare the files"), "diff-program")},
		// nm loads a plugin (a shared object: its code runs), also from an
		// @FILE of options.
		Program{Name: "nm", Kind: Reader, Scanner: ScanSpec, Operands: ResponseFiles, Why: whyReader, Opts: Opts("aABCDegjlnopPrSsuUvWVh", "ftX", longs(
			"debug-syms print-file-name no-demangle recurse-limit no-recurse-limit dynamic extern-only just-symbols line-numbers numeric-sort no-sort portability reverse-sort print-size print-armap quiet size-sort special-syms synthetic undefined-only defined-only no-weak with-symbol-versions without-symbol-versions help version",
			"format ifunc-chars radix target unicode", "demangle")).
			Long(eff(ReqArg, RunsFile, "`nm --plugin` loads the shared object %q, which runs its code"), "plugin")},
		// zstd parses its own options: whole long names only.
		// zstd's -T# and -M# take their number attached (zstd -T -o F
		// writes F: confirmed), only -D and -o the next word.
		Program{Name: "zstdcat", Kind: Reader, Scanner: ScanSpec, Why: "decompresses to standard output", Opts: Opts("cdfkqvhHVlt", "D", longs(
			"decompress stdout force keep quiet verbose help version list test sparse no-sparse no-progress progress no-check check", "", "")).
			Short("TM", Opt{Arity: OptArg}).
			Short("o", eff(ReqArg, Writes, "`zstdcat -o` writes its output to %q")).
			Long(eff(ReqArg, Writes, "`zstdcat` writes its output into the directory %q"), "output-dir-flat", "output-dir-mirror").
			Long(eff(ReqArg, Writes, "`zstdcat --trace` logs its tracing to %q"), "trace").NoAbbrev()},
		// lz4cat is lz4 -dcfm, which still reads lz4's options: --rm deletes
		// the files it decompresses (lz4 1.9.4), to standard output too.
		// -B#, -b#, -e# and -i# take their value attached (lz4cat -i --rm
		// F deleted F: confirmed), only -D the next word.
		Program{Name: "lz4cat", Kind: Reader, Scanner: ScanSpec, Why: "decompresses to standard output", RemovesSources: []string{"rm"}, Opts: Opts("dzfkhHVvqctmrl0123456789", "D", longs(
			"compress decompress uncompress force stdout to-stdout multiple verbose quiet keep help version test list no-frame-crc content-size sparse no-sparse favor-decSpeed best", "", "fast")).
			Short("Bbei", Opt{Arity: OptArg}).
			Long(eff(NoArg, Writes, "`lz4cat --rm` deletes the files it decompresses%s"), "rm").NoAbbrev()},
		// last -d and who --lookup resolve the logged hosts through DNS.
		Program{Name: "last", Kind: Reader, Scanner: ScanSpec, Why: "prints the last logins", Opts: Opts("aFiRwxhV", "fnstp", longs(
			"hostlast fulltimes ip nohostname fullnames system help version", "file limit since until present time-format", "")).WithDigits().
			Short("d", eff(NoArg, Network, "`last -d` looks the hosts up through the resolver, which may query DNS over the network%s")).
			Long(eff(NoArg, Network, "`last --dns` looks the hosts up through the resolver, which may query DNS over the network%s"), "dns")},
		Program{Name: "who", Kind: Reader, Scanner: ScanSpec, Why: "prints who is logged in", Opts: Opts("abdHlmpqrstTwu", "", longs(
			"all boot dead heading ips login process count runlevel short time mesg users message writable help version", "", "")).
			Long(eff(NoArg, Network, "`who --lookup` looks the hosts up through the resolver, which may query DNS over the network%s"), "lookup")},
		// lastlog -C and -S rewrite a user's record in /var/log/lastlog.
		Program{Name: "lastlog", Kind: Reader, Scanner: ScanSpec, Operands: NoOperands, Why: "prints the last logins", Opts: Opts("h", "btRu", longs(
			"help", "before time root user", "")).
			Short("CS", eff(NoArg, Writes, "`lastlog` rewrites a user's record in /var/log/lastlog%s")).
			Long(eff(NoArg, Writes, "`lastlog` rewrites a user's record in /var/log/lastlog%s"), "clear", "set")},
		Program{Name: "rg", Kind: Reader, Scanner: ScanRg, Why: "searches files", Opts: rgOpts()},
		Program{Name: "ripgrep", Kind: Reader, Scanner: ScanRg, Why: "searches files", Opts: rgOpts()},
		Program{Name: "xxd", Kind: Reader, Scanner: ScanXxd, Why: "prints a hex dump"},
		Program{Name: "dd", Kind: Reader | Writer, Scanner: ScanDD, NoPrefixRule: true, Why: "copies and converts data"},
		Program{Name: "sed", Kind: Reader, Scanner: ScanSed, Targets: EditsInPlace, Why: "edits text; its script can write files and run commands"},
		Program{Name: "awk", Kind: Interpreter, Scanner: ScanAwk, Why: whyInterp},
		Program{Name: "gawk", Kind: Interpreter, Scanner: ScanAwk, Why: whyInterp},
		Program{Name: "mawk", Kind: Interpreter, Scanner: ScanAwk, Why: whyInterp},
		Program{Name: "nawk", Kind: Interpreter, Scanner: ScanAwk, Why: whyInterp},
		Program{Name: "busybox-awk", Kind: Interpreter, Scanner: ScanAwk, Why: whyInterp},
		Program{Name: "find", Kind: Reader, Scanner: ScanFind, Why: "lists files; its actions can delete, write and run commands"},
		Program{Name: "fd", Kind: Reader, Scanner: ScanSpec, Why: "lists files", Opts: fdOpts()},
		Program{Name: "fdfind", Kind: Reader, Scanner: ScanSpec, Why: "lists files", Opts: fdOpts()},
		Program{Name: "env", Kind: Launcher, Scanner: ScanEnv, Why: whyLauncher,
			Opts: Launch("i0v", "uCP", longs("ignore-environment null debug help version", "unset chdir", "")).
				Short("C", eff(ReqArg, Chdir, "")).Long(eff(ReqArg, Chdir, ""), "chdir").
				Short("S", eff(ReqArg, RunsProgram, "`env -S` splits %q into a command it runs")).
				Long(eff(ReqArg, RunsProgram, "`env --split-string` splits %q into a command it runs"), "split-string").
				Long(eff(OptArg, Harmless, ""), "block-signal", "default-signal", "ignore-signal", "list-signal-handling").
				dash("i"),
			Runs: &Runs{Argv: true, Assigns: true}},
	)
}

func rgOpts() *Options {
	return Opts("abcFHhIiLlnNopPqsSUuvVwx0.", "ABCeEfgjmMrtTd", longs(
		"text byte-offset count count-matches fixed-strings with-filename no-filename ignore-case follow no-follow files-with-matches files-without-match files line-number no-line-number only-matching pretty pcre2 no-pcre2 quiet case-sensitive smart-case multiline no-multiline multiline-dotall unrestricted invert-match version help word-regexp line-regexp null null-data hidden no-hidden no-ignore ignore no-ignore-vcs no-ignore-dot no-ignore-global no-ignore-parent no-ignore-exclude no-ignore-files no-ignore-messages no-messages messages json no-json vimgrep heading no-heading column no-column stats no-stats sort-files trim no-trim type-list debug trace crlf no-crlf glob-case-insensitive ignore-file-case-insensitive one-file-system binary no-binary passthru no-unicode include-zero line-buffered block-buffered mmap no-mmap no-require-git no-search-zip pcre2-version no-encoding max-columns-preview no-config auto-hybrid-regex no-auto-hybrid-regex",
		"after-context before-context context regexp encoding file glob iglob threads max-count max-columns replace type type-not max-depth maxdepth max-filesize colors color path-separator sort sortr type-add type-clear ignore-file context-separator field-context-separator field-match-separator dfa-size-limit regex-size-limit engine generate hyperlink-format pre-glob", "")).
		Long(eff(ReqArg, RunsProgram, "ripgrep runs the preprocessor %q on every file"), "pre").
		Long(eff(ReqArg, RunsProgram, "ripgrep runs %q to learn the host name"), "hostname-bin").
		Short("z", eff(NoArg, Unproven, "ripgrep -z runs decompression programs on compressed files%s")).
		Long(eff(NoArg, Unproven, "ripgrep -z runs decompression programs on compressed files%s"), "search-zip").NoAbbrev()
}

func fdOpts() *Options {
	return Opts("HIuspiFagLl0qS1", "dtEecj", longs(
		"hidden no-ignore no-ignore-vcs no-ignore-parent unrestricted case-sensitive ignore-case glob regex fixed-strings absolute-path list-details follow full-path print0 quiet show-errors prune one-file-system help version strip-cwd-prefix no-require-git",
		"max-depth min-depth exact-depth type extension exclude ignore-file color threads size changed-within changed-before owner base-directory path-separator search-path max-results format hyperlink", "")).
		Short("x", eff(NoArg, StartsArgv, "`fd -x` runs a command for every match%s")).Long(eff(NoArg, StartsArgv, "`fd --exec` runs a command for every match%s"), "exec").
		Short("X", eff(NoArg, StartsArgv, "`fd -X` runs a command with the matches%s")).Long(eff(NoArg, StartsArgv, "`fd --exec-batch` runs a command with the matches%s"), "exec-batch")
}

func writers() []Program {
	return concat(
		each(Writer, whyWriter, "mkdir", "mkfifo", "mknod", "rmdir", "touch",
			"fallocate", "mktemp", "link", "chcon", "restorecon", "setfattr"),
		// csplit writes its pieces as PREFIX00, PREFIX01, … (-f, else xx).
		one(Program{Name: "csplit", Kind: Writer, Why: whyWriter, Pieces: &Pieces{Prefix: []string{"f", "prefix"}, Default: "xx", First: "00"},
			Opts: Opts("kszh", "bfn", longs("keep-files quiet silent elide-empty-files suppress-matched help version", "suffix-format prefix digits", ""))}),
		// sponge writes the file it names once its input ends; patch
		// rewrites the file it names (and -o OUT), the rest of its
		// operands read as written too: the stricter.
		// rename (util-linux's FROM TO FILE…, Perl's EXPR FILE…) moves
		// each file it is given to a new name.
		one(Program{Name: "rename", Kind: Writer, Targets: Renames, Why: whyWriter}),
		// dos2unix and its kin and sd (FIND REPLACE FILE…) rewrite the
		// files they are given in place (their manuals).
		withTargets(WritesAll, each(Writer, whyWriter, "dos2unix", "unix2dos", "mac2unix", "unix2mac", "sd")),
		one(Program{Name: "sponge", Kind: Writer, Targets: WritesAll, Why: whyWriter, Opts: Opts("a", "", nil).AnyOption()},
			Program{Name: "patch", Kind: Writer, Targets: WritesAll, Why: whyWriter,
				Opts: Opts("", "", nil).AnyOption().Short("o", eff(ReqArg, Writes, "`patch -o` writes %q")).Long(eff(ReqArg, Writes, "`patch --output` writes %q"), "output")}),
		one(
			Program{Name: "rm", Kind: Writer, Targets: Removes, NoPrefixRule: true, Why: whyWriter, Opts: Opts("dfiIrRv", "", longs(
				"force one-file-system no-preserve-root recursive dir verbose help version", "", "interactive preserve-root"))},
			Program{Name: "cp", Kind: Writer, Targets: CopiesTo, NoPrefixRule: true, Why: whyWriter},
			Program{Name: "mv", Kind: Writer, Targets: Moves, NoPrefixRule: true, Why: whyWriter},
			Program{Name: "unlink", Kind: Writer, Targets: Destroys, NoPrefixRule: true, Why: whyWriter},
			Program{Name: "truncate", Kind: Writer, Targets: Destroys, NoPrefixRule: true, Why: whyWriter},
			Program{Name: "shred", Kind: Writer, Targets: Destroys, NoPrefixRule: true, Why: "overwrites files or devices"},
			// install -s runs --strip-program's program on what it copies.
			Program{Name: "install", Kind: Writer, Targets: CopiesTo, Why: whyWriter, Opts: Opts("bcCdDpsTvZ", "gmoSt", longs(
				"compare directory preserve-timestamps strip no-target-directory verbose preserve-context debug help version",
				"group mode owner suffix target-directory", "backup context")).
				Long(eff(ReqArg, RunsProgram, "`install --strip-program` runs %q on every file it installs"), "strip-program")},
			// split --filter runs a shell command for every piece.
			// split IN PREFIX writes PREFIXaa, PREFIXab, … (a piece
			// named into /etc/sudoers.d is a sudoers file).
			Program{Name: "split", Kind: Writer, Why: whyWriter, Pieces: &Pieces{Operand: 2, Default: "x", First: "aa"}, Opts: Opts("dxeu", "abClnt", longs(
				"elide-empty-files unbuffered verbose help version",
				"suffix-length additional-suffix bytes line-bytes lines number separator", "numeric-suffixes hex-suffixes")).WithDigits().
				Long(eff(ReqArg, RunsShell, "`split --filter` runs %q for every piece"), "filter")},
			Program{Name: "ln", Kind: Writer, Targets: CopiesTo, Links: true, Why: whyWriter},
			Program{Name: "chgrp", Kind: Writer, Targets: Attrs, NoPrefixRule: true, Why: whyWriter, Opts: Opts("cfvhHLPR", "", longs(
				"changes silent quiet verbose dereference no-dereference no-preserve-root preserve-root recursive help version", "reference", ""))},
			Program{Name: "chattr", Kind: Writer, Targets: Attrs, Why: whyWriter, Opts: Opts("RVf", "vp", nil)},
			Program{Name: "setfacl", Kind: Writer, Targets: Attrs, Why: whyWriter, Opts: Opts("bkndRLPtv", "mMxX", longs("remove-all remove-default no-mask mask default recursive logical physical test version help", "modify modify-file remove remove-file set set-file restore", ""))},
			Program{Name: "chmod", Kind: Writer, Targets: Attrs, NoPrefixRule: true, Why: whyWriter, Opts: Opts("cfvR", "", longs(
				"changes silent quiet verbose no-preserve-root preserve-root recursive help version", "reference", ""))},
			Program{Name: "chown", Kind: Writer, Targets: Attrs, NoPrefixRule: true, Why: whyWriter, Opts: Opts("cfvhHLPR", "", longs(
				"changes silent quiet verbose dereference no-dereference no-preserve-root preserve-root recursive help version", "from reference", ""))},
			Program{Name: "tar", Kind: Writer, Scanner: ScanTar, Why: "an archiver: it writes files and can run programs", Opts: tarOpts(), EnvOptions: []string{"TAR_OPTIONS"},
				RemovesSources: []string{"remove-files"},
				Extracts:       &Extracts{Modes: []string{"x", "extract", "get"}, Dir: []string{"C", "directory"}},
				Archive: &ArchiveFile{Creates: []string{"c", "create", "r", "append", "u", "update", "A", "catenate", "concatenate"},
					File: []string{"f", "file"}}},
			// unzip -T sets the archive's time to its newest member's, even
			// when it only lists (unzip -l -T a.zip). Its options end at
			// the archive, after which only -d DIR and -x are read
			// (UnZip 6.0's unzip.c): unzip a.zip '*' -l extracts every
			// member (-l is one more member name; confirmed).
			Program{Name: "unzip", Kind: Writer, Why: "extracts archives", Defuses: []string{"-l", "-v", "-t", "-Z", "-z", "-p", "-c"},
				EnvOptions: []string{"UNZIP", "UNZIPOPT"},
				Extracts:   &Extracts{Dir: []string{"d"}, Members: 1},
				Opts: func() *Options {
					o := Launch("cflptuvzZnoqajUCLXVKMsWx12", "dP", nil).
						Short("T", eff(NoArg, Writes, "`unzip -T` sets the archive's modification time%s"))
					o.Trailing = "dx"
					return o
				}()},
			// zip's -TT CMD is two letters, which a cluster cannot spell: T is
			// left out so that -T and -TT stay unknown (uncertain: asked).
			// ssh-keygen writes the key it makes, or the known_hosts file it
			// edits, to -f FILE (OpenSSH 9's optstring).
			Program{Name: "ssh-keygen", Kind: Writer, Why: "makes and edits keys", Opts: Opts("ABHKLQUXceghiklopquvy", "CDEFIMNOPRVYZabgjmnrstwz", nil).AnyOption().
				Short("f", eff(ReqArg, Writes, "`ssh-keygen -f` writes %q"))},
			Program{Name: "zip", Kind: Writer, Why: "writes archives; -TT runs a command", Archive: &ArchiveFile{First: true}, RemovesSources: []string{"m", "move"}, Opts: Opts("0123456789qrRjuvfdmDXyocgzAlJke@$hS", "bntxisP", longs(
				"recurse-paths recurse-patterns quiet verbose junk-paths update freshen delete move encrypt symlinks no-dir-entries no-extra grow copy-entries help version",
				"exclude include suffixes temp-path split-size password", "")).
				Long(eff(ReqArg, RunsShell, "`zip -TT` runs %q to test the archive"), "unzip-command")},
			// 7z's switches are single words: -sdel deletes the files it
			// archived (7-Zip's manual).
			// 7z x and 7z e extract into -oDIR (attached), else the
			// working directory; the archive is the operand after the
			// command (7-Zip's manual).
			Program{Name: "7z", Kind: Writer, Why: "an archiver", RemovesSources: []string{"sdel"},
				Extracts: &Extracts{Commands: []string{"x", "e"}, Attached: []string{"-o"}, Members: 2}},
			// ar's key letters come first, with or without a dash; its
			// --plugin loads a shared object whose code runs (binutils
			// 2.40: on rcs, confirmed), also from an @FILE of options.
			Program{Name: "ar", Kind: Writer, Why: "an archiver", Operands: ResponseFiles, Opts: Opts("dmpqrstxabcDfiMNoOPSTuUvV", "l", longs(
				"thin help version", "target output record-libdeps", "")).
				Long(eff(ReqArg, RunsFile, "`ar --plugin` loads the shared object %q, which runs its code"), "plugin")},
			// nstat rewrites its history file (/tmp/.nstat.uUID) on every
			// run, unless -s; -d starts a daemon even with -s, so -s
			// cannot defuse it.
			Program{Name: "nstat", Kind: Writer, Why: "prints network counters and rewrites its history file on every run"},
			// blkid rewrites its cache (/run/blkid/blkid.tab, or -c FILE)
			// whenever it reads through it; probing (-p) and listing (-k)
			// bypass the cache.
			Program{Name: "blkid", Kind: Writer, Why: "prints block-device attributes and rewrites its cache file", Defuses: []string{"-p", "--probe", "-k", "--list-filesystems"},
				Opts: Opts("dklpiDhV", "osStLUHOun", longs("no-encoding list-filesystems list-one probe info no-part-details help version",
					"output match-tag match-token label uuid hint size offset usages match-types", "")).
					Short("c", eff(ReqArg, Writes, "`blkid -c` writes its cache to %q")).Long(eff(ReqArg, Writes, "`blkid --cache-file` writes its cache to %q"), "cache-file").
					Short("g", eff(NoArg, Writes, "`blkid -g` rewrites its cache%s")).Long(eff(NoArg, Writes, "`blkid --garbage-collect` rewrites its cache%s"), "garbage-collect")},
			// GNU cpio 2.13's options (not installed here: from its manual);
			// --rsh-command names the program run for a HOST:FILE archive.
			// It extracts with -i (into -D DIR, else the working
			// directory; its operands are the members) and copies with -p
			// into its operand.
			Program{Name: "cpio", Kind: Writer, Why: "an archiver",
				Extracts: &Extracts{Modes: []string{"i", "extract", "p", "pass-through"}, Dir: []string{"D", "directory"},
					DirFirst: []string{"p", "pass-through"}},
				Archive: &ArchiveFile{Creates: []string{"o", "create"}, File: []string{"O", "F", "file"}},
				Opts: Opts("0aAbBcdfilLmnoprsStuvV", "CDEFHIMOR", longs(
					"null reset-access-time append swap make-directories nonmatching extract link dereference preserve-modification-time numeric-uid-gid create pass-through rename swap-bytes swap-halfwords list unconditional verbose dot absolute-filenames no-absolute-filenames force-local no-preserve-owner only-verify-crc quiet sparse to-stdout device-independent reproducible ignore-devno renumber-inodes help usage version",
					"io-size directory pattern-file file format message owner block-size warning", "")).
					Long(eff(ReqArg, RunsProgram, "`cpio --rsh-command` runs %q"), "rsh-command")},
		),
		compressors(),
	)
}

// compressors are the programs that compress or decompress files in
// place. To standard output, listing or testing nothing is written, but
// only when the defusing word is read as an option by the program's own
// grammar: in `gzip -S -c f` the -c is -S's value and f is compressed, in
// `lz4 -l in out` -l is the legacy format and out is written.
func compressors() []Program {
	stdout := []string{"-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test"}
	c := func(o *Options, defuses []string, names ...string) []Program {
		out := each(Writer, "compresses or decompresses files in place", names...)
		for i := range out {
			// In place, the operand is replaced by its compressed copy:
			// removed (gzip /etc/passwd leaves /etc/passwd.gz; -r, every
			// file under a directory).
			out[i].Opts, out[i].Defuses, out[i].Targets = o, defuses, Removes
		}
		return out
	}
	gz := Opts("cdfhklLnNqrtvV0123456789", "S", longs(
		"stdout to-stdout decompress uncompress force help keep list license no-name name quiet recursive rsyncable synchronous test verbose version fast best", "suffix", ""))
	// bzip2 reads its own options: whole long names only.
	bz := Opts("hdzkftcqvLVs0123456789", "", longs(
		"help decompress compress keep force test stdout quiet verbose license version small fast best", "", "")).NoAbbrev()
	xz := Opts("zdtlkfcqvQhHVe0123456789", "SFCTM", longs(
		"compress decompress uncompress test list keep force stdout to-stdout single-stream no-sparse ignore-check extreme no-adjust quiet verbose no-warn robot info-memory help long-help version",
		"suffix format check threads block-size block-list flush-timeout memlimit-compress memlimit-decompress memlimit-mt-decompress memlimit",
		"files files0 lzma1 lzma2 x86 arm armthumb arm64 powerpc ia64 sparc delta"))
	// zstd and lz4 read their own options: whole long names only.
	// -T# and -M# take their number attached (-T alone is -T0).
	zst := Opts("cdzfkqvhHVltr0123456789", "D", longs(
		"stdout decompress uncompress compress force keep quiet verbose help version list test sparse no-sparse no-progress progress check no-check ultra", "", "fast long")).
		Short("TM", Opt{Arity: OptArg}).
		Short("o", eff(ReqArg, Writes, "`zstd -o` writes its output to %q")).
		Long(eff(ReqArg, Writes, "`zstd` writes its output into the directory %q"), "output-dir-flat", "output-dir-mirror").
		Long(eff(ReqArg, Writes, "`zstd --trace` logs its tracing to %q"), "trace").NoAbbrev()
	// lz4 -l is the legacy frame format, not a listing; a second operand
	// is the output file, written even with -l.
	// -B# takes its value attached (-BD, -B4), -D FILE the next word.
	lz := Opts("cdzfkqvhHVtmr0123456789", "D", longs(
		"stdout to-stdout decompress uncompress compress force keep quiet verbose help version list test sparse no-sparse content-size no-content-size no-frame-crc", "", "")).
		Short("B", Opt{Arity: OptArg}).NoAbbrev()
	lz4 := keepers(c(lz, []string{"-c", "--stdout", "--to-stdout", "--list", "-t", "--test"}, "lz4"))
	lz4[0].Operands = SecondWrites // lz4 IN OUT writes OUT (-f replaced it)
	return concat(
		unpacks([]string{".gz", "-gz", ".z", "-z", "_z", ".Z"}, c(gz, stdout, "gzip", "gunzip", "uncompress", "pigz")),
		unpacks([]string{".bz2", ".bz"}, c(bz, stdout, "bzip2", "bunzip2", "pbzip2")),
		unpacks([]string{".xz", ".lzma"}, c(xz, stdout, "xz", "unxz", "lzma", "unlzma")),
		unpacks([]string{".zst"}, keepers(c(zst, stdout, "zstd", "unzstd"))),
		unpacks([]string{".lz4"}, lz4),
		// Not on the reference system: no grammar proven, so never list-mode.
		each(Writer, "compresses or decompresses files in place", "compress", "lzip", "brotli"),
	)
}

// unpacks gives compressors the suffixes they strip when they decompress
// in place: with -d/--decompress/--uncompress, or always for the
// decompressing names (gunzip, bunzip2, unxz, uncompress).
func unpacks(suffixes []string, ps []Program) []Program {
	for i := range ps {
		ps[i].Decompresses = &Decompresses{Modes: []string{"d", "decompress", "uncompress"}, Always: strings.Contains(ps[i].Name, "un"), Suffixes: suffixes}
	}
	return ps
}

// keepers are compressors that keep their operands unless --rm is given.
func keepers(ps []Program) []Program {
	for i := range ps {
		ps[i].Triggers = []string{"--rm"}
	}
	return ps
}

// tarOpts is GNU tar's grammar, the options that run programs marked.
func tarOpts() *Options {
	return Opts("AcdrtuxfbBCGhiklmMOpPrsSvwWzZjJ", "fbCFgHKLNTVX", longs(
		"catenate concatenate create diff compare delete append list update extract get verbose gzip bzip2 xz lzip lzma lzop zstd compress keep-old-files overwrite skip-old-files unlink-first recursive-unlink absolute-names preserve-permissions same-permissions same-owner no-same-owner no-same-permissions numeric-owner force-local sparse dereference hard-dereference ignore-zeros interactive confirmation to-stdout check-links multi-volume verify totals help version usage show-defaults wildcards no-wildcards anchored no-anchored recursion no-recursion auto-compress no-auto-compress ignore-failed-read one-file-system full-time remove-files",
		"file blocking-factor directory tape-length group owner mode mtime newer newer-mtime after-date exclude exclude-from files-from label starting-file suffix format record-size xattrs-include xattrs-exclude transform xform strip-components", "backup occurrence checkpoint")).
		Long(eff(ReqArg, RunsShell, "`tar --to-command` runs %q for every member"), "to-command").
		Long(eff(ReqArg, RunsShell, "`tar --checkpoint-action` can run %q"), "checkpoint-action").
		Short("I", eff(ReqArg, RunsProgram, "`tar -I` runs %q as the compressor")).
		Long(eff(ReqArg, RunsProgram, "`tar --use-compress-program` runs %q"), "use-compress-program").
		Long(eff(ReqArg, RunsProgram, "`tar --rsh-command` runs %q"), "rsh-command").
		Short("F", eff(ReqArg, RunsShell, "`tar -F` runs %q at the end of each volume")).
		Long(eff(ReqArg, RunsShell, "`tar --info-script` runs %q at the end of each volume"), "info-script", "new-volume-script").
		// -g/--listed-incremental rewrites its snapshot file and
		// --index-file gets the verbose listing (both made theirs).
		Short("g", eff(ReqArg, Writes, "`tar -g` rewrites the snapshot file %q")).
		Long(eff(ReqArg, Writes, "`tar` writes %q"), "listed-incremental", "index-file").OldKey()
}

// lessOpts is less 590's command line: -o/--log-file and -O/--LOG-FILE
// copy a piped input into the file they name (on a terminal: `cat img |
// less -o F` wrote F), and -k/--lesskey-file and --lesskey-src read key
// bindings whose #env section can set LESSOPEN, a command less runs on
// every file (--lesskey-src=k ran it without a terminal). Its other
// options are read as flags; those listed take a value.
func lessOpts() *Options {
	logs := eff(ReqArg, Writes, "less copies its input into %q")
	keys := eff(ReqArg, RunsFile, "less reads key bindings from %q, whose #env section can set LESSOPEN, a command it runs")
	return Opts("", "bhjpPtTxyzD#", longs("", "buffers max-back-scroll jump-target pattern prompt tag tag-file tabs "+
		"max-forw-scroll window shift quotes color line-num-width status-col-width header rscroll", "")).AnyOption().
		Short("o", logs).Short("O", logs).Long(logs, "log-file", "LOG-FILE").
		Short("k", keys).Long(keys, "lesskey-file", "lesskey-src")
}

func viewers() []Program {
	return concat(
		escaping(EscapeKeys, withOpts(each(Viewer, whyViewer, "less"), lessOpts)),
		escaping(EscapeKeys, each(Viewer, whyViewer, "more", "most", "pg", "zless", "zmore", "bzless", "xzless")),
		// Editors rewrite the files they are given, by script (emacs
		// --batch, vim -es) or by hand: an account file among them is
		// edited in place.
		editing(each(Viewer, whyViewer, "nano", "emacs", "emacsclient", "pico", "joe", "mcedit",
			"micro", "helix", "hx", "kak")),
		each(Viewer, whyViewer, "info", "code", "subl", "gedit", "kate", "bat", "batcat",
			"w3m", "lynx", "links", "elinks", "mutt", "neomutt", "red",
			"sensible-pager", "sensible-editor", "editor", "pager", "xdg-open", "open",
			"lesspipe", "ag", "ack"),
		one(Program{Name: "sudoedit", Kind: Viewer | Privilege, Why: "edits files as another user"},
			// man-db reads MANOPT as options given before its command line.
			Program{Name: "man", Kind: Viewer, Why: whyViewer, Opts: manOpts(), EnvOptions: []string{"MANOPT"}}),
		exMode(editing(escaping(EscapeEx, withOpts(each(Viewer, whyViewer, "vi", "vim", "view", "ex", "vimdiff", "gvim", "gview", "rvim", "rview", "evim", "eview"), vimOpts)))),
		editing(escaping(EscapeEx, withOpts(each(Viewer, whyViewer, "nvim"), func() *Options {
			// nvim -l runs a Lua script; --listen and --embed serve its API.
			return vimOpts().Short("l", eff(ReqArg, RunsFile, "`nvim -l` runs the Lua script %q")).
				Long(eff(NoArg, Harmless, ""), "headless", "embed", "api-info").
				Long(eff(ReqArg, Unproven, "`nvim --listen` serves its API at %q, through which commands run"), "listen")
		}))),
	)
}

// cmake runs project code, but `cmake -E CMD ARGS…` is its portable
// toolbox, whose commands act as these programs do (cmake 3.28's
// documented list); "" are the commands that only print, compare or
// touch the Windows registry.
func cmake() Program {
	cmds := map[string]string{
		"capabilities": "", "cat": "cat", "chdir": "env -C", "compare_files": "", "copy": "cp",
		"copy_directory": "cp -r", "copy_directory_if_different": "cp -r", "copy_if_different": "cp",
		"create_symlink": "ln -s", "create_hardlink": "ln", "echo": "echo", "echo_append": "echo -n",
		"env": "env", "environment": "", "false": "false", "make_directory": "mkdir -p",
		"md5sum": "md5sum", "sha1sum": "sha1sum", "sha224sum": "sha224sum", "sha256sum": "sha256sum",
		"sha384sum": "sha384sum", "sha512sum": "sha512sum", "remove": "rm", "remove_directory": "rm -rf",
		"rename": "mv", "rm": "rm", "sleep": "sleep", "tar": "tar", "time": "time", "touch": "touch",
		"touch_nocreate": "touch -c", "true": "true", "delete_regv": "", "write_regv": "",
		"env_vs8_wince": "", "env_vs9_wince": "",
	}
	o := Opts("", "", nil).AnyOption().Short("E", Opt{Arity: ReqArg, Effect: RunsProgram, Rest: true, Commands: &Toolbox{As: cmds},
		Why: "`cmake -E %s` acts as another program"})
	o.Stop = true
	return Program{Name: "cmake", Kind: BuildTool, Why: whyBuild, Runs: &Runs{Project: true}, Opts: o,
		Probe: []string{"--version", "--help"}}
}

// editing marks editors: every operand is a file they may rewrite.
func editing(ps []Program) []Program {
	for i := range ps {
		ps[i].Targets = WritesAll
	}
	return ps
}

// tcl gives an interpreter Tcl's shell escapes.
func tcl(p Program) Program { p.Escape = EscapeTcl; return p }

// withTargets gives each entry the operand role t.
func withTargets(t Targets, ps []Program) []Program {
	for i := range ps {
		ps[i].Targets = t
	}
	return ps
}

// escaping gives each entry the shell escapes of the language its code is
// in.
func escaping(e Escape, ps []Program) []Program {
	for i := range ps {
		ps[i].Escape = e
	}
	return ps
}

// withOpts gives the entries the option grammar mk makes, one for all of
// them: a grammar is never changed once made (Parse only reads it), and
// Vim's eleven names shared would otherwise be twenty-two grammars built
// by every process that reads the table.
func withOpts(ps []Program, mk func() *Options) []Program {
	o := mk()
	for i := range ps {
		ps[i].Opts = o
	}
	return ps
}

// manOpts is man-db 2.11's command line: -P/--pager runs its value as the
// pager, -H/--html[=BROWSER] its value as the browser, and -C/--config-file
// reads a configuration whose DEFINE lines name the programs man runs.
func manOpts() *Options {
	return Opts("dDfkKlwWcaiIu7tZV?", "RLmMSseEpr", longs(
		"debug default whatis apropos global-apropos local-file where path location where-cat location-cat catman ignore-case match-case regex wildcard names-only all update no-subpages ascii no-hyphenation nh no-justification nj troff ditroff help usage version",
		"recode locale systems manpath sections extension prompt encoding preprocessor",
		"warnings troff-device gxditview")).
		Short("TX", Opt{Arity: OptArg}).
		Short("P", eff(ReqArg, RunsShell, "`man -P` runs %q as its pager")).Long(eff(ReqArg, RunsShell, "`man --pager` runs %q as its pager"), "pager").
		Short("H", eff(OptArg, RunsShell, "`man -H` runs %q as its browser")).Long(eff(OptArg, RunsShell, "`man --html` runs %q as its browser"), "html").
		Short("C", eff(ReqArg, RunsFile, "`man -C` reads the configuration %q, which names the programs man runs")).
		Long(eff(ReqArg, RunsFile, "`man --config-file` reads the configuration %q, which names the programs man runs"), "config-file")
}

// vimOpts is Vim 9's command line (its own parser, read here as getopt's:
// letters cluster, -c takes the rest of its cluster or the next word).
// -c, --cmd and -S give it commands, which run shell commands with :!;
// -u, -U and -s read a vimrc or keys from a file; -w, -W and -i write one.
// -s is also ex mode's "silent" flag (vim -es, ex -s), which takes no
// word: both readings count (Alt), so neither hides the -c after it.
// The +cmd operands are read by facts.
// exMode marks the vi family as reading Ex commands from standard input
// in Ex mode: ex always, the others given -e or -E (ex f <<< '!rm x' runs
// rm, bash-confirmed); Ex commands' ! escapes run shell commands.
func exMode(ps []Program) []Program {
	for i := range ps {
		ps[i].StdinCommands = StdinOwnCommands
		if ps[i].Name != "ex" {
			ps[i].StdinIf = []string{"e", "E"}
		}
	}
	return ps
}

func vimOpts() *Options {
	o := vimGrammar(false)
	o.Alt = vimGrammar(true)
	return o
}

func vimGrammar(ex bool) *Options {
	code := eff(ReqArg, RunsCode, "`vim %s` runs editor commands, which can run shell commands")
	file := eff(ReqArg, RunsFile, "vim runs the editor commands in %q, which can run shell commands")
	write := eff(ReqArg, Writes, "vim writes %q")
	o := Opts("AbCdDeEfFgHhlLmMnNRrxXyYZ", "Ttq", longs(
		"noplugin clean not-a-term ttyfail literal nofork echo-wid version help",
		"servername socketid windowid gui-dialog-file", "")).
		Short("c", code).Long(code, "cmd").
		Short("S", eff(ReqArg, RunsFile, "`vim -S` sources %q, editor commands that can run shell commands")).
		Short("uU", file).Short("wWi", write).
		Long(write, "startuptime", "log").
		Long(eff(ReqArg, Unproven, "`vim --remote` sends %q to another Vim, which runs it"), "remote", "remote-silent", "remote-wait", "remote-wait-silent", "remote-tab", "remote-send", "remote-expr")
	if ex {
		return o.Short("s", Opt{})
	}
	return o.Short("s", file)
}

// shellOpts is bash's command line: -c makes the first operand the
// script (bash -c -e 'x' and bash -c -- 'x' run x), -o/-O take a value.
func shellOpts() *Options {
	return Opts("abefhkmnptuvxBCHPilrsDEIT", "oO", longs(
		"norc noprofile login posix restricted verbose version help debugger dump-strings dump-po-strings noediting wordexp pretty-print",
		"rcfile init-file", "")).
		Short("c", eff(NoArg, ShellScript, "")).NoAbbrev().plus()
}

// dash makes a lone "-" the option -name (Options.Dash).
func (o *Options) dash(name string) *Options { o.Dash = name; return o }

// plus makes +X the option -X (Options.Plus).
func (o *Options) plus() *Options { o.Plus = true; return o }

func shells() []Program {
	names := []string{"sh", "bash", "zsh", "dash", "ksh", "ksh93", "mksh", "pdksh", "oksh",
		"loksh", "ash", "yash", "fish", "csh", "tcsh", "rc", "es", "xonsh", "nu", "elvish",
		"rbash", "osh", "ysh", "posh", "rzsh", "rksh", "sash", "scsh", "bash-static",
		"zsh-static", "hush", "lksh", "jsh"}
	out := make([]Program, 0, len(names)+8)
	opts := shellOpts()
	for _, n := range names {
		out = append(out, Program{Name: n, Kind: Shell, Why: whyShell, Opts: opts,
			Runs: &Runs{Script: true, Stdin: true}, Probe: []string{"--version"}})
	}
	return append(out,
		Program{Name: "busybox", Kind: Shell | Launcher, Why: "a multi-call binary that is a shell and every tool", Runs: &Runs{Argv: true}},
		Program{Name: "toybox", Kind: Shell | Launcher, Why: "a multi-call binary that runs every tool", Runs: &Runs{Argv: true}},
		Program{Name: "pwsh", Kind: Shell, Why: whyShell, Runs: &Runs{Script: true, Stdin: true}},
		Program{Name: "powershell", Kind: Shell, Why: whyShell, Runs: &Runs{Script: true, Stdin: true}},
		Program{Name: "cmd", Kind: Shell, Why: whyShell},
		Program{Name: "screen", Kind: Shell | Launcher, Why: "a terminal multiplexer that runs commands", Runs: &Runs{Argv: true}},
		Program{Name: "tmux", Kind: Shell | Launcher, Why: "a terminal multiplexer that runs commands"},
		Program{Name: "rsh", Kind: Shell | NetworkClient, Why: "a remote shell", Runs: &Runs{Argv: true, Skip: 1}},
	)
}

// interp builds an interpreter entry: inline lists the options whose
// value is code, probe its version and help forms.
func interp(name, flags, values, inline string, probe ...string) Program {
	o := Opts(flags, values, nil)
	for _, f := range strings.Fields(inline) {
		if strings.HasPrefix(f, "--") {
			o.Long(eff(ReqArg, RunsCode, "runs the inline code %q"), f[2:])
		} else {
			o.Short(f[1:], eff(ReqArg, RunsCode, "runs the inline code %q"))
		}
	}
	o.Stop = true
	// An empty probe is none: bare, an interpreter reads a script from
	// standard input, never only prints its version.
	probe = slices.DeleteFunc(probe, func(s string) bool { return s == "" })
	return Program{Name: name, Kind: Interpreter, Why: whyInterp, Opts: o,
		Runs: &Runs{Script: true, Stdin: true}, Probe: probe}
}

func interpreters() []Program {
	py := func(n string) Program {
		p := interp(n, "bBdEhiIOqsSuvVxR", "WXQ", "-c", "--version", "-V", "--help", "-h")
		p.Opts.Short("m", eff(ReqArg, RunsFile, "runs the module %q"))
		return p
	}
	out := []Program{
		py("python"), py("python2"), py("python3"), py("pypy"), py("pypy3"), py("ipython"), py("ipython3"),
		interp("node", "hivc", "r", "-e -p --eval --print", "--version", "-v", "--help", "-h"),
		interp("nodejs", "hivc", "r", "-e -p --eval --print", "--version", "-v", "--help", "-h"),
		interp("deno", "", "", "", "--version", "-V", "--help", "-h"),
		interp("bun", "", "", "-e --eval -p --print", "--version", "-v", "--help", "-h"),
		interp("tsx", "", "", "-e --eval -p --print", "--version", "-v", "--help", "-h"),
		interp("ts-node", "", "", "-e --eval -p --print", "--version", "-v", "--help", "-h"),
		func() Program {
			p := interp("perl", "acnpsStTuUvwWX", "MmlFDCdx0", "-e -E", "--version", "-v", "-V", "--help", "-h")
			p.Opts.Short("I", Opt{Arity: ReqArg}).Short("i", Opt{Arity: OptArg})
			p.Targets = EditsInPlace
			return p
		}(),
		interp("perl6", "", "", "-e", "--version", "-v"),
		interp("raku", "", "", "-e", "--version", "-v"),
		func() Program {
			// ruby -i[EXT] edits its files in place, as perl's does.
			p := interp("ruby", "acdlnpsSvwWyU", "IrCEFKTx0", "-e", "--version", "-v", "--help", "-h")
			p.Opts.Short("i", Opt{Arity: OptArg})
			p.Targets = EditsInPlace
			return p
		}(),
		interp("irb", "", "", "", "--version", "-v"),
		interp("php", "ahHiqsvw", "cdfnz", "-r -B -R -E -F", "--version", "-v", "--help", "-h"),
		interp("lua", "iEvW", "l", "-e", "-v"),
		interp("luajit", "ibv", "ljO", "-e", "-v"),
		tcl(interp("tclsh", "", "", "", "")), tcl(interp("wish", "", "", "", "")),
		tcl(interp("expect", "dDinNv", "f", "-c", "-v")),
		interp("java", "", "", "", "--version", "-version", "--help", "-help", "-h"),
		interp("jshell", "", "", "", "--version"),
		interp("groovy", "", "", "-e", "--version", "-v"),
		interp("scala", "", "", "-e", "--version", "-version"),
		interp("kotlin", "", "", "-e", "-version"),
		interp("Rscript", "", "", "-e --eval", "--version"),
		interp("R", "", "", "-e", "--version"),
		interp("julia", "", "", "-e --eval -E --print", "--version", "-v"),
		interp("guile", "", "", "-c -e", "--version", "-v"),
		interp("racket", "", "", "-e --eval", "--version", "-v"),
		interp("osascript", "", "", "-e", ""),
		interp("swift", "", "", "-e", "--version"),
		interp("erl", "", "", "-eval", ""),
		interp("escript", "", "", "", ""),
		interp("elixir", "", "", "-e", "--version", "-v"),
		interp("iex", "", "", "", "--version", "-v"),
		interp("ghci", "", "", "-e", "--version"),
		interp("runghc", "", "", "", "--version"),
		interp("runhaskell", "", "", "", "--version"),
		interp("clojure", "", "", "-e", "--version"),
		interp("clj", "", "", "-e", "--version"),
		interp("ocaml", "", "", "", "-version", "--version"),
		interp("sbcl", "", "", "--eval", "--version"),
		interp("clisp", "", "", "-x", "--version"),
		interp("ecl", "", "", "-eval", "--version"),
		interp("gforth", "", "", "-e", "--version"),
		interp("pike", "", "", "-e", "--version"),
		interp("hhvm", "", "", "", "--version"),
		interp("octave", "", "", "--eval", "--version"),
		interp("gnuplot", "", "", "-e", "--version", "-V"),
		interp("jruby", "", "", "-e", "--version", "-v"),
		interp("jython", "", "", "-c", "--version"),
		interp("mongosh", "", "", "--eval", "--version"),
		interp("mongo", "", "", "--eval", "--version"),
		interp("dc", "", "", "-e --expression", "--version", "-V"),
		interp("bc", "", "", "", "--version", "-v"),
		interp("crystal", "", "", "eval", "--version", "-v"),
		interp("nim", "", "", "", "--version", "-v"),
		interp("dart", "", "", "", "--version"),
	}
	for i := range out {
		if out[i].Name == "bc" {
			out[i].Why = "a calculator language"
		}
	}
	return append(out,
		// ed reads its commands from standard input, and `!cmd` runs cmd.
		Program{Name: "ed", Kind: Interpreter, Targets: WritesAll, Why: "a line editor whose commands, read from standard input, run shell commands with !", Runs: &Runs{Script: true, Stdin: true}, Probe: []string{"--version", "-V", "--help", "-h"}},
		Program{Name: "sqlite3", Kind: Interpreter, Scanner: ScanSqlite, Why: "a database shell whose dot commands run programs", Probe: []string{"--version", "-version"}},
		Program{Name: "duckdb", Kind: Interpreter, Scanner: ScanSqlite, Why: "a database shell whose dot commands run programs", Probe: []string{"--version", "-version"}},
		Program{Name: "psql", Kind: Interpreter | NetworkClient, Escape: EscapeSQL, Why: "a database shell that can run programs (\\!)", Probe: []string{"--version", "-V"}},
		Program{Name: "mysql", Kind: Interpreter | NetworkClient, Escape: EscapeSQL, Why: "a database shell that can run programs (system)", Probe: []string{"--version", "-V"}},
		Program{Name: "mariadb", Kind: Interpreter | NetworkClient, Escape: EscapeSQL, Why: "a database shell that can run programs (system)", Probe: []string{"--version", "-V"}},
	)
}

func launchers() []Program {
	l := func(name string, o *Options, r Runs, k Kind, why string, more ...func(*Program)) Program {
		if o == nil {
			o = Launch("", "", nil)
		}
		p := Program{Name: name, Kind: Launcher | k, Why: why, Opts: o, Runs: &r}
		for _, f := range more {
			f(&p)
		}
		return p
	}
	argv := Runs{Argv: true}
	transparent := func(p Program) Program { p.Transparent = true; return p }
	return one(
		l("sudo", Launch("AbEHiKklnPSsVv", "ugCDhprtUT", longs(
			"askpass background preserve-env set-home login remove-timestamp reset-timestamp list non-interactive preserve-groups stdin shell validate version help",
			"user group close-from chdir host prompt role type other-user command-timeout", "")).
			Short("e", eff(NoArg, Unproven, "`sudo -e` edits files as root%s")).Long(eff(NoArg, Unproven, "`sudo --edit` edits files as root%s"), "edit").
			Short("D", eff(ReqArg, Chdir, "")).Long(eff(ReqArg, Chdir, ""), "chdir"),
			Runs{Argv: true, Assigns: true, StdinShell: []string{"s", "i", "shell", "login"}}, Privilege, whyPriv),
		l("doas", Launch("ns", "uC", nil), argv, Privilege, whyPriv),
		l("su", Launch("lmpfP", "gGsw", longs("login preserve-environment pty fast", "group supp-group shell whitelist-environment", "")).
			Short("c", eff(ReqArg, RunsShell, "`su -c` runs %q as another user")).Long(eff(ReqArg, RunsShell, "`su --command` runs %q as another user"), "command", "session-command"),
			Runs{UserShell: true}, Privilege, whyPriv),
		l("runuser", Launch("lmpfP", "ugGsw", longs("login preserve-environment pty fast", "user group supp-group shell whitelist-environment", "")).
			Short("c", eff(ReqArg, RunsShell, "`runuser -c` runs %q as another user")).Long(eff(ReqArg, RunsShell, "`runuser --command` runs %q as another user"), "command", "session-command"),
			Runs{Argv: true, UserShell: true, ArgvOpts: []string{"u", "user"}}, Privilege, whyPriv),
		l("pkexec", Launch("", "", longs("disable-internal-agent keep-cwd version help", "user", "")), argv, Privilege, whyPriv),
		l("run0", Launch("", "uDg", longs("no-ask-password", "user chdir group property description slice setenv nice", "")), argv, Privilege, whyPriv),
		l("sg", nil, Runs{Joined: true, Skip: 1}, Privilege, whyPriv),
		l("newgrp", nil, Runs{}, Privilege, whyPriv),
		l("setuidgid", nil, Runs{Argv: true, Skip: 1}, Privilege, whyPriv),
		l("s6-setuidgid", nil, Runs{Argv: true, Skip: 1}, Privilege, whyPriv),
		l("chpst", Launch("PvV0123456789", "uUbe/nlLmdofpcrt", nil), argv, Privilege, whyPriv),
		l("setpriv", Launch("dV", "", longs("dump no-new-privs nnp keep-groups clear-groups init-groups reset-env help version",
			"reuid regid ruid rgid euid egid groups inh-caps ambient-caps bounding-set securebits pdeathsig selinux-label apparmor-profile landlock-access landlock-rule", "")), argv, Privilege, whyPriv),
		l("capsh", Launch("", "", nil).AnyOption(), Runs{After: "--", Prefix: []string{"bash"}}, Privilege, whyPriv),
		// GNU coreutils' multi-call binary runs the program its option
		// names with the words after it; uutils' runs its first operand.
		l("coreutils", Launch("", "", longs("help version", "", "")).
			Long(Opt{Arity: ReqArg, Effect: RunsProgram, Rest: true, Why: "`coreutils --coreutils-prog` runs %q"}, "coreutils-prog", "coreutils-prog-shebang"),
			argv, 0, whyLauncher),
		// git's wrappers hand their whole command line to git (hub push is
		// git push; yadm runs git on its own repository).
		l("hub", nil, Runs{Argv: true, Prefix: []string{"git"}}, NetworkClient, "a git wrapper that runs git with its arguments"),
		l("yadm", nil, Runs{Argv: true, Prefix: []string{"git"}}, NetworkClient, "a git wrapper that runs git with its arguments"),
		transparent(l("nice", Launch("", "n", longs("help version", "adjustment", "")).WithDigits(), argv, 0, whyLauncher)),
		transparent(l("ionice", Launch("thV", "cnpPu", longs("ignore help version", "class classdata pid pgid uid", "")), argv, 0, whyLauncher)),
		transparent(l("timeout", Launch("fpv", "sk", longs("foreground preserve-status verbose help version", "signal kill-after", "")), Runs{Argv: true, Skip: 1}, 0, whyLauncher)),
		// --process-slot-var takes a value (findutils' xargs.c:
		// required_argument), separate or after '='.
		l("xargs", Launch("0prtx", "adEPsn", longs("null interactive no-run-if-empty verbose exit open-tty show-limits help version",
			"arg-file delimiter max-chars max-args process-slot-var", "")).
			Short("ilLe", Opt{Arity: OptArg}).Short("LI", Opt{Arity: ReqArg}).
			Short("P", eff(ReqArg, Concurrency, "")).Long(eff(ReqArg, Concurrency, ""), "max-procs").
			Long(Opt{Arity: OptArg}, "replace", "max-lines", "eof"),
			Runs{Argv: true, StdinArgs: true, Replace: []string{"I", "i", "replace"}}, 0, whyLauncher),
		l("setsid", Launch("cfw", "", longs("ctty fork wait help version", "", "")), argv, 0, whyLauncher),
		l("nohup", Launch("", "", longs("help version", "", "")), argv, 0, whyLauncher),
		transparent(l("stdbuf", Launch("", "ioe", longs("help version", "input output error", "")), argv, 0, whyLauncher)),
		l("unbuffer", Launch("p", "", nil), argv, 0, whyLauncher),
		l("chroot", Launch("", "", longs("skip-chdir help version", "userspec groups", "")), Runs{Argv: true, Skip: 1}, Privilege, whyLauncher),
		l("schroot", Launch("", "cdup", longs("preserve-environment", "chroot directory user", "")), Runs{Argv: true}, Privilege, whyLauncher),
		l("flock", Launch("sxunoFhV", "wE", longs("shared exclusive unlock nonblock nb close no-fork help version verbose", "timeout wait conflict-exit-code", "")).
			Short("c", eff(ReqArg, RunsShell, "`flock -c` runs %q under the lock")).Long(eff(ReqArg, RunsShell, "`flock --command` runs %q under the lock"), "command"),
			Runs{Argv: true, Skip: 1}, 0, whyLauncher),
		// script permutes its arguments (`script -q FILE -c CMD` runs CMD), so
		// its options do not stop at the first operand.
		// Its log options write their files (util-linux 2.38: -O, -I, -B,
		// -T and -t[FILE] each made theirs).
		l("script", Opts("aefqhV", "mEo", longs("append return flush quiet force help version", "logging-format echo output-limit", "")).
			Short("IOBT", eff(ReqArg, Writes, "`script` logs the session to %q")).
			Long(eff(ReqArg, Writes, "`script` logs the session to %q"), "log-in", "log-out", "log-io", "log-timing").
			Short("t", eff(OptArg, Writes, "`script -t` writes its timing to %q")).Long(eff(OptArg, Writes, "`script --timing` writes its timing to %q"), "timing").
			Short("c", eff(ReqArg, RunsShell, "`script -c` runs %q")).Long(eff(ReqArg, RunsShell, "`script --command` runs %q"), "command"),
			Runs{}, 0, whyLauncher, func(p *Program) {
				// Without -c it starts a shell, which reads standard input
				// (script -q /dev/null <<< 'rm x' runs rm, bash-confirmed).
				p.StdinCommands, p.StdinUnless = StdinShellText, []string{"c", "command"}
				// Its operand is the typescript it writes.
				p.Targets = WritesAll
			}),
		// procps' optstring is "+bced::ghq:n:pvtwx": -d takes a value only
		// when attached (watch -d rm x runs rm x).
		l("watch", Launch("bcegptx", "nq", longs("beep color no-color errexit chgexit precise no-title exec no-linewrap help version", "interval equexit", "differences")).
			Short("d", Opt{Arity: OptArg}),
			Runs{Joined: true}, 0, whyLauncher),
		l("parallel", Launch("0qkuvX", "SaIdEnNlL", longs("null quote keep-order ungroup verbose xargs pipe halt-on-error no-notice bar eta progress dry-run",
			"sshlogin joblog results delay timeout max-args max-lines colsep arg-file tmpdir workdir basefile", "")).
			Short("jP", eff(ReqArg, Concurrency, "")).Long(eff(ReqArg, Concurrency, ""), "jobs", "max-procs"),
			Runs{Argv: true, Lists: true}, 0, whyLauncher),
		l("strace", Launch("cCdDfFhiqrtTvVwxyzZk", "abeEIOpPsSuXU", longs("daemonize follow-forks output-separately summary-only summary-wall-clock help version",
			"attach trace signal env user string-limit", "")).
			Short("o", eff(ReqArg, PipesTo, "`strace -o` writes its trace to %q, or pipes it into the command after a | or !")).
			Long(eff(ReqArg, PipesTo, "`strace --output` writes its trace to %q, or pipes it into the command after a | or !"), "output"), argv, 0, "a tracer that runs another command"),
		l("ltrace", Launch("bcCfhiLrStTV", "aAeDFlnpsSuwx", longs("help version demangle", "", "")).
			Short("o", eff(ReqArg, Writes, "`ltrace -o` writes its trace to %q")).Long(eff(ReqArg, Writes, "`ltrace --output` writes its trace to %q"), "output"),
			argv, 0, "a tracer that runs another command"),
		// valgrind --log-file and --xml-file write their file (valgrind
		// -q --log-file=F true made F).
		l("valgrind", Launch("hqv", "", longs("help version quiet verbose trace-children", "tool suppressions", "")).AnyOption().
			Long(eff(ReqArg, Writes, "valgrind writes its log to %q"), "log-file", "xml-file"), argv, 0, "a debugger that runs another command"),
		l("perf", nil, Runs{Argv: true, Skip: 1}, 0, "a profiler that runs another command"),
		// -c/--cpu-list is a flag (read the mask operand as a list), not a
		// value: the mask is still the first operand.
		l("taskset", Launch("acp", "", longs("all-tasks cpu-list pid help version", "", "")), Runs{Argv: true, Skip: 1}, 0, whyLauncher),
		l("chrt", Launch("bdefiormRpavh", "TPD", longs("batch deadline fifo idle other rr reset-on-fork all-tasks max pid verbose help version", "sched-runtime sched-period sched-deadline", "")), Runs{Argv: true, Skip: 1}, 0, whyLauncher),
		l("firejail", Launch("", "", nil).AnyOption(), argv, 0, "a sandbox that runs another command"),
		l("bwrap", Launch("", "", nil), Runs{}, 0, "a sandbox that runs another command"),
		// systemd-run 252: -d is --same-dir, a flag.
		l("systemd-run", Launch("qPGtSrd", "upEMH", longs("user system scope pty pipe quiet wait collect shell no-block same-dir",
			"unit property setenv machine host description slice uid gid nice working-directory service-type on-active on-calendar", "")), argv, 0, "runs a command as a systemd unit"),
		l("systemd-nspawn", nil, Runs{}, Emulator, "runs a container"),
		l("fakeroot", Launch("uh", "ib", longs("unknown-is-real help version", "", "")).
			Short("f", eff(ReqArg, RunsProgram, "`fakeroot -f` runs %q as its daemon")).Long(eff(ReqArg, RunsProgram, "`fakeroot --faked` runs %q as its daemon"), "faked").
			Short("l", eff(ReqArg, RunsFile, "`fakeroot -l` preloads the library %q into the command, which runs its code")).Long(eff(ReqArg, RunsFile, "`fakeroot --lib` preloads the library %q into the command, which runs its code"), "lib").
			Short("s", eff(ReqArg, Writes, "`fakeroot -s` saves its file database to %q")),
			argv, 0, whyLauncher),
		l("fakechroot", nil, argv, 0, whyLauncher),
		l("proot", nil, Runs{}, Emulator, whyLauncher),
		// util-linux 2.38: --kill-child[=SIGNAL] takes its value only
		// after '=' (unshare --kill-child rm -f x runs rm: confirmed).
		l("unshare", Launch("mutipnUCTfcrh", "SGRw", longs("mount uts ipc net pid user cgroup time fork mount-proc map-root-user map-current-user keep-caps help version",
			"setuid setgid root wd map-user map-group map-users map-groups propagation setgroups", "kill-child")), argv, Privilege, "runs a command in new namespaces"),
		l("nsenter", Launch("amuinpUCTrwFZ", "tSG", longs("all mount uts ipc net pid user cgroup time root wd no-fork preserve-credentials follow-context help version", "target setuid setgid", "")), argv, Privilege, "runs a command in other namespaces"),
		l("prlimit", Launch("o", "p", longs("noheadings raw verbose help version", "pid output", "")).AnyOption(), argv, 0, whyLauncher),
		l("cgexec", Launch("", "g", longs("sticky", "", "")), argv, 0, whyLauncher),
		l("numactl", Launch("ashS", "CNmpi", longs("all show hardware localalloc help", "physcpubind cpunodebind membind preferred interleave", "")), argv, 0, whyLauncher),
		// setarch's architecture is its first word when that is not an
		// option (util-linux setarch.c), before the options: setarch -R
		// rm x runs rm x.
		l("setarch", Launch("RFZLXBIST3v", "", longs("addr-no-randomize fdpic-funcptrs mmap-page-zero addr-compat-layout read-implies-exec 32bit short-inode whole-seconds sticky-timeouts 3gb uname-2.6 verbose list help version", "", "")), Runs{Argv: true, Lead: true}, 0, whyLauncher),
		l("linux32", nil, argv, 0, whyLauncher),
		// setarch under another name: uname26 CMD runs CMD.
		l("uname26", nil, argv, 0, whyLauncher),
		l("linux64", nil, argv, 0, whyLauncher),
		l("eatmydata", nil, argv, 0, whyLauncher),
		l("nocache", nil, argv, 0, whyLauncher),
		l("tini", Launch("svgwWlh", "pe", nil), argv, 0, whyLauncher),
		l("dumb-init", Launch("cvVh", "r", longs("single-child verbose version help", "rewrite", "")), argv, 0, whyLauncher),
		l("catchsegv", nil, argv, 0, whyLauncher),
		// faketime [-m] [-f] [-p PID] [--date-prog PROG] TIMESTAMP CMD …:
		// -m and -f are flags, so the timestamp is still the first operand.
		l("faketime", Launch("mf", "p", longs("exclude-monotonic help version", "", "")).
			Long(eff(ReqArg, RunsProgram, "`faketime --date-prog` runs %q"), "date-prog"), Runs{Argv: true, Skip: 1}, 0, whyLauncher),
		l("torsocks", Launch("diqh", "upaP", nil), argv, NetworkClient, whyLauncher),
		l("proxychains", Launch("q", "f", nil), argv, NetworkClient, whyLauncher),
		l("proxychains4", Launch("q", "f", nil), argv, NetworkClient, whyLauncher),
		l("xvfb-run", Launch("ah", "nsfep", longs("auto-servernum help", "server-num server-args auth-file error-file xauth-protocol", "")), argv, 0, whyLauncher),
		l("dbus-launch", nil, argv, 0, whyLauncher),
		l("dbus-run-session", Launch("", "", longs("help version", "", "")).
			Long(eff(ReqArg, RunsProgram, "`dbus-run-session --dbus-daemon` runs %q as the bus daemon"), "dbus-daemon").
			Long(eff(ReqArg, RunsFile, "`dbus-run-session --config-file` gives the bus daemon %q, whose service and helper entries name programs it runs"), "config-file"),
			argv, 0, whyLauncher),
		l("trickle", Launch("hsvV", "udwtln", nil), argv, NetworkClient, whyLauncher),
		l("cpulimit", Launch("kfvzbqh", "lpe", longs("kill verbose lazy background quiet help", "limit pid exe cpu", "")), argv, 0, whyLauncher),
		l("entr", Launch("acdnprsz", "", nil), argv, 0, "reruns a command when files change"),
		l("caffeinate", Launch("dimsu", "tw", nil), argv, 0, whyLauncher),
		l("start-stop-daemon", nil, Runs{}, 0, whyLauncher),
		l("daemonize", nil, argv, 0, whyLauncher),
		l("at", nil, Runs{Stdin: true}, 0, "schedules commands it reads"),
		l("batch", nil, Runs{Stdin: true}, 0, "schedules commands it reads"),
		l("crontab", nil, Runs{Opaque: "`crontab` installs scheduled commands, which run later outside the gate"}, 0, "installs scheduled commands"),
		l("run-parts", nil, Runs{Project: true}, 0, "runs every script in a directory"),
		// agentexec itself: `agentexec run [flags] -- CMD …` and `run -c TEXT`
		// (its other subcommands run nothing, read as run: the stricter).
		l("agentexec", Launch("", "", longs("json pty help version", "policy policy-format mode shell cwd dir timeout sandbox audit from-hook network env project", "")).
			Short("c", eff(ReqArg, RunsShell, "`agentexec run -c` runs %q")), Runs{Argv: true, Skip: 1}, 0, "agentexec, which runs a command under its own gate"),
		func() Program {
			p := l("gdb", gdbOpts(), Runs{After: "--args"}, Interpreter, "a debugger that runs programs and commands")
			// gdb -q <<< 'shell rm x' runs rm: without -batch it reads
			// commands from standard input (bash-confirmed).
			p.StdinCommands, p.StdinUnless = StdinOwnCommands, []string{"batch"}
			p.Escape = EscapeGdb
			return p
		}(),
		l("lldb", nil, Runs{After: "--"}, Interpreter, "a debugger that runs programs and commands"),
		l("machinectl", nil, Runs{}, Emulator, "runs commands in containers"),
		func() Program {
			p := l("ssh", Launch("46AaCfGgKkMNnqsTtVvXxYy", "BbcDEeFIiJLlmOoPpQRSWw", nil).
				Short("o", eff(ReqArg, Unproven, "`ssh -o %q` can name a command ssh runs (ProxyCommand, LocalCommand)")).
				Short("F", sshConfigFile),
				Runs{Joined: true, Skip: 1, LoginShell: true}, NetworkClient, "a remote shell that also runs local commands")
			p.CommandKeys = sshCommandKeys
			return p
		}(),
		l("wine", nil, argv, Emulator, whyEmu),
		l("wine64", nil, argv, Emulator, whyEmu),
		l("wsl", nil, Runs{Argv: true}, Emulator, whyEmu),
		l("wsl.exe", nil, Runs{Argv: true}, Emulator, whyEmu),
		l("qemu-x86_64", nil, argv, Emulator, whyEmu),
		l("qemu-aarch64", nil, argv, Emulator, whyEmu),
		l("box64", nil, argv, Emulator, whyEmu),
		l("rosetta", nil, argv, Emulator, whyEmu),
	)
}

func buildTools() []Program {
	b := func(names ...string) []Program {
		out := each(BuildTool, whyBuild, names...)
		for i := range out {
			out[i].Runs = &Runs{Project: true}
			out[i].Probe = []string{"--version", "--help"}
		}
		return out
	}
	// One grammar for every compiler that has it (a grammar is never
	// changed once made): only -o is read, the rest are flags.
	output := Opts("", "", nil).AnyOption().Short("o", eff(ReqArg, Writes, "the compiler writes its output to %q"))
	c := func(names ...string) []Program {
		out := each(Compiler|BuildTool, whyCompiler, names...)
		for i := range out {
			out[i].Runs = &Runs{Project: true}
			out[i].Probe = []string{"--version", "--help"}
			// -v alone prints the version and exits only for the GCC
			// driver, cpp and ld (checked); `as -v` goes on to assemble
			// standard input into a.out.
			switch out[i].Name {
			case "gcc", "g++", "cc", "c++", "cpp", "ld":
				out[i].Probe = append(out[i].Probe, "-v")
			}
			// The file a compiler, assembler or linker writes: -o FILE or
			// -oFILE (no option of theirs starts with o besides it; the
			// rest are read as flags), and cpp's second operand (cpp IN
			// OUT). gcc -o /etc/passwd x.c replaced the file.
			switch out[i].Name {
			case "gcc", "g++", "cc", "c++", "clang", "clang++", "cpp", "ld", "as", "tcc", "gfortran", "rustc", "nasm", "yasm":
				out[i].Opts = output
			}
			if out[i].Name == "cpp" {
				out[i].Operands = SecondWrites
			}
		}
		return out
	}
	out := concat(
		one(cmake()),
		b("make", "gmake", "bmake", "ninja", "meson", "bazel", "bazelisk", "buck", "buck2",
			"pants", "scons", "just", "task", "go-task", "nx", "gulp", "grunt", "lerna", "turbo",
			"earthly", "mage", "invoke", "doit", "rake", "gradle", "gradlew", "mvn", "mvnw", "ant",
			"sbt", "lein", "mix", "rebar3", "stack", "cabal", "dub", "nimble", "tox", "nox",
			"pytest", "py.test", "jest", "vitest", "mocha", "karma", "phpunit", "rspec", "cucumber",
			"ctest", "xcodebuild", "msbuild", "dotnet", "flutter", "xmake", "premake5", "waf",
			"redo", "tup", "please", "bitbake", "autoreconf", "configure", "webpack", "vite",
			"rollup", "esbuild", "parcel", "tsc", "eslint", "prettier", "black", "ruff", "mypy",
			"pylint", "flake8", "rubocop", "golangci-lint", "staticcheck", "terraform",
			"terragrunt", "pulumi", "ansible", "ansible-playbook", "vagrant", "packer", "helm",
			"skaffold", "tilt", "docker-compose", "earthly"),
		c("gcc", "g++", "c++", "cc", "clang", "clang++", "ld", "rustc", "javac", "kotlinc",
			"scalac", "ghc", "zig", "dmd", "ldc2", "gdc", "tcc", "gfortran", "nvcc", "swiftc",
			"fpc", "gnat", "valac", "as", "nasm", "yasm", "cpp"),
		one(
			Program{Name: "go", Kind: BuildTool | Compiler | PackageManager, Why: whyBuild, Runs: &Runs{Project: true}, Probe: []string{"version", "help", "--help"}, Subcommand: 1},
			Program{Name: "cargo", Kind: BuildTool | PackageManager, Why: whyBuild, Runs: &Runs{Project: true}, Probe: []string{"--version", "-V", "--help"}, Subcommand: 1},
		),
	)
	return dedupe(out)
}

// dedupe drops a second entry of the same name (lists above may repeat a
// name for readability; the index refuses duplicates).
func dedupe(ps []Program) []Program {
	seen := map[string]bool{}
	out := ps[:0]
	for _, p := range ps {
		if !seen[p.Name] {
			seen[p.Name] = true
			out = append(out, p)
		}
	}
	return out
}

// containerBinds are docker's, podman's and nerdctl's (Go pflag: -v X,
// -vX, -v=X, --volume X, --volume=X; -d, -i, -t and -P cluster).
var containerBinds = &Binds{Volume: []string{"v", "volume"}, Bools: "dtiP", Mount: []string{"mount"}}

func packageManagers() []Program {
	out := each(PackageManager, whyPkg,
		"npm", "npx", "pnpm", "pnpx", "yarn", "yarnpkg", "corepack", "bunx", "pip", "pip3",
		"pipx", "uv", "uvx", "poetry", "pdm", "hatch", "pipenv", "rye", "conda", "mamba",
		"micromamba", "gem", "bundle", "bundler", "composer", "cpan", "cpanm", "apt", "apt-get",
		"aptitude", "dpkg", "yum", "dnf", "rpm", "zypper", "apk", "pacman", "yay", "paru", "brew",
		"port", "snap", "flatpak", "nix", "nix-shell", "nix-build", "nix-env", "nix-store",
		"guix", "vcpkg", "conan", "opam", "luarocks", "pkg", "pkgin", "emerge", "xbps-install",
		"swupd", "eopkg", "scoop", "choco", "winget", "asdf", "mise", "rtx", "nvm", "pyenv",
		"rbenv", "sdk", "volta", "fnm", "docker", "podman", "buildah", "nerdctl", "kubectl",
		"crictl", "ctr", "lxc", "incus", "gh", "glab")
	for i := range out {
		out[i].Runs = &Runs{Project: true}
		out[i].Probe = []string{"--version", "-v", "--help"}
		switch out[i].Name {
		case "npm", "yarn", "pnpm", "bun", "docker", "podman", "pip", "pip3", "kubectl", "gh",
			"helm", "terraform", "dotnet", "brew", "apt", "apt-get", "uv", "poetry", "composer":
			out[i].Subcommand = 2
		}
		if out[i].Subcommand == 0 {
			out[i].Subcommand = 1
		}
		switch out[i].Name {
		case "docker", "podman", "nerdctl":
			out[i].Binds = containerBinds
		}
		switch out[i].Name {
		case "docker", "podman", "buildah", "nerdctl", "crictl", "ctr", "lxc", "incus":
			out[i].Why = "a container tool, which builds and runs images and the commands in them"
		case "kubectl":
			out[i].Why = "a cluster client, which changes what a cluster runs"
		case "gh", "glab":
			out[i].Why = "a forge client, which changes remote repositories and runs extensions"
		case "asdf", "mise", "rtx", "nvm", "pyenv", "rbenv", "sdk", "volta", "fnm":
			out[i].Why = "a version manager, which installs toolchains and runs them"
		}
	}
	return out
}

// wget runs the program --use-askpass names (and a wgetrc command's
// use_askpass, given with -e/--execute, or WGET_ASKPASS) with the prompt
// as its argument, and reads wgetrc commands, use_askpass among them,
// from a --config file. Its other options are read as flags.
func wget(ps []Program) []Program {
	for i := range ps {
		askpass := eff(ReqArg, RunsProgram, "`wget --use-askpass` runs %q for the credentials")
		askpass.Appends = true // the prompt
		out := eff(ReqArg, Writes, "wget writes the download to %q")
		log := eff(ReqArg, Writes, "wget writes its log to %q")
		ps[i].Opts = Opts("", "aABDeilnoOPQRtTUwXY", nil).AnyOption().Long(askpass, "use-askpass").
			Short("O", out).Long(out, "output-document").Short("o", log).Long(log, "output-file").
			Short("a", log).Long(log, "append-output").
			Long(eff(ReqArg, Writes, "wget saves its cookies to %q"), "save-cookies").Long(log, "rejected-log").
			Short("P", eff(ReqArg, Harmless, "")).Long(eff(ReqArg, Harmless, ""), "directory-prefix").
			Short("e", eff(ReqArg, Unproven, "`wget -e %q` runs a wgetrc command, which can name a program")).
			Long(eff(ReqArg, Unproven, "`wget --execute %q` runs a wgetrc command, which can name a program"), "execute").
			Long(eff(ReqArg, RunsFile, "`wget --config` reads wgetrc commands from %q, which can name a program"), "config")
		ps[i].Saves = &Saves{Dir: []string{"P", "directory-prefix"}, Named: []string{"O", "output-document"}}
		ps[i].RcCommands = map[string]string{"outputdocument": "output-document", "logfile": "output-file", "dirprefix": "directory-prefix",
			"savecookies": "save-cookies", "rejectedlog": "rejected-log", "useaskpass": "use-askpass"}
		ps[i].CommandKeys = []string{"use_askpass"}
		ps[i].EnvCommands = []string{"WGET_ASKPASS"}
	}
	return ps
}

// curl writes the files its output options name: besides the download,
// the response headers, the cookies, a trace, its own messages, a libcurl
// program and its ETag, HSTS and Alt-Svc caches (each was written under
// bash); -K/--config reads more options from a file. Its other options
// are read as flags, and long ones abbreviate as curl's do (--dump is
// --dump-header).
func curl(ps []Program) []Program {
	w := func(what string) Opt { return eff(ReqArg, Writes, "curl writes "+what+" to %q") }
	config := eff(ReqArg, RunsFile, "`curl -K` reads more options from %q, which can name files curl writes")
	for i := range ps {
		ps[i].Opts = Opts("", "AbcCdDeEFHKmoPQrtTuUwxXyYz", longs("", "cookie data data-ascii data-binary data-raw "+
			"data-urlencode etag-compare form form-string header output-dir proxy range referer request resolve "+
			"upload-file url user user-agent write-out connect-to unix-socket trace-config", "")).AnyOption().
			Short("o", w("the download")).Long(w("the download"), "output").
			Short("D", w("the response headers")).Long(w("the response headers"), "dump-header").
			Short("c", w("the cookies")).Long(w("the cookies"), "cookie-jar").
			Long(w("a trace"), "trace", "trace-ascii").Long(w("its messages"), "stderr").
			Long(w("a C program"), "libcurl").Long(w("the ETag"), "etag-save").
			Long(w("the HSTS cache"), "hsts").Long(w("the Alt-Svc cache"), "alt-svc").
			Short("K", config).Long(config, "config")
		ps[i].Saves = &Saves{Dir: []string{"output-dir"}, Remote: []string{"O", "remote-name", "remote-name-all"}}
	}
	return ps
}

func network() []Program {
	d := func(names ...string) []Program {
		out := each(NetworkClient|Downloader, "a downloader, which fetches from the network", names...)
		for i := range out {
			out[i].NoPrefixRule = true
		}
		return out
	}
	return concat(
		curl(d("curl")),
		d("fetch", "aria2c", "http", "https", "xh", "lwp-download", "lwp-request", "curlie"),
		wget(d("wget", "wget2")),
		each(NetworkClient, whyNet, "telnet",
			"tftp", "ping", "ping6", "traceroute", "tracepath", "mtr", "dig", "nslookup",
			"host", "whois", "nmap", "redis-cli", "mosquitto_pub",
			"getent", "ssh-keyscan", "ssh-copy-id", "s3cmd", "gsutil", "ldapsearch",
			"snmpget", "arping", "ifconfig", "route", "iptables", "nft", "ufw",
			"tshark", "ss", "netstat", "iw", "nmcli"),
		// Clients whose subcommands run commands they are given, here or
		// on the machines they manage (see Runs.Unmodelled).
		withRuns(each(NetworkClient, whyNet, "aws", "gcloud", "az", "ip", "rclone"), Runs{Unmodelled: true}),
		netcats(),
		one(
			Program{Name: "rsync", Kind: NetworkClient | Writer, Targets: CopiesTo, SlashContents: true, NoPrefixRule: true, Why: "copies files, also to other hosts", Opts: rsyncOpts(),
				RemovesSources: []string{"remove-source-files", "remove-sent-files"}},
			// scp and sftp take ssh's -o and -F, and -S names the program
			// they run in ssh's place; sftp -b and -D run batch commands
			// (with ! shell escapes) and a local server.
			Program{Name: "scp", Kind: NetworkClient | Writer, Targets: CopiesTo, NoPrefixRule: true, Why: "copies files to other hosts",
				CommandKeys: sshCommandKeys, Opts: Opts("346ABCOpqRrTv", "cDiJlPX", nil).
						Short("o", eff(ReqArg, Unproven, "`scp -o %q` can name a command ssh runs (ProxyCommand)")).
						Short("F", sshConfigFile).Short("S", eff(ReqArg, RunsProgram, "`scp -S` runs %q in place of ssh"))},
			Program{Name: "sftp", Kind: NetworkClient, Why: whyNet,
				CommandKeys: sshCommandKeys, Opts: Opts("46AaCfNpqrv", "BcJlPRsX", nil).
						Short("o", eff(ReqArg, Unproven, "`sftp -o %q` can name a command ssh runs (ProxyCommand)")).
						Short("F", sshConfigFile).Short("S", eff(ReqArg, RunsProgram, "`sftp -S` runs %q in place of ssh")).
						Short("D", eff(ReqArg, RunsProgram, "`sftp -D` runs the local server %q")).
						Short("b", eff(ReqArg, RunsFile, "`sftp -b` runs the batch commands in %q, whose ! lines run shell commands")),
				// Commands on standard input too (sftp host <<< '!cmd').
				StdinCommands: StdinOwnCommands, Escape: EscapeKeys},
			// ftp reads its commands from standard input; ! runs a
			// shell command.
			Program{Name: "ftp", Kind: NetworkClient, Why: whyNet, StdinCommands: StdinOwnCommands, Escape: EscapeKeys},
		),
	)
}

// dbusPowerMethods are the power methods of logind's and systemd's
// managers, as a D-Bus client spells them: the method alone (busctl, qdbus)
// or with its interface (dbus-send, gdbus --method).
func dbusPowerMethods() []string {
	var out []string
	for _, m := range []string{"PowerOff", "Reboot", "Halt", "KExec", "Suspend", "Hibernate", "HybridSleep", "SuspendThenHibernate", "SoftReboot", "Exit"} {
		out = append(out, m, "org.freedesktop.login1.Manager."+m, "org.freedesktop.systemd1.Manager."+m)
	}
	return out
}

// withRuns gives each entry the same Runs.
func withRuns(ps []Program, r Runs) []Program {
	for i := range ps {
		x := r
		ps[i].Runs = &x
	}
	return ps
}

// netcats are the socket relays that also run commands: socat's EXEC: and
// SYSTEM: addresses (socat 1.7; 1.8 adds SHELL:), ncat's -e/--exec (an
// argv), -c/--sh-exec (shell text) and --lua-exec, netcat-traditional's
// -e and -c, tcpdump -z (run on each saved file), lftp -c/-e/-f (its
// commands, whose ! lines run shell commands).
func netcats() []Program {
	ncat := Opts("46UCChklntuvz", "dgGimpsw", longs(
		"help version listen keep-open nodns telnet udp sctp verbose zero-io crlf send-only recv-only no-shutdown broker chat ssl ssl-verify allow-all append-output vsock unixsock",
		"wait idle-timeout source source-port max-conns delay allow allowfile deny denyfile proxy proxy-type proxy-auth proxy-dns ssl-cert ssl-key ssl-trustfile ssl-ciphers ssl-servername ssl-alpn nsock-engine", "")).
		Short("e", eff(ReqArg, RunsProgram, "`ncat -e` runs %q for each connection")).Long(eff(ReqArg, RunsProgram, "`ncat --exec` runs %q for each connection"), "exec").
		Short("c", eff(ReqArg, RunsShell, "`ncat -c` runs %q for each connection")).Long(eff(ReqArg, RunsShell, "`ncat --sh-exec` runs %q for each connection"), "sh-exec").
		Long(eff(ReqArg, RunsFile, "`ncat --lua-exec` runs the Lua script %q"), "lua-exec").
		Short("ox", eff(ReqArg, Writes, "ncat writes the session to %q")).Long(eff(ReqArg, Writes, "ncat writes the session to %q"), "output", "hex-dump")
	nc := func() *Options {
		return Opts("46bCdDFhklNnrStUuvz", "gGIiMmOPpqsTVWwXx", nil).
			Short("e", eff(ReqArg, RunsProgram, "`nc -e` runs %q for each connection")).
			Short("c", eff(ReqArg, RunsShell, "`nc -c` runs %q for each connection"))
	}
	return one(
		Program{Name: "openssl", Kind: NetworkClient, Why: whyNet, Opts: opensslOpts(), Runs: &Runs{Loads: "engine"}},
		// socat's file addresses open the file for writing what the
		// other address gives (socat 1.7.4's manual; not installed here).
		Program{Name: "socat", Kind: NetworkClient, Why: "a socket relay that can run commands", Runs: &Runs{Addresses: []string{"exec:", "system:", "shell:"},
			FileAddresses: []string{"open:", "create:", "creat:", "gopen:"}}},
		Program{Name: "ncat", Kind: NetworkClient, Why: whyNet, Opts: ncat},
		Program{Name: "nc", Kind: NetworkClient, Why: whyNet, Opts: nc()},
		Program{Name: "netcat", Kind: NetworkClient, Why: whyNet, Opts: nc()},
		Program{Name: "tcpdump", Kind: NetworkClient, Why: whyNet, Opts: Opts("AbdDeflLnNOpqStuUvxX#", "BcCEFGiIjmMrsTVwWyQ", longs(
			"list-interfaces list-time-stamp-types no-promiscuous-mode immediate-mode number print version help monitor-mode",
			"buffer-size interface time-stamp-type time-stamp-precision direction micro nano count", "")).
			Short("z", eff(ReqArg, RunsProgram, "`tcpdump -z` runs %q on each file it saves")).
			Short("w", eff(ReqArg, Writes, "tcpdump writes packets to %q"))},
		Program{Name: "lftp", Kind: NetworkClient, Why: whyNet, Opts: Opts("dv", "pu", longs("help version norc", "user password port env-password", "")).
			Short("ce", eff(ReqArg, RunsCode, "`lftp %s` runs lftp commands, whose ! lines run shell commands")).
			Short("f", eff(ReqArg, RunsFile, "`lftp -f` runs the lftp commands in %q, whose ! lines run shell commands")).
			Long(eff(ReqArg, RunsFile, "`lftp --rcfile` runs the lftp commands in %q, whose ! lines run shell commands"), "rcfile")},
	)
}

// opensslOpts is openssl 3's command line: single-dash long options, most
// of them harmless; -engine, -provider, -provider-path, -config and the
// engine command's -pre/-post load shared objects whose code runs (an
// engine named by its path too: openssl engine ./e.so, confirmed).
func opensslOpts() *Options {
	load := eff(ReqArg, RunsFile, "openssl loads %q, a shared object whose code runs")
	o := Opts("", "", longs("", "in passin passout key cert CAfile CApath inform outform keyform certform name digest", "")).
		Long(eff(ReqArg, Writes, "openssl writes %q"), "out", "keyout").
		Long(load, "engine", "provider", "provider-path", "config", "keygen_engine", "ssl_client_engine", "pre", "post", "conf")
	o.SingleDashLong = true
	return o.AnyOption()
}

func system() []Program {
	help := []string{"--help", "--version"}
	dt := func(name string, triggers ...string) Program {
		return Program{Name: name, Kind: DiskFormatter, Why: "makes a file system or wipes a device", Triggers: triggers, Defuses: help}
	}
	part := func(name string, lists ...string) Program {
		return Program{Name: name, Kind: Partitioner, Why: "edits a partition table", Defuses: help, Triggers: lists}
	}
	pw := func(name string, defuses []string, triggers ...string) Program {
		return Program{Name: name, Kind: PowerControl, Why: "shuts down or reboots the system", Triggers: triggers, Defuses: append(defuses, help...)}
	}
	acct := func(name string, defuses []string, triggers ...string) Program {
		return Program{Name: name, Kind: AccountTool, Why: "changes the account databases", Triggers: triggers, Defuses: append(defuses, help...)}
	}
	return concat(
		one(
			Program{Name: "pkill", Kind: Signaller, Scanner: ScanKill, NoPrefixRule: true, Why: "sends signals to processes"},
			Program{Name: "killall", Kind: Signaller, Scanner: ScanKill, NoPrefixRule: true, Why: "sends signals to processes"},
			Program{Name: "killall5", Kind: Signaller, Why: "signals every process", Defuses: help},
			// systemctl 252's options (systemctl --help): its verb is the
			// first operand, after the values its options take
			// (systemctl -t service poweroff powers off).
			Program{Name: "systemctl", Kind: PowerControl, Scanner: ScanSystemctl, Why: "controls services and the system's state", Subcommand: 1,
				Opts: Opts("halrTiqf", "HMtpPsno", longs(
					"help version system user failed all full recursive reverse with-dependencies show-transaction show-types value now dry-run quiet wait no-block no-wall no-reload no-pager no-ask-password global runtime force firmware-setup plain read-only mkdir marked no-legend no-warn after before",
					"host machine type state property job-mode check-inhibitors kill-whom kill-value signal what legend preset-mode root image lines output boot-loader-menu boot-loader-entry reboot-argument timestamp message when drop-in", "")),
				Triggers: []string{"poweroff", "reboot", "halt", "kexec", "soft-reboot", "emergency", "rescue", "exit",
					"suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate", "sleep"}, Defuses: help},
			dt("mkfs"), dt("mke2fs"), dt("mkdosfs"), dt("mkswap"), dt("mkntfs"), dt("mkexfatfs"),
			dt("mkreiserfs"), dt("mkudffs"),
			dt("wipefs"),
			dt("blkdiscard"), dt("badblocks", "-w"),
			dt("cryptsetup", "luksFormat", "erase", "luksErase", "reencrypt", "luksKillSlot"),
			// Making a pool, an array or a physical volume on a device
			// writes its labels over what the device held; a volume
			// shrunk loses what lay past its new end.
			dt("zpool", "destroy", "labelclear", "create", "add", "attach", "replace"), dt("zfs", "destroy"),
			dt("pvcreate"), dt("vgcreate"), dt("vgextend"), dt("lvreduce"), dt("btrfs", "add", "replace"),
			dt("lvremove"), dt("vgremove"), dt("pvremove"),
			dt("mdadm", "--zero-superblock", "--create", "-C", "--build", "-B"),
			dt("hdparm", "--security-erase", "--security-erase-enhanced", "--trim-sector-ranges", "--write-sector", "--fwdownload"),
			dt("nvme", "format", "sanitize"), dt("sg_format"), dt("sg_sanitize"),
			part("fdisk", "-l", "--list"), part("sfdisk", "-l", "--list", "-d", "--dump", "-J", "--json", "-s", "--show-size"),
			part("cfdisk"), part("parted", "-l", "--list", "print", "p"), part("gdisk", "-l"),
			part("sgdisk", "-p", "--print", "-i", "--info", "-v", "--verify"), part("cgdisk"), part("gparted"),
			pw("shutdown", []string{"-c", "-k", "--show"}), pw("reboot", nil), pw("halt", nil), pw("poweroff", nil),
			pw("telinit", nil, "0", "6", "1", "s", "S", "single", "emergency"),
			pw("init", nil, "0", "6", "1", "s", "S", "single", "emergency"),
			pw("kexec", nil, "-e", "--exec", "-f", "--force"),
			pw("loginctl", nil, "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate", "sleep"),
			// rtcwake suspends or powers off until the clock wakes it (a
			// later -m wins, so no mode word defuses it; -n does).
			pw("rtcwake", []string{"--dry-run", "-n"}),
			pw("pm-suspend", nil), pw("pm-hibernate", nil), pw("pm-suspend-hybrid", nil),
			// D-Bus clients calling logind's or systemd's power methods
			// (busctl call … PowerOff, dbus-send …Manager.Reboot).
			pw("busctl", nil, dbusPowerMethods()...), pw("dbus-send", nil, dbusPowerMethods()...),
			pw("gdbus", nil, dbusPowerMethods()...), pw("qdbus", nil, dbusPowerMethods()...),
			acct("passwd", nil, "-d", "--delete", "-u", "--unlock", "--stdin", "-e", "--expire"),
			acct("usermod", nil), acct("userdel", nil), acct("chpasswd", nil), acct("chgpasswd", nil),
			acct("vipw", nil), acct("vigr", nil), acct("newusers", nil), acct("pwunconv", nil), acct("grpunconv", nil),
			acct("visudo", []string{"-c", "--check"}),
			acct("useradd", nil, "-o", "--non-unique"),
			acct("gpasswd", nil, "-a", "--add", "-A", "--administrators", "-M", "--members"),
		),
		each(Signaller, "sends signals to processes", "skill", "snice", "renice", "xkill"),
		each(Writer, "changes the account databases", "pwck", "grpck", "chage", "groupmod",
			"groupdel", "groupadd", "pwconv", "grpconv", "chsh", "chfn", "deluser", "adduser"),
	)
}

func versionControl() []Program {
	return one(
		// git appends each trace to the file its variable names when the
		// value is an absolute path (git 2.39's trace.c and trace2;
		// confirmed: GIT_TRACE=/tmp/t git status wrote /tmp/t).
		Program{Name: "git", Kind: NetworkClient, Scanner: ScanGit, Subcommand: 1, Why: "version control",
			EnvWrites: []string{"GIT_TRACE", "GIT_TRACE2", "GIT_TRACE2_EVENT", "GIT_TRACE2_PERF", "GIT_TRACE_CURL",
				"GIT_TRACE_FSMONITOR", "GIT_TRACE_PACK_ACCESS", "GIT_TRACE_PACKET", "GIT_TRACE_PACKFILE",
				"GIT_TRACE_PERFORMANCE", "GIT_TRACE_REFS", "GIT_TRACE_SETUP", "GIT_TRACE_SHALLOW"}},
		Program{Name: "gitk", Kind: Viewer, Why: "a git viewer"},
		Program{Name: "hg", Kind: NetworkClient | Writer, Subcommand: 1, Why: "version control"},
		Program{Name: "svn", Kind: NetworkClient | Writer, Subcommand: 1, Why: "version control"},
		Program{Name: "tig", Kind: Viewer, Why: "a git viewer"},
		Program{Name: "lazygit", Kind: Viewer, Why: "a git interface"},
	)
}

// gdbOpts is gdb's command line: getopt_long_only with no short options,
// so -ex, --ex, -eval-command=… and its abbreviations are one option.
// rsyncOpts is rsync 3.2.7's command line (popt: clusters, --opt=value or
// --opt value, no abbreviations): the remote shell and the remote program
// run commands, and the log and batch files are its writes. An option
// handed to the remote rsync (-M, --remote-option) and the daemon's
// (--daemon, --config, --dparam: its pre-xfer and post-xfer exec run
// commands) are left out of the grammar, so what rsync runs with them is
// uncertain.
func rsyncOpts() *Options {
	return Opts("vqcarRbudlLkKHpEAXogDtUNOJSnWxmIyCF0s8hPi46Vz", "eBTf@", longs(
		"verbose quiet no-motd checksum archive recursive relative no-implied-dirs backup update inplace append "+
			"append-verify dirs old-dirs old-d mkpath links copy-links copy-unsafe-links safe-links munge-links "+
			"copy-dirlinks keep-dirlinks hard-links perms executability acls xattrs owner group devices copy-devices "+
			"write-devices specials times atimes open-noatime crtimes omit-dir-times omit-link-times super fake-super "+
			"sparse preallocate dry-run whole-file one-file-system existing ignore-existing remove-source-files del "+
			"delete delete-before delete-during delete-delay delete-after delete-excluded ignore-missing-args "+
			"delete-missing-args ignore-errors force partial delay-updates prune-empty-dirs numeric-ids ignore-times "+
			"size-only fuzzy compress cvs-exclude from0 old-args secluded-args trust-sender blocking-io stats "+
			"8-bit-output human-readable progress itemize-changes list-only fsync ipv4 ipv6 version help "+
			"no-perms no-owner no-group no-times no-recursive no-inc-recursive no-i-r no-whole-file no-compress "+
			"no-links no-relative no-dirs no-D no-devices no-specials no-human-readable no-verbose",
		"info debug stderr backup-dir suffix chmod checksum-choice block-size max-delete max-size min-size max-alloc "+
			"partial-dir usermap groupmap chown timeout contimeout modify-window temp-dir compare-dest copy-dest "+
			"link-dest compress-choice compress-level skip-compress filter exclude exclude-from include include-from "+
			"files-from copy-as address port sockopts outbuf out-format log-file-format password-file early-input "+
			"bwlimit stop-after stop-at read-batch protocol iconv checksum-seed", "")).NoAbbrev().
		Short("e", remoteShell("`rsync -e` runs %q as its remote shell")).
		Long(remoteShell("`rsync --rsh` runs %q as its remote shell"), "rsh").
		Long(eff(ReqArg, RunsShell, "`rsync --rsync-path` runs %q on the other side"), "rsync-path").
		Long(eff(ReqArg, Writes, "writes its log or batch to %q"), "log-file", "write-batch", "only-write-batch")
}

// remoteShell is an option naming the program a copier runs to reach the
// other host, with the host and the remote command after its words.
func remoteShell(why string) Opt {
	return Opt{Arity: ReqArg, Effect: RunsProgram, Appends: true, Why: why}
}

func gdbOpts() *Options {
	o := Launch("", "", longs("tui dbx readnow readnever r quiet q silent nh nx n batch-silent batch return-child-result version help write nw nowindows w windows fullname f configuration statistics",
		"symbols s exec e se core c pid p directory d data-directory D cd tty t interpreter i l b baud", ""))
	o.SingleDashLong, o.LongOnly = true, true
	return o.Long(eff(ReqArg, RunsCode, "`gdb %s` runs debugger commands"), "eval-command", "ex", "init-eval-command", "iex", "early-init-eval-command", "eiex").
		Long(eff(ReqArg, RunsFile, "`gdb %s` runs a file of debugger commands"), "command", "x", "init-command", "ix", "early-init-command", "eix")
}

// sshCommandKeys are the ssh configuration keys whose value is a command
// ssh runs locally (ssh, scp, sftp -o KEY=VALUE).
var sshCommandKeys = []string{"proxycommand", "localcommand", "knownhostscommand", "remotecommand"}

// sshConfigFile is ssh's -F: a configuration file, which can name commands.
var sshConfigFile = eff(ReqArg, RunsFile, "`-F` reads the ssh configuration %q, which can name commands it runs")
