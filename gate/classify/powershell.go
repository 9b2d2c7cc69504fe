package classify

import (
	"fmt"
	"strings"

	"github.com/agentexec/agentexec/internal/lazy"
	"github.com/agentexec/agentexec/shellcfg"
)

// PowerShell text is read by a small lexer of its own, not a parser of the
// language: it knows words, the two quote forms, pipelines, statement
// separators and parenthesised groups, and refuses every other character
// PowerShell gives a meaning (variables, subexpressions, script blocks,
// arrays, hashtables, type literals, redirects, the call and dot-source
// operators, escapes, comments). Only plain ASCII is read: PowerShell takes
// the typographic quotes and dashes for ' " and -, so any other byte is
// refused rather than guessed at. What it cannot read is Unknown.

// psTok is one lexed token: a word (unquoted or quoted) or an operator.
type psTok struct {
	op     string // "|", "||", "&&", ";", "(" or ")"; "" for a word
	word   string // the word's value, quotes removed
	quoted bool
}

// psLex splits PowerShell text into tokens, or names the first thing it
// refuses.
func psLex(text string) ([]psTok, string) {
	var toks []psTok
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c >= 0x80 || c < 0x20:
			return nil, "a byte outside printable ASCII"
		case c == '|' || c == ';' || c == '(' || c == ')':
			op := string(c)
			if c == '|' && i+1 < len(text) && text[i+1] == '|' {
				op = "||"
			}
			toks = append(toks, psTok{op: op})
			i += len(op)
		case c == '&':
			if i+1 >= len(text) || text[i+1] != '&' {
				return nil, "the call operator &"
			}
			toks = append(toks, psTok{op: "&&"})
			i += 2
		case c == '\'' || c == '"':
			w, n, bad := psQuoted(text[i:])
			if bad != "" {
				return nil, bad
			}
			i += n
			if i < len(text) && !psBoundary(text[i]) {
				return nil, "a quoted string joined to other text"
			}
			toks = append(toks, psTok{word: w, quoted: true})
		default:
			j := i
			for j < len(text) && !psBoundary(text[j]) && text[j] != '\'' && text[j] != '"' {
				if strings.IndexByte(psRejected, text[j]) >= 0 {
					return nil, fmt.Sprintf("%q", text[j])
				}
				if text[j] >= 0x80 || text[j] < 0x20 {
					return nil, "a byte outside printable ASCII"
				}
				j++
			}
			if j < len(text) && (text[j] == '\'' || text[j] == '"') {
				return nil, "a quoted string joined to other text"
			}
			toks = append(toks, psTok{word: text[i:j]})
			i = j
		}
	}
	return toks, ""
}

// psRejected are the characters that may not appear in an unquoted word:
// each starts an expansion, a literal of another type, a redirect, a
// comment or an escape.
const psRejected = "$@{}[]<>`#,%!^=&"

// psBoundary reports a byte that ends an unquoted word.
func psBoundary(c byte) bool {
	return c == ' ' || c == '\t' || c == '|' || c == ';' || c == '(' || c == ')' || c == '&'
}

// psQuoted reads the quoted string s starts with: a single-quoted one is
// literal (” is one quote); a double-quoted one is accepted only without
// the $ and ` that expand or escape inside it ("" is one quote).
func psQuoted(s string) (word string, n int, bad string) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80 || c < 0x20 && c != '\t':
			return "", 0, "a byte outside printable ASCII"
		case q == '"' && (c == '$' || c == '`'):
			return "", 0, fmt.Sprintf("%q inside a double-quoted string", c)
		case c == q && i+1 < len(s) && s[i+1] == q:
			b.WriteByte(q)
			i++
		case c == q:
			return b.String(), i + 1, ""
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, "an unterminated string"
}

// psReader walks the tokens: statements (separated by ; && ||) of
// pipelines of commands, a command being words or a parenthesised group.
type psReader struct {
	toks []psTok
	pos  int
	opt  Options
	v    verdict
}

