package programs

import (
	"slices"
	"strings"
	"testing"
)

func TestFamily(t *testing.T) {
	cases := map[string]string{
		"python3.13t": "python3", "python3.12": "python3", "luajit-2.1.0-beta3": "luajit",
		"ghc-9.6.6": "ghc", "php8.3-cli": "php", "sbcl2.4": "sbcl", "javac11": "javac",
		"node20": "node", "osh": "osh", "posh": "posh", "rzsh": "rzsh", "rsh": "rsh",
		"wine": "wine", "wsl.exe": "wsl.exe", "schroot": "schroot", "sudoedit": "sudoedit",
		"run-parts": "run-parts", "just": "just", "task": "task", "scons": "scons",
		"pants": "pants", "nx": "nx", "gulp": "gulp", "grunt": "grunt", "bunx": "bunx",
		"pipenv": "pipenv", "rye": "rye", "nix-build": "nix-build", "zig": "zig",
		"dart": "dart", "crystal": "crystal", "clojure": "clojure", "ocaml": "ocaml",
		"nim": "nim", "dmd": "dmd", "tcc": "tcc", "Rscript": "Rscript", "gcc-13": "gcc",
		"Python3": "python3", "bash.exe": "bash", "pip3.11": "pip3", "go1.22": "go",
		"ruby3": "ruby", "python3.11d": "python3",
	}
	for in, want := range cases {
		p := Family(in)
		if p == nil || p.Name != want {
			got := "nil"
			if p != nil {
				got = p.Name
			}
			t.Errorf("Family(%q) = %s, want %s", in, got, want)
		}
		if p != nil && !p.Kind.Any(Floor) {
			t.Errorf("Family(%q) = %s is not on the floor (kind %b)", in, p.Name, p.Kind)
		}
	}
	for _, in := range []string{"cat", "mytool", "ls2", "grep"} {
		if p := Family(in); p != nil && p.Kind.Any(Floor) {
			t.Errorf("Family(%q) = %s is on the floor", in, p.Name)
		}
	}
}

func TestParse(t *testing.T) {
	rm := Lookup("rm").Opts
	args := func(v ...string) []Arg {
		out := make([]Arg, len(v))
		for i, s := range v {
			out[i] = Arg{Value: s, Static: true}
		}
		return out
	}
	p := rm.Parse(args("--recu", "-f", "/", "x"))
	if !p.Has("recursive") || !p.Has("f") || len(p.Operands) != 2 {
		t.Fatalf("rm --recu -f / x: %+v", p)
	}
	p = rm.Parse(args("-rf", "--", "-x"))
	if !p.Has("r") || !p.Has("f") || len(p.Operands) != 1 {
		t.Fatalf("rm -rf -- -x: %+v", p)
	}
	p = rm.Parse(args("--ver", "x"))
	if p.Unknown == "" {
		t.Fatalf("rm --ver is ambiguous (verbose, version): %+v", p)
	}
	p = rm.Parse(args("--pre", "x"))
	if !p.Has("preserve-root") {
		t.Fatalf("rm --pre is --preserve-root: %+v", p)
	}
	x := Lookup("xargs").Opts
	p = x.Parse(args("-l", "rm", "-rf", "/"))
	if p.Rest != 1 || !p.Has("l") {
		t.Fatalf("xargs -l rm: %+v", p)
	}
	p = x.Parse(args("--arg-file", "F", "rm"))
	if p.Rest != 2 {
		t.Fatalf("xargs --arg-file F rm: %+v", p)
	}
	p = x.Parse(args("-I{}", "rm", "{}"))
	if p.Rest != 1 {
		t.Fatalf("xargs -I{} rm: %+v", p)
	}
	p = x.Parse(args("-I", "{}", "rm", "{}"))
	if p.Rest != 2 {
		t.Fatalf("xargs -I {} rm: %+v", p)
	}
	b := Lookup("bash").Opts
	p = b.Parse(args("-c", "-e", "x", "a0"))
	if !p.Has("c") || len(p.Operands) != 2 || p.Operands[0] != 2 {
		t.Fatalf("bash -c -e x: %+v", p)
	}
	p = b.Parse(args("-o", "errexit", "-c", "--", "x"))
	if !p.Has("c") || p.Operands[0] != 4 {
		t.Fatalf("bash -o errexit -c -- x: %+v", p)
	}
	// tar's old-style key: each valued letter takes the next word in turn.
	tar := Lookup("tar").Opts
	p = tar.Parse(args("tfI", "a.tar", "rm -f x", "m"))
	if i, ok := p.First(RunsProgram); !ok || i.Value != "rm -f x" || i.ValueAt != 2 || len(p.Operands) != 1 || p.Operands[0] != 3 {
		t.Fatalf("tar tfI a.tar CMD m: %+v", p)
	}
	p = tar.Parse(args("xCf", "/", "a.tar", "-v"))
	if !p.Has("x", "v") || len(p.Operands) != 0 || p.Found[1].Value != "/" || p.Found[2].Value != "a.tar" {
		t.Fatalf("tar xCf / a.tar -v: %+v", p)
	}
	if p = tar.Parse(args("tf")); p.Unknown == "" {
		t.Fatalf("tar tf without its value: %+v", p)
	}
	// A word with a dash is a cluster, where f takes the rest of it.
	if p = tar.Parse(args("-tfI", "a.tar")); p.Found[1].Value != "I" {
		t.Fatalf("tar -tfI a.tar: %+v", p)
	}
}

