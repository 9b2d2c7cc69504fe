package classify

import (
	"github.com/agentexec/agentexec/gate/programs"
	"strings"
	"testing"

	"github.com/agentexec/agentexec/shellcfg"
)

// classCase is one classification expectation.
type classCase struct {
	cmd  string
	want Safety
}

const (
	ro = ReadOnly
	wr = Write
	un = Unknown
)

func runCases(t *testing.T, opt Options, cases []classCase) {
	t.Helper()
	for _, c := range cases {
		r := Classify(c.cmd, opt)
		if r.Safety != c.want {
			t.Errorf("Classify(%q) = %s, want %s\n%s", c.cmd, r.Safety, c.want, r.Explain())
		}
		if r.Reason == "" || len(r.Evidence) == 0 {
			t.Errorf("Classify(%q): no reason or evidence: %+v", c.cmd, r)
		}
	}
}

// readOnlyTable are the read-only cases; confirm_test.go runs each under
// real bash and checks nothing was written.
var readOnlyTable = []classCase{
	{"ls -la", ro},
	{"ls", ro},
	{"cat README.md", ro},
	{"head -n 5 a.txt", ro},
	{"tail -n 3 a.txt", ro},
	{"wc -l a.txt", ro},
	{"grep -rn foo .", ro},
	{"grep -f a.txt b.txt", ro},
	{"pwd", ro},
	{"echo hello", ro},
	{"echo $HOME", ro},
	{"echo \"$HOME\"/x", ro},
	{"echo $((1+2))", ro},
	{"echo ${HOME:-x}", ro},
	{"echo ${x@Q}", ro},
	{"echo '${x@P}'", ro},
	{"printf '%s\\n' a b", ro},
	{"printf -- '%s' x", ro},
	{"basename /a/b.txt", ro},
	{"dirname /a/b.txt", ro},
	{"realpath .", ro},
	{"readlink -f .", ro},
	{"true", ro},
	{"false || true", ro},
	{"whoami", ro},
	{"id -u", ro},
	{"uname -a", ro},
	{"printenv HOME", ro},
	{"env", ro},
	{"date +%s", ro},
	{"date -u", ro},
	{"hostname", ro},
	{"hostname -s", ro},
	{"stat a.txt", ro},
	{"file a.txt", ro},
	{"du -sh .", ro},
	{"df -h", ro},
	{"tr a-z A-Z < a.txt", ro},
	{"cut -d: -f1 a.txt", ro},
	{"sort a.txt", ro},
	{"sort -rn -k2 a.txt", ro},
	{"sort -- -o", ro},
	{"sort -t, -k1,1 a.txt", ro},
	{"uniq -c a.txt", ro},
	{"uniq -f 1 a.txt", ro},
	{"comm a.txt b.txt", ro},
	{"diff a.txt b.txt", ro},
	{"cmp a.txt b.txt", ro},
	{"nl a.txt", ro},
	{"od -c a.txt", ro},
	{"xxd a.txt", ro},
	{"xxd -r -p a.txt", ro},
	{"base64 a.txt", ro},
	{"jq . data.json", ro},
	{"column -t a.txt", ro},
	{"seq 1 3", ro},
	{"sleep 0", ro},
	{"echo x | tee /dev/null", ro},
	{"dd if=a.txt of=/dev/null", ro},
	{"cd /tmp", ro},
	{"cd /tmp && ls", ro},
	{"X=1", ro},
	{"a=1 b=2", ro},
	{"test -f a.txt", ro},
	{"[ -f a.txt ] && cat a.txt", ro},
	{"[ \"$HOME\" = x ]", ro},
	{"[ -n \"$HOME\" ]", ro},
	{"[ 1 -eq 1 ]", ro},
	{"[[ -f a.txt ]]", ro},
	{"[[ 1 -lt 2 ]]", ro},
	{"[[ $HOME == /* ]]", ro},
	{"test -v HOME", ro},
	{"echo hi 2>&1", ro},
	{"echo hi >/dev/null 2>&1", ro},
	{"echo hi >&2", ro},
	{"echo hi 2>/dev/null", ro},
	{"ls &>/dev/null", ro},
	{"echo hi >&-", ro},
	{"cat <<EOF\nhello\nEOF", ro},
	{"cat <<'EOF'\n$(rm x) `rm y`\nEOF", ro},
	{"cat <<<hello", ro},
	{"(ls; pwd)", ro},
	{"{ ls; pwd; }", ro},
	{"! ls", ro},
	{"ls && pwd || echo no", ro},
	{"ls | grep a | wc -l", ro},
	{"ls; pwd\necho done", ro},
	{"ls &", ro},
	{"\\ls", ro},
	{"'ls' -la", ro},
	{"$'ls'", ro},
	{"find . -name '*.go'", ro},
	{"find . -type f -name x -print", ro},
	{"rg -n foo", ro},
	{"rg --files", ro},
	{"rg -e -z foo", ro},
	{"tree", ro},
	{"tree -L 2 -a", ro},
	{"git status", ro},
	{"git log --oneline -n 5", ro},
	{"git diff HEAD~1", ro},
	{"git show --stat HEAD", ro},
	{"git branch", ro},
	{"git branch -a", ro},
	{"git branch --list 'feat*'", ro},
	{"git remote -v", ro},
	{"git rev-parse HEAD", ro},
	{"git --no-pager log -1", ro},
	{"git", ro},
	{"git --version", ro},
	{"git ls-files", ro},
	{"git tag", ro},
	{"git tag -l 'v*'", ro},
	{"git config --get user.name", ro},
	{"git stash list", ro},
	{"git diff -o patch", ro},
	{"sed -n 1,5p a.txt", ro},
	{"awk '{print $1}' a.txt", ro},
	{"ps aux", ro},
	{"which ls", ro},
	{"type ls", ro},
	{"echo $(( 2 * 3 ))", ro},
	{"cat a.txt # ; rm x", ro},
	{"set -euo pipefail; ls", ro},
	{"history", ro},
	{"ulimit -n", ro},
	{"command -v ls", ro},
	{"exit 0", ro},
	{"echo x >&2 2>/dev/null | cat", ro},
	// Readers whose other options write or run code: these stay read-only.
	{"ptx a.txt", ro},
	{"ptx -f -w 40 a.txt b.txt", ro},
	{"diff3 a.txt b.txt f", ro},
	{"diff3 -m --label x a.txt b.txt f", ro},
	{"nm -C a.txt", ro},
	{"nm --demangle=gnu-v3 -D a.txt", ro},
	{"zstdcat a.txt", ro},
	{"zstdcat -f -q a.txt", ro},
	{"zstdcat -T4 a.zst", ro},
	{"zstd -dc -T0 -M64 a.zst", ro},
	{"lz4 -dc -BD a.lz4", ro},
	{"dmesg -p -T", ro},
	{"lastlog -u root", ro},
	{"lastlog --user root -t 3", ro},
	{"blkid -p /dev/null", ro},
	{"blkid -k", ro},
	// Writers' list and stdout modes, read by the program's own grammar.
	{"gzip -c a.txt", ro},
	{"gzip -d -c a.txt", ro},
	{"gzip -cS .x a.txt", ro},
	{"gzip --stdo a.txt", ro},
	{"xz -T2 -9e -c a.txt", ro},
	{"zstd -q -c a.txt", ro},
	{"lz4 --list a.txt", ro},
	{"bzip2 -dc a.txt", ro},
	{"unzip -l a.txt", ro},
	{"unzip -Z1 a.txt", ro},
	// A local archive name with a colon after a slash, or --force-local.
	{"tar -tf ./h:a.tar", ro},
	{"tar -tf h:a.tar --force-local", ro},
	{"tar tvf a.txt", ro},
	{"tar tfb a.tar 20", ro},
	{"tar xfO a.tar", ro},
	{"as --version", ro},
	{"gcc -v", ro},
	{"ld -v", ro},
	{"jobs -l", ro},
	{"jobs %1", ro},
	{"dirs -v", ro},
	{"last -n 5 -i", ro},
	{"last -10 root", ro},
	{"who -a", ro},
	{"who am i", ro},
	{"who --ips", ro},
}

