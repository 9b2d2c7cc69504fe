package facts

import (
	"regexp"
	"strings"
)

// GlobMatch reports whether name matches the shell pattern pat as bash
// matches it in pathname expansion: * and ? within one path element,
// bracket expressions negated by ! or ^, with ranges, POSIX classes
// ([:alpha:]), equivalence classes ([=e=]) and collating symbols
// ([.e.]), and backslash escapes. path.Match reads [!x] as a set holding
// '!' and knows no classes, so /e[!x]c and /[[:alpha:]]tc, which bash
// expands to /etc, matched nothing there. A pattern that does not compile
// matches: the stricter answer.
func GlobMatch(pat, name string) bool {
	re, err := regexp.Compile(globRegexp(pat))
	if err != nil {
		return true
	}
	return re.MatchString(name)
}

// globRegexp translates a shell pattern to an anchored regular expression.
func globRegexp(pat string) string {
	var sb strings.Builder
	sb.WriteByte('^')
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '*':
			sb.WriteString("[^/]*")
		case '?':
			sb.WriteString("[^/]")
		case '\\':
			if i+1 < len(pat) {
				i++
				sb.WriteString(regexp.QuoteMeta(pat[i : i+1]))
			} else {
				sb.WriteString(`\\`)
			}
		case '[':
			cls, end, ok := bracketClass(pat, i)
			if !ok {
				sb.WriteString(`\[`)
				continue
			}
			sb.WriteString(cls)
			i = end
		default:
			sb.WriteString(regexp.QuoteMeta(pat[i : i+1]))
		}
	}
	sb.WriteByte('$')
	return sb.String()
}

// bracketClass translates the bracket expression at pat[i] ('['), giving
// the class and the index of its closing ']'; ok is false when nothing
// closes it (bash then reads the '[' as itself).
func bracketClass(pat string, i int) (cls string, end int, ok bool) {
	var sb strings.Builder
	sb.WriteByte('[')
	j := i + 1
	if j < len(pat) && (pat[j] == '!' || pat[j] == '^') {
		sb.WriteString("^/") // never a slash, as bash's expansion never matches one
		j++
	}
	for k := j; k < len(pat); k++ {
		c := pat[k]
		switch {
		case c == ']' && k > j:
			sb.WriteByte(']')
			return sb.String(), k, true
		case c == '[' && k+1 < len(pat) && strings.IndexByte(":=.", pat[k+1]) >= 0:
			kind := pat[k+1]
			close := strings.Index(pat[k+2:], string(kind)+"]")
			if close < 0 {
				sb.WriteString(`\[`)
				continue
			}
			inner := pat[k+2 : k+2+close]
			if kind == ':' {
				sb.WriteString("[:" + inner + ":]")
			} else {
				for n := 0; n < len(inner); n++ {
					sb.WriteString(classByte(inner[n]))
				}
			}
			k += 2 + close + 1
		case c == '\\' && k+1 < len(pat):
			k++
			sb.WriteString(classByte(pat[k]))
		case c == '-':
			sb.WriteByte('-')
		default:
			sb.WriteString(classByte(c))
		}
	}
	return "", 0, false
}

// classByte spells one byte for a regular expression's class.
func classByte(c byte) string {
	if strings.IndexByte(`\]^[-`, c) >= 0 {
		return `\` + string(c)
	}
	return string(c)
}