// classifyPowerShell classifies PowerShell text.
func classifyPowerShell(text string, opt Options) finding {
	toks, bad := psLex(text)
	if bad != "" {
		return finding{Unknown, "windows-syntax", fmt.Sprintf("powershell text containing %s is not on the read-only allowlist", bad)}
	}
	r := &psReader{toks: toks, opt: opt}
	if len(toks) == 0 {
		return finding{Unknown, "empty", "the command is empty"}
	}
	r.statements()
	if r.pos < len(r.toks) {
		r.v.add(Unknown, "powershell text with an unbalanced ) is not on the read-only allowlist")
	}
	s, why := r.v.result("")
	if s == ReadOnly {
		return finding{ReadOnly, "windows-read-only", "every PowerShell command in it only reads"}
	}
	return finding{s, "windows-command", why}
}

// statements reads statements until the end or a ")".
func (r *psReader) statements() {
	for {
		r.pipeline()
		if r.pos >= len(r.toks) || r.toks[r.pos].op == ")" {
			return
		}
		switch r.toks[r.pos].op {
		case ";", "&&", "||":
			r.pos++
		default:
			r.v.add(Unknown, "powershell text with an operator where a command ends is not on the read-only allowlist")
			return
		}
		if r.pos >= len(r.toks) && r.toks[r.pos-1].op == ";" {
			return // a trailing ; ends the last statement
		}
	}
}

// pipeline reads commands joined by |.
func (r *psReader) pipeline() {
	for {
		r.command()
		if r.pos >= len(r.toks) || r.toks[r.pos].op != "|" {
			return
		}
		r.pos++
	}
}

// command reads one command: a group, or a name and its arguments (words
// and groups).
func (r *psReader) command() {
	if r.pos >= len(r.toks) {
		r.v.add(Unknown, "a PowerShell statement is empty")
		return
	}
	if r.toks[r.pos].op == "(" {
		r.group()
		return
	}
	name := r.toks[r.pos]
	if name.op != "" || name.quoted {
		r.v.add(Unknown, "a PowerShell command name that is not a plain word is not on the read-only allowlist")
		return
	}
	r.pos++
	var args []psTok
	for r.pos < len(r.toks) {
		t := r.toks[r.pos]
		if t.op == "(" {
			r.group()
			args = append(args, psTok{op: "()"})
			continue
		}
		if t.op != "" {
			break
		}
		args = append(args, t)
		r.pos++
	}
	f := psCommand(name.word, args, r.opt)
	r.v.add(f.s, f.why)
}

// group reads "(" statements ")": PowerShell runs what is inside.
func (r *psReader) group() {
	r.pos++
	r.statements()
	if r.pos >= len(r.toks) || r.toks[r.pos].op != ")" {
		r.v.add(Unknown, "powershell text with an unclosed ( is not on the read-only allowlist")
		return
	}
	r.pos++
	if r.pos < len(r.toks) && r.toks[r.pos].op == "" && strings.HasPrefix(r.toks[r.pos].word, ".") {
		r.v.add(Unknown, "a member of a PowerShell value (it may call a method) is not on the read-only allowlist")
	}
}

// psCommand classifies one command by its name: an allowlisted cmdlet or
// alias with allowlisted parameters; else, for a name PowerShell does not
// bind itself, the program it runs, classified as bash would run it with
// the same words.
func psCommand(name string, args []psTok, opt Options) finding {
	lower := strings.ToLower(name)
	if canon, ok := winPSAliases.Get()[lower]; ok {
		lower = canon
	}
	if params := winPSAllow.Get()[lower]; params != nil {
		return psCmdlet(name, params, args)
	}
	switch {
	case strings.ContainsAny(name, `-.\/:~*?`):
		return finding{Unknown, "windows-command", fmt.Sprintf("PowerShell command `%s` is not on the read-only allowlist", name)}
	case psBound.Get()[lower]:
		return finding{Unknown, "windows-command", fmt.Sprintf("`%s` is a PowerShell alias of a command not on the read-only allowlist", name)}
	}
	return psNative(name, args, opt)
}

// psCmdlet checks an allowlisted cmdlet's parameters (exact names:
// PowerShell would also take an abbreviation, which is refused here).
func psCmdlet(name string, params map[string]bool, args []psTok) finding {
	for _, a := range args {
		if a.op != "" {
			continue // a group's value, read as its own statements
		}
		if !a.quoted && strings.HasPrefix(a.word, "-") && !params[strings.ToLower(a.word[1:])] {
			return finding{Unknown, "windows-parameter", fmt.Sprintf("PowerShell parameter `%s` is not on the allowlist for `%s`", a.word, name)}
		}
		if !a.quoted && strings.Contains(a.word, ":") && !psDrivePath(a.word) {
			return finding{Unknown, "windows-syntax", "powershell text containing a provider or stream path with ':' is not on the read-only allowlist"}
		}
		if strings.HasPrefix(a.word, `\\`) || strings.HasPrefix(a.word, "//") {
			return finding{Unknown, "windows-syntax", "powershell text containing a network (UNC) path is not on the read-only allowlist"}
		}
	}
	return finding{ReadOnly, "windows-read-only", fmt.Sprintf("PowerShell `%s` only reads", name)}
}

