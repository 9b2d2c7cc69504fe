package audit

import (
	"strings"

	"github.com/agentexec/agentexec/internal/lazy"
	"github.com/agentexec/agentexec/internal/lazyre"
)

// edit is a secret found in the words of one command: bytes [from, to) of
// the value of word i; or, with code, a word that is itself shell text
// (bash -c TEXT), to be redacted as a command of its own.
type edit struct {
	word, from, to int
	code           bool
}

// command is the words of one simple command, as the shell reads them,
// and the secrets found in them.
type command struct {
	words []string
	edits []edit
	// setting is the index of the first set/config/configure word, -1
	// when there is none (found once: settingKey asks for every word).
	setting int
}

// commandEdits finds the secrets in the words of one simple command.
// Rules that depend on the program (mysql -pX is a password, mkdir -p is
// not) apply after the program's name, wherever it is: after sudo, env,
// nice or a path.
func commandEdits(words []string) []edit {
	c := &command{words: words, setting: -1}
	for i, w := range words {
		if w == "set" || w == "config" || w == "configure" {
			c.setting = i
			break
		}
	}
	tool := ""
	for i := 0; i < len(words); i++ {
		if t := toolOf(tool, words[i]); t != "" {
			tool = t
			continue
		}
		i += c.word(tool, i)
	}
	return c.edits
}

// secret redacts word i from byte from on.
func (c *command) secret(i, from int) {
	if from < len(c.words[i]) && c.words[i][from:] != Redacted {
		c.edits = append(c.edits, edit{word: i, from: from, to: len(c.words[i])})
	}
}

// secretNext redacts word i+1, unless it looks like the next flag (a
// boolean flag like --with-token has no value). It returns the words
// consumed after i.
func (c *command) secretNext(i int) int {
	if i+1 >= len(c.words) || strings.HasPrefix(c.words[i+1], "-") {
		return 0
	}
	c.secret(i+1, 0)
	return 1
}

// word applies the rules to word i of a command run by tool; it returns
// how many of the following words it consumed.
func (c *command) word(tool string, i int) int {
	w := c.words[i]
	if rule, ok := toolRules.Get()[tool]; ok {
		if n, done := rule(c, i); done {
			return n
		}
	}
	if name, hasValue, ok := secretFlag(w); ok {
		if hasValue {
			c.secret(i, len(name)+1)
			return 0
		}
		return c.secretNext(i)
	}
	if name, ok := secretAssignment(w); ok {
		c.secret(i, len(name)+1)
		return 0
	}
	if c.settingKey(i) && secretKey(w) {
		return c.secretNext(i)
	}
	return 0
}

// settingKey reports whether word i names a setting that the next word
// sets: aws configure set KEY VALUE, git config user.password VALUE, npm
// config set //registry/:_authToken VALUE.
func (c *command) settingKey(i int) bool {
	return c.setting >= 0 && c.setting < i
}

// toolRules are the programs whose options carry secrets in their own way:
// one table, read by commandEdits. A rule returns done when it decided
// word i; otherwise the generic rules (secret flags and assignments) run.
var toolRules = &lazy.Value[map[string]toolRule]{Build: func() map[string]toolRule {
	return map[string]toolRule{
		"mysql":     func(c *command, i int) (int, bool) { return 0, c.attached(i, "-p") },
		"sshpass":   func(c *command, i int) (int, bool) { return c.shortValue(i, "-p") },
		"login":     func(c *command, i int) (int, bool) { return c.shortValue(i, "-p") },
		"redis-cli": func(c *command, i int) (int, bool) { return c.shortValue(i, "-a") },
		"curl":      (*command).curlUser,
		"htpasswd":  (*command).htpasswd,
		"openssl":   (*command).openssl,
		"shell":     (*command).shellCode,
		"eval": func(c *command, i int) (int, bool) {
			c.edits = append(c.edits, edit{word: i, code: true})
			return 0, true
		},
	}
}}

// toolRule decides word i of a tool's command line: consumed words, and
// done when it decided it.
type toolRule = func(c *command, i int) (consumed int, done bool)

// attached redacts the value of a short flag written together with it
// (-pX); mysql's -p with a separate word is not a password but a database.
func (c *command) attached(i int, flag string) bool {
	if w := c.words[i]; len(w) > len(flag) && strings.HasPrefix(w, flag) {
		c.secret(i, len(flag))
		return true
	}
	return false
}

// shortValue redacts the value of a short flag, attached or the next word.
func (c *command) shortValue(i int, flag string) (int, bool) {
	if c.words[i] == flag {
		return c.secretNext(i), true
	}
	return 0, c.attached(i, flag)
}

// curlUser redacts the password of curl -u/--user user:password.
func (c *command) curlUser(i int) (int, bool) {
	w := c.words[i]
	switch {
	case (w == "-u" || w == "--user") && i+1 < len(c.words):
		c.afterColon(i+1, 0)
		return 1, true
	case strings.HasPrefix(w, "--user="):
		c.afterColon(i, len("--user="))
		return 0, true
	case strings.HasPrefix(w, "-u") && !strings.HasPrefix(w, "--"):
		c.afterColon(i, 2)
		return 0, true
	}
	return 0, false
}

