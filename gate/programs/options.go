package programs

import (
	"sort"
	"strings"
)

// Arity is how many values an option takes.
type Arity uint8

// The arities, as getopt_long has them.
const (
	NoArg  Arity = iota // --flag
	ReqArg              // --opt VALUE, --opt=VALUE, -oVALUE, -o VALUE
	OptArg              // --opt[=VALUE], -o[VALUE]: a value only when attached
)

// Effect is what an option does beyond shaping the output.
type Effect uint8

// The effects. Harmless is the zero value.
const (
	Harmless Effect = iota
	// Help prints help or a version and exits.
	Help
	// Writes writes a file (its value, when it takes one).
	Writes
	// RunsShell runs its value as shell text (through sh -c).
	RunsShell
	// RunsProgram runs its value as a program with arguments, split on
	// blanks (tar -I 'zstd -19', rsync -e 'ssh -p 2').
	RunsProgram
	// RunsCode runs its value as code in the program's own language
	// (an interpreter's -c or -e).
	RunsCode
	// RunsFile runs the file or module its value names (php -f, python -m).
	RunsFile
	// StartsArgv: the words after it, up to a terminator word, are an argv
	// the program runs (find -exec … ;).
	StartsArgv
	// ShellScript is a shell's -c: the first operand is the script.
	ShellScript
	// Unproven means the classifier cannot prove the option harmless.
	Unproven
	// Network resolves names or opens connections.
	Network
	// Reads names a file the program reads its instructions from (sed -f,
	// awk -f): whatever it says is not in the text.
	Reads
	// PipesTo writes the file its value names, unless the value starts
	// with '|' or '!': then the rest is shell text the program runs with
	// its output piped in (strace -o '|CMD').
	PipesTo
	// Concurrency is how many of the commands it runs may run at once
	// (xargs -P, parallel -j); 0 is no limit.
	Concurrency
	// Chdir names the directory the command it runs starts in (env -C,
	// sudo -D): what that command does to relative paths is done there.
	Chdir
)

// Opt is one option's grammar and effect.
type Opt struct {
	Arity  Arity
	Effect Effect
	// Rest: the program its value names (RunsProgram) is given the words
	// after the option as its arguments (coreutils --coreutils-prog=rm -f x).
	Rest bool
	// Appends: the program its value names (RunsProgram) is started with
	// arguments of the parent's own after it, so its words are only the
	// start of its command line (rsync -e ssh runs ssh HOST rsync --server…).
	Appends bool
	// Commands: the value (RunsProgram) is one of the program's own
	// commands, each acting as the argv the map gives it (cmake -E
	// remove_directory DIR is rm -rf DIR; "" for one that runs and writes
	// nothing); a value the map lacks is a command the gate does not know.
	Commands *Toolbox
	// Absolute: the value names a program only when it is an absolute
	// path (git send-email --smtp-server=/usr/sbin/sendmail); any other
	// value is not a command (a mail host).
	Absolute bool
	// Why completes a reason: "writes its output to %q" (the value is
	// substituted when the phrase has a %q).
	Why string
}

// Toolbox is a program's own commands and the argv each acts as.
type Toolbox struct{ As map[string]string }

