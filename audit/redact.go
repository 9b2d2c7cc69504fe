package audit

import (
	"strings"

	"github.com/agentexec/agentexec/internal/lazyre"
)

// Redacted replaces every secret value Redact removes.
const Redacted = "***"

// Redact returns text with the secrets it recognizes replaced by "***":
//
//   - passwords in URLs: https://user:pass@host → https://user:***@host
//   - Authorization, Proxy-Authorization, X-Api-Key, Private-Token, Cookie
//     header values, and Bearer tokens
//   - secret flags: --password=X, --password X, --token, --secret,
//     --api-key, --pass (and one-dash spellings); -pX for the mysql and
//     mariadb tools (where -p with a separate word is not a password but a
//     database name); -p X and -pX for sshpass and docker/podman login;
//     -a X for redis-cli; the password after the colon of curl -u user:pass
//   - assignments to secret-looking names: *SECRET*, *PASSWORD*, *PASSWD*,
//     *TOKEN, *_KEY, *APIKEY, *_PASS, *_PWD, *CREDENTIAL(S) (any case),
//     unless the value is a $expansion; and "password": "..." style keys
//   - token shapes: AWS access key ids (AKIA…, ASIA…), GitHub (ghp_, gho_,
//     ghu_, ghs_, ghr_, github_pat_), OpenAI/Anthropic (sk-, sk-proj-,
//     sk-ant-), Stripe (sk_live_, rk_live_), Slack (xoxb-, xoxp-, …),
//     GitLab (glpat-), Google (AIza…), npm (npm_), Hugging Face (hf_), JWTs
//     (eyJ….….…) and PEM private key blocks
//
// A recognizable prefix is kept (ghp_***, AKIA***) so a reader can tell
// which kind of secret was there. The rules run to a fixed point, so
// Redact(Redact(x)) == Redact(x). Every rule is linear time: the lexer is a
// single pass and Go's regexp is RE2.
//
// Sharp edges: redaction is pattern matching, not proof. A secret in a
// shape it does not know (a bare password argument to a tool it does not
// know) is written as is. It errs toward redacting: "mysql -p mydb" keeps
// mydb, but "tool --password mydb" loses it, and a name like SORT_KEY=x is
// redacted too. Replay sees the redacted text.
func Redact(text string) string {
	for range 4 {
		next := redactOnce(text)
		if next == text {
			break
		}
		text = next
	}
	return text
}

// RedactArgv returns a redacted copy of argv: the word rules of Redact
// applied across its elements, then Redact on each element. argv is not
// modified.
func RedactArgv(argv []string) []string {
	if argv == nil {
		return nil
	}
	out := append([]string(nil), argv...)
	for range 4 {
		changed := false
		redactWords(len(out), func(i int) string { return out[i] }, func(i int, w string) {
			if out[i] != w {
				out[i], changed = w, true
			}
		})
		for i, a := range out {
			if r := redactPatterns(a); r != a {
				out[i], changed = r, true
			}
		}
		if !changed {
			break
		}
	}
	return out
}

func redactOnce(text string) string {
	return redactPatterns(redactCommandWords(text))
}

// redactPatterns lowers text once for the hints: a replacement only swaps a
// secret for "***", so it never adds a hint a later rule would need.
func redactPatterns(text string) string {
	lower := strings.ToLower(text)
	for _, p := range patterns {
		if p.wanted(lower) {
			text = p.re.ReplaceAllString(text, p.repl)
		}
	}
	return text
}

// pattern is one regexp rule. hints are lower-case substrings one of which
// the text must contain for the rule to run at all: a cheap prefilter.
type pattern struct {
	re    *lazyre.Regexp
	repl  string
	hints []string
}

func (p pattern) wanted(lower string) bool {
	for _, h := range p.hints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

func hints(h ...string) []string { return h }

// nameChars and the value alternatives exclude quotes, so a replacement
// never unbalances the quoting the word rules lex.
const assignValue = `(?:'[^']*'?|"[^"]*"?|[^\s'"$;&|()<>` + "`" + `][^\s'";&|()<>` + "`" + `]*)`

var patterns = []pattern{
	{lazyre.New(`(?i)-----BEGIN [A-Z ]*PRIVATE KEY-----[^-]*-----END [A-Z ]*PRIVATE KEY-----`), "-----BEGIN PRIVATE KEY-----***-----END PRIVATE KEY-----", hints("private key")},
	{lazyre.New(`(?i)\b([a-z][a-z0-9+.-]*://[^\s/:@'"]*:)[^\s/'"]+@`), "${1}***@", hints("://")},
	{lazyre.New(`(?i)\b((?:authorization|x-api-key|api-key|x-auth-token|private-token|x-access-token|cookie|set-cookie)\s*[:=]\s*(?:(?:bearer|basic|token|digest|negotiate|ntlm|apikey)\s+)?)[^\s'"]+`), "${1}***", hints("authorization", "api-key", "auth-token", "private-token", "access-token", "cookie")},
	{lazyre.New(`(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}`), "${1}***", hints("bearer")},
	{lazyre.New(`(?i)\b([a-z0-9_]*(?:secret|passw(?:or)?d|credentials?)[a-z0-9_]*|[a-z0-9_]*(?:token|_key|apikey|_pass|_pwd))=` + assignValue), "${1}=***", hints("secret", "passw", "credential", "token", "key", "_pass", "_pwd")},
	{lazyre.New(`(?i)("[a-z0-9_-]*(?:secret|passw(?:or)?d|token|api_?key)[a-z0-9_-]*"\s*:\s*)"[^"]*"`), `${1}"***"`, hints("secret", "passw", "token", "key")},
	{lazyre.New(`\b(AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}\b`), "${1}***", hints("akia", "asia", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "abia", "acca")},
	{lazyre.New(`\b(gh[pousr]_)[A-Za-z0-9]{20,}`), "${1}***", hints("ghp_", "gho_", "ghu_", "ghs_", "ghr_")},
	{lazyre.New(`\b(github_pat_)[A-Za-z0-9_]{20,}`), "${1}***", hints("github_pat_")},
	{lazyre.New(`\b(sk-(?:proj-|ant-(?:api\d\d-)?|svcacct-|admin-)?)[A-Za-z0-9_-]{16,}`), "${1}***", hints("sk-")},
	{lazyre.New(`\b((?:sk|rk)_(?:live|test)_)[A-Za-z0-9]{10,}`), "${1}***", hints("k_live_", "k_test_")},
	{lazyre.New(`\b(xox[abposr]-)[A-Za-z0-9-]{10,}`), "${1}***", hints("xox")},
	{lazyre.New(`\b(glpat-)[A-Za-z0-9_-]{20,}`), "${1}***", hints("glpat-")},
	{lazyre.New(`\b(AIza)[0-9A-Za-z_-]{35}`), "${1}***", hints("aiza")},
	{lazyre.New(`\b(npm_)[A-Za-z0-9]{36}`), "${1}***", hints("npm_")},
	{lazyre.New(`\b(hf_)[A-Za-z0-9]{30,}`), "${1}***", hints("hf_")},
	{lazyre.New(`\b(eyJ)[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`), "${1}***", hints("eyj")},
}
