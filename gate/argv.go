package gate

import (
	"fmt"
	"strings"
)

// Per-tool argv rules. Tools whose options can write or run programs are
// read with an accept-list: every option they may use is listed with its
// value arity, and any option not listed is Unknown. A deny-list cannot
// converge (sort alone has six spellings of its output option once
// clusters and abbreviations count), an accept-list fails closed.

// arity is how many values an option takes.
type arity uint8

const (
	noArg  arity = iota
	reqArg       // --opt=V, --opt V, -oV, -o V
	optArg       // --opt[=V], -o[V]: only attached values
)

// optEffect is one option's arity and, if it is not harmless, its class.
type optEffect struct {
	arity arity
	s     Safety // "" for harmless
	why   string
}

// optSpec describes a tool's command line the way getopt_long reads it.
type optSpec struct {
	short   map[byte]optEffect
	long    map[string]optEffect
	abbrev  bool // unique prefixes of long options are accepted
	permute bool // options may follow operands
	// helpUnknown makes --help/--version unknown even without a writing
	// option, as the peer's own sort and tree parsers do (Qwen
	// shellReadOnlyChecker `sort --help`, `tree --help` → not read-only).
	helpUnknown bool
}

// newSpec builds a spec: flags lists short options without a value, values
// those that take one; longs maps long names to arity.
func newSpec(flags, values string, longs map[string]arity) *optSpec {
	sp := &optSpec{short: map[byte]optEffect{}, long: map[string]optEffect{}, abbrev: true, permute: true}
	for i := 0; i < len(flags); i++ {
		sp.short[flags[i]] = optEffect{}
	}
	for i := 0; i < len(values); i++ {
		sp.short[values[i]] = optEffect{arity: reqArg}
	}
	for n, a := range longs {
		sp.long[n] = optEffect{arity: a}
	}
	return sp
}

// mark gives options a class: names are "x" for -x or "name" for --name.
func (sp *optSpec) mark(s Safety, why string, a arity, names ...string) *optSpec {
	for _, n := range names {
		if len(n) == 1 {
			sp.short[n[0]] = optEffect{a, s, why}
		} else {
			sp.long[n] = optEffect{a, s, why}
		}
	}
	return sp
}

// optParse is what an optSpec read from an argv.
type optParse struct {
	operands []string
	f        finding // the worst option finding; s == "" if all harmless
	help     bool    // a --help or --version option (not an option's value)
}

func (p *optParse) note(s Safety, rule, why string) {
	if p.f.s == "" || Merge(p.f.s, s) != p.f.s {
		p.f = finding{s, rule, why}
	}
}

// parse reads a's arguments with sp. Dynamic arguments make it Unknown,
// since any of them could be an option.
func (sp *optSpec) parse(a argv) optParse {
	var p optParse
	if a.dynamic() {
		p.note(Unknown, "dynamic-argument", fmt.Sprintf("`%s` has an argument computed at run time, which could be any option", a.name))
		return p
	}
	args := a.vals
	for i := 0; i < len(args); i++ {
		v := args[i]
		switch {
		case v == "--":
			p.operands = append(p.operands, args[i+1:]...)
			return p
		case strings.HasPrefix(v, "--"):
			i = sp.longOpt(a.name, args, i, &p)
		case len(v) > 1 && v[0] == '-':
			i = sp.shortOpts(a.name, args, i, &p)
		default:
			p.operands = append(p.operands, v)
			if !sp.permute {
				p.operands = append(p.operands, args[i+1:]...)
				return p
			}
		}
	}
	return p
}

// longOpt reads --name[=value] at args[i] and returns the last index used.
func (sp *optSpec) longOpt(tool string, args []string, i int, p *optParse) int {
	name, val, hasVal := strings.Cut(args[i][2:], "=")
	full, eff, ok := sp.lookupLong(name)
	if !ok {
		p.note(Unknown, "unknown-option", fmt.Sprintf("`%s` option `--%s` is not one the rules know", tool, name))
		return i
	}
	switch eff.arity {
	case noArg:
		if hasVal {
			p.note(Unknown, "unknown-option", fmt.Sprintf("`%s` option `--%s` takes no value", tool, full))
		}
	case reqArg:
		if !hasVal {
			if i+1 >= len(args) {
				p.note(Unknown, "missing-value", fmt.Sprintf("`%s` option `--%s` has no value", tool, full))
				return i
			}
			i++
			val = args[i]
		}
	}
	if full == "help" || full == "version" {
		p.help = true
	}
	if eff.s == Write && full != name {
		// Qwen shellAstParser `sort --out=output` → unknown: the peer
		// does not resolve abbreviations of writing options.
		eff = optEffect{eff.arity, Unknown, "`" + tool + "` abbreviates a writing option (value %q)"}
	}
	noteEffect(p, eff, tool+"-"+full, val)
	return i
}