func TestClassifyReadOnly(t *testing.T) {
	var cases []classCase
	for _, c := range readOnlyTable {
		if c.want == ro {
			cases = append(cases, c)
		}
	}
	runCases(t, Options{}, cases)
}

func TestClassifyWrite(t *testing.T) {
	runCases(t, Options{}, []classCase{
		{"rm -rf build", wr},
		{"r''m x", wr},
		{"\\rm x", wr},
		{"$'\\x72\\x6d' x", wr},
		{"mv a b", wr},
		{"cp a b", wr},
		{"mkdir -p d", wr},
		{"touch f", wr},
		{"touch -- --help", wr},
		{"chmod +x f", wr},
		{"ln -s a b", wr},
		{"truncate -s0 f", wr},
		{"shred f", wr},
		{"mktemp", wr},
		{"patch -p1 < x.diff", wr},
		{"echo hi > out.txt", wr},
		{"echo hi >> out.txt", wr},
		{"echo hi >| out.txt", wr},
		{"echo hi &> out.txt", wr},
		{"echo hi &>> out.txt", wr},
		{"echo hi >& out.txt", wr},
		{"cat 3<> f", wr},
		{"> out", wr},
		{"cat < /dev/tcp/127.0.0.1/80", wr},
		{"echo x > /dev/udp/127.0.0.1/53", wr},
		{"ls && rm x", wr},
		{"ls; rm x", wr},
		{"ls | xargs rm", un},
		{"(rm x)", wr},
		{"{ rm x; }", wr},
		{"echo $(rm x)", wr},
		{"echo `rm x`", wr},
		{"echo \"$(rm x)\"", wr},
		{"cat <(rm x)", wr},
		{"echo x > >(rm y)", wr},
		{"cat <<EOF\n$(rm x)\nEOF", wr},
		{"cat <<EOF && rm -rf build\nhello\nEOF", wr},
		{"cat <<EOF >out.txt\nhello\nEOF", wr},
		{"X=$(rm x)", wr},
		{"X=1 rm x", wr},
		{"echo ${HOME%%$(rm x)}", wr},
		{"echo ${x:-$(rm x)}", wr},
		{"echo ${x/a/$(rm x)}", wr},
		{"echo ${x:1:$(rm x)}", wr},
		{"if true; then rm x; fi", wr},
		{"for i in 1; do rm x; done", wr},
		{"while false; do rm x; done", wr},
		{"case x in x) rm x;; esac", wr},
		{"time rm x", wr},
		{"kill 123", wr},
		{"kill -9 123", wr},
		{"kill -- -0", wr},
		{"pkill foo", wr},
		{"killall foo", wr},
		{"kill \"$PID\"", wr},
		{"git commit -m x", wr},
		{"git push", wr},
		{"git commit -m --help", wr},
		{"git add .", wr},
		{"git checkout main", wr},
		{"git reset --hard", wr},
		{"git fetch -n", wr},
		{"git diff --output=out.patch", wr},
		{"git log --output=x", wr},
		{"git branch topic", wr},
		{"git branch -D topic", wr},
		{"git branch -vd topic", wr},
		{"git remote add o u", wr},
		{"git remote prune origin", wr},
		{"git tag v1", wr},
		{"git stash", wr},
		{"git config user.name x", wr},
		{"sort -o out in", wr},
		{"sort -oout in", wr},
		{"sort --output=out in", wr},
		{"sort --output out in", wr},
		{"sort in -o out", wr},
		{"tree -o out", wr},
		{"tree -R", wr},
		{"uniq a b", wr},
		{"uniq - out", wr},
		{"uniq -- -f out", wr},
		{"tee out", wr},
		{"tee -a out", wr},
		{"echo x | tee -- -a", wr},
		{"dd if=a of=b", wr},
		{"date -s 2020-01-01", wr},
		{"date 0101", wr},
		{"hostname newname", wr},
		{"xxd a b", wr},
		{"xxd -r a b", wr},
		{"file -C -m x", wr},
		{"find . -delete", wr},
		{"find . -fprint out", wr},
		{"find . -exec rm {} \\;", wr},
		{"find . -execdir rm {} +", wr},
		{"find . -ok rm {} \\;", wr},
		{"find . -exec echo --help {} \\; -delete", wr},
		{"FOO=bar rm x", wr},
		{"f() { ls; }; rm x", wr},
		{"echo ok; rm x", wr},
		{"ls\nrm x", wr},
		{"ls\r\nrm x", un},
		{"[[ -f x ]] && rm x", wr},
		{"sed -i s/a/b/ f", wr},
		{"awk 'BEGIN{print 1 > \"out\"}'", wr},
		// Options of readers that write (confirmed under real bash).
		{"zstdcat -o out a.zst", wr},
		{"zstdcat a.zst --output-dir-flat d", wr},
		// A value only attached (zstd -T#, -M#; lz4 -B#, -b#, -e#, -i#),
		// a flag (dmesg -p): the option after it is read.
		{"zstdcat -T -o out a.zst", wr},
		{"zstdcat -M -o out a.zst", wr},
		{"zstd -dc -T -o out a.zst", wr},
		{"lz4cat -i --rm a.lz4", wr},
		{"lz4cat -b --rm a.lz4", wr},
		{"dmesg -p -C", wr},
		{"lastlog -S -u root", wr},
		{"lastlog -u root --clear", wr},
		// nstat rewrites its history file, blkid its cache, on every run.
		{"nstat", wr},
		{"nstat -s", wr},
		{"blkid", wr},
		{"blkid -c cache", wr},
		{"blkid -s UUID /dev/sda1", wr},
		// A defusing word that is another option's value defuses nothing.
		{"gzip -S -c a.txt", wr},
		{"gzip -Sc a.txt", wr},
		{"gzip --suffix -c a.txt", wr},
		{"xz -S -c a.txt", wr},
		{"zstd -o -c a.txt", wr},
		{"zstd -c -o out a.txt", wr},
		{"unzip -l -T a.zip", wr},
		{"unzip -d -l a.zip", wr},
		{"blkid -c -p", wr},
		{"blkid -p -c cache", wr},
		{"lzip -dc a.lz", wr},
	})
}