// afterColon redacts what follows the first colon of word i after byte at.
func (c *command) afterColon(i, at int) {
	if j := strings.IndexByte(c.words[i][at:], ':'); j >= 0 {
		c.secret(i, at+j+1)
	}
}

// htpasswd redacts the password of htpasswd -b (batch mode), the last of
// its arguments: htpasswd -b[c] FILE USER PASS, htpasswd -nb USER PASS.
func (c *command) htpasswd(i int) (int, bool) {
	batch, last := false, -1
	for j := i; j < len(c.words); j++ {
		w := c.words[j]
		switch {
		case strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--"):
			batch = batch || strings.Contains(w, "b")
		default:
			last = j
		}
	}
	if batch && last >= 0 {
		c.secret(last, 0)
	}
	return len(c.words) - i, true
}

// openssl redacts -k PASS, and -pass/-passin/-passout pass:PASS (the other
// sources, env:VAR, file:PATH, fd:N and stdin, name no secret).
func (c *command) openssl(i int) (int, bool) {
	switch c.words[i] {
	case "-k":
		return c.secretNext(i), true
	case "-pass", "-passin", "-passout":
		if i+1 < len(c.words) && strings.HasPrefix(c.words[i+1], "pass:") {
			c.secret(i+1, len("pass:"))
		}
		return 1, true
	}
	return 0, false
}

// shellCode marks the text after a shell's -c (bash -c, sh -ec, su -c) as
// shell text to redact as commands of their own.
func (c *command) shellCode(i int) (int, bool) {
	w := c.words[i]
	if !strings.HasPrefix(w, "-") || strings.HasPrefix(w, "--") || !strings.Contains(w, "c") || i+1 >= len(c.words) {
		return 0, false
	}
	c.edits = append(c.edits, edit{word: i + 1, code: true})
	return 1, true
}

// shells are the programs whose -c argument is shell text.
var shells = lazy.NewSet("sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "su")

var registryTools = lazy.NewSet(
	"docker", "podman", "nerdctl", "buildah",
	"skopeo", "helm", "oras", "crane",
)

// toolOf names the rule set the word w starts, or "" when w is not a
// program whose options the rules know. prev is the tool before it:
// "login" counts only after a registry client (docker login -p is a
// password, docker run -p a port).
func toolOf(prev, w string) string {
	base := w
	if i := strings.LastIndexByte(w, '/'); i >= 0 {
		base = w[i+1:]
	}
	switch {
	case mysqlTool(base, "mysql") || mysqlTool(base, "mariadb"):
		return "mysql"
	case base == "sshpass" || base == "redis-cli" || base == "curl" || base == "htpasswd" || base == "openssl" || base == "eval":
		return base
	case shells.Has(base):
		return "shell"
	case registryTools.Has(base):
		return "registry"
	case base == "login" && prev == "registry":
		return "login"
	}
	return ""
}

// mysqlTool reports whether name is one of the family's programs:
// mysql, mysqldump, mysqladmin, mariadb-dump...
func mysqlTool(name, family string) bool {
	rest, ok := strings.CutPrefix(name, family)
	return ok && strings.Trim(rest, "abcdefghijklmnopqrstuvwxyz-_") == ""
}

var secretFlagRE = lazyre.New(`^(?i)(--?(?:[a-z0-9]+[-_])*(?:password|passwd|pass|token|secret|api-key|apikey|api_key))(=.*)?$`)

// secretFlag reports whether w is a flag whose value is a secret, its name,
// and whether the value is attached with =.
func secretFlag(w string) (name string, hasValue, ok bool) {
	if !strings.HasPrefix(w, "-") {
		return "", false, false
	}
	m := secretFlagRE.FindStringSubmatch(w)
	if m == nil {
		return "", false, false
	}
	return m[1], m[2] != "", true
}

var secretAssignRE = lazyre.New(`^([A-Za-z_][A-Za-z0-9_]*)=[^$\x00]`)

// secretAssignment reports whether the word w assigns to a secret-looking
// name (see secretName), so the whole rest of the word is the secret.
func secretAssignment(w string) (name string, ok bool) {
	if strings.IndexByte(w, '=') <= 0 {
		return "", false
	}
	m := secretAssignRE.FindStringSubmatch(w)
	if m == nil || !secretName.MatchString(m[1]) {
		return "", false
	}
	return m[1], true
}

// secretName matches the names whose assigned values are secrets.
var secretName = lazyre.New(`^(?i)(?:[a-z0-9_]*(?:secret|passw(?:or)?d|credentials?)[a-z0-9_]*|[a-z0-9_]*(?:token|_key|apikey|_pass|_pwd))$`)

// secretKey reports whether w names a secret setting: its last component
// (after a . : or /) is a secret name, as in aws_secret_access_key,
// user.password or //registry.npmjs.org/:_authToken.
func secretKey(w string) bool {
	if i := strings.LastIndexAny(w, ".:/"); i >= 0 {
		w = w[i+1:]
	}
	return w != "" && secretName.MatchString(w)
}
