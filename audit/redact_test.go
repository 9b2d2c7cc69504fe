package audit

import (
	"bufio"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// redactCases pairs each rule's redacted case with one it must leave alone.
var redactCases = []struct{ in, want string }{
	// URL passwords.
	{"git clone https://bob:hunter2@github.com/x/y", "git clone https://bob:***@github.com/x/y"},
	{"psql postgres://app:s3cr%40t@db:5432/app", "psql postgres://app:***@db:5432/app"},
	{"redis-cli -u redis://:pw@localhost", "redis-cli -u redis://:***@localhost"},
	{"git clone https://github.com/x/y", "git clone https://github.com/x/y"},
	{"git clone git@github.com:x/y.git", "git clone git@github.com:x/y.git"},
	{"curl https://host:8443/path@v2", "curl https://host:8443/path@v2"},
	// Headers and Bearer tokens.
	{`curl -H 'Authorization: Bearer abc.def-123' x`, `curl -H 'Authorization: Bearer ***' x`},
	{`curl -H "authorization: Basic dXNlcjpwYXNz" x`, `curl -H "authorization: Basic ***" x`},
	{`curl -H 'Authorization: token123' x`, `curl -H 'Authorization: ***' x`},
	{`curl -H 'X-Api-Key: k123' -H 'Private-Token: glt' x`, `curl -H 'X-Api-Key: ***' -H 'Private-Token: ***' x`},
	{`http GET x "Cookie: session=abc"`, `http GET x "Cookie: ***"`},
	{`wget --header "Bearer abcdefghijk" x`, `wget --header "Bearer ***" x`},
	{"echo the bearer of bad news", "echo the bearer of bad news"},
	{`curl -H 'Accept: application/json' x`, `curl -H 'Accept: application/json' x`},
	// Secret flags.
	{"mysql -u root --password=hunter2 db", "mysql -u root --password=*** db"},
	{"tool --password hunter2 --verbose", "tool --password *** --verbose"},
	{"gh auth login --with-token --token ghx", "gh auth login --with-token --token ***"},
	{"vault login -token=s.abc", "vault login -token=***"},
	{"cli --client-secret=xyz --api-key abc", "cli --client-secret=*** --api-key ***"},
	{"openssl enc -pass pass:hunter2 -in f", "openssl enc -pass pass:*** -in f"},
	{"docker login --password-stdin --username u", "docker login --password-stdin --username u"},
	{"cli --token-file ~/.tok --passes 3", "cli --token-file ~/.tok --passes 3"},
	// -p: a password only for the tools where it is one.
	{"mysql -uroot -phunter2 -h db", "mysql -uroot -p*** -h db"},
	{"/usr/bin/mysqldump -p'my pass' db > x.sql", "/usr/bin/mysqldump -p'***' db > x.sql"},
	{"mariadb -psecret", "mariadb -p***"},
	{"mysql -p mydb", "mysql -p mydb"},
	{"sshpass -p hunter2 ssh host", "sshpass -p *** ssh host"},
	{"sshpass -phunter2 ssh host", "sshpass -p*** ssh host"},
	{"docker login -u bob -p hunter2 ghcr.io", "docker login -u bob -p *** ghcr.io"},
	{"sudo podman login -p hunter2 quay.io", "sudo podman login -p *** quay.io"},
	{"redis-cli -a hunter2 ping", "redis-cli -a *** ping"},
	{"curl -u bob:hunter2 https://x", "curl -u bob:*** https://x"},
	{"curl -u 'bob:hunter 2' https://x", "curl -u 'bob:***' https://x"},
	{"curl --user=bob:pw -ubob:pw2 x", "curl --user=bob:*** -ubob:*** x"},
	{"mkdir -p build/out", "mkdir -p build/out"},
	{"mkdir -p mysql && cp -p a b", "mkdir -p mysql && cp -p a b"},
	{"docker run -p 8080:80 mysql", "docker run -p 8080:80 mysql"},
	{"mysql -e 'select 1'; mkdir -p x", "mysql -e 'select 1'; mkdir -p x"},
	{"curl -u bob https://x", "curl -u bob https://x"},
	{"sort -u f; redis-cli ping", "sort -u f; redis-cli ping"},
	{"grep -a pattern f", "grep -a pattern f"},
	// Spellings the shell reads alike are redacted alike, quoting kept
	// (the misses first).
	{`curl -m1 -H Authorization:\ Bearer\ SECRETAAA http://127.0.0.1:9/`, `curl -m1 -H Authorization:\ Bearer\ *** http://127.0.0.1:9/`},
	{`curl -H Authorization:\ token\ abc123 x`, `curl -H Authorization:\ token\ *** x`},
	{`curl -H Author\ization:\ Bearer\ abc123 x`, `curl -H Author\ization:\ Bearer\ *** x`},
	{`curl -H "Auth"'orization: Bearer abc123' x`, `curl -H "Auth"'orization: Bearer ***' x`},
	{"aws configure set aws_secret_access_key SECRETBBB", "aws configure set aws_secret_access_key ***"},
	{"aws configure set aws_session_token tok --profile p", "aws configure set aws_session_token *** --profile p"},
	{"aws configure set region us-east-1", "aws configure set region us-east-1"},
	{"htpasswd -b .htpasswd bob hunter2", "htpasswd -b .htpasswd bob ***"},
	{"htpasswd -bc /etc/nginx/.htpasswd bob 'hun ter'", "htpasswd -bc /etc/nginx/.htpasswd bob '***'"},
	{"htpasswd -nb bob hunter2", "htpasswd -nb bob ***"},
	{"htpasswd -c .htpasswd bob", "htpasswd -c .htpasswd bob"},
	{"openssl enc -aes256 -k hunter2 -in f", "openssl enc -aes256 -k *** -in f"},
	{"openssl rsa -in k -passin pass:hunter2 -passout 'pass:x y'", "openssl rsa -in k -passin pass:*** -passout 'pass:***'"},
	{"openssl rsa -passin env:PW -passout file:pw.txt", "openssl rsa -passin env:PW -passout file:pw.txt"},
	{`mysql -pSECRETCCC -e "select 1"`, `mysql -p*** -e "select 1"`},
	{`'mysql' -p'hun ter' db`, `'mysql' -p'***' db`},
	{`my\sql -phunter2`, `my\sql -p***`},
	{`mysql -p"hun"'ter'2`, `mysql -p***`},
	{`curl -m1 "http://127.0.0.1:9/?api_key=SECRETDDD&x=1"`, `curl -m1 "http://127.0.0.1:9/?api_key=***&x=1"`},
	{`curl 'https://h/x?token=abc&page=2'`, `curl 'https://h/x?token=***&page=2'`},
	{"PGPASSWORD=SECRETEEE psql -c 1", "PGPASSWORD=*** psql -c 1"},
	{"export PGPASSWORD=x; psql", "export PGPASSWORD=***; psql"},
	{"sudo -E env PGPASSWORD='a b' psql", "sudo -E env PGPASSWORD='***' psql"},
	{"PGPASSWORD=$(cat f) psql", "PGPASSWORD=$(cat f) psql"},
	{`bash -c 'mysql -phunter2 -e "select 1"'`, `bash -c 'mysql -p*** -e "select 1"'`},
	{`sh -ec "sshpass -p 'x y' ssh h"`, `sh -ec "sshpass -p '***' ssh h"`},
	{`echo $(sshpass -p hunter2 ssh h) "$(mysql -phunter2)"`, `echo $(sshpass -p *** ssh h) "$(mysql -p***)"`},
	{"eval 'mysql -phunter2'", "eval 'mysql -p***'"},
	{"git config --global user.password hunter2", "git config --global user.password ***"},
	{"git config user.name bob", "git config user.name bob"},
	{"npm config set //registry.npmjs.org/:_authToken abc", "npm config set //registry.npmjs.org/:_authToken ***"},
	{`curl -u bob:pw\ 2 x`, `curl -u bob:*** x`},
	{"cat <<EOF > .env\npassword=hunter2\nEOF", "cat <<EOF > .env\npassword=***\nEOF"},
	{"ls # token=abc", "ls # token=***"},
	{"mkdir -p x; aws s3 ls; echo set password", "mkdir -p x; aws s3 ls; echo set password"},
	{"bash -c 'mkdir -p x'", "bash -c 'mkdir -p x'"},
	{`echo "it's fine" -p1`, `echo "it's fine" -p1`},
	// Secret assignments.
	{"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG aws s3 ls", "AWS_SECRET_ACCESS_KEY=*** aws s3 ls"},
	{"export GITHUB_TOKEN=abc123; gh pr list", "export GITHUB_TOKEN=***; gh pr list"},
	{`DB_PASSWORD="a b c" ./migrate`, `DB_PASSWORD="***" ./migrate`},
	{"env OPENAI_API_KEY='x' MYSQL_PWD=y client_secret=z run", "env OPENAI_API_KEY='***' MYSQL_PWD=*** client_secret=*** run"},
	{"curl 'https://x/api?api_key=abc&page=2'", "curl 'https://x/api?api_key=***&page=2'"},
	{`echo '{"password": "hunter2", "user": "bob"}'`, `echo '{"password": "***", "user": "bob"}'`},
	{"GITHUB_TOKEN=$(cat ~/.tok) gh pr list", "GITHUB_TOKEN=$(cat ~/.tok) gh pr list"},
	{"TOKEN=$TOKEN make", "TOKEN=$TOKEN make"},
	{"PATH=/usr/bin:$PATH KEY_FILE=k PWD=/tmp make", "PATH=/usr/bin:$PATH KEY_FILE=k PWD=/tmp make"},
	{"make -j4 TOKENIZER=fast", "make -j4 TOKENIZER=fast"},
	// Token shapes.
	{"echo AKIAIOSFODNN7EXAMPLE", "echo AKIA***"},
	{"x=ASIAY34FZKBOKMUTVV7A", "x=ASIA***"},
	{"git push https://ghp_16C7e42F292c6912E7710c838347Ae178B4a@github.com/x", "git push https://ghp_***@github.com/x"},
	{"echo gho_16C7e42F292c6912E7710c838347Ae178B4a", "echo gho_***"},
	{"echo github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "echo github_pat_***"},
	{"echo sk-proj-abcdefghijklmnopqrstuvwxyz0123", "echo sk-proj-***"},
	{"echo sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "echo sk-ant-api03-***"},
	{"echo sk-abcdefghijklmnopqrstuvwxyz012345", "echo sk-***"},
	{"echo sk_live_abcdefghij1234", "echo sk_live_***"},
	{"echo xoxb-1234567890-abcdefghij", "echo xoxb-***"},
	{"echo xoxp-1234567890-abcdefghij", "echo xoxp-***"},
	{"echo glpat-abcdefghij0123456789", "echo glpat-***"},
	{"echo AIzaSyA-abcdefghijklmnopqrstuvwxyz01234", "echo AIza***"},
	{"echo npm_abcdefghijklmnopqrstuvwxyz0123456789", "echo npm_***"},
	{"echo hf_abcdefghijklmnopqrstuvwxyz012345", "echo hf_***"},
	{"echo eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "echo eyJ***"},
	{"echo '-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabc=\n-----END RSA PRIVATE KEY-----'", "echo '-----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----'"},
	{"echo AKIA1234", "echo AKIA1234"},
	{"du -sk-h .; echo disk-abcdefghijklmnopqrstuvwxyz", "du -sk-h .; echo disk-abcdefghijklmnopqrstuvwxyz"},
	{"ls ghp_short task-abcdefghijklmnopqrstuvwxyz", "ls ghp_short task-abcdefghijklmnopqrstuvwxyz"},
	{"echo eyJhbGciOi", "echo eyJhbGciOi"},
	{"rm -rf /tmp/x && git status", "rm -rf /tmp/x && git status"},
}

func TestRedact(t *testing.T) {
	for _, c := range redactCases {
		got := Redact(c.in)
		if got != c.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if again := Redact(got); again != got {
			t.Errorf("Redact not idempotent on %q: %q", got, again)
		}
	}
}

func TestRedactArgv(t *testing.T) {
	cases := []struct{ in, want []string }{
		{[]string{"mysql", "-uroot", "-phunter2"}, []string{"mysql", "-uroot", "-p***"}},
		{[]string{"mysql", "-p", "mydb"}, []string{"mysql", "-p", "mydb"}},
		{[]string{"sshpass", "-p", "a b", "ssh", "h"}, []string{"sshpass", "-p", "***", "ssh", "h"}},
		{[]string{"tool", "--password", "x y"}, []string{"tool", "--password", "***"}},
		{[]string{"curl", "-H", "Authorization: Bearer abcdefgh123", "-u", "a:b"}, []string{"curl", "-H", "Authorization: Bearer ***", "-u", "a:***"}},
		{[]string{"mkdir", "-p", "a b"}, []string{"mkdir", "-p", "a b"}},
		{[]string{"env", "GITHUB_TOKEN=x y", "gh"}, []string{"env", "GITHUB_TOKEN=***", "gh"}},
		{[]string{"--password"}, []string{"--password"}},
	}
	for _, c := range cases {
		in := slices.Clone(c.in)
		got := RedactArgv(in)
		if !slices.Equal(got, c.want) {
			t.Errorf("RedactArgv(%q) = %q, want %q", c.in, got, c.want)
		}
		if !slices.Equal(in, c.in) {
			t.Errorf("RedactArgv modified its argument: %q", in)
		}
	}
	if RedactArgv(nil) != nil {
		t.Error("RedactArgv(nil) != nil")
	}
}

// FuzzRedact: no panic, idempotent, and never longer by more than the
// markers it adds.
func FuzzRedact(f *testing.F) {
	for _, c := range redactCases {
		f.Add(c.in)
	}
	addSeedFile(f, "testdata/redact_seeds.txt")
	f.Fuzz(func(t *testing.T, s string) {
		r := Redact(s)
		if again := Redact(r); again != r {
			t.Fatalf("not idempotent:\n in %q\n 1× %q\n 2× %q", s, r, again)
		}
		// Quoting is kept: shell text stays shell text.
		if _, err := parse(s); err == nil {
			if _, err := parse(r); err != nil {
				t.Fatalf("redaction broke the shell text:\n in %q\nout %q\n%v", s, r, err)
			}
		}
		argv := strings.Fields(s)
		ra := RedactArgv(argv)
		if again := RedactArgv(ra); !slices.Equal(again, ra) {
			t.Fatalf("RedactArgv not idempotent:\n in %q\n 1× %q\n 2× %q", argv, ra, again)
		}
	})
}

// addSeedFile adds each line of a seed file to the corpus.
func addSeedFile(f *testing.F, path string) {
	file, err := os.Open(path)
	if err != nil {
		f.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		f.Add(strings.ReplaceAll(sc.Text(), `\n`, "\n"))
	}
}

func TestRedactProse(t *testing.T) {
	in := "Needs the user's approval; narrow it such as Bash(curl -u bob:hunter2 https://x) or Bash(mysql -phunter2)."
	want := "Needs the user's approval; narrow it such as Bash(curl -u bob:*** https://x) or Bash(mysql -p***)."
	if got := Redact(in); got != want {
		t.Errorf("Redact(%q)\n got %q\nwant %q", in, got, want)
	}
}

// BenchmarkRedact is the redaction of a typical agent command, as each
// record's command, segments and reason pay it.
func BenchmarkRedact(b *testing.B) {
	const cmd = `cd /home/u/project && GOFLAGS=-mod=mod go test ./... -run 'TestFoo|TestBar' -count=1 2>&1 | tail -n 50; git status --short`
	for b.Loop() {
		Redact(cmd)
	}
}

// TestRedactSpellings: however the shell spells a command, its secret is
// gone and the text still parses.
func TestRedactSpellings(t *testing.T) {
	spellings := []string{
		`mysql -phunter2`, `mysql -p'hunter2'`, `mysql -p"hunter2"`, `mysql -p\h\u\n\t\e\r\2`,
		`'mysql' -phunter2`, `/usr/bin/mysql -phunter2`, `sudo -u root mysql -phunter2`, `env X=1 mysql -phunter2`,
		`(mysql -phunter2)`, `{ mysql -phunter2; }`, `x=$(mysql -phunter2)`, "x=`mysql -phunter2`", `bash -c "mysql -phunter2"`,
		`if true; then mysql -phunter2; fi`, `mysql -phun"ter"2`, `mysql -phun'ter'"2"`, `echo | mysql -phunter2`,
		`sshpass -p hunter2 ssh h`, `sshpass -p 'hunter2' ssh h`, `sshpass -phunter2 ssh h`,
		`PGPASSWORD=hunter2 psql`, `PGPASSWORD='hunter2' psql`, `export PGPASSWORD="hunter2"`, `env PGPASSWORD=hunter2 psql`,
		`curl -H Authorization:\ Bearer\ hunter2 x`, `curl -H 'Authorization: Bearer hunter2' x`, `curl -H "Authorization: Bearer hunter2" x`,
		`curl -u bob:hunter2 x`, `curl -u 'bob:hunter2' x`, `curl --user=bob:hunter2 x`, `curl "https://bob:hunter2@h/"`,
		`tool --password hunter2`, `tool --password=hunter2`, `tool --password='hunter2'`, `tool "--password" hunter2`,
		`git config user.password hunter2`, `aws configure set aws_secret_access_key 'hunter2'`,
		`htpasswd -b f bob hunter2`, `openssl enc -k hunter2`, `openssl enc -pass "pass:hunter2"`,
		`curl "http://h/?api_key=hunter2&x=1"`, `bash -c 'bash -c "mysql -phunter2"'`,
	}
	for _, s := range spellings {
		r := Redact(s)
		if strings.Contains(r, "hunter") || strings.Contains(r, "unter2") || strings.Contains(r, `\t\e\r`) {
			t.Errorf("Redact(%q) = %q: the secret survives", s, r)
		}
		if _, err := parse(r); err != nil {
			t.Errorf("Redact(%q) = %q does not parse: %v", s, r, err)
		}
	}
}

// TestWordValuesMatchBash: the values redaction reads from a word are the
// words bash passes to the program, checked against real bash.
func TestWordValuesMatchBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to compare with")
	}
	for _, text := range []string{
		`a 'b c' "d e" f\ g`, `-p'my pass' -p"x\"y" -p\$z`, `"a\b" 'a\b' a\\b`, `x"y"'z'\w`,
		"Authorization:\\ Bearer\\ X \"\\$x\\`y\\\\\" '\\n'", `$'a\tb' "tab	in"`, `$'\x41\101\u00e9\cA\q\'x'`,
	} {
		out, err := exec.Command(bash, "-c", `printf '%s\0' `+text).Output()
		if err != nil {
			t.Fatalf("bash: %v", err)
		}
		want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		f, err := parse("printf '%s\\0' " + text)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		call := f.Stmts[0].Cmd.(*syntax.CallExpr)
		for _, a := range call.Args[2:] {
			got = append(got, wordOf("printf '%s\\0' "+text, a).value)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: words %q, bash %q", text, got, want)
		}
	}
}
