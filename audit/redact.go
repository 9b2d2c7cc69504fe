package audit

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentexec/agentexec/internal/lazy"
	"github.com/agentexec/agentexec/internal/lazyre"
	"github.com/agentexec/agentexec/internal/shwalk"
)

// Redacted replaces every secret value Redact removes.
const Redacted = "***"

// Redact returns text with the secrets it recognizes replaced by "***".
// Shell text is read as the gate reads it, with the bash parser, so a
// secret is found however the command spells it ('-pX', -p"X", -p\X, in
// $(...), after sudo or env, in bash -c '...') and replaced with the
// quoting around it kept: "http://h/?api_key=***&x=1" keeps its closing
// quote. Text that does not parse (prose, other shells) is read word by
// word at blanks. It recognizes:
//
//   - passwords in URLs: https://user:pass@host → https://user:***@host
//   - Authorization, Proxy-Authorization, X-Api-Key, Private-Token, Cookie
//     header values, and Bearer tokens, however the spaces are escaped
//   - secret flags: --password=X, --password X, --token, --secret,
//     --api-key, --pass (and one-dash spellings); -pX for the mysql and
//     mariadb tools (where -p with a separate word is not a password but a
//     database name); -p X and -pX for sshpass and docker/podman login;
//     -a X for redis-cli; the password after the colon of curl -u
//     user:pass; htpasswd -b's password; openssl -k X and -pass pass:X
//   - settings: aws configure set aws_secret_access_key X, git config
//     user.password X, npm config set //host/:_authToken X
//   - assignments to secret-looking names: *SECRET*, *PASSWORD*, *PASSWD*,
//     *TOKEN, *_KEY, *APIKEY, *_PASS, *_PWD, *CREDENTIAL(S) (any case;
//     PGPASSWORD=X, MYSQL_PWD=X, a query string's api_key=X), unless the
//     value is an expansion ($X); and "password": "..." style keys
//   - token shapes: AWS access key ids (AKIA…, ASIA…), GitHub (ghp_, gho_,
//     ghu_, ghs_, ghr_, github_pat_), OpenAI/Anthropic (sk-, sk-proj-,
//     sk-ant-), Stripe (sk_live_, rk_live_), Slack (xoxb-, xoxp-, …),
//     GitLab (glpat-), Google (AIza…), npm (npm_), Hugging Face (hf_), JWTs
//     (eyJ….….…) and PEM private key blocks
//
// A recognizable prefix is kept (ghp_***, AKIA***) so a reader can tell
// which kind of secret was there. Redact(Redact(x)) == Redact(x). Every
// rule is linear time: the parser is, and Go's regexp is RE2.
//
// Sharp edges: redaction is pattern matching over the shell's words, not
// proof. A secret in a shape it does not know (a bare password argument
// to a tool it does not know) is written as is. It errs toward redacting:
// "mysql -p mydb" keeps mydb, but "tool --password mydb" loses it, and a
// name like SORT_KEY=x is redacted too. Replay sees the redacted text.
func Redact(text string) string {
	for range 4 {
		next := splice(text, secretSpans(text, 0))
		if next == text {
			break
		}
		text = next
	}
	return text
}

// RedactArgv returns a redacted copy of argv: the word rules of Redact
// applied across its elements, and its patterns to each. argv is not
// modified.
func RedactArgv(argv []string) []string {
	if argv == nil {
		return nil
	}
	out := append([]string(nil), argv...)
	for range 4 {
		changed := false
		spans := argvSpans(out)
		for i, a := range out {
			if r := splice(a, spans[i]); r != a {
				out[i], changed = r, true
			}
		}
		if !changed {
			break
		}
	}
	return out
}

// maxCodeDepth bounds how deep shell text inside shell text (bash -c
// "sh -c '...'") is read.
const maxCodeDepth = 4

// argvSpans finds the secrets of an argv, per element.
func argvSpans(argv []string) [][]span {
	spans := make([][]span, len(argv))
	words := make([]word, len(argv))
	for i, a := range argv {
		words[i] = literalWord(a, 0)
		spans[i] = wantedPatterns(a).spans(a, false)
	}
	for _, e := range commandEdits(argv) {
		spans[e.word] = append(spans[e.word], editSpans(words[e.word], e, 0)...)
	}
	return spans
}

// editSpans is the text an edit of word w replaces.
func editSpans(w word, e edit, depth int) []span {
	if !e.code {
		return []span{w.source(e.from, e.to)}
	}
	if depth >= maxCodeDepth {
		return nil
	}
	var out []span
	for _, s := range secretSpans(w.value, depth+1) {
		out = append(out, w.source(s.start, s.end))
	}
	return out
}

// secretSpans finds the secrets in text: by the shell's reading when it
// parses, else word by word.
func secretSpans(text string, depth int) []span {
	if f, err := parse(text); err == nil {
		return parsedSpans(text, f, depth)
	}
	return plainSpans(text)
}

