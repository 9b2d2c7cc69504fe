package gitconfig

import (
	"errors"
	"os"
	"strings"
	"sync"
	"time"
)

// gitConfigEntry is one "key = value" line that matters to Risk.
type gitConfigEntry struct {
	key     string // section[.subsection].name; section and name lower-cased
	value   string
	noValue bool // "key" alone: boolean true, or a missing value
	rule    gitRule
}

// subsection returns the middle part of key ("" when there is none).
func (e *gitConfigEntry) subsection() string {
	first := strings.IndexByte(e.key, '.')
	last := strings.LastIndexByte(e.key, '.')
	if first == last {
		return ""
	}
	return e.key[first+1 : last]
}

// name returns the last part of key.
func (e *gitConfigEntry) name() string {
	return e.key[strings.LastIndexByte(e.key, '.')+1:]
}

// errGitConfigSyntax is returned for text git itself would reject.
var errGitConfigSyntax = errors.New("bad git config syntax")

// parseGitConfig parses git config text as git's config.c does and keeps
// only the entries some rule or the include machinery uses. Sections are
// "[section]", "[section \"subsection\"]" (subsection case and escapes
// kept) and the legacy "[section.subsection]" (lower-cased); values may be
// quoted, contain \\ \" \n \t \b escapes, continue over backslash-newline
// and end at an unquoted # or ; comment.
func parseGitConfig(data string) ([]gitConfigEntry, error) {
	p := gitConfigParser{s: strings.TrimPrefix(data, "\xef\xbb\xbf")}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return p.entries, nil
}

type gitConfigParser struct {
	s       string
	i       int
	section string
	entries []gitConfigEntry
	buf     []byte
}

// next returns the next byte, folding "\r\n" into "\n"; at the end it
// returns '\n' and eof=true, as git's get_next_char does.
func (p *gitConfigParser) next() (byte, bool) {
	if p.i >= len(p.s) {
		return '\n', true
	}
	c := p.s[p.i]
	p.i++
	if c == '\r' && p.i < len(p.s) && p.s[p.i] == '\n' {
		p.i++
		c = '\n'
	}
	return c, false
}

func (p *gitConfigParser) parse() error {
	comment := false
	for {
		c, eof := p.next()
		switch {
		case eof:
			return nil
		case c == '\n':
			comment = false
		case comment || isGitSpace(c):
		case c == '#' || c == ';':
			comment = true
		case c == '[':
			if err := p.baseVar(); err != nil {
				return err
			}
		case isAlpha(c):
			if err := p.keyValue(c); err != nil {
				return err
			}
		default:
			return errGitConfigSyntax
		}
	}
}

func isGitSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isGitKeyChar(c byte) bool { return isAlpha(c) || isDigit(c) || c == '-' }

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// baseVar reads a section header after its "[" (git's get_base_var).
func (p *gitConfigParser) baseVar() error {
	p.buf = p.buf[:0]
	for {
		c, eof := p.next()
		switch {
		case eof:
			return errGitConfigSyntax
		case c == ']':
			p.section = string(p.buf)
			return nil
		case isGitSpace(c):
			return p.extendedBaseVar(c)
		case !isGitKeyChar(c) && c != '.':
			return errGitConfigSyntax
		default:
			p.buf = append(p.buf, lowerByte(c))
		}
	}
}

// extendedBaseVar reads ` "subsection"]` (git's get_extended_base_var);
// c is the blank that ended the section name.
func (p *gitConfigParser) extendedBaseVar(c byte) error {
	eof := false
	for isGitSpace(c) {
		if c == '\n' {
			return errGitConfigSyntax
		}
		c, eof = p.next()
	}
	if c != '"' || eof {
		return errGitConfigSyntax
	}
	p.buf = append(p.buf, '.')
	for {
		c, eof = p.next()
		if eof || c == '\n' {
			return errGitConfigSyntax
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c, eof = p.next(); eof || c == '\n' {
				return errGitConfigSyntax
			}
		}
		p.buf = append(p.buf, c)
	}
	if c, _ = p.next(); c != ']' {
		return errGitConfigSyntax
	}
	p.section = string(p.buf)
	return nil
}

