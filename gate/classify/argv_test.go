package classify

import (
	"strings"
	"testing"

	"github.com/agentexec/agentexec/gate/programs"
)

// tableNames lists the table's names that keep.
func tableNames(keep func(*programs.Program) bool) []string {
	var out []string
	programs.All(func(p *programs.Program) {
		if keep(p) {
			out = append(out, p.Name)
		}
	})
	return out
}

// plainWriter is a writer the classifier reads by its kind alone.
func plainWriter(p *programs.Program) bool {
	return p.Kind.Has(programs.Writer) && !p.Kind.Has(programs.Reader) && p.Scanner == "" && p.Opts == nil || p.Kind.Has(programs.Writer) && p.Targets != programs.NoTargets && p.Scanner == ""
}

// TestReadOnlyCommandTable gives every plain read-only command both
// directions: read-only alone and with a file argument, write with an
// output redirect, unknown when spelled differently or given a path
// outside the system directories (sysdir.go).
func TestReadOnlyCommandTable(t *testing.T) {
	for _, n := range tableNames(plainReader) {
		runCases(t, Options{}, []classCase{
			{n, ro},
			{n + " a.txt", ro},
			{n + " a.txt > out", wr},
			{n + " $(rm x)", wr},
			{"X=1 " + n, un},
			{"/usr/local/bin/" + n, un},
			{"/usr/bin/" + n, sys(ro)},
		})
		if up := strings.ToUpper(n); up != n {
			runCases(t, Options{}, []classCase{{up, un}})
		}
	}
}

func TestWriteCommandTable(t *testing.T) {
	for _, n := range tableNames(plainWriter) {
		runCases(t, Options{}, []classCase{
			{n + " x", wr},
			{n + " -- --help", wr},
			{n + " --help", un},
			{n + " --version", un},
			{"./" + n + " x", un},
		})
	}
	for _, n := range tableNames(func(p *programs.Program) bool { return p.Kind.Has(programs.Viewer) && !p.Kind.Has(programs.Privilege) }) {
		runCases(t, Options{}, []classCase{{n + " a.txt", un}, {n + " a.txt > out", wr}})
	}
}