// psDrivePath reports a word whose only ':' follows a drive letter.
func psDrivePath(w string) bool {
	i := strings.IndexByte(w, ':')
	return i == 1 && isDriveLetter(w[0]) && strings.Count(w, ":") == 1 && (len(w) == 2 || w[2] == '\\' || w[2] == '/')
}

// psNative classifies an external program PowerShell starts: its words
// reach it as they are (PowerShell 7.3+ passes each argument literally),
// so it is the same call as bash would make with those words quoted. A
// group's value as an argument is not known, so it is refused.
func psNative(name string, args []psTok, opt Options) finding {
	var b strings.Builder
	b.WriteString(name)
	for _, a := range args {
		if a.op != "" {
			return finding{Unknown, "windows-syntax", fmt.Sprintf("the arguments of `%s` include the value of a group, which the rules cannot see", name)}
		}
		if why := psNativeArg(a); why != "" {
			return finding{Unknown, "windows-syntax", fmt.Sprintf("the argument `%s` of `%s` %s", clip(a.word), name, why)}
		}
		b.WriteString(" '")
		b.WriteString(strings.ReplaceAll(a.word, "'", `'\''`))
		b.WriteByte('\'')
	}
	o := opt
	o.Shell, o.Tree = shellcfg.Bash, nil
	res := Classify(b.String(), o)
	why := strings.TrimSuffix(res.Reason, ")")
	if i := strings.LastIndex(why, " (rule: "); i >= 0 {
		why = why[:i]
	}
	return finding{res.Safety, "windows-native", why}
}

// psNativeArg says why PowerShell might not hand a program the word a as
// one argument, or "". Windows PowerShell and PowerShell before 7.3 build
// the program's command line by wrapping a word with blanks in quotes:
// a " or a final \ inside it then ends the quoting early, and an empty word
// is dropped. An unquoted -word with a . or : may be split in two there.
func psNativeArg(a psTok) string {
	switch {
	case a.word == "":
		return "is empty, and PowerShell may drop it"
	case strings.ContainsAny(a.word, `"`) || strings.HasSuffix(a.word, `\`) && strings.ContainsAny(a.word, " \t"):
		return "may reach the program split differently"
	case !a.quoted && strings.HasPrefix(a.word, "-") && strings.ContainsAny(a.word, ".:"):
		return "may be split in two by PowerShell"
	}
	return ""
}

// psBound are the names PowerShell binds to its own commands by default
// (Windows PowerShell 5.1 and PowerShell 7), so they never reach the
// program of that name: a name here that winPSAliases does not map is not
// read. From Get-Alias on both.
var psBound = &lazy.Value[map[string]bool]{Build: func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`% ? ac asnp cat cd cfs chdir clc clear clhy cli clp cls clv cnsn
		compare copy cp cpi cpp curl cvpa dbp del diff dir dnsn ebp echo epal epcsv epsn erase etsn
		exsn fc fhx fl foreach ft fw gal gbp gc gcb gci gcm gcs gdr gerr ghy gi gin gjb gl gm gmo gp
		gps gpv group gsn gsnp gsv gtz gu gv gwmi h history icm iex ihy ii ipal ipcsv ipmo ipsn irm
		ise iwmi iwr kill lp ls man md measure mi mount move mp mv nal ndr ni nmo npssc nsn nv ogv oh
		popd ps pushd pwd r rbp rcjb rcsn rd rdr ren ri rjb rm rmdir rmo rni rnp rp rsn rsnp rujb rv
		rvpa rwmi sajb sal saps sasv sbp sc scb select set shcm si sl sleep sls sort sp spjb spps
		spsv start stz sujb sv swmi tee trcm type where wjb write`) {
		m[n] = true
	}
	return m
}}