// parsedSpans finds the secrets of parsed shell text: the word rules over
// every simple command (in substitutions too), the patterns over every
// word, comment and heredoc, and the patterns that span blanks over the
// whole text.
func parsedSpans(text string, f *syntax.File, depth int) []span {
	ps := wantedPatterns(text)
	out := ps.spans(text, true)
	// A call's words are read once for its rules and met again as the walk
	// goes down into them, in the same order: the walk takes them from
	// there (a word met out of that order is read again, which is only
	// slower). A map of every word would cost more than the words.
	var recent []*syntax.Word
	var recentW, buf []word
	var values []string
	next := 0
	wordAt := func(sw *syntax.Word) word {
		if next < len(recent) && recent[next] == sw {
			next++
			return recentW[next-1]
		}
		return wordOf(text, sw)
	}
	shwalk.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CallExpr:
			// One buffer for every call's words: a call's are only read
			// until the next call's replace them (recentW with them).
			if cap(buf) < len(x.Args) {
				buf, values = make([]word, 0, len(x.Args)), make([]string, 0, len(x.Args))
			}
			buf = buf[:0]
			for _, a := range x.Args {
				buf = append(buf, wordOf(text, a))
			}
			recent, recentW, next = x.Args, buf, 0
			values = values[:0]
			for _, w := range buf {
				values = append(values, w.value)
			}
			out = append(out, callSpans(buf, values, depth)...)
		case *syntax.Word:
			if len(ps) == 0 {
				break
			}
			w := wordAt(x)
			for _, s := range ps.spans(w.value, false) {
				out = append(out, w.source(s.start, s.end))
			}
		case *syntax.Assign:
			out = append(out, assignSpans(x, wordAt)...)
		case *syntax.Comment:
			at := int(x.Pos().Offset()) + 1
			for _, s := range ps.spans(x.Text, false) {
				out = append(out, span{at + s.start, at + s.end})
			}
		}
		return true
	})
	return out
}

// callSpans are the spans the command rules redact in a call's words
// (values are the words' values).
func callSpans(words []word, values []string, depth int) []span {
	var out []span
	for _, e := range commandEdits(values) {
		out = append(out, editSpans(words[e.word], e, depth)...)
	}
	return out
}

// assignSpans redacts the value of NAME=value when NAME is a secret name
// and the value is not an expansion.
func assignSpans(a *syntax.Assign, wordAt func(*syntax.Word) word) []span {
	if a.Name == nil || a.Value == nil || !secretName.MatchString(a.Name.Value) {
		return nil
	}
	w := wordAt(a.Value)
	if w.value == "" || w.value[0] == opaque || w.value == Redacted {
		return nil
	}
	return []span{w.source(0, len(w.value))}
}

// plainSpans reads text that is not shell: commands split at ; | & ( ) `
// and newlines, words at blanks, quotes and backslashes dropped from a
// word's value. Prose that quotes commands ("such as Bash(mysql -pX)")
// reads well enough so.
func plainSpans(text string) []span {
	out := wantedPatterns(text).spans(text, false)
	// Only the values go to the rules; a word's map back to the text is
	// built for the few words a rule edits.
	var at []span
	var values []string
	flush := func() {
		if len(values) == 0 {
			return
		}
		for _, e := range commandEdits(values) {
			if !e.code {
				out = append(out, plainWord(text, at[e.word].start, at[e.word].end).source(e.from, e.to))
			}
		}
		at, values = at[:0], values[:0]
	}
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case strings.IndexByte(";|&()`\n", c) >= 0:
			flush()
			i++
		default:
			j := i
			for j < len(text) && strings.IndexByte(" \t\r;|&()`\n", text[j]) < 0 {
				j++
			}
			at, values = append(at, span{i, j}), append(values, plainValue(text[i:j]))
			i = j
		}
	}
	flush()
	return out
}

// plainValue is s with quotes and backslashes dropped, as plainWord reads
// it.
func plainValue(s string) string {
	if strings.IndexAny(s, `'"\\`) < 0 {
		return s
	}
	return unquoter.Get().Replace(s)
}

// plainWord is text[i:j] with quotes and backslashes dropped.
func plainWord(text string, i, j int) word {
	if strings.IndexAny(text[i:j], `'"\`) < 0 {
		return literalWord(text[i:j], i)
	}
	var w word
	var b strings.Builder
	w.parts = []wordPart{{span: span{i, j}}}
	for k := i; k < j; k++ {
		if c := text[k]; c != '\'' && c != '"' && c != '\\' {
			b.WriteByte(c)
			w.src = append(w.src, span{k, k + 1})
			w.part = append(w.part, 0)
		}
	}
	w.value = b.String()
	return w
}

// patternSet is the patterns whose hints a text holds: the only ones that
// can match it or any part of it.
type patternSet []*pattern

// The hints are looked for in the text and in the text without quotes and
// backslashes, since a word's value may join what they split:
// Author\ization: is authorization: to the shell.
func wantedPatterns(text string) patternSet {
	var ps patternSet
	lower := strings.ToLower(text)
	joined := unquoter.Get().Replace(lower)
	for i := range patterns {
		if patterns[i].wanted(lower) || patterns[i].wanted(joined) {
			ps = append(ps, &patterns[i])
		}
	}
	return ps
}

// unquoter drops quotes and backslashes. A Replacer is safe for
// concurrent use and costly to build: one serves every call.
var unquoter = &lazy.Value[*strings.Replacer]{Build: func() *strings.Replacer {
	return strings.NewReplacer("\\", "", "'", "", `"`, "")
}}

