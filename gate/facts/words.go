package facts

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/agentexec/agentexec/gate/programs"
)

var errDynamic = errors.New("dynamic word")

// staticConfig expands words with nothing from the host: no environment,
// no command or process substitution, no globbing, and unset variables are
// errors. It is only used on words already proven structurally static. A
// fresh config per call, because expand writes to the config it is given.
func staticConfig(env expand.Environ) *expand.Config {
	return &expand.Config{
		Env:       env,
		CmdSubst:  func(io.Writer, *syntax.CmdSubst) error { return errDynamic },
		ProcSubst: func(*syntax.ProcSubst) (string, error) { return "", errDynamic },
		NoUnset:   true,
	}
}

var emptyEnv = expand.ListEnviron()

// Static returns the value bash gives w after quote removal when that
// value is known without running anything: w is made only of literals,
// single quotes, ANSI-C $'…' quotes and double quotes holding only
// literals, does not start with an unquoted ~, and does not brace-expand
// into more or fewer than one word. Glob characters are kept as they are;
// callers that care must look for them (HasGlob). ok is false for every
// other word.
//
// Staticness is decided from the structure, never from expand succeeding:
// expand turns an unset variable into "" without an error.
func Static(w *syntax.Word) (string, bool) {
	if w == nil || len(w.Parts) == 0 {
		return "", false
	}
	if v, ok := plainStatic(w); ok {
		return v, true
	}
	if v, ok := quotedStatic(w); ok {
		return v, true
	}
	return staticExpand(w)
}

// staticExpand is Static's general path: the word's structure is checked
// and expand computes its value.
func staticExpand(w *syntax.Word) (string, bool) {
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				return "", false
			}

		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			if p.Dollar { // $"…" is locale translation
				return "", false
			}
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return "", false
				}
			}
		default:
			return "", false
		}
	}
	if assignTilde(w) {
		return "", false
	}
	if braceFields(w) != 1 {
		return "", false
	}
	fields, err := fieldsSafe(staticConfig(emptyEnv), w)
	if err != nil || len(fields) != 1 {
		return "", false
	}
	return fields[0], true
}

// maxBraceFields bounds the words a brace expansion is expanded into:
// {a,b}{a,b}… doubles with every group, {1..1000000} is a million words.
const maxBraceFields = 64

// braceFields returns how many words w's brace expansions make, or more
// than maxBraceFields when that is the bound that was hit; 1 without
// braces. It never expands anything.
func braceFields(w *syntax.Word) int {
	hasBrace := false
	for _, part := range w.Parts {
		if l, ok := part.(*syntax.Lit); ok && strings.ContainsRune(l.Value, '{') {
			hasBrace = true
			break
		}
	}
	if !hasBrace {
		return 1
	}
	cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
	if !syntax.SplitBraces(cp) {
		return 1
	}
	return braceCount(cp.Parts, 1)
}

// braceCount multiplies the alternatives of the brace expansions in parts.
func braceCount(parts []syntax.WordPart, n int) int {
	for _, part := range parts {
		b, ok := part.(*syntax.BraceExp)
		if !ok {
			continue
		}
		k := 0
		if b.Sequence {
			k = sequenceLen(b)
		} else {
			for _, e := range b.Elems {
				k += braceCount(e.Parts, 1)
				if k > maxBraceFields {
					break
				}
			}
		}
		n *= max(k, 1)
		if n > maxBraceFields {
			return maxBraceFields + 1
		}
	}
	return n
}

// sequenceLen is how many words {x..y[..step]} makes (more than the bound
// when it cannot tell).
func sequenceLen(b *syntax.BraceExp) int {
	if len(b.Elems) < 2 {
		return maxBraceFields + 1
	}
	from, to := b.Elems[0].Lit(), b.Elems[1].Lit()
	a, errA := strconv.Atoi(from)
	z, errZ := strconv.Atoi(to)
	if errA == nil && errZ == nil {
		d := z - a
		if d < 0 {
			d = -d
		}
		return min(d+1, maxBraceFields+1)
	}
	if len(from) == 1 && len(to) == 1 {
		d := int(to[0]) - int(from[0])
		if d < 0 {
			d = -d
		}
		return d + 1
	}
	return maxBraceFields + 1
}

// plainStatic is Static's fast path for the common single-part word whose
// value needs no expansion at all.
func plainStatic(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		if plainLit(p.Value) {
			return p.Value, true
		}
	case *syntax.SglQuoted:
		if !p.Dollar {
			return p.Value, true
		}
	}
	return "", false
}