// Options is how a program reads its command line, after getopt_long:
// short options cluster (-abc), a short option's value is the rest of its
// cluster or the next word, long options take --name=value or (ReqArg)
// --name value, `--` ends the options, and `-` alone is an operand.
type Options struct {
	// The short options: flags (no value) and valued (a required value)
	// as the optstring spells them, and those Short gave another grammar.
	// Most programs have only the first two, so the table keeps the
	// strings it was written with instead of a map per program.
	flags, valued string
	short         map[byte]Opt
	// The long options, likewise: space-separated names without a value,
	// with a required one and with an optional one, and those Long gave
	// another grammar.
	longs Longs
	long  map[string]Opt
	// Abbrev accepts any unique prefix of a long option (getopt_long
	// does; an exact name always wins; an ambiguous prefix is unknown).
	Abbrev bool
	// Stop ends the options at the first operand (a leading '+' in the
	// optstring, as every launcher has): what follows is another command's.
	Stop bool
	// Plus reads +X as the option -X (a shell's +o NAME, +O NAME, +e, and
	// +c, which bash also reads as -c).
	Plus bool
	// Dash is the option a lone "-" stands for (env's "-" is -i), "" when
	// "-" is an operand.
	Dash string
	// Digits accepts -NUMBER as an option (head -20, kill -9, nice -5).
	Digits bool
	// SingleDashLong reads -name as the long option name (java -version).
	SingleDashLong bool
	// LongOnly is getopt_long_only: a single-dash word of more than one
	// letter is a long option first, abbreviations included (gdb -ex,
	// -eval-comm=…), and a short option only when no long one matches.
	LongOnly bool
	// Lenient reads an option the table does not list as a flag without a
	// value instead of an unknown one: for programs whose options all take
	// their values after '=' (valgrind --tool=memcheck, firejail --net=none).
	Lenient bool
	// Alt is a second reading of the same command line, for a program
	// whose parser reads an option by what came before it (vim's -s is
	// ex mode's silent flag after -e, a script file otherwise): the
	// options either reading finds count, the stricter.
	Alt *Options
	// HelpUnproven: the classifier does not prove --help/--version
	// harmless for this program (the peers' own parsers of sort and tree
	// refuse them).
	HelpUnproven bool
	// Trailing are the short options still read after the operands begin
	// when the options stop there (Stop): unzip takes -d DIR and -x after
	// the archive, and every other word there, one with a dash included,
	// is a member (unzip a.zip '*' -l extracts: -l is no listing there).
	Trailing string
	// Key reads a first word without a dash as an old-style key, as GNU
	// tar does before its option parser runs (tar.c: each letter becomes
	// the option -LETTER, and each letter that takes a value takes the
	// next word in turn): tar xzf a.tgz, and tar tfI a.tar CMD, whose I
	// is CMD (confirmed: it ran CMD) where a cluster -tfI would read "I"
	// as f's value.
	Key bool
}

// Longs are long option names by arity, each field a space-separated
// list: None take no value, Req a required one, Opt an optional one.
type Longs struct{ None, Req, Opt string }

// Opts builds an Options: flags lists short options without a value,
// values those that take one, and longs the long ones (nil: none yet;
// Long adds more). GNU rules (permutation, abbreviations) are on; see
// Launch.
func Opts(flags, values string, longs *Longs) *Options {
	o := &Options{flags: flags, valued: values, Abbrev: true}
	if longs != nil {
		o.longs = *longs
	}
	return o
}

// exactLong is the grammar of the long option named exactly name: Long's,
// else the optional-valued, required-valued or plain list's (a name in
// two lists takes the later one's, as the table was always read).
func (o *Options) exactLong(name string) (Opt, bool) {
	if opt, ok := o.long[name]; ok {
		return opt, true
	}
	switch {
	case name == "" || strings.ContainsAny(name, " \t\n\v\f\r"):
		return Opt{}, false
	case hasWord(o.longs.Opt, name):
		return Opt{Arity: OptArg}, true
	case hasWord(o.longs.Req, name):
		return Opt{Arity: ReqArg}, true
	case hasWord(o.longs.None, name):
		return Opt{}, true
	}
	return Opt{}, false
}

// eachLong calls f with every long option name once, until f says stop.
func (o *Options) eachLong(f func(name string) bool) {
	for n := range o.long {
		if !f(n) {
			return
		}
	}
	lists := [...]string{o.longs.Opt, o.longs.Req, o.longs.None}
	for i, list := range lists {
		for n := range strings.FieldsSeq(list) {
			if _, dup := o.long[n]; dup || i > 0 && hasWord(lists[0], n) || i > 1 && hasWord(lists[1], n) {
				continue // named again in a list read first
			}
			if !f(n) {
				return
			}
		}
	}
}

// hasWord reports whether the blank-separated list holds word (blanks as
// strings.Fields reads them in ASCII: the lists are the table's text).
func hasWord(list, word string) bool {
	for len(list) >= len(word) {
		i := strings.Index(list, word)
		if i < 0 {
			return false
		}
		end := i + len(word)
		if (i == 0 || asciiBlank(list[i-1])) && (end == len(list) || asciiBlank(list[end])) {
			return true
		}
		list = list[i+1:]
	}
	return false
}

func asciiBlank(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}

// shortOpt is the grammar of the short option b: Short's, else a valued
// one's, else a flag's.
func (o *Options) shortOpt(b byte) (Opt, bool) {
	if opt, ok := o.short[b]; ok {
		return opt, true
	}
	if strings.IndexByte(o.valued, b) >= 0 {
		return Opt{Arity: ReqArg}, true
	}
	if strings.IndexByte(o.flags, b) >= 0 {
		return Opt{}, true
	}
	return Opt{}, false
}

