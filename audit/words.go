package audit

import (
	"sort"
	"strings"

	"github.com/agentexec/agentexec/internal/lazyre"
)

// span is a word's byte range in a command text.
type span struct{ start, end int }

// redactCommandWords applies the word rules to each simple command of a
// shell text, found by a rough single-pass lexer: words are split at blanks
// outside quotes, commands at ; | & ( ) ` and newlines. It need not be
// exact shell syntax: it only decides which words belong to which tool.
//
// It lexes twice, honoring quotes and then ignoring them: in prose (a
// reason that says "user's") or broken shell an unbalanced quote would
// otherwise hide every command after it.
func redactCommandWords(text string) string {
	return redactLexed(redactLexed(text, true), false)
}

func redactLexed(text string, quotes bool) string {
	var reps []replacement
	lexCommands(text, quotes, func(words []span) {
		redactWords(len(words),
			func(i int) string { return text[words[i].start:words[i].end] },
			func(i int, w string) { reps = append(reps, replacement{words[i], w}) })
	})
	return splice(text, reps)
}

type replacement struct {
	at   span
	with string
}

func splice(text string, reps []replacement) string {
	if len(reps) == 0 {
		return text
	}
	sort.Slice(reps, func(i, j int) bool { return reps[i].at.start < reps[j].at.start })
	var b strings.Builder
	last := 0
	for _, r := range reps {
		b.WriteString(text[last:r.at.start])
		b.WriteString(r.with)
		last = r.at.end
	}
	b.WriteString(text[last:])
	return b.String()
}

// lexCommands calls fn with the words of each simple command in text. fn
// must not keep the slice.
func lexCommands(text string, quotes bool, fn func(words []span)) {
	var words []span
	flush := func() {
		if len(words) > 0 {
			fn(words)
			words = words[:0]
		}
	}
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case isBlank(c):
			i++
		case isCommandBreak(c):
			flush()
			i++
		default:
			end := wordEnd(text, i, quotes)
			words = append(words, span{i, end})
			i = end
		}
	}
	flush()
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

func isCommandBreak(c byte) bool {
	return c == ';' || c == '|' || c == '&' || c == '(' || c == ')' || c == '`' || c == '\n'
}

// wordEnd returns the end of the word starting at i. An unterminated quote
// runs to the end of the text.
func wordEnd(text string, i int, quotes bool) int {
	for i < len(text) {
		switch c := text[i]; {
		case isBlank(c) || isCommandBreak(c):
			return i
		case !quotes:
			i++
		case c == '\\':
			i += 2
		case c == '\'':
			i = singleQuoteEnd(text, i+1)
		case c == '"':
			i = doubleQuoteEnd(text, i+1)
		default:
			i++
		}
	}
	return len(text)
}

func singleQuoteEnd(text string, i int) int {
	if j := strings.IndexByte(text[i:], '\''); j >= 0 {
		return i + j + 1
	}
	return len(text)
}

func doubleQuoteEnd(text string, i int) int {
	for ; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(text)
}

// wordRedactor redacts the words of one simple command, or of an argv.
type wordRedactor struct {
	n    int
	word func(int) string
	set  func(int, string)
}

// redactWords walks the words, tracking the most recent tool word, since
// whether -p is a password depends on the tool (mkdir -p is not).
func redactWords(n int, word func(int) string, set func(int, string)) {
	r := wordRedactor{n, word, set}
	tool := ""
	for i := 0; i < n; i++ {
		w := word(i)
		if t := toolOf(tool, w); t != "" {
			tool = t
			continue
		}
		if r.redact(tool, w, i) {
			i++ // the next word was the secret value
		}
	}
}

// redact handles word i; it reports whether it redacted word i+1.
func (r wordRedactor) redact(tool, w string, i int) (next bool) {
	if name, hasValue, ok := secretFlag(w); ok {
		if hasValue {
			r.set(i, name+"="+Redacted)
			return false
		}
		return r.setNext(i, Redacted)
	}
	if name, ok := secretAssignment(w); ok {
		r.set(i, name+"="+Redacted)
		return false
	}
	switch tool {
	case "mysql":
		r.attached(w, "-p", i)
	case "sshpass", "login":
		return r.flagValue(w, "-p", i)
	case "redis-cli":
		return r.flagValue(w, "-a", i)
	case "curl":
		return r.curlUser(w, i)
	}
	return false
}