func TestClassifyUnknown(t *testing.T) {
	runCases(t, Options{}, []classCase{
		{"", un},
		{"   ", un},
		{"ls |", un},
		{"echo 'unterminated", un},
		{"if true; then ls", un},
		{"echo $(ls)", un},
		{"echo `ls`", un},
		{"cat <(curl x)", un},
		// Readers' options that write or run code, in every spelling.
		{"ptx -G in out", un},
		{"ptx --trad in out", un},
		{"ptx in out -G", un},
		{"diff3 --diff-program=./d.sh a b c", un},
		{"diff3 --diff-p ./d.sh a b c", un},
		{"diff3 a b c --diff-program sh", un},
		{"nm --plugin ./p.so a.o", un},
		{"nm --plug=./p.so a.o", un},
		{"nm @opts a.o", un},
		{"nm -Cz a.o", un},
		{"zstdcat --rm a.zst", un},
		{"zstdcat --output-dir a.zst", un},
		{"lastlog -x", un},
		{"lastlog --cl -u root", un},
		{"uname26 rm -f x", un},
		{"lz4 -l in out", un},
		{"lz4 -dc in --rm", un},
		{"gzip -x a.gz", un},
		{"unzip -lT a.zip", un},
		{"blkid -p --garbage", un},
		// tar reaches host:file by starting rsh and the remote rmt.
		{"tar -tf host:a.tar", un},
		{"tar tf host:a.tar", un},
		{"tar -tvf user@host:/x/a.tar", un},
		{"tar --list --file=host:a.tar", un},
		{"tar -xOf host:a.tar", un},
		// The old-style key's valued letters take the next words in
		// turn: I's is the compressor it runs, g's the snapshot it writes.
		{"tar tfI a.tar 'rm -f x'", un},
		{"tar tIf 'rm -f x' a.tar", un},
		{"tar tfg a.tar snap", un},
		// `as -v` prints its version, then assembles stdin into a.out.
		{"as -v", un},
		// Builtins whose options run a command or change shell state.
		{"jobs -x touch x", un},
		{"jobs -lx rm -f x", un},
		{"dirs -c", un},
		// Options that resolve names over the network.
		{"last -d", un},
		{"last -f wtmp --dns", un},
		{"last --dn", un},
		{"who --lookup", un},
		{"who --look -a", un},
		{"who -x", un},
		{"rustc -v", un},
		{"uname26 sh -c 'touch x'", un},
		{"X=1; ls", un},
		{"X=1 && ls", un},
		{"{ PATH=.; } && ls", un},
		{"FOO=bar ls", un},
		{"PAGER=x git log", un},
		{"if true; then ls; fi", un},
		{"for i in a b; do echo $i; done", un},
		{"f() { rm x; }", un},
		{"function f { rm x; }", un},
		{"(( x = 1 ))", un},
		{"let x=1", un},
		{"export A=1", un},
		{"declare -a x", un},
		{"local x", un},
		{"readonly x", un},
		{"time ls", un},
		{"sudo ls", un},
		{"env FOO=1 ls", un},
		{"env -S 'rm -rf /'", un},
		{"xargs ls", un},
		{"nohup ls", un},
		{"timeout 1 ls", un},
		{"nice ls", un},
		{"command ls", un},
		{"builtin echo", un},
		{"exec ls", un},
		{"eval ls", un},
		{"bash -c ls", un},
		{"sh -c ls", un},
		{"python3 -c 'print(1)'", un},
		{"python3.12 x.py", un},
		{"node x.js", un},
		{"/usr/local/bin/rm x", un},
		{"./cat x", un},
		{"/opt/bin/ls", un},
		{"LS", un},
		{"Rm x", un},
		{"l[s]", un},
		{"/bin/r[m] x", un},
		{"$CMD x", un},
		{"${CMD} x", un},
		{"$(echo rm) x", un},
		{"$\"ls\"", un},
		{"echo ${x@P}", un},
		{"echo \"${x@P}\"", un},
		{"echo ${x%%${v@P}}", un},
		{"echo ${!x}", un},
		{"echo $((x))", un},
		{"echo ${a[i]}", un},
		{"[[ 'a[$(rm x)]' -eq 0 ]]", un},
		{"[[ $x -eq 0 ]]", un},
		{"[[ -v 'a[$(id)]' ]]", un},
		{"test -v 'a[$(id)]'", un},
		{"[ -v 'a[$(id)]' ]", un},
		{"[ \"$op\" \"$x\" ]", un},
		{"printf -v x y", un},
		{"printf -v 'a[$(id)]' y", un},
		{"printf \"$FMT\"", un},
		{"read x", un},
		{"mapfile -C cb x", un},
		{"hash -p /usr/bin/touch ls; ls x", un},
		{"trap 'rm x' EXIT", un},
		{"alias ls=rm", un},
		{"enable -n echo", un},
		{"set -x", ro},
		{"set -k", un},
		{"shopt -s extglob", un},
		{"source x.sh", un},
		{". x.sh", un},
		{"unset PATH", un},
		{"BASH_ENV=x bash -c ls", un},
		{"echo \"$\\\n(touch x)\"", un},
		{"echo `echo \\`echo \\\\\\`rm\\\\\\`\\``", un},
		{"echo a\\`b", un},
		{"cat <<$(id)\nx\n$(id)", un},
		{"echo hi > $OUT", un},
		{"echo hi > \"$OUT\"", un},
		{"cat < $IN", un},
		{"echo hi >&$FD", un},
		{"exec {fd}>/dev/null", un},
		{"coproc ls", un},
		{"less a.txt", un},
		{"more a.txt", un},
		{"man ls", un},
		{"vi a.txt", un},
		{"rm --help", un},
		{"touch --version", un},
		{"kill", un},
		{"kill -0 1", un},
		{"kill -s 0 1", un},
		{"kill -SIG0 1", un},
		{"kill -s0 1", un},
		{"kill --signal=0 1", un},
		{"kill -n 0 1", un},
		{"kill -l", un},
		{"kill -L", un},
		{"kill -s \"$SIG\" 1", un},
		{"pkill -0 foo", un},
		{"killall -l", un},
		{"sort --compress-program=gzip a", un},
		{"sort --co=gzip a", un},
		{"sort --bogus a", un},
		{"sort -Q a", un},
		{"sort -{u,o/tmp/f}", un},
		{"sort $OPTS a", un},
		{"sort *", un},
		{"sort -o", un},
		{"uniq *", un},
		{"tee $F", un},
		{"dd if=a", un}, // Qwen shellAstParser `dd if=input` → unknown
		{"tee", un},     // Qwen shellAstParser `tee` → unknown
		{"tee < a.txt", un},
		{"dd if=a.txt bs=1 count=2", un},
		// Qwen shellAstParser `find . -name -delete` → unknown, and
		// `find . -exec echo {} \;` → unknown (only writers are classified).
		{"find . -name -delete", un},
		{"find . -exec cat {} \\;", un},
		{"find . -name '*.go' -exec grep -l foo {} +", un},
		// Qwen shellAstParser `sort -roout`, `sort --out=output` → unknown.
		{"sort -ruo out in", un},
		{"sort --outp=out in", un},
		{"dd bogus=1", un},
		{"rg --pre cat foo", un},
		{"rg --pre=cat foo", un},
		{"rg --hostname-bin x foo", un},
		{"rg --search-zip foo", un},
		{"rg -z foo", un},
		{"rg -iz foo", un},
		{"rg --pr cat foo", un},
		{"rg $X foo", un},
		{"tree --bogus", un},
		{"file -z x", un},
		{"find . -name x -fls", wr},
		{"find", ro},
		{"find . -newer", un},
		{"find . -bogus", un},
		{"find -- .", un},
		{"find --help", un},
		{"find . -exec sh -c 'rm x' \\;", un},
		{"find . -exec env rm {} \\;", un},
		{"find . -exec ./rm {} \\;", un},
		{"find . -exec rm {}", un},
		{"find $D -delete", un},
		{"find . -exec git status \\;", un},
		{"find . -exec cd {} \\;", un},
		{"git -c core.pager=x log", un},
		{"git -ccore.fsmonitor=x status", un},
		{"git -C . status", un},
		{"git -C. status", un},
		{"git --git-dir=x status", un},
		{"git --exec-path=x status", un},
		{"git -p log", un},
		{"git --paginate log", un},
		{"git --config-env=a=b status", un},
		{"git --help commit", un},
		{"git help commit", un},
		{"git status --help", un},
		{"git commit --help", un},
		{"git commit -m -F --help", un},
		{"git push --dry-run", un},
		{"git add -n .", un},
		{"git clean -n", un},
		{"git diff --ext-diff", un},
		{"git diff --ext", un},
		{"git diff --textconv", un},
		{"git cat-file --textconv HEAD:x", un},
		{"git cat-file --filters HEAD:x", un},
		{"git log --show-signature", un},
		{"git log --show\\-signature", un},
		{"git log --format=%G?", un},
		{"git log --pretty='format:%GK'", un},
		{"git show --pretty=%GS", un},
		{"git grep -O foo", un},
		{"git grep -iO foo", un},
		{"git grep --open-files-in-pager foo", un},
		{"git diff --output=", un},
		{"git blame --output=x f", un},
		{"git tag -v v1", un},
		{"git remote show origin", un},
		{"git remote show -n origin", ro},
		{"git remote prune -n origin", un},
		{"git remote bogus", un},
		// Qwen shellAstParser `git branch --sort refname`, `--sort -d` → unknown.
		{"git branch --sort refname", un},
		{"git branch --sort -d", un},
		{"git branch --bogus", un},
		{"git svn", un},
		{"git status $X", un},
		{"git $'push'", wr},
		{"git config --edit", un},
		{"git mergetool", un},
		{"sed -f script.sed a", un},
		{"sed s/a/b/e a", un},
		{"sed $S a", un},
		{"awk 'BEGIN{system(\"x\")}'", un}, // Qwen: awk '{ system("date") }' is unknown
		{"date --bogus", un},
		{"printf --bogus", un},
		{"cat a\u00a0> b", un},
		{"ls\u200b", un},
		{"ls\x1b[2K", un},
		{"mytool --flag", un},
		{"make", un},
		{"npm test", un},
		{"go test ./...", un},
		{"curl example.com", un},
		{"fortune", un},
		// yes prints its words without end: read-only, and a pipe's feed.
		{"yes | head -3", ro},
		{"yes 'rm -f x' | sh", un},
	})
}