// quotedStatic is Static's fast path for a word of quotes and plain
// literals (git commit -m "msg", grep 'a b' f): single quotes, double
// quotes holding only literals, and literals, none with a backslash, and
// the literals without a tilde, a brace or anything expanded. Quote
// removal alone is its value — what expand computes for it, without
// expand's cost (a configuration and its closures per word).
func quotedStatic(w *syntax.Word) (string, bool) {
	quoted, n := false, 0
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "\\~{}$`'\"") {
				return "", false
			}
			n += len(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			quoted = true
			n += len(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.IndexByte(l.Value, '\\') >= 0 {
					return "", false
				}
				n += len(l.Value)
			}
			quoted = true
		default:
			return "", false
		}
	}
	if !quoted {
		return "", false // literals alone: plainStatic's, or Static's general path
	}
	var b strings.Builder
	b.Grow(n)
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				b.WriteString(q.(*syntax.Lit).Value)
			}
		}
	}
	return b.String(), true
}

// assignTilde reports a word bash reads as an assignment even as an
// argument (NAME=…, NAME+=…, NAME[…]=…: `echo a=~` prints a=/root) whose
// value has a tilde bash expands: at its start or after a ':' in an
// unquoted part. Bash does not for other words (--opt=~/x stays).
func assignTilde(w *syntax.Word) bool {
	// The parser may cut the leading literal (a[1]=~ is "a", "[1]=~").
	lead, n := "", 0
	for ; n < len(w.Parts); n++ {
		l, ok := w.Parts[n].(*syntax.Lit)
		if !ok {
			break
		}
		lead += l.Value
	}
	eq := assignNameEnd(lead)
	if eq < 0 {
		return false
	}
	if v := lead[eq+1:]; strings.HasPrefix(v, "~") || strings.Contains(v, ":~") {
		return true
	}
	for _, p := range w.Parts[n:] {
		if l, ok := p.(*syntax.Lit); ok && (strings.Contains(l.Value, ":~") || strings.HasPrefix(l.Value, "~")) {
			return true // HasPrefix: conservative, after a quoted ':'
		}
	}
	return false
}

// assignNameEnd returns the offset of the '=' ending v's NAME=, NAME+= or
// NAME[…]= prefix, or -1 when v does not start so.
func assignNameEnd(v string) int {
	i := 0
	for i < len(v) && (v[i] == '_' || v[i]|0x20 >= 'a' && v[i]|0x20 <= 'z' || i > 0 && v[i] >= '0' && v[i] <= '9') {
		i++
	}
	if i == 0 {
		return -1
	}
	if i < len(v) && v[i] == '[' {
		j := strings.IndexByte(v[i:], ']')
		if j < 0 {
			return -1
		}
		i += j + 1
	}
	if i+1 < len(v) && v[i] == '+' && v[i+1] == '=' {
		return i + 1
	}
	if i < len(v) && v[i] == '=' {
		return i
	}
	return -1
}

// plainLit reports whether an unquoted literal is its own value: no
// escape, quote or expansion, no tilde bash expands (at the start, or
// after '=' or ':' as in an assignment: HEAD~1 is plain), and no brace
// that can expand ({} and {x} do not: only a comma or a sequence does).
//
// One pass over the bytes: it runs for nearly every word of every
// decision, and strings.ContainsAny on a short word calls IndexRune for
// each of its bytes.
func plainLit(v string) bool {
	if v == "" || v[0] == '~' {
		return false
	}
	brace, list := false, false
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\', '$', '\'', '"', '`':
			return false
		case '~':
			if v[i-1] == '=' || v[i-1] == ':' {
				return false // maybe an assignment-like word's tilde: Static decides
			}
		case '{', '}':
			brace = true
		case ',':
			list = true
		case '.':
			list = list || i+1 < len(v) && v[i+1] == '.'
		}
	}
	return !brace || !list
}