func TestLookupPrefix(t *testing.T) {
	for _, n := range []string{"mkfs.ext4", "mkfs.vfat", "mkfs.btrfs", "mkfs"} {
		if !Is(n, DiskFormatter) {
			t.Errorf("%s is not a disk formatter", n)
		}
	}
	if Lookup("mkfsx") != nil && Is("mkfsx", DiskFormatter) {
		t.Errorf("mkfsx matched")
	}
}

// BenchmarkBuildTable is what the first Lookup costs a process: the table
// and its index (built lazily, not at package initialization).
func BenchmarkBuildTable(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		groups := buildTable()
		m := make(map[string]*Program, 1024)
		for _, g := range groups {
			for i := range g {
				m[g[i].Name] = &g[i]
			}
		}
	}
}

// Each git command is listed once, under one kind: a second listing would
// silently decide its kind by order.
func TestGitCommandsListedOnce(t *testing.T) {
	seen := map[string]GitKind{}
	for _, k := range gitCommandNames {
		for _, n := range strings.Fields(k.names) {
			if prev, ok := seen[n]; ok {
				t.Errorf("git %s is listed as kind %d and %d", n, prev, k.kind)
			}
			seen[n] = k.kind
		}
	}
	for _, c := range []struct {
		sub  string
		kind GitKind
		ok   bool
	}{{"status", GitReads, true}, {"push", GitWrites, true}, {"stash", GitOther, true}, {"commit-graph", GitOther, true}, {"lfs", 0, false}, {"gitk", 0, false}} {
		if k, ok := GitCommand(c.sub); k != c.kind || ok != c.ok {
			t.Errorf("GitCommand(%s) = %d, %v; want %d, %v", c.sub, k, ok, c.kind, c.ok)
		}
	}
}