// TestProcessSubstitution: a process substitution runs its commands like a
// pipe does, so it is read-only exactly when everything inside is.
func TestProcessSubstitution(t *testing.T) {
	runCases(t, Options{}, []classCase{
		{"sort -rn <(wc -l f)", ro}, {"diff <(ls) <(ls -a)", ro}, {"cat <(rm x)", wr},
		{"diff <(cat a) <(python3 x.py)", un}, {"tee >(sha256sum) < f", ro}, {"tee >(rm x) < f", wr},
		{"bash <(cat x.sh)", un}, {"source <(ls)", un},
	})
}

func TestClassifyPOSIX(t *testing.T) {
	runCases(t, Options{Shell: shellcfg.Sh}, []classCase{
		{"ls -la", ro},
		{"[[ -f x ]]", ro},
		{"[[ 'a[$(rm x)]' -eq 0 ]]", un},
		{"[[ x -eq 0 ]]", un},
		{"[[ 1 -eq 1 ]]", ro},
		{"export A=1", un},
		{"local x", un},
		{"export A=$(rm x)", wr},
		{"cat <(ls)", un},
		{"a=(1 2)", un},
		{"rm x", wr},
		{"echo hi > f", wr},
		{"git status", ro},
	})
}

func TestClassifyVouched(t *testing.T) {
	opt := Options{ReadOnlyCommands: []string{"mytool", "python3", "bash", "rm", "env", "node20", "sort"}}
	runCases(t, opt, []classCase{
		{"mytool --flag value", ro},
		{"mytool a.txt", ro},
		{"mytool > out", wr},
		{"mytool $(rm x)", wr},
		{"mytool $(ls)", un},
		{"X=1 mytool", un},
		{"mytool \"$X\"", un},
		{"mytool rm", un},
		{"mytool --exec=/bin/rm", un},
		{"mytool 'a b'", un},
		{"python3 -c x", un},
		{"bash -c ls", un},
		{"rm x", wr},
		{"env ls", un},
		{"node20 x", un},
		{"sort -o x y", wr},
		{"MyTool", un},
		{"./mytool", un},
	})
	for _, n := range []string{"bash", "python3.12", "node20", "ruby3", "gcc-13", "go1.22", "sudo", "xargs", "rm", "eval", ".", "source", "/usr/bin/foo", "bash.exe", "kill", "Python3", "BASH", "Sudo"} {
		if !refusalFloor(n) {
			t.Errorf("refusalFloor(%q) = false, want true", n)
		}
	}
	for _, n := range []string{"mytool", "ls", "cat", "rg", "x11"} {
		if refusalFloor(n) {
			t.Errorf("refusalFloor(%q) = true, want false", n)
		}
	}
}