// keyValue reads "name [= value]" whose first byte c is consumed (git's
// get_value).
func (p *gitConfigParser) keyValue(c byte) error {
	name := []byte{lowerByte(c)}
	var eof bool
	for {
		if c, eof = p.next(); eof || !isGitKeyChar(c) {
			break
		}
		name = append(name, lowerByte(c))
	}
	for (c == ' ' || c == '\t') && !eof {
		c, eof = p.next()
	}
	e := gitConfigEntry{key: p.section + "." + string(name)}
	if c == '\n' {
		e.noValue = true
	} else if c != '=' {
		return errGitConfigSyntax
	} else {
		v, err := p.value()
		if err != nil {
			return err
		}
		e.value = v
	}
	if p.section == "" {
		return nil // git accepts it, but no lookup can name a key without a section
	}
	if e.rule = gitRuleFor(&e); e.rule != grNone {
		p.entries = append(p.entries, e)
	}
	return nil
}

// value reads a value up to the end of its line (git's parse_value).
func (p *gitConfigParser) value() (string, error) {
	p.buf = p.buf[:0]
	quote, comment, trim := false, false, 0
	for {
		c, _ := p.next()
		switch {
		case c == '\n':
			if quote {
				return "", errGitConfigSyntax
			}
			if trim > 0 {
				p.buf = p.buf[:trim]
			}
			return string(p.buf), nil
		case comment:
		case isGitSpace(c) && !quote:
			if trim == 0 {
				trim = len(p.buf)
			}
			if len(p.buf) > 0 {
				p.buf = append(p.buf, c)
			}
		case !quote && (c == ';' || c == '#'):
			comment = true
		case c == '\\':
			trim = 0
			if err := p.escape(); err != nil {
				return "", err
			}
		case c == '"':
			trim = 0
			quote = !quote
		default:
			trim = 0
			p.buf = append(p.buf, c)
		}
	}
}

// escape handles the byte after a backslash in a value.
func (p *gitConfigParser) escape() error {
	c, _ := p.next()
	switch c {
	case '\n':
	case 't':
		p.buf = append(p.buf, '\t')
	case 'b':
		p.buf = append(p.buf, '\b')
	case 'n':
		p.buf = append(p.buf, '\n')
	case '\\', '"':
		p.buf = append(p.buf, c)
	default:
		return errGitConfigSyntax
	}
	return nil
}

// fileStamp identifies one version of a file. Two stats with equal stamps
// are taken to mean unchanged contents.
type fileStamp struct {
	size  int64
	mtime int64
	ctime int64
	ino   uint64
	dev   uint64
}

// gitConfigRacyWindow: a file changed this recently is parsed again on
// every call, since a second write within the same timestamp tick and of
// the same size would otherwise go unseen (git's "racy" index problem).
const gitConfigRacyWindow = time.Second

// gitConfigCacheMax bounds the cache; past it the cache is emptied.
const gitConfigCacheMax = 4096

type gitConfigCached struct {
	stamp   fileStamp
	entries []gitConfigEntry
	err     error
}

// gitConfigCache maps a file path to its parsed relevant entries. Entries
// are never mutated after they are stored, so readers may share them.
var gitConfigCache struct {
	sync.Mutex
	m map[string]gitConfigCached
}

// readGitConfigFile returns the relevant entries of the config file at
// path. exists is false (and err nil) when there is no such file, which
// git treats as empty.
func readGitConfigFile(path string) (entries []gitConfigEntry, exists bool, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, false, nil
		}
		return nil, true, err
	}
	if fi.IsDir() {
		return nil, true, errors.New("is a directory")
	}
	st := stampOf(fi)
	if c, ok := gitConfigCacheGet(path, st); ok {
		return c.entries, true, c.err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, true, err
	}
	entries, err = parseGitConfig(string(data))
	if !isRacy(st) {
		gitConfigCachePut(path, gitConfigCached{stamp: st, entries: entries, err: err})
	}
	return entries, true, err
}

func gitConfigCacheGet(path string, st fileStamp) (gitConfigCached, bool) {
	gitConfigCache.Lock()
	defer gitConfigCache.Unlock()
	c, ok := gitConfigCache.m[path]
	return c, ok && c.stamp == st
}

func gitConfigCachePut(path string, c gitConfigCached) {
	gitConfigCache.Lock()
	defer gitConfigCache.Unlock()
	if gitConfigCache.m == nil || len(gitConfigCache.m) >= gitConfigCacheMax {
		gitConfigCache.m = make(map[string]gitConfigCached)
	}
	gitConfigCache.m[path] = c
}

func isRacy(st fileStamp) bool {
	now := time.Now().UnixNano()
	w := int64(gitConfigRacyWindow)
	return now-st.mtime < w || now-st.ctime < w
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// allDigits reports a non-empty string of ASCII digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}