// noteEffect records an option's class. A writing option with an empty
// value writes nowhere the rules can name (Qwen shellAstParser `sort
// --output=` → unknown).
func noteEffect(p *optParse, eff optEffect, rule, val string) {
	switch {
	case eff.s == "":
	case eff.s == Write && eff.arity == reqArg && val == "":
		p.note(Unknown, rule, fmt.Sprintf("the output option has an empty value (%s)", rule))
	default:
		p.note(eff.s, rule, fmt.Sprintf(eff.why, val))
	}
}

// lookupLong resolves a long option name, with getopt_long's unique-prefix
// abbreviations when the tool accepts them.
func (sp *optSpec) lookupLong(name string) (string, optEffect, bool) {
	if eff, ok := sp.long[name]; ok {
		return name, eff, true
	}
	if !sp.abbrev || name == "" {
		return "", optEffect{}, false
	}
	match := ""
	for full := range sp.long {
		if strings.HasPrefix(full, name) {
			if match != "" {
				return "", optEffect{}, false // ambiguous
			}
			match = full
		}
	}
	if match == "" {
		return "", optEffect{}, false
	}
	return match, sp.long[match], true
}

// shortOpts reads a cluster such as -ruo FILE at args[i].
func (sp *optSpec) shortOpts(tool string, args []string, i int, p *optParse) int {
	v := args[i]
	for j := 1; j < len(v); j++ {
		c, inCluster := v[j], j > 1
		eff, ok := sp.short[c]
		if !ok {
			p.note(Unknown, "unknown-option", fmt.Sprintf("`%s` option `-%c` is not one the rules know", tool, c))
			return i
		}
		val := ""
		if eff.arity != noArg {
			val = v[j+1:]
			if val == "" && eff.arity == reqArg {
				if i+1 >= len(args) {
					p.note(Unknown, "missing-value", fmt.Sprintf("`%s` option `-%c` has no value", tool, c))
					return i
				}
				i++
				val = args[i]
			}
			j = len(v)
		}
		if eff.s == Write && inCluster {
			// Qwen shellAstParser `sort -roout`, `tree -Cofile` → unknown:
			// the peer does not read a writing option inside a cluster.
			eff = optEffect{eff.arity, Unknown, "`" + tool + "` has a writing option inside a cluster (value %q)"}
		}
		noteEffect(p, eff, fmt.Sprintf("%s-%c", tool, c), val)
	}
	return i
}

// specRule classifies a tool by its spec, then by its operands.
func specRule(sp *optSpec, operands func(a argv, ops []string) finding) commandRule {
	return func(_ *walker, a argv) finding {
		p := sp.parse(a)
		if p.help && (p.f.s == Write || sp.helpUnknown) {
			// Help wins over the write in the tool, but the rules do not
			// prove it (Qwen shellAstParser `sort -o output --help` → unknown).
			return finding{Unknown, a.name + "-help", fmt.Sprintf("`%s --help` prints help instead of writing, which the rules do not prove", a.name)}
		}
		if p.f.s == Write || p.f.s == Unknown {
			return p.f
		}
		if operands != nil {
			return operands(a, p.operands)
		}
		return readOnlyRule(nil, a)
	}
}

var argvRules = map[string]commandRule{
	"sort":     specRule(sortSpec, nil),
	"tree":     specRule(treeSpec, nil),
	"uniq":     specRule(uniqSpec, uniqOperands),
	"tee":      specRule(teeSpec, teeOperands),
	"date":     specRule(dateSpec, dateOperands),
	"hostname": specRule(hostnameSpec, hostnameOperands),
	"file":     specRule(fileSpec, nil),
	"base64":   specRule(base64Spec, nil),
	"rg":       rgRule,
	"ripgrep":  rgRule,
	"dd":       ddRule,
	"printf":   printfRule,
	"kill":     killRule,
	"pkill":    killRule,
	"killall":  killRule,
	"xxd":      xxdRule,
	"test":     testRule,
	"[":        testRule,
	"[[":       testRule,
	"env":      envRule,
	"cd":       cdRule,
	"pushd":    cdRule,
	"popd":     cdRule,
	"history":  historyRule,
	"ulimit":   ulimitRule,
	"command":  commandBuiltinRule,
	"set":      setRule,
	"sed":      sedRule,
	"awk":      awkRule,
	"gawk":     awkRule,
	"mawk":     awkRule,
	"nawk":     awkRule,
}