func TestClassifyWindows(t *testing.T) {
	runCases(t, Options{Shell: shellcfg.Cmd}, []classCase{
		{"dir", ro},
		{"DIR /s", ro},
		{"type a.txt", ro},
		{"where git", ro},
		{"type", un},
		{"dir > out", un},
		{"dir & del x", un},
		{"dir | more", un},
		{"type %USERPROFILE%\\x", un},
		{"del x", un},
		{"type \\\\server\\share\\x", un},
		{"dir ^& del x", un},
		{"echo hi", ro},
		{"echo hi > x", un},
		{"", un},
	})
	runCases(t, Options{Shell: shellcfg.PowerShell}, []classCase{
		{"Get-ChildItem", ro},
		{"Get-ChildItem -Recurse -Filter *.go", ro},
		{"gci src", ro},
		{"Get-Content README.md -TotalCount 5", ro},
		{"Select-String -Pattern foo -Path *.go", ro},
		{"Get-Location", ro},
		{"Get-ChildItem -OutVariable x", un},
		{"Get-Content $env:HOME", un},
		{"Get-Content a.txt | Set-Content b.txt", un},
		{"Remove-Item x", un},
		{"Get-Content a.txt; Remove-Item x", un},
		{"Get-Content `\n x", un},
		{"& rm x", un},
		{"Get-Content variable:x", un},
		{"iex 'x'", un},
	})
	runCases(t, Options{Shell: "fish"}, []classCase{{"ls", un}})
}