func TestArgvRules(t *testing.T) {
	runCases(t, Options{}, []classCase{
		// sort: accept-list, clusters, abbreviations, arity.
		{"sort -u a", ro}, {"sort --reverse a", ro}, {"sort --rev a", ro}, {"sort -k 2 -o out a", wr},
		{"sort -k -o a", ro}, {"sort --key=-o a", ro}, {"sort --ou=x a", un} /* Qwen `sort --out=output` → unknown */, {"sort --c a", un},
		{"sort --compress=gzip a", un}, {"sort -S 1M a", ro}, {"sort --check a", ro}, {"sort --check=quiet a", ro},
		{"sort -T /tmp a", ro}, {"sort --files0-from=list", ro}, {"sort --reverse=x a", un},
		// tree
		{"tree -a -L 2 src", ro}, {"tree -o out", wr}, {"tree -Cofile", un}, {"tree --output=x", un}, // Qwen `tree -Cofile .`, `tree --output=tree.txt` → unknown
		{"tree -P '*.go'", ro}, {"tree -R -H .", wr}, {"tree --charset=ascii", ro}, {"tree --ch=x", un},
		// uniq
		{"uniq a", ro}, {"uniq -s 2 -w 3 a", ro}, {"uniq --skip-fields=1 a b", wr}, {"uniq -c - out", wr}, {"uniq -x a", un},
		// tee
		{"tee -a", un} /* Qwen `tee` → unknown */, {"tee -a -- -output", wr}, {"tee /dev/null", ro}, {"tee a b", wr}, {"tee -p out", wr}, {"tee --bogus", un},
		// dd
		{"dd if=a bs=1M count=1 status=none", un} /* Qwen `dd if=input` → unknown */, {"dd if=a of=/dev/null", ro}, {"dd of=x", wr}, {"dd if=a of=/dev/stdout", ro}, {"dd foo", un},
		{"dd --help", ro}, {"dd of=$X", un},
		// printf
		{"printf x", ro}, {"printf '%d\\n' 1", ro}, {"printf '%s' \"$HOME\"", ro}, {"printf -v", un},
		{"printf -vx y", un}, {"printf -- -v", ro}, {"printf $F", un}, {"printf -x", un},
		// rg
		{"rg -i foo src", ro}, {"rg --type go foo", ro}, {"rg -g '*.go' foo", ro}, {"rg foo --pre=x", un},
		{"rg --pre-glob '*.gz' foo", ro}, {"rg -uuu foo", ro}, {"rg --no-search-zip foo", ro},
		{"rg -e foo -z", un}, {"rg --hostname-bin=x foo", un}, {"rg --unknown foo", un}, {"ripgrep -z foo", un},
		// kill family
		{"kill -TERM 1", wr}, {"kill -s TERM 1", wr}, {"kill -s SIG0 1", un}, {"kill -00 1", un},
		{"kill --list", un}, {"kill --table", un}, {"kill -s", un}, {"killall -s 0 foo", un},
		{"pkill --signal 0 foo", un}, {"pkill -f foo", wr},
		// date, hostname, file, xxd, base64
		{"date -d yesterday +%F", ro}, {"date --date=@0", ro}, {"date -I", ro}, {"date --set=now", wr},
		{"date --se=now", un} /* abbreviated writer, as Qwen `sort --out=output` */, {"date --set=now", wr}, {"date -x", un}, {"date +%s $X", un},
		{"hostname -f", un}, {"hostname --fq", un}, {"hostname -A", un}, {"hostname -si", un}, {"hostname -s", ro}, {"hostname -I", ro}, {"hostname -y", ro}, {"hostname -b", wr}, {"hostname -F f", wr}, {"hostname -z", un},
		{"file -b --mime-type a", ro}, {"file --compile", wr}, {"file -p a", un}, {"file --uncompress a", un},
		{"xxd -c 8 -g 1 a", ro}, {"xxd -c8 a", ro}, {"xxd -s 0x10 -l 4 a", ro}, {"xxd a /dev/null", ro},
		{"xxd -Q a", un}, {"xxd --", un}, {"xxd -", ro}, {"xxd -r a out", wr}, {"xxd $X", un},
		{"base64 -d a", ro}, {"base64 -w0 a", ro}, {"base64 -o out a", wr}, {"base64 --output=x", wr}, {"base64 -q", un},
		// test and [
		{"test -n x", ro}, {"test 1 -eq 1", ro}, {"test x -eq 1", ro}, {"[ \"$a\" -eq 1 ]", ro},
		{"test -v x", ro}, {"test -v", ro}, {"test -v \"$x\"", un}, {"test -R 'a[1]'", un},
		// Unquoted, a="-v x[$(cmd)]" splits and runs cmd (TestTestSplitConfirm).
		{"[ $a ]", un}, {"[ -z $a ]", un}, {"[ \"$a\" ]", ro}, {"[ -z \"$a\" ]", ro}, {"[ $a -z ]", un}, {"[ x $a y ]", un}, {"[ a = b -a $c = d ]", un},
		// history, ulimit, command, set
		{"history", ro}, {"history 20", ro}, {"history -w", wr}, {"history -c", un}, {"history -s x", un},
		{"ulimit -n", ro}, {"ulimit -a", ro}, {"ulimit -n 10", un}, {"ulimit unlimited", un},
		{"command -v go", ro}, {"command -V go ls", ro}, {"command -v", un}, {"command ls", un}, {"command -p ls", un},
		{"set", ro}, {"set -e", ro}, {"set -euo pipefail", ro}, {"set -euo pipefail; ls", ro}, {"set +x", ro},
		{"set -o errexit -o nounset", ro}, {"set -k", un}, {"set +B", un}, {"set -o vi", un}, {"set -- a b", un},
		{"set -T", un}, {"set -o", un}, {"set -e; rm x", wr}, {"set $X", un},
		// redirects to home paths
		{"echo x >> ~/.bashrc", wr}, {"echo x > ~user/.profile", wr}, {"echo x > ~", un}, {"echo x > ~/$F", un},
		// env, cd
		{"env -i", un}, {"env -0", un}, {"cd", ro}, {"cd -", ro}, {"pushd /tmp", ro}, {"popd", ro},
	})
}

func TestOptSpec(t *testing.T) {
	sp := programs.Opts("ab", "k", &programs.Longs{None: "alpha alps", Req: "key", Opt: "opt"}).
		Short("o", programs.Opt{Arity: programs.ReqArg, Effect: programs.Writes, Why: "writes %q"}).
		Long(programs.Opt{Arity: programs.ReqArg, Effect: programs.Writes, Why: "writes %q"}, "output")
	for _, c := range []struct {
		args []string
		want Safety // "" means no finding
		ops  int
	}{
		{[]string{"x"}, "", 1},
		{[]string{"-ab", "x"}, "", 1},
		{[]string{"-k", "-o", "x"}, "", 1},
		{[]string{"-kv", "x"}, "", 1},
		// A writer inside a cluster or abbreviated is unknown (Qwen
		// shellAstParser `sort -roout`, `sort --out=output`).
		{[]string{"-ao", "f"}, Unknown, 0},
		{[]string{"-aof"}, Unknown, 0},
		{[]string{"-of"}, Write, 0},
		{[]string{"--al"}, Unknown, 0},
		{[]string{"--alph"}, "", 0},
		{[]string{"--out=f"}, Unknown, 0},
		{[]string{"--opt"}, "", 0},
		{[]string{"--opt=v"}, "", 0},
		{[]string{"--key"}, Unknown, 0},
		{[]string{"-z"}, Unknown, 0},
		{[]string{"--", "-o", "x"}, "", 2},
		{[]string{"x", "-o", "f"}, Write, 1},
		{[]string{"-"}, "", 1},
	} {
		parsed := sp.Parse(staticArgs(c.args))
		f, _ := optionFinding("t", parsed)
		if f.s != c.want || len(parsed.Operands) != c.ops {
			t.Errorf("parse(%q) = %q %v, want %q with %d operands", c.args, f.s, parsed.Operands, c.want, c.ops)
		}
	}
}