// dashOpt is the grammar of the option a lone "-" stands for.
func (o *Options) dashOpt() Opt {
	opt, _ := o.shortOpt(o.Dash[0])
	return opt
}

// Launch is Opts for a program that runs the command in its operands:
// its options stop at the first operand.
func Launch(flags, values string, longs *Longs) *Options {
	o := Opts(flags, values, longs)
	o.Stop = true
	return o
}

// Short sets the grammar of short options (each byte of names).
func (o *Options) Short(names string, opt Opt) *Options {
	if o.short == nil {
		o.short = make(map[byte]Opt, len(names))
	}
	for i := 0; i < len(names); i++ {
		o.short[names[i]] = opt
	}
	return o
}

// Long sets the grammar of long options.
func (o *Options) Long(opt Opt, names ...string) *Options {
	if o.long == nil {
		o.long = make(map[string]Opt, len(names))
	}
	for _, n := range names {
		o.long[n] = opt
	}
	return o
}

// AnyOption makes unlisted options flags without values (Lenient).
func (o *Options) AnyOption() *Options { o.Lenient = true; return o }

// Unproven marks --help and --version as not proven harmless.
func (o *Options) Unproven() *Options { o.HelpUnproven = true; return o }

// NoAbbrev turns long-option abbreviations off (ripgrep, tree: their
// parsers want whole names).
func (o *Options) NoAbbrev() *Options { o.Abbrev = false; return o }

// OldKey reads a first word without a dash as an old-style key (Key).
func (o *Options) OldKey() *Options { o.Key = true; return o }

// WithDigits accepts -NUMBER.
func (o *Options) WithDigits() *Options { o.Digits = true; return o }

// Arg is one word as the parser sees it: its value when Static.
type Arg struct {
	Value  string
	Static bool
}

// Found is one option read from an argv.
type Found struct {
	// Name is the option's canonical name: "o" for -o, "output" for
	// --output or an abbreviation of it.
	Name string
	// Long reports a long option.
	Long bool
	// Value is its value, when it has one; ValueStatic is false when the
	// value is computed at run time.
	Value       string
	HasValue    bool
	ValueStatic bool
	Opt         Opt
	// Index is the position in the argument list where it starts;
	// ValueAt is the position of the word that holds its value (Index
	// when the value is attached), when it has one.
	Index, ValueAt int
	// Spelled is the name as written (an abbreviation of a long option,
	// without dashes); InCluster reports a short option that was not the
	// first of its cluster.
	Spelled   string
	InCluster bool
}

// Dashed is the option's canonical name with its dashes (--stdout, -c).
func (f Found) Dashed() string {
	if f.Long {
		return "--" + f.Name
	}
	return "-" + f.Name
}

// Parsed is what Parse read from an argument list.
type Parsed struct {
	Found []Found
	// Operands are the indexes of the operands, in order.
	Operands []int
	// Rest is the index of the first word after the options when the
	// options stop (Stop, `--`), else len(args).
	Rest int
	// Unknown is the first option the table does not know (or an
	// ambiguous abbreviation), "" when none.
	Unknown string
	// Dynamic reports a word computed at run time where an option could
	// stand: it may be any option.
	Dynamic bool
	// DashDash reports that `--` ended the options.
	DashDash bool
}

// operandsFrom adds the indexes from to n-1 as operands.
func (p *Parsed) operandsFrom(from, n int) {
	for j := from; j < n; j++ {
		p.Operands = append(p.Operands, j)
	}
}

// Parse reads args (the words after the program name) with o's grammar.
func (o *Options) Parse(args []Arg) Parsed {
	p := Parsed{Rest: len(args)}
	i := 0
	if o.Key && len(args) > 0 && args[0].Static && !strings.HasPrefix(args[0].Value, "-") {
		i = o.key(args, &p)
	}
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a.Static && a.Value == "-" && o.Dash != "":
			p.Found = append(p.Found, Found{Name: o.Dash, Opt: o.dashOpt(), Index: i, Spelled: "-"})
			continue
		case a.Static && o.Plus && len(a.Value) > 1 && a.Value[0] == '+':
			i = o.shortOpts(args, i, &p)
			continue
		case !a.Static || a.Value == "-" || !strings.HasPrefix(a.Value, "-"):
			// An operand; a dynamic word may be one too (or any option).
			p.Dynamic = p.Dynamic || !a.Static
			if o.Stop {
				p.Rest = i
				if o.Trailing != "" {
					o.trailing(args, i, &p)
					return p
				}
				p.operandsFrom(i, len(args))
				return p
			}
			p.Operands = append(p.Operands, i)
			continue
		case a.Value == "--":
			p.DashDash = true
			p.operandsFrom(i+1, len(args))
			p.Rest = i + 1
			return p
		}
		i = o.option(args, i, &p)
	}
	return p
}