var sortSpec = newSpec("bcCdfghiMmnRrsuVz", "ktST", map[string]arity{
	"ignore-leading-blanks": noArg, "dictionary-order": noArg, "ignore-case": noArg,
	"general-numeric-sort": noArg, "ignore-nonprinting": noArg, "month-sort": noArg,
	"human-numeric-sort": noArg, "numeric-sort": noArg, "random-sort": noArg,
	"reverse": noArg, "version-sort": noArg, "check": optArg, "merge": noArg,
	"stable": noArg, "unique": noArg, "zero-terminated": noArg, "debug": noArg,
	"help": noArg, "version": noArg, "key": reqArg, "field-separator": reqArg,
	"buffer-size": reqArg, "temporary-directory": reqArg, "random-source": reqArg,
	"files0-from": reqArg, "parallel": reqArg, "sort": reqArg, "batch-size": reqArg,
}).mark(Write, "sort writes its output to %q", reqArg, "o", "output").
	mark(Unknown, "sort --compress-program runs %q on its temporary files", reqArg, "compress-program")

func init() { sortSpec.helpUnknown, treeSpec.helpUnknown = true, true }

var treeSpec = func() *optSpec {
	sp := newSpec("adlfxqNQpugshDFvtcUrCnASJXi", "LPIHT", map[string]arity{
		"help": noArg, "version": noArg, "inodes": noArg, "device": noArg,
		"noreport": noArg, "nolinks": noArg, "dirsfirst": noArg, "filesfirst": noArg,
		"du": noArg, "si": noArg, "prune": noArg, "matchdirs": noArg, "metafirst": noArg,
		"gitignore": noArg, "ignore-case": noArg, "info": noArg, "fflinks": noArg,
		"charset": reqArg, "filelimit": reqArg, "timefmt": reqArg, "sort": reqArg,
		"hintro": reqArg, "houtro": reqArg, "gitfile": reqArg, "infofile": reqArg,
	}).mark(Write, "tree writes its output to %q", reqArg, "o").
		mark(Write, "tree -R writes an 00Tree.html file into every directory%s", noArg, "R")
	sp.abbrev = false
	return sp
}()

var uniqSpec = newSpec("cdDuiz", "fsw", map[string]arity{
	"count": noArg, "repeated": noArg, "unique": noArg, "ignore-case": noArg,
	"zero-terminated": noArg, "help": noArg, "version": noArg, "skip-fields": reqArg,
	"skip-chars": reqArg, "check-chars": reqArg, "all-repeated": optArg, "group": optArg,
})

func uniqOperands(a argv, ops []string) finding {
	if len(ops) >= 2 {
		return finding{Write, "uniq-output", fmt.Sprintf("`uniq IN OUT` writes its output to %q", ops[1])}
	}
	return readOnlyRule(nil, a)
}

var teeSpec = newSpec("aip", "", map[string]arity{
	"append": noArg, "ignore-interrupts": noArg, "output-error": optArg,
	"help": noArg, "version": noArg,
})

func teeOperands(a argv, ops []string) finding {
	for _, f := range ops {
		if !inertTargets[f] {
			return finding{Write, "tee-file", fmt.Sprintf("`tee` writes to the file %q", f)}
		}
	}
	if len(ops) == 0 {
		// Qwen shellAstParser `tee` → unknown: the peer proves tee only
		// through its file operands.
		return finding{Unknown, "tee-usage", "`tee` without a file operand is not proven read-only by the peer's rules"}
	}
	return finding{ReadOnly, "tee-stdout", "`tee` without a file only copies its input to its output"}
}

var dateSpec = newSpec("uR", "dfr", map[string]arity{
	"utc": noArg, "universal": noArg, "rfc-email": noArg, "rfc-2822": noArg,
	"debug": noArg, "resolution": noArg, "help": noArg, "version": noArg,
	"date": reqArg, "file": reqArg, "reference": reqArg, "rfc-3339": reqArg,
	"iso-8601": optArg,
}).mark("", "", optArg, "I").
	mark(Write, "`date -s %q` sets the system clock", reqArg, "s", "set")