// TestClassifyPowerShell: the lexer's quotes, pipelines, statements and
// groups, cmdlets and the programs PowerShell starts, each in both
// directions.
func TestClassifyPowerShell(t *testing.T) {
	runCases(t, Options{Shell: shellcfg.PowerShell}, []classCase{
		// quotes: single is literal, double only without $ and `
		{"Get-Content 'foo bar'", ro},
		{"Get-Content 'it''s'", ro},
		{"Get-Content '$x'", ro},
		{`Get-Content "foo bar"`, ro},
		{`Get-Content "foo $bar"`, un},
		{"Get-Content \"a`$b\"", un},
		{"Get-Content 'a'b", un},
		{"Get-Content a'b'", un},
		{"Get-Content 'open", un},
		{"Get-Content \u2018a\u2019", un},
		{"Get-Content \u2013Raw x", un},
		// pipelines, statements, chains
		{"Get-Content foo.rs | Select-Object -Skip 200", ro},
		{"Get-Item foo.rs | Select-Object Length", ro},
		{"pwd && ls", ro},
		{"pwd; ls;", ro},
		{"Test-Path x || Get-Location", ro},
		{"Get-Content x | Out-File y", un},
		{"Get-ChildItem; Remove-Item foo", un},
		{"Get-ChildItem |", un},
		{"| Get-ChildItem", un},
		{"Get-ChildItem & x", un},
		{";;", un},
		// groups: what is inside runs
		{"(Get-Content foo.rs -Raw)", ro},
		{"Write-Output (Get-Location)", ro},
		{"Write-Output (Set-Content foo6.txt 'abc')", un},
		{"Get-Content (New-Item bar.txt)", un},
		{"(Get-Content x).Length", un},
		{"(Get-Content x", un},
		{"Get-Content x)", un},
		{"ls @(calc.exe)", un},
		{"Write-Output $(Get-Content foo)", un},
		// programs: read as bash reads the same words
		{"git status", ro},
		{"git cat-file -p HEAD:foo.rs", ro},
		{"rg --files-with-matches foo | Measure-Object | Select-Object -ExpandProperty Count", ro},
		{"grep -rn 'a b' src", ro},
		{"git push", wr},
		{"git -c core.pager=cat show HEAD:foo.rs", un},
		{"rg --pre cat x", un},
		{"git log (Get-Content args.txt)", un},
		{"git log ''", un},
		{`git log 'a" "--output=x'`, un},
		{`git log 'a b\'`, un},
		{"git -c.x log", un},
		{"./tool.exe", un},
		{"C:\\tools\\x.exe", un},
		// names PowerShell binds itself never reach the program
		{"sort -o out x", un},
		{"sc x y", un},
		{"curl https://example.com", un},
		{"r", un},
		{"where git", un},
	})
}