// trailing reads the words from args[i] on, where only the Trailing
// options are still options (a valued one attached or with the next
// word, a flag only alone: unzip's -dDIR, -d DIR, -x); every other word
// is an operand.
func (o *Options) trailing(args []Arg, i int, p *Parsed) {
	for ; i < len(args); i++ {
		a := args[i]
		if a.Static && len(a.Value) >= 2 && a.Value[0] == '-' && strings.IndexByte(o.Trailing, a.Value[1]) >= 0 {
			if opt, _ := o.shortOpt(a.Value[1]); opt.Arity != NoArg || len(a.Value) == 2 {
				i = o.shortOpts(args, i, p)
				continue
			}
		}
		p.Dynamic = p.Dynamic || !a.Static
		p.Operands = append(p.Operands, i)
	}
}

// key reads the old-style key args[0] (Key) and returns the index of the
// first word it left: each letter is an option, and each that takes a
// value (tar's source: any with an argument, optional ones too) takes the
// next word in turn, whatever it looks like.
func (o *Options) key(args []Arg, p *Parsed) int {
	v, next := args[0].Value, 1
	for j := 0; j < len(v); j++ {
		opt, ok := o.shortOpt(v[j])
		if !ok && o.Lenient {
			opt, ok = Opt{}, true
		}
		if !ok {
			p.note(v[j:]) // tar refuses the letter; the rest is still read, the stricter
			continue
		}
		f := Found{Name: v[j : j+1], Opt: opt, Spelled: v[j : j+1], InCluster: j > 0}
		if opt.Arity != NoArg {
			if next >= len(args) {
				p.note(v[j:]) // "Old option requires an argument"
				continue
			}
			f.Value, f.HasValue, f.ValueStatic, f.ValueAt = args[next].Value, true, args[next].Static, next
			next++
		}
		p.Found = append(p.Found, f)
	}
	return next
}

// option reads the option at args[i] and returns the last index it used.
func (o *Options) option(args []Arg, i int, p *Parsed) int {
	v := args[i].Value
	if strings.HasPrefix(v, "--") {
		return o.longOpt(args, i, v[2:], p)
	}
	if o.SingleDashLong {
		if name, _, _ := strings.Cut(v[1:], "="); len(name) > 1 {
			if _, ok := o.exactLong(name); ok {
				return o.longOpt(args, i, v[1:], p)
			}
			if _, _, ok := o.lookupLong(name); ok && o.LongOnly {
				return o.longOpt(args, i, v[1:], p)
			}
		}
	}
	if o.Digits && allDigits(v[1:]) {
		p.Found = append(p.Found, Found{Name: v[1:], Index: i})
		return i
	}
	return o.shortOpts(args, i, p)
}

func (o *Options) longOpt(args []Arg, i int, body string, p *Parsed) int {
	name, val, hasVal := strings.Cut(body, "=")
	canon, opt, ok := o.lookupLong(name)
	if !ok && o.Lenient {
		canon, opt, ok = name, Opt{Arity: OptArg}, true
	}
	if !ok {
		p.note(body)
		return i
	}
	f := Found{Name: canon, Long: true, Opt: opt, Index: i, Spelled: name}
	switch {
	case hasVal && opt.Arity == NoArg && !o.Lenient:
		p.note(body) // --flag=value: getopt_long refuses it
	case hasVal:
		f.Value, f.HasValue, f.ValueStatic, f.ValueAt = val, true, true, i
	case opt.Arity == ReqArg && i+1 < len(args):
		i++
		f.Value, f.HasValue, f.ValueStatic, f.ValueAt = args[i].Value, true, args[i].Static, i
	case opt.Arity == ReqArg:
		p.note(body) // a required value is missing: the program errors out
	}
	p.Found = append(p.Found, f)
	return i
}