func dateOperands(a argv, ops []string) finding {
	for _, o := range ops {
		if !strings.HasPrefix(o, "+") {
			return finding{Write, "date-set", fmt.Sprintf("`date %s` sets the system clock", o)}
		}
	}
	return readOnlyRule(nil, a)
}

var hostnameSpec = newSpec("aAdfiIsy", "", map[string]arity{
	"alias": noArg, "all-fqdns": noArg, "domain": noArg, "fqdn": noArg, "long": noArg,
	"all-ip-addresses": noArg, "ip-address": noArg, "short": noArg, "yp": noArg,
	"nis": noArg, "help": noArg, "version": noArg,
}).mark(Write, "`hostname` sets the host name%s", noArg, "b", "boot").
	mark(Write, "`hostname -F %q` sets the host name from a file", reqArg, "F", "file").
	// The long name, aliases, domain and addresses are looked up through
	// NSS: with the name missing from /etc/hosts, a DNS query goes out
	// (TestHostnameResolveConfirm). -s, -y and -I do not resolve.
	mark(Unknown, "`hostname` looks the host name up through the resolver, which may query DNS over the network%s", noArg,
		"a", "A", "d", "f", "i", "alias", "all-fqdns", "domain", "fqdn", "long", "ip-address")

func hostnameOperands(a argv, ops []string) finding {
	if len(ops) > 0 {
		return finding{Write, "hostname-set", fmt.Sprintf("`hostname %s` sets the host name", ops[0])}
	}
	return readOnlyRule(nil, a)
}

var fileSpec = newSpec("bcdEhiklLNnrsSv0", "eFfmP", map[string]arity{
	"brief": noArg, "checking-printout": noArg, "debug": noArg, "exclude": reqArg,
	"exclude-quiet": reqArg, "extension": noArg, "files-from": reqArg,
	"separator": reqArg, "mime": noArg, "mime-type": noArg, "mime-encoding": noArg,
	"keep-going": noArg, "list": noArg, "no-dereference": noArg,
	"dereference": noArg, "magic-file": reqArg, "no-pad": noArg, "no-buffer": noArg,
	"parameter": reqArg, "raw": noArg, "special-files": noArg, "print0": noArg,
	"apple": noArg, "help": noArg, "version": noArg,
}).mark(Write, "`file -C` compiles a magic file and writes it%s", noArg, "C", "compile").
	mark(Unknown, "`file` runs decompressors or changes access times%s", noArg, "z", "Z", "p", "uncompress", "uncompress-noreport", "preserve-date", "no-sandbox")

var base64Spec = newSpec("dDi", "wb", map[string]arity{
	"decode": noArg, "ignore-garbage": noArg, "wrap": reqArg, "break": reqArg,
	"input": reqArg, "help": noArg, "version": noArg,
}).mark(Write, "`base64 -o` writes its output to %q", reqArg, "o", "output")