// TestOptionLists: the grammar kept as the table's lists reads as the maps
// it replaced did — exact names only (no match inside another name or
// across a space), a later list or a Long/Short winning over an earlier
// one, abbreviations unique or ambiguous.
func TestOptionLists(t *testing.T) {
	o := Opts("ab", "kb", &Longs{None: "all alpha\toutput", Req: "key\nfile-name", Opt: "color output"}).
		Long(Opt{Arity: ReqArg, Effect: Writes, Why: "writes %q"}, "file-name").
		Short("a", Opt{Effect: RunsShell})
	for _, c := range []struct {
		name string
		ok   bool
		want Opt
	}{
		{"all", true, Opt{}}, {"alpha", true, Opt{}}, {"key", true, Opt{Arity: ReqArg}},
		{"color", true, Opt{Arity: OptArg}}, {"output", true, Opt{Arity: OptArg}},
		{"file-name", true, Opt{Arity: ReqArg, Effect: Writes, Why: "writes %q"}},
		{"al", false, Opt{}}, {"lpha", false, Opt{}}, {"ey", false, Opt{}}, {"all alpha", false, Opt{}}, {"alpha\toutput", false, Opt{}},
		{"file", false, Opt{}}, {"name", false, Opt{}}, {"", false, Opt{}}, {"colo", false, Opt{}},
	} {
		got, ok := o.exactLong(c.name)
		if ok != c.ok || got != c.want {
			t.Errorf("exactLong(%q) = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
	for _, c := range []struct {
		name, canon string
		ok          bool
	}{
		{"alp", "alpha", true}, {"fil", "file-name", true}, {"k", "key", true}, {"out", "output", true},
		{"al", "", false}, {"a", "", false}, {"z", "", false}, {"ke y", "", false},
	} {
		canon, _, ok := o.lookupLong(c.name)
		if ok != c.ok || canon != c.canon {
			t.Errorf("lookupLong(%q) = %q, %v; want %q, %v", c.name, canon, ok, c.canon, c.ok)
		}
	}
	for b, want := range map[byte]Opt{'a': {Effect: RunsShell}, 'b': {Arity: ReqArg}, 'k': {Arity: ReqArg}} {
		if got, ok := o.shortOpt(b); !ok || got != want {
			t.Errorf("shortOpt(%q) = %+v, %v; want %+v", b, got, ok, want)
		}
	}
	if _, ok := o.shortOpt('z'); ok {
		t.Error("shortOpt('z') found an option the grammar does not have")
	}
	if !o.CarriesCommands() {
		t.Error("an option given RunsShell by Short does not count as carrying commands")
	}
	if Opts("ab", "k", &Longs{None: "all"}).CarriesCommands() {
		t.Error("options without an effect carry commands")
	}
}

// TestOptionListsNameOnce: a long option is named once in a program's
// lists (a repeat would make an abbreviation of it look ambiguous).
func TestOptionListsNameOnce(t *testing.T) {
	All(func(p *Program) {
		if p.Opts == nil {
			return
		}
		seen := map[string]bool{}
		for _, list := range []string{p.Opts.longs.None, p.Opts.longs.Req, p.Opts.longs.Opt} {
			for n := range strings.FieldsSeq(list) {
				if seen[n] {
					t.Errorf("%s: --%s is listed twice", p.Name, n)
				}
				seen[n] = true
			}
		}
	})
}

func TestEscapeShellTexts(t *testing.T) {
	for _, c := range []struct {
		e    Escape
		code string
		want []string
	}{
		{EscapeEx, "!rm -f x", []string{"rm -f x"}},
		{EscapeEx, "set nu | silent !rm -f x | q", []string{"rm -f x | q"}},
		{EscapeEx, "%!sort", []string{"sort"}},
		{EscapeEx, "r !date", []string{"date"}},
		{EscapeEx, "term ++close make", []string{"make"}},
		{EscapeEx, "%s/a/b/g", nil},
		{EscapeEx, "w!", nil},
		{EscapeKeys, "!rm -f x", []string{"rm -f x"}},
		{EscapeKeys, "|ash", []string{"sh"}},
		{EscapeKeys, "G", nil},
		{EscapeGdb, "shell rm -f x", []string{"rm -f x"}},
		{EscapeGdb, "she ls", []string{"ls"}},
		{EscapeGdb, "pipe bt | grep main", []string{"grep main"}},
		{EscapeGdb, "show version", nil},
		{EscapeSQL, "select 1; \\! rm -f x", []string{"rm -f x"}},
		{EscapeSQL, "select 1; SYSTEM rm -f x", []string{"rm -f x"}},
		{EscapeSQL, "select system from t", nil},
		{EscapeTcl, "spawn ssh h; expect x", []string{"ssh h"}},
		{EscapeTcl, "set x [exec -- ls -l]", []string{"ls -l"}},
		{EscapeTcl, "puts hi", nil},
	} {
		if got := c.e.ShellTexts(c.code); !slices.Equal(got, c.want) {
			t.Errorf("%d %q: %q, want %q", c.e, c.code, got, c.want)
		}
	}
}

// TestInertVarsCarryNoCode: no variable the table knows to carry or load
// code, or to hold a program's options, is inert.
func TestInertVarsCarryNoCode(t *testing.T) {
	for _, n := range inertVars.Words() {
		if Var(n) != PlainVar {
			t.Errorf("%s is inert and also a variable of kind %d", n, Var(n))
		}
		if !Inert(n) {
			t.Errorf("Inert(%s) = false", n)
		}
	}
	for _, n := range []string{"PATH", "LD_PRELOAD", "NODE_OPTIONS", "HOME", "GOFLAGS", "MYVAR", "npm_config_script_shell", "PAGER"} {
		if Inert(n) {
			t.Errorf("Inert(%s) = true", n)
		}
	}
}