func TestClassifyReason(t *testing.T) {
	r := Classify("ls && rm -rf build", Options{})
	if !strings.Contains(r.Reason, "`rm` is a file-system writer (rule: write-command)") {
		t.Errorf("reason = %q", r.Reason)
	}
	var found bool
	for _, e := range r.Evidence {
		if e.Rule == "write-command" {
			found = true
			if e.Offset != 6 || e.End != 18 || e.Text != "rm -rf build" {
				t.Errorf("evidence span = %d:%d %q, want 6:18 \"rm -rf build\"", e.Offset, e.End, e.Text)
			}
		}
	}
	if !found {
		t.Errorf("no write-command evidence: %+v", r.Evidence)
	}
	ex := r.Explain()
	if !strings.HasPrefix(ex, "write: ") || !strings.Contains(ex, "[6:18]") {
		t.Errorf("Explain() = %q", ex)
	}
}

func TestClassifyParseErrorSpan(t *testing.T) {
	r := Classify("ls; echo )", Options{})
	if r.Safety != Unknown || r.Evidence[0].Offset != 9 || r.Evidence[0].End != 10 {
		t.Errorf("parse error evidence = %+v", r.Evidence)
	}
	r = Classify("a=(1)", Options{Shell: shellcfg.Sh})
	if r.Safety != Unknown || r.Evidence[0].Offset != 2 {
		t.Errorf("POSIX language error evidence = %+v", r.Evidence)
	}
}

func TestClassifyDeterministic(t *testing.T) {
	for _, c := range readOnlyTable {
		a, b := Classify(c.cmd, Options{}), Classify(c.cmd, Options{})
		if a.Safety != b.Safety || a.Reason != b.Reason || len(a.Evidence) != len(b.Evidence) {
			t.Errorf("Classify(%q) is not deterministic: %+v vs %+v", c.cmd, a, b)
		}
	}
}

// TestClassifyPanicIsUnknown injects a panic through a command rule.
func TestClassifyPanicIsUnknown(t *testing.T) {
	saved := scannerRules[programs.ScanSpec]
	scannerRules[programs.ScanSpec] = func(*walker, argv) finding { panic("injected") }
	defer func() { scannerRules[programs.ScanSpec] = saved }()
	r := Classify("ls; sort x", Options{})
	if r.Safety != Unknown || !strings.Contains(r.Reason, "injected") {
		t.Errorf("panic gave %+v", r)
	}
	if r := Classify("ls", Options{}); r.Safety != ReadOnly {
		t.Errorf("classifier unusable after a panic: %+v", r)
	}
}

// TestTarTapeEnv: without -f, GNU tar opens $TAPE, remote when it is
// host:file.
func TestTarTapeEnv(t *testing.T) {
	if r := Classify("tar -t", Options{Env: []string{"TAPE=host:/dev/st0"}}); r.Safety != Unknown {
		t.Errorf("tar -t with a remote TAPE = %s, want unknown\n%s", r.Safety, r.Explain())
	}
	if r := Classify("tar -t", Options{Env: []string{"TAPE=/dev/st0"}}); r.Safety != ReadOnly {
		t.Errorf("tar -t with a local TAPE = %s, want read-only\n%s", r.Safety, r.Explain())
	}
	if r := Classify("tar -tf a.tar", Options{Env: []string{"TAPE=host:/dev/st0"}}); r.Safety != ReadOnly {
		t.Errorf("tar -tf a.tar with a remote TAPE = %s, want read-only\n%s", r.Safety, r.Explain())
	}
}