// flagValue redacts the value of a short flag, attached or in the next word.
func (r wordRedactor) flagValue(w, flag string, i int) bool {
	if w == flag {
		return r.setNext(i, Redacted)
	}
	r.attached(w, flag, i)
	return false
}

func (r wordRedactor) attached(w, flag string, i int) {
	if len(w) > len(flag) && strings.HasPrefix(w, flag) {
		r.set(i, flag+Redacted)
	}
}

// setNext redacts word i+1, unless it looks like the next flag (a boolean
// flag like --with-token has no value).
func (r wordRedactor) setNext(i int, w string) bool {
	if i+1 >= r.n || strings.HasPrefix(r.word(i+1), "-") {
		return false
	}
	r.set(i+1, w)
	return true
}

// curlUser redacts the password of curl -u/--user user:password.
func (r wordRedactor) curlUser(w string, i int) bool {
	switch {
	case w == "-u" || w == "--user":
		if i+1 < r.n {
			r.set(i+1, userPassword(r.word(i+1)))
			return true
		}
	case strings.HasPrefix(w, "--user="):
		r.set(i, "--user="+userPassword(w[len("--user="):]))
	case strings.HasPrefix(w, "-u"):
		r.set(i, "-u"+userPassword(w[2:]))
	}
	return false
}

// userPassword redacts what follows the first colon, keeping a closing
// quote that matches an opening one so the text's quoting is unchanged.
func userPassword(w string) string {
	c := strings.IndexByte(w, ':')
	if c < 0 {
		return w
	}
	tail := ""
	if len(w) >= 2 && (w[0] == '\'' || w[0] == '"') && w[len(w)-1] == w[0] && c < len(w)-1 {
		tail = w[len(w)-1:]
	}
	return w[:c+1] + Redacted + tail
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

var secretAssignRE = lazyre.New(`^(?i)([a-z_][a-z0-9_]*)=[^$]`)

// secretAssignment reports whether the whole word w assigns to a
// secret-looking name (see secretName), so the whole rest of the word,
// spaces and quotes included, is the secret.
func secretAssignment(w string) (name string, ok bool) {
	m := secretAssignRE.FindStringSubmatch(w)
	if m == nil || !secretName.MatchString(m[1]) || w[len(m[1])+1:] == Redacted {
		return "", false
	}
	return m[1], true
}

// secretName matches the names whose assigned values are secrets.
var secretName = lazyre.New(`^(?i)(?:[a-z0-9_]*(?:secret|passw(?:or)?d|credentials?)[a-z0-9_]*|[a-z0-9_]*(?:token|_key|apikey|_pass|_pwd))$`)

var registryTools = map[string]bool{
	"docker": true, "podman": true, "nerdctl": true, "buildah": true,
	"skopeo": true, "helm": true, "oras": true, "crane": true,
}

// toolOf names the tool word w starts, or "" when w is not a tool whose
// flags the word rules know. prev is the tool before it: "login" counts
// only after a registry client (docker login -p is a password, docker run
// -p a port).
func toolOf(prev, w string) string {
	base := bareName(w)
	switch {
	case strings.HasPrefix(base, "mysql") || strings.HasPrefix(base, "mariadb"):
		return "mysql"
	case base == "sshpass" || base == "redis-cli" || base == "curl":
		return base
	case registryTools[base]:
		return "registry"
	case base == "login" && prev == "registry":
		return "login"
	}
	return ""
}

// bareName strips quoting and a directory from a command word.
func bareName(w string) string {
	w = strings.Map(func(r rune) rune {
		if r == '\'' || r == '"' || r == '\\' {
			return -1
		}
		return r
	}, w)
	if i := strings.LastIndexByte(w, '/'); i >= 0 {
		w = w[i+1:]
	}
	return w
}