var rgSpec = newSpec("abcFHhIiLlnNopPqsSUuvVwx0.", "ABCeEfgjmMrtTd", map[string]arity{
	"text": noArg, "byte-offset": noArg, "count": noArg, "count-matches": noArg,
	"fixed-strings": noArg, "with-filename": noArg, "no-filename": noArg,
	"ignore-case": noArg, "follow": noArg, "no-follow": noArg,
	"files-with-matches": noArg, "files-without-match": noArg, "files": noArg,
	"line-number": noArg, "no-line-number": noArg, "only-matching": noArg,
	"pretty": noArg, "pcre2": noArg, "no-pcre2": noArg, "quiet": noArg,
	"case-sensitive": noArg, "smart-case": noArg, "multiline": noArg,
	"no-multiline": noArg, "multiline-dotall": noArg, "unrestricted": noArg,
	"invert-match": noArg, "version": noArg, "help": noArg, "word-regexp": noArg,
	"line-regexp": noArg, "null": noArg, "null-data": noArg, "hidden": noArg,
	"no-hidden": noArg, "no-ignore": noArg, "ignore": noArg, "no-ignore-vcs": noArg,
	"no-ignore-dot": noArg, "no-ignore-global": noArg, "no-ignore-parent": noArg,
	"no-ignore-exclude": noArg, "no-ignore-files": noArg, "no-ignore-messages": noArg,
	"no-messages": noArg, "messages": noArg, "json": noArg, "no-json": noArg,
	"vimgrep": noArg, "heading": noArg, "no-heading": noArg, "column": noArg,
	"no-column": noArg, "stats": noArg, "no-stats": noArg, "sort-files": noArg,
	"trim": noArg, "no-trim": noArg, "type-list": noArg, "debug": noArg,
	"trace": noArg, "crlf": noArg, "no-crlf": noArg, "glob-case-insensitive": noArg,
	"ignore-file-case-insensitive": noArg, "one-file-system": noArg,
	"binary": noArg, "no-binary": noArg, "passthru": noArg, "no-unicode": noArg,
	"include-zero": noArg, "line-buffered": noArg, "block-buffered": noArg,
	"mmap": noArg, "no-mmap": noArg, "no-require-git": noArg, "no-search-zip": noArg,
	"pcre2-version": noArg, "no-encoding": noArg, "max-columns-preview": noArg,
	"no-config": noArg, "auto-hybrid-regex": noArg, "no-auto-hybrid-regex": noArg,
	"after-context": reqArg, "before-context": reqArg, "context": reqArg,
	"regexp": reqArg, "encoding": reqArg, "file": reqArg, "glob": reqArg,
	"iglob": reqArg, "threads": reqArg, "max-count": reqArg, "max-columns": reqArg,
	"replace": reqArg, "type": reqArg, "type-not": reqArg, "max-depth": reqArg,
	"maxdepth": reqArg, "max-filesize": reqArg, "colors": reqArg, "color": reqArg,
	"path-separator": reqArg, "sort": reqArg, "sortr": reqArg, "type-add": reqArg,
	"type-clear": reqArg, "ignore-file": reqArg, "context-separator": reqArg,
	"field-context-separator": reqArg, "field-match-separator": reqArg,
	"dfa-size-limit": reqArg, "regex-size-limit": reqArg, "engine": reqArg,
	"generate": reqArg, "hyperlink-format": reqArg, "pre-glob": reqArg,
}).mark(Unknown, "ripgrep runs the preprocessor %q on every file", reqArg, "pre").
	mark(Unknown, "ripgrep runs %q to learn the host name", reqArg, "hostname-bin").
	mark(Unknown, "ripgrep -z runs decompression programs on compressed files%s", noArg, "z", "search-zip")

func init() { rgSpec.abbrev = false }

// rgRule reads ripgrep's flags; a config file named by RIPGREP_CONFIG_PATH
// can add --pre to every run, so its presence in the environment is Unknown.
func rgRule(w *walker, a argv) finding {
	if w != nil && envHas(w.opt.Env, "RIPGREP_CONFIG_PATH") {
		return finding{Unknown, "rg-config", "RIPGREP_CONFIG_PATH names a config file that may add --pre to every ripgrep run"}
	}
	return specRule(rgSpec, nil)(w, a)
}

func envHas(env []string, name string) bool {
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k == name {
			return true
		}
	}
	return false
}

// ddOperands are dd's key=value operands that do not write.
var ddOperands = map[string]bool{
	"if": true, "bs": true, "ibs": true, "obs": true, "cbs": true, "skip": true,
	"iseek": true, "seek": true, "oseek": true, "count": true, "conv": true,
	"iflag": true, "oflag": true, "status": true,
}

func ddRule(_ *walker, a argv) finding {
	if a.dynamic() {
		return finding{Unknown, "dynamic-argument", "`dd` has an operand computed at run time"}
	}
	hasOf := false
	for _, v := range a.vals {
		k, val, ok := strings.Cut(v, "=")
		hasOf = hasOf || (k == "of" && ok)
		switch {
		case k == "of" && ok && !inertTargets[val]:
			return finding{Write, "dd-of", fmt.Sprintf("`dd of=%s` writes a file", val)}
		case k == "of" && ok, v == "--help", v == "--version":
		case !ok || !ddOperands[k]:
			return finding{Unknown, "unknown-option", fmt.Sprintf("`dd` operand %q is not one the rules know", v)}
		}
	}
	if !hasOf && len(a.vals) > 0 && !hasHelp(a) {
		// Qwen shellAstParser `dd if=input` → unknown: only an inert of=
		// is proven read-only.
		return finding{Unknown, "dd-no-of", "`dd` without of= is not proven read-only by the peer's rules"}
	}
	return readOnlyRule(nil, a)
}