// hasGlobByte reports a glob character (*, ?, [) in s.
func hasGlobByte(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// LiteralPrefix is the plain literal text a dynamic word starts with, so a
// rule can still see the option name of `--signal="$SIG"`; "" for a
// static word or one whose first part needs expansion.
func LiteralPrefix(w *syntax.Word, dyn bool) string {
	if !dyn || w == nil || len(w.Parts) == 0 {
		return ""
	}
	if l, ok := w.Parts[0].(*syntax.Lit); ok && !hasGlobByte(l.Value) && !strings.ContainsAny(l.Value, "\\~{}$'\"`") {
		return l.Value
	}
	return ""
}

// HasGlob reports whether w may expand to other words by pathname
// expansion: an unquoted *, ? or extended glob, or an unquoted [ that
// something after it may close. bash reads a [ that nothing closes as
// itself (`[ -f go.mod ]` runs the program [), while a later unquoted ]
// or an unquoted expansion, which may give one, makes it a bracket
// expression; a quoted ] does not.
func HasGlob(w *syntax.Word) bool {
	open := false
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			for i := 0; i < len(p.Value); i++ {
				switch p.Value[i] {
				case '*', '?':
					return true
				case '[':
					open = true
				case ']':
					if open {
						return true
					}
				}
			}
		case *syntax.ExtGlob:
			return true
		case *syntax.SglQuoted, *syntax.DblQuoted:
		default:
			if open {
				return true
			}
		}
	}
	return false
}

// MaySplit reports whether bash may make several words, or none, of w: an
// unquoted parameter, command or arithmetic expansion is split on $IFS
// ("$x" is not), a glob may match several files, and a brace expands. A
// word Static calls static never does; nil is one word.
func MaySplit(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	if HasGlob(w) {
		return true
	}
	for _, part := range w.Parts {
		switch part.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp:
			return true
		case *syntax.Lit:
			if braceFields(w) > 1 {
				return true
			}
		}
	}
	return false
}

// fieldsSafe runs expand.Fields, turning a panic inside mvdan's expander
// into an error so a crafted word can never take the process down.
func fieldsSafe(cfg *expand.Config, words ...*syntax.Word) (fields []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			fields, err = nil, errDynamic
		}
	}()
	return expand.Fields(cfg, words...)
}

// Home is the value Resolve gives $HOME and a bare ~, and HomeOf the
// prefix of ~user: paths that stand for a home directory whatever it is.
const (
	Home   = "/\x00home"
	HomeOf = "/\x00home-of-"
)

// Resolve expands w as bash would with the variables vars knows, HOME as
// Home, ~user as HomeOf+user, and nothing else: a command or process
// substitution, or a variable vars does not know, makes ok false. Brace
// expansion may give several fields; globs are kept as patterns. Only the
// blacklist reads the result, to find targets however they are spelt.
func Resolve(w *syntax.Word, vars map[string]string) ([]string, bool) {
	if w == nil || braceFields(w) > maxBraceFields {
		return nil, false
	}
	fields, err := fieldsSafe(staticConfig(resolveEnv(vars)), w)
	if err != nil {
		return nil, false
	}
	return fields, true
}

// resolveEnv is the environment Resolve expands with.
type resolveEnv map[string]string

func (e resolveEnv) Get(name string) expand.Variable {
	switch {
	case name == "HOME":
		return strVar(Home)
	case strings.HasPrefix(name, "HOME "):
		return strVar(HomeOf + name[len("HOME "):])
	}
	if v, ok := e[name]; ok {
		return strVar(v)
	}
	return expand.Variable{}
}

func (e resolveEnv) Each(f func(string, expand.Variable) bool) {
	for k, v := range e {
		if !f(k, strVar(v)) {
			return
		}
	}
}

func strVar(s string) expand.Variable {
	return expand.Variable{Set: true, Kind: expand.String, Str: s}
}

// Lenient reads w with every $"…" taken as "…" — bash translates it
// through the locale catalogue, which in practice returns the text itself —
// and returns its static value, when that makes it static. Only the
// stricter readers (deny and ask rules, the blacklist) use it.
func Lenient(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	s := StripLocale(w)
	if s == w {
		return "", false
	}
	return Static(s)
}

// StripLocale returns w with each top-level $"…" as "…", or w itself.
func StripLocale(w *syntax.Word) *syntax.Word {
	var parts []syntax.WordPart
	for i, part := range w.Parts {
		dq, ok := part.(*syntax.DblQuoted)
		if !ok || !dq.Dollar {
			continue
		}
		if parts == nil {
			parts = append([]syntax.WordPart(nil), w.Parts...)
		}
		cp := *dq
		cp.Dollar = false
		parts[i] = &cp
	}
	if parts == nil {
		return w
	}
	return &syntax.Word{Parts: parts}
}