func TestClassifyInDir(t *testing.T) {
	dir := t.TempDir()
	if r := ClassifyInDir("cd sub && git status", dir); r.Safety != Unknown {
		t.Errorf("cd then git = %s, want unknown", r.Safety)
	}
	if r := ClassifyInDir("rm x", dir); r.Safety != Write {
		t.Errorf("rm = %s", r.Safety)
	}
	if r := ClassifyInDir("git status && cd sub", dir); r.Safety == Write {
		t.Errorf("git then cd = %s", r.Safety)
	}
	r := Classify("git log", Options{Env: []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.pager", "GIT_CONFIG_VALUE_0=x"}})
	if r.Safety != Unknown {
		t.Errorf("GIT_CONFIG_* env: git log = %s, want unknown", r.Safety)
	}
	for _, kv := range []string{"BASH_ENV=/x", "ENV=/x", "BASH_FUNC_ls%%=() { rm x; }", "LD_PRELOAD=/x.so", "PATH=.:/bin", "PATH=/bin::/usr/bin", "PS4=$(id)", "SHELLOPTS=xtrace"} {
		if r := Classify("ls", Options{Env: []string{kv}}); r.Safety != Unknown {
			t.Errorf("env %s: ls = %s, want unknown", kv, r.Safety)
		}
	}
	if r := Classify("ls", Options{Env: []string{"PATH=/usr/bin:/bin", "HOME=/root"}}); r.Safety != ReadOnly {
		t.Errorf("plain env: ls = %s, want read-only", r.Safety)
	}
	r = Classify("rg foo", Options{Env: []string{"RIPGREP_CONFIG_PATH=/x"}})
	if r.Safety != Unknown {
		t.Errorf("RIPGREP_CONFIG_PATH: rg = %s, want unknown", r.Safety)
	}
}

// TestClassifyConcurrent shares the parser pools between goroutines; run
// it with -race.
func TestClassifyConcurrent(t *testing.T) {
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- true }()
			for _, c := range readOnlyTable {
				if r := Classify(c.cmd, Options{Shell: shellcfg.Sh}); r.Safety == Write {
					t.Errorf("Classify(%q) = write", c.cmd)
				}
				if r := Classify(c.cmd, Options{}); r.Safety != c.want {
					t.Errorf("Classify(%q) = %s, want %s", c.cmd, r.Safety, c.want)
				}
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}

// TestWindowsAllowlistTable gives every allowlisted cmd and PowerShell
// command a read-only case and an unknown case.
func TestWindowsAllowlistTable(t *testing.T) {
	for name, args := range winCmdAllow.Get() {
		cases := []classCase{{name + " > out", un}, {name + " & del x", un}}
		if name == "type" {
			cases = append(cases, classCase{"type a.txt", ro})
		} else {
			cases = append(cases, classCase{name, ro}, classCase{strings.ToUpper(name), ro})
		}
		if args && name != "type" {
			cases = append(cases, classCase{name + " src", ro})
		}
		runCases(t, Options{Shell: shellcfg.Cmd}, cases)
	}
	for name, params := range winPSAllow.Get() {
		cases := []classCase{{name, ro}, {name + " -Bogus", un}, {name + " | Remove-Item", un}, {name + " $x", un}}
		for p := range params {
			cases = append(cases, classCase{name + " -" + p + " x", ro})
		}
		runCases(t, Options{Shell: shellcfg.PowerShell}, cases)
	}
	for alias := range winPSAliases.Get() {
		runCases(t, Options{Shell: shellcfg.PowerShell}, []classCase{{alias, ro}, {alias + " -Bogus", un}})
	}
}

// TestVouchFloorFamilies: read_only_commands can never vouch for a shell,
// interpreter, compiler, build tool, package manager, launcher, emulator
// or privilege tool under any version suffix or spelling; a vouched tool
// given one of them as an argument is not read-only for that call.
func TestVouchFloorFamilies(t *testing.T) {
	floor := []string{"python3.13t", "luajit-2.1.0-beta3", "ghc-9.6.6", "php8.3-cli", "sbcl2.4", "javac11",
		"node20", "osh", "posh", "rzsh", "rsh", "wine", "wsl.exe", "schroot", "sudoedit", "run-parts", "just",
		"task", "scons", "pants", "nx", "gulp", "grunt", "bunx", "pipenv", "rye", "nix-build", "zig", "dart",
		"crystal", "clojure", "ocaml", "nim", "dmd", "tcc", "Rscript", "python3.12", "Python3", "bash.exe", "gcc-13"}
	for _, n := range floor {
		if !refusalFloor(n) {
			t.Errorf("refusalFloor(%q) = false, want true", n)
		}
		if r := Classify(n+" x", Options{ReadOnlyCommands: []string{n}}); r.Safety == ReadOnly {
			t.Errorf("vouched %q classified read-only: %s", n, r.Reason)
		}
	}
	for _, n := range []string{"mytool", "jqx", "ls2"} {
		if refusalFloor(n) {
			t.Errorf("refusalFloor(%q) = true, want false", n)
		}
	}
	vouch := Options{ReadOnlyCommands: []string{"mytool"}}
	runCases(t, vouch, []classCase{
		{"mytool list", ro}, {"mytool python3 x.py", un}, {"mytool bash -c x", un}, {"mytool sudo ls", un},
		{"mytool node20 x.js", un}, {"mytool --config=x list", ro},
	})
}

// A vouched command whose first operand is any of git's commands goes
// through git's rules (the list of git's commands is the programs table's,
// not a copy that can miss some).
func TestVouchedGitVerbsFromOneTable(t *testing.T) {
	opt := Options{ReadOnlyCommands: []string{"gitw"}}
	for _, text := range []string{"gitw commit-graph write", "gitw stage x", "gitw update-server-info", "gitw gitk"} {
		if r := Classify(text, opt); r.Safety == ReadOnly {
			t.Errorf("%s: read-only, want git's rules to refuse it", text)
		}
	}
	for _, text := range []string{"gitw status", "gitw report-card"} {
		if r := Classify(text, opt); r.Safety != ReadOnly {
			t.Errorf("%s: %s (%s), want read-only", text, r.Safety, r.Reason)
		}
	}
}

// A device file other than the harmless ones is not read-only to open:
// its driver decides what opening and reading do (/dev/watchdog arms a
// reboot timer on open).
func TestDeviceFilesAreNotReadOnly(t *testing.T) {
	for _, text := range []string{
		"cat /dev/watchdog", "head -c1 /dev/watchdog0", "cat < /dev/watchdog", "od -N8 /dev/input/event0",
		"grep -f /dev/watchdog x", "grep --file=/dev/watchdog x", "cat /dev/../dev/watchdog", "wc -c /dev/sda",
	} {
		if r := Classify(text, Options{}); r.Safety == ReadOnly {
			t.Errorf("%s: read-only, want a device file to stop it", text)
		}
	}
	for _, text := range []string{
		"cat /dev/null", "head -c 16 /dev/urandom", "ls /dev", "ls /dev/", "cat file > /dev/null", "wc -l < /dev/null",
		"cat /dev/fd/0", "cat /dev/shm/x", "cat dev/watchdog.txt", "echo /devices/x", "echo /dev/watchdog", "printf %s /dev/sda",
	} {
		if r := Classify(text, Options{}); r.Safety != ReadOnly {
			t.Errorf("%s: %s (%s), want read-only", text, r.Safety, r.Reason)
		}
	}
}