// printfRule: -v assigns a variable (and evaluates its subscript), and a
// format computed at run time could be -v.
func printfRule(_ *walker, a argv) finding {
	i := 0
	if i < len(a.vals) && !a.dyn[i] && a.vals[i] == "--" {
		i++
	}
	switch {
	case i >= len(a.vals):
		return readOnlyRule(nil, a)
	case a.dyn[i]:
		return finding{Unknown, "printf-dynamic-format", "the `printf` format is computed at run time and could be -v"}
	case i == 0 && strings.HasPrefix(a.vals[i], "-v"):
		return finding{Unknown, "printf-v", "`printf -v` assigns a shell variable and evaluates its subscript"}
	case i == 0 && len(a.vals[i]) > 1 && a.vals[i][0] == '-' && a.vals[i] != "--help":
		return finding{Unknown, "unknown-option", fmt.Sprintf("`printf` option %q is not one the rules know", a.vals[i])}
	}
	return readOnlyRule(nil, a)
}

// killListing are kill/pkill/killall options that list or describe rather
// than signal (killall also reads the single-dash `-help`).
var killListing = map[string]bool{
	"-l": true, "-L": true, "--list": true, "--table": true, "-h": true,
	"--help": true, "-V": true, "--version": true, "-help": true,
}

// killRule: signalling a process is a write, except signal 0 (a probe),
// listing, and a signal computed at run time.
func killRule(_ *walker, a argv) finding {
	if len(a.vals) == 0 {
		return finding{Unknown, "kill-usage", fmt.Sprintf("`%s` without arguments signals nothing", a.name)}
	}
	for i := 0; i < len(a.vals); i++ {
		v := a.vals[i]
		if a.dyn[i] {
			if p := argPrefix(a, i); p == "-" || signalOption(a.name, p) {
				return finding{Unknown, "kill-dynamic-signal", fmt.Sprintf("the signal given to `%s` is computed at run time", a.name)}
			}
			continue
		}
		if v == "--" {
			break
		}
		if killListing[v] || strings.HasPrefix(v, "--list") {
			return finding{Unknown, "kill-list", fmt.Sprintf("`%s %s` lists signals or prints help", a.name, v)}
		}
		sig, next, ok := signalValue(a.name, v)
		if !ok {
			continue
		}
		if next {
			i++
			if i >= len(a.vals) || a.dyn[i] {
				return finding{Unknown, "kill-dynamic-signal", fmt.Sprintf("the signal given to `%s` is computed at run time", a.name)}
			}
			sig = a.vals[i]
		}
		if isSignalZero(sig) {
			return finding{Unknown, "kill-signal-0", fmt.Sprintf("`%s` with signal 0 only probes whether a process exists", a.name)}
		}
	}
	return finding{Write, "process-signal", fmt.Sprintf("`%s` signals a process", a.name)}
}

// argPrefix is the literal text a dynamic argument starts with ("" when
// unknown, as for argvs built by find -exec).
func argPrefix(a argv, i int) string {
	if i < len(a.pre) {
		return a.pre[i]
	}
	return ""
}

// signalOption reports whether a dynamic word starting with p names the
// signal: `--signal=$S`, or `-s$S` where -s is the signal option.
func signalOption(name, p string) bool {
	switch {
	case strings.HasPrefix(p, "--signal"):
		return true
	case p == "-s":
		return name != "pkill"
	case p == "-n":
		return name == "kill"
	}
	return false
}

// signalValue finds a signal in an option: -s SIG / --signal SIG (next is
// true: the value is the next word), -sSIG, --signal=SIG, -SIG. kill also
// reads -n SIG. For pkill, -s is the session and -n "newest", and for
// killall -n is a namespace PID, so those are no signal options (Qwen
// shellAstParser: `pkill -n 0`, `pkill -s 0 process`, `killall -n0 process`
// → write).
func signalValue(name, v string) (sig string, next, ok bool) {
	sOpt := name != "pkill"
	nOpt := name == "kill"
	switch {
	case v == "--signal", v == "-s" && sOpt, v == "-n" && nOpt:
		return "", true, true
	case strings.HasPrefix(v, "--signal="):
		return v[len("--signal="):], false, true
	case strings.HasPrefix(v, "-s") && sOpt, strings.HasPrefix(v, "-n") && nOpt:
		return v[2:], false, true
	case len(v) > 1 && v[0] == '-' && v[1] != '-':
		return v[1:], false, true
	}
	return "", false, false
}

func isSignalZero(sig string) bool {
	s := strings.TrimPrefix(strings.ToUpper(sig), "SIG")
	return s != "" && strings.Trim(s, "0") == ""
}