// lookupLong resolves a long name, with unique-prefix abbreviations when
// the program accepts them.
func (o *Options) lookupLong(name string) (string, Opt, bool) {
	if opt, ok := o.exactLong(name); ok {
		return name, opt, true
	}
	if !o.Abbrev || name == "" {
		return "", Opt{}, false
	}
	var hits []string
	o.eachLong(func(n string) bool {
		if strings.HasPrefix(n, name) {
			hits = append(hits, n)
		}
		return true
	})
	if len(hits) == 1 {
		opt, _ := o.exactLong(hits[0])
		return hits[0], opt, true
	}
	if len(hits) > 1 && sameOpt(o, hits) {
		// getopt_long accepts an ambiguous prefix whose candidates are
		// aliases of one option. The table cannot tell aliases from
		// options that merely look alike, so only aliases of an option
		// with an effect count (reading them as that option is the
		// stricter reading); the rest stay ambiguous, i.e. unknown.
		sort.Strings(hits)
		opt, _ := o.exactLong(hits[0])
		return hits[0], opt, true
	}
	return "", Opt{}, false
}

func sameOpt(o *Options, names []string) bool {
	first, _ := o.exactLong(names[0])
	if first.Effect == Harmless {
		return false
	}
	for _, n := range names[1:] {
		if opt, _ := o.exactLong(n); opt != first {
			return false
		}
	}
	return true
}

// shortOpts reads a cluster such as -ruo FILE at args[i].
func (o *Options) shortOpts(args []Arg, i int, p *Parsed) int {
	v := args[i].Value
	for j := 1; j < len(v); j++ {
		opt, ok := o.shortOpt(v[j])
		if !ok && o.Lenient {
			opt, ok = Opt{}, true
		}
		if !ok {
			p.note(v[j:])
			return i
		}
		f := Found{Name: v[j : j+1], Opt: opt, Index: i, Spelled: v[j : j+1], InCluster: j > 1}
		switch opt.Arity {
		case ReqArg:
			if j+1 < len(v) {
				f.Value, f.HasValue, f.ValueStatic, f.ValueAt = v[j+1:], true, true, i
			} else if i+1 < len(args) {
				i++
				f.Value, f.HasValue, f.ValueStatic, f.ValueAt = args[i].Value, true, args[i].Static, i
			} else {
				p.note(v[j:])
			}
			p.Found = append(p.Found, f)
			return i
		case OptArg:
			if j+1 < len(v) {
				f.Value, f.HasValue, f.ValueStatic, f.ValueAt = v[j+1:], true, true, i
			}
			p.Found = append(p.Found, f)
			return i
		}
		p.Found = append(p.Found, f)
	}
	return i
}

func (p *Parsed) note(opt string) {
	if p.Unknown == "" {
		p.Unknown = opt
	}
}

// Has reports whether an option with one of the canonical names was found.
func (p Parsed) Has(names ...string) bool {
	for _, f := range p.Found {
		for _, n := range names {
			if f.Name == n {
				return true
			}
		}
	}
	return false
}

// First returns the first option with an effect other than Harmless and
// Help, or false.
func (p Parsed) First(e Effect) (Found, bool) {
	for _, f := range p.Found {
		if f.Opt.Effect == e {
			return f, true
		}
	}
	return Found{}, false
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// TakesValue reports whether the short option b takes a value (tar's
// old-style key xfC takes one operand per such letter).
func (o *Options) TakesValue(b byte) bool {
	opt, ok := o.shortOpt(b)
	return ok && opt.Arity == ReqArg
}

// Known reports whether o has a long option named exactly name.
func (o *Options) Known(name string) bool { _, ok := o.exactLong(name); return ok }

// CarriesCommands reports whether any of o's options runs a command, code
// or a file: for such a program an option the table does not know may be
// one more spelling of those, so what it runs is uncertain.
func (o *Options) CarriesCommands() bool {
	for _, opt := range o.short {
		if opt.Effect.runs() {
			return true
		}
	}
	for _, opt := range o.long {
		if opt.Effect.runs() {
			return true
		}
	}
	return false
}

func (e Effect) runs() bool {
	switch e {
	case RunsShell, RunsProgram, RunsCode, RunsFile, StartsArgv, ShellScript, PipesTo:
		return true
	}
	return false
}