// spans finds the secret of every pattern in s; with blanks, only of the
// patterns whose matches may span blanks (header values), as run over a
// whole shell text.
func (ps patternSet) spans(s string, blanks bool) []span {
	var out []span
	for _, p := range ps {
		if blanks && !p.spansBlanks {
			continue
		}
		for _, m := range p.re.Regexp().FindAllStringSubmatchIndex(s, -1) {
			if m[2] >= 0 && m[3] > m[2] && s[m[2]:m[3]] != Redacted {
				out = append(out, span{m[2], m[3]})
			}
		}
	}
	return out
}

// pattern is one regexp rule: its first group is the secret. hints are
// lower-case substrings one of which the text must contain for the rule to
// run at all: a cheap prefilter.
type pattern struct {
	re          *lazyre.Regexp
	hints       []string
	spansBlanks bool // may match across words: run over whole texts too
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

// assignValue is the value of NAME=value in a word or a query string: up
// to a blank, quote, shell operator or & (the next query parameter). A
// value that starts with $ (or an expansion) is not redacted.
const assignValue = `([^\s'"$;&|()<>` + "`" + `\x00][^\s'";&|()<>` + "`" + `]*)`

var patterns = []pattern{
	{re: lazyre.New(`(?i)-----BEGIN [A-Z ]*PRIVATE KEY-----([^-]+)-----END [A-Z ]*PRIVATE KEY-----`), hints: hints("private key")},
	{re: lazyre.New(`(?i)\b[a-z][a-z0-9+.-]*://[^\s/:@'"]*:([^\s/'"@]+)@`), hints: hints("://")},
	{re: lazyre.New(`(?i)\b(?:authorization|x-api-key|api-key|x-auth-token|private-token|x-access-token|cookie|set-cookie)\s*[:=]\s*(?:(?:bearer|basic|token|digest|negotiate|ntlm|apikey)\s+)?([^\s'"\\]+)`),
		hints: hints("authorization", "api-key", "auth-token", "private-token", "access-token", "cookie"), spansBlanks: true},
	{re: lazyre.New(`(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{8,})`), hints: hints("bearer"), spansBlanks: true},
	{re: lazyre.New(`(?i)\b(?:[a-z0-9_]*(?:secret|passw(?:or)?d|credentials?)[a-z0-9_]*|[a-z0-9_]*(?:token|_key|apikey|_pass|_pwd))=` + assignValue), hints: hints("secret", "passw", "credential", "token", "key", "_pass", "_pwd")},
	{re: lazyre.New(`(?i)"[a-z0-9_-]*(?:secret|passw(?:or)?d|token|api_?key)[a-z0-9_-]*"\s*:\s*"([^"]*)"`), hints: hints("secret", "passw", "token", "key")},
	{re: lazyre.New(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)([A-Z0-9]{16})\b`), hints: hints("akia", "asia", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "abia", "acca")},
	{re: lazyre.New(`\bgh[pousr]_([A-Za-z0-9]{20,})`), hints: hints("ghp_", "gho_", "ghu_", "ghs_", "ghr_")},
	{re: lazyre.New(`\bgithub_pat_([A-Za-z0-9_]{20,})`), hints: hints("github_pat_")},
	{re: lazyre.New(`\bsk-(?:proj-|ant-(?:api\d\d-)?|svcacct-|admin-)?([A-Za-z0-9_-]{16,})`), hints: hints("sk-")},
	{re: lazyre.New(`\b(?:sk|rk)_(?:live|test)_([A-Za-z0-9]{10,})`), hints: hints("k_live_", "k_test_")},
	{re: lazyre.New(`\bxox[abposr]-([A-Za-z0-9-]{10,})`), hints: hints("xox")},
	{re: lazyre.New(`\bglpat-([A-Za-z0-9_-]{20,})`), hints: hints("glpat-")},
	{re: lazyre.New(`\bAIza([0-9A-Za-z_-]{35})`), hints: hints("aiza")},
	{re: lazyre.New(`\bnpm_([A-Za-z0-9]{36})`), hints: hints("npm_")},
	{re: lazyre.New(`\bhf_([A-Za-z0-9]{30,})`), hints: hints("hf_")},
	{re: lazyre.New(`\beyJ([A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)`), hints: hints("eyj")},
}