// xxd options: flags and options with a value (xxd reads -c8 and -c 8).
var (
	xxdFlags  = map[string]bool{"a": true, "autoskip": true, "b": true, "bits": true, "C": true, "capitalize": true, "e": true, "E": true, "EBCDIC": true, "i": true, "include": true, "p": true, "ps": true, "postscript": true, "plain": true, "r": true, "revert": true, "u": true, "uppercase": true, "d": true, "h": true, "help": true, "v": true, "version": true}
	xxdValues = map[string]bool{"c": true, "cols": true, "g": true, "groupsize": true, "l": true, "len": true, "o": true, "offset": true, "s": true, "seek": true, "n": true, "name": true, "R": true}
)

// xxdRule: `xxd IN OUT` (with or without -r) writes OUT.
func xxdRule(_ *walker, a argv) finding {
	if a.dynamic() {
		return finding{Unknown, "dynamic-argument", "`xxd` has an argument computed at run time"}
	}
	var ops []string
	for i := 0; i < len(a.vals); i++ {
		v := a.vals[i]
		name := strings.TrimLeft(v, "-")
		switch {
		case len(ops) > 0 || v == "-" || !strings.HasPrefix(v, "-"):
			ops = append(ops, v)
		case xxdFlags[name]:
		case xxdValues[name]:
			i++
		case name != "" && xxdValues[name[:1]]:
		default:
			return finding{Unknown, "unknown-option", fmt.Sprintf("`xxd` option %q is not one the rules know", v)}
		}
	}
	if len(ops) >= 2 && !inertTargets[ops[1]] {
		return finding{Write, "xxd-output", fmt.Sprintf("`xxd IN OUT` writes %q", ops[1])}
	}
	return readOnlyRule(nil, a)
}

// arithTestOps compare integers; under `[[` bash evaluates their operands
// as arithmetic.
var arithTestOps = map[string]bool{"-eq": true, "-ne": true, "-lt": true, "-le": true, "-gt": true, "-ge": true}

// testRule classifies test, [ and (under sh) [[. `-v NAME` and `-R NAME`
// evaluate a subscript in NAME, and with [[ so do arithmetic operands. A
// computed word in an operator position could be either, so test's fixed
// argument-count grammar decides where computed words are safe.
func testRule(_ *walker, a argv) finding {
	if f, bad := testSplitRisk(a); bad {
		return f
	}
	args, dyn := a.vals, a.dyn
	if (a.name == "[" || a.name == "[[") && len(args) > 0 && !dyn[len(args)-1] {
		args, dyn = args[:len(args)-1], dyn[:len(dyn)-1]
	}
	for i, v := range args {
		if dyn[i] {
			continue
		}
		if (v == "-v" || v == "-R") && i+1 < len(args) && (dyn[i+1] || !isName(args[i+1])) {
			return finding{Unknown, "arithmetic-test", fmt.Sprintf("`%s %s` evaluates the subscript of its operand, which may run a command", a.name, v)}
		}
		if a.name == "[[" && arithTestOps[v] && !intOperands(args, dyn, i) {
			return finding{Unknown, "arithmetic-test", fmt.Sprintf("`[[ … %s … ]]` evaluates its operands as arithmetic, which may run a command", v)}
		}
	}
	if !testDynSafe(dyn) {
		return finding{Unknown, "test-dynamic-operator", fmt.Sprintf("a computed word in `%s` could be an operator such as -v", a.name)}
	}
	return finding{ReadOnly, "test", fmt.Sprintf("`%s` only tests files and strings", a.name)}
}

func intOperands(args []string, dyn []bool, i int) bool {
	for _, j := range []int{i - 1, i + 1} {
		if j < 0 || j >= len(args) || dyn[j] || !isIntString(args[j]) {
			return false
		}
	}
	return true
}

func isIntString(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	return digitsOnly(s)
}

// testDynSafe reports whether computed words sit only where test reads an
// operand: with one argument anywhere, with two the second, with three the
// first and third.
func testDynSafe(dyn []bool) bool {
	switch len(dyn) {
	case 0, 1:
		return true
	case 2:
		return !dyn[0]
	case 3:
		return !dyn[1]
	}
	for _, d := range dyn {
		if d {
			return false
		}
	}
	return true
}

// envRule: `env` alone prints the environment; with anything else it runs
// a command or changes the environment of one.
func envRule(_ *walker, a argv) finding {
	if len(a.vals) == 0 {
		return finding{ReadOnly, "env-print", "`env` without arguments only prints the environment"}
	}
	return finding{Unknown, "wrapper", "`env` with arguments runs another command; wrappers are not unwrapped"}
}