// EchoOutputs returns what an echo-like call (Program.Echo) or printf may
// write (printf: its format applied to its arguments, printfOutput),
// when its words are static: its operands joined by spaces, after the
// leading option words bash's echo takes (-n, -e, -E and their clusters),
// and — when an operand holds a backslash — the same text with the
// escapes decoded as echo -e, bash's xpg_echo, dash's echo and
// POSIXLY_CORRECT coreutils echo decode them (echo -e 'a\nrm -rf /' | sh
// runs rm). Both readings are returned: which one a given echo makes
// depends on the shell and its options.
func EchoOutputs(c *Call) ([]string, bool) {
	vals, ok := Statics(c.Argv[1:])
	if !ok {
		return nil, false
	}
	if c.Prog != nil && c.Prog.Scanner == programs.ScanPrintf {
		out, ok := printfOutput(vals)
		if !ok {
			return nil, false
		}
		return []string{out}, true
	}
	for len(vals) > 0 && len(vals[0]) > 1 && vals[0][0] == '-' && strings.Trim(vals[0][1:], "neE") == "" {
		vals = vals[1:]
	}
	raw := strings.Join(vals, " ")
	if !strings.Contains(raw, `\`) {
		return []string{raw}, true
	}
	if dec := echoEscapes(raw); dec != raw {
		return []string{raw, dec}, true
	}
	return []string{raw}, true
}

// echoEscapes decodes the escapes of echo -e: \a \b \e \E \f \n \r \t \v
// \\, \0NNN octal, \xHH hex, \uHHHH and \UHHHHHHHH; \c ends the output.
func echoEscapes(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			sb.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'a':
			sb.WriteByte('\a')
		case 'b':
			sb.WriteByte('\b')
		case 'e', 'E':
			sb.WriteByte(0x1b)
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'v':
			sb.WriteByte('\v')
		case '\\':
			sb.WriteByte('\\')
		case 'c':
			return sb.String()
		case '0':
			n, j := 0, i+1
			for ; j < len(s) && j < i+4 && s[j] >= '0' && s[j] <= '7'; j++ {
				n = n*8 + int(s[j]-'0')
			}
			sb.WriteByte(byte(n))
			i = j - 1
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
			n, j := 0, i+1
			for ; j < len(s) && j < i+1+max && isHex(s[j]); j++ {
				n = n*16 + hexVal(s[j])
			}
			if j == i+1 {
				sb.WriteByte('\\')
				sb.WriteByte(c)
				continue
			}
			if c == 'x' {
				sb.WriteByte(byte(n))
			} else {
				sb.WriteRune(rune(n))
			}
			i = j - 1
		default:
			sb.WriteByte('\\')
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// printfOutput is what printf FORMAT ARGS… writes, when the format uses
// only %s, %b, %c, %d, %i, %u and %% (flags and widths read as none):
// the format is applied again while arguments remain, its escapes and
// %b's arguments decoded as echo -e decodes them. printf -v writes
// nothing; another conversion is not modelled (ok false).
func printfOutput(args []string) (string, bool) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) > 0 && strings.HasPrefix(args[0], "-v") {
		return "", true
	}
	if len(args) == 0 {
		return "", false
	}
	format, rest := args[0], args[1:]
	var sb strings.Builder
	for pass := 0; ; pass++ {
		used := 0
		for i := 0; i < len(format); i++ {
			if format[i] != '%' {
				j := strings.IndexByte(format[i:], '%')
				if j < 0 {
					j = len(format) - i
				}
				sb.WriteString(echoEscapes(format[i : i+j]))
				i += j - 1
				continue
			}
			k := i + 1
			for k < len(format) && strings.IndexByte("-+ #0123456789.", format[k]) >= 0 {
				k++
			}
			if k >= len(format) {
				return "", false
			}
			arg := ""
			if conv := format[k]; conv != '%' {
				if used < len(rest) {
					arg = rest[used]
				}
				used++
				switch conv {
				case 's', 'd', 'i', 'u':
				case 'b':
					arg = echoEscapes(arg)
				case 'c':
					if arg != "" {
						arg = arg[:1]
					}
				default:
					return "", false
				}
			} else {
				arg = "%"
			}
			sb.WriteString(arg)
			i = k
		}
		rest = rest[min(used, len(rest)):]
		if used == 0 || len(rest) == 0 || pass > 64 {
			break
		}
	}
	return sb.String(), true
}
