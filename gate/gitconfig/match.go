package gitconfig

// wildmatchPath matches text against a git wildmatch pattern with
// WM_PATHNAME semantics: "*", "?" and bracket classes never match "/",
// "**/" matches zero or more whole directories and a trailing "**" matches
// everything. It runs in O(len(pattern)·len(text)) time with no
// backtracking, so a hostile pattern in a config file cannot stall the
// gate. ok is false for syntax it does not model ([:class:], a trailing
// backslash, an unterminated bracket), which callers treat as unsure.
func wildmatchPath(pattern, text string, icase bool) (match, ok bool) {
	elems, ok := wmCompile(pattern)
	if !ok {
		return false, false
	}
	m := len(text)
	next := make([]bool, m+2)
	cur := make([]bool, m+2)
	next[m] = true
	for i := len(elems) - 1; i >= 0; i-- {
		wmStep(elems[i], text, icase, next, cur)
		next, cur = cur, next
	}
	return next[0], true
}

// wmElem is one compiled pattern element.
type wmElem struct {
	kind  byte // 'c' literal, '?', '[' class, '*', 'S' "**/", 'E' trailing "**"
	c     byte
	neg   bool
	class []byte // pairs of inclusive ranges
}

// wmStep computes cur[j] (element e followed by the rest matches text[j:])
// from next (the rest matches text[j:]).
func wmStep(e wmElem, text string, icase bool, next, cur []bool) {
	m := len(text)
	cur[m] = next[m] && (e.kind == '*' || e.kind == 'S' || e.kind == 'E')
	any := false // for 'S': some k >= j has text[k] == '/' and next[k+1]
	for j := m - 1; j >= 0; j-- {
		t := text[j]
		switch e.kind {
		case 'c':
			cur[j] = wmEq(t, e.c, icase) && next[j+1]
		case '?':
			cur[j] = t != '/' && next[j+1]
		case '[':
			cur[j] = t != '/' && e.matchClass(t, icase) && next[j+1]
		case '*':
			cur[j] = next[j] || (t != '/' && cur[j+1])
		case 'S':
			any = any || (t == '/' && next[j+1])
			cur[j] = next[j] || any
		case 'E':
			cur[j] = true
		}
	}
}

func wmEq(a, b byte, icase bool) bool {
	if icase {
		return lowerByte(a) == lowerByte(b)
	}
	return a == b
}

func (e wmElem) matchClass(t byte, icase bool) bool {
	in := false
	for k := 0; k+1 < len(e.class); k += 2 {
		lo, hi := e.class[k], e.class[k+1]
		if t >= lo && t <= hi || icase && (lowerByte(t) >= lowerByte(lo) && lowerByte(t) <= lowerByte(hi)) {
			in = true
			break
		}
	}
	return in != e.neg
}

// wmCompile turns a pattern into elements.
func wmCompile(p string) ([]wmElem, bool) {
	var out []wmElem
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '\\':
			if i+1 >= len(p) {
				return nil, false
			}
			i++
			out = append(out, wmElem{kind: 'c', c: p[i]})
		case '?':
			out = append(out, wmElem{kind: '?'})
		case '[':
			e, n, ok := wmClass(p[i+1:])
			if !ok {
				return nil, false
			}
			out = append(out, e)
			i += n
		case '*':
			var e wmElem
			e, i = wmStar(p, i)
			out = append(out, e)
		default:
			out = append(out, wmElem{kind: 'c', c: c})
		}
	}
	return out, true
}

// wmStar compiles a run of stars starting at i and returns the index of
// its last byte.
func wmStar(p string, i int) (wmElem, int) {
	j := i
	for j+1 < len(p) && p[j+1] == '*' {
		j++
	}
	if j == i || (i > 0 && p[i-1] != '/') {
		return wmElem{kind: '*'}, j
	}
	switch {
	case j+1 == len(p):
		return wmElem{kind: 'E'}, j
	case p[j+1] == '/':
		return wmElem{kind: 'S'}, j + 1
	}
	return wmElem{kind: '*'}, j
}

// wmClass compiles a bracket expression whose "[" is already consumed and
// returns the number of bytes used.
func wmClass(p string) (wmElem, int, bool) {
	e := wmElem{kind: '['}
	i := 0
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		e.neg = true
		i++
	}
	first := true
	for ; i < len(p); i++ {
		c := p[i]
		switch {
		case c == ']' && !first:
			return e, i + 1, true
		case c == '[' && i+1 < len(p) && (p[i+1] == ':' || p[i+1] == '=' || p[i+1] == '.'):
			return e, 0, false
		case c == '\\':
			if i+1 >= len(p) {
				return e, 0, false
			}
			i++
			c = p[i]
		}
		first = false
		lo, hi := c, c
		if i+2 < len(p) && p[i+1] == '-' && p[i+2] != ']' {
			hi = p[i+2]
			i += 2
		}
		e.class = append(e.class, lo, hi)
	}
	return e, 0, false
}