// cdRule keeps the peer's compatibility: cd only moves this shell, but it is
// remembered because a later git cannot be judged in the new directory.
func cdRule(w *walker, a argv) finding {
	if a.inner {
		return finding{Unknown, "builtin-exec", fmt.Sprintf("`%s` is a shell builtin, not a program find can run", a.name)}
	}
	if w != nil {
		w.sawCd = true
	}
	return finding{ReadOnly, "cd", fmt.Sprintf("`%s` only changes this shell's directory", a.name)}
}

func sedRule(_ *walker, a argv) finding {
	if a.dynamic() {
		return finding{Unknown, "dynamic-argument", "`sed` has an argument computed at run time, which could be a script or an option"}
	}
	s, why := classifySed(a.vals)
	return finding{s.norm(), "sed", "sed: " + why}
}

func awkRule(_ *walker, a argv) finding {
	if a.dynamic() {
		return finding{Unknown, "dynamic-argument", fmt.Sprintf("`%s` has an argument computed at run time, which could be a program or an option", a.name)}
	}
	s, why := classifyAwk(a.vals)
	return finding{s.norm(), "awk", a.name + ": " + why}
}

// historyRule: listing the history reads it; -c -d -s change it and -w -a
// write the history file.
func historyRule(_ *walker, a argv) finding {
	switch {
	case len(a.vals) == 0, len(a.vals) == 1 && !a.dyn[0] && digitsOnly(a.vals[0]):
		return finding{ReadOnly, "history-list", "`history` only lists the shell history"}
	case !a.dynamic() && (contains1(a.vals, "-w") || contains1(a.vals, "-a")):
		return finding{Write, "history-write", "`history -w/-a` writes the history file"}
	}
	return finding{Unknown, "state-builtin", "`history` with options changes the shell history"}
}

// ulimitRule: options alone print limits; a value sets one.
func ulimitRule(_ *walker, a argv) finding {
	for i, v := range a.vals {
		if a.dyn[i] || !strings.HasPrefix(v, "-") {
			return finding{Unknown, "state-builtin", "`ulimit` with a value changes a resource limit for later commands"}
		}
	}
	return finding{ReadOnly, "ulimit-print", "`ulimit` without a value only prints limits"}
}

// commandBuiltinRule: `command -v/-V NAME` only describes NAME; any other
// form runs a command, bypassing functions, and is not unwrapped.
func commandBuiltinRule(_ *walker, a argv) finding {
	if len(a.vals) >= 2 && !a.dyn[0] && (a.vals[0] == "-v" || a.vals[0] == "-V") && !a.inner {
		return finding{ReadOnly, "command-v", "`command -v` only prints how a name would resolve"}
	}
	return finding{Unknown, "wrapper", "`command` runs another command; wrappers are not unwrapped"}
}

// setOptions are the options set may toggle without changing how later
// words are parsed or what runs: errexit, nounset, pipefail, xtrace (PS4
// from the environment is refused separately), noglob, noclobber, verbose,
// noexec.
var setOptions = toSet("errexit", "nounset", "pipefail", "xtrace", "noglob", "noclobber", "verbose", "noexec")

// setRule accepts `set` alone (prints variables) and the option forms
// above; anything else (set -k, set +B, set -- args, set -T) is Unknown.
func setRule(_ *walker, a argv) finding {
	for i := 0; i < len(a.vals); i++ {
		v := a.vals[i]
		switch {
		case a.dyn[i]:
			return finding{Unknown, "state-builtin", "`set` has an argument computed at run time"}
		case len(v) > 1 && (v[0] == '-' || v[0] == '+') && strings.HasSuffix(v, "o") && strings.Trim(v[1:len(v)-1], "euxfCvn") == "":
			if i+1 >= len(a.vals) || a.dyn[i+1] || !setOptions[a.vals[i+1]] {
				return finding{Unknown, "state-builtin", "`set -o` changes a shell option the rules do not model"}
			}
			i++
		case len(v) > 1 && (v[0] == '-' || v[0] == '+') && strings.Trim(v[1:], "euxfCvn") == "":
		default:
			return finding{Unknown, "state-builtin", fmt.Sprintf("`set %s` changes shell state the rules do not model", v)}
		}
	}
	return finding{ReadOnly, "set-options", "`set` only prints variables or toggles error-handling and tracing options"}
}

func contains1(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
