package classify

import (
	"fmt"
	"strings"

	"github.com/agentexec/agentexec/gate/facts"
	"github.com/agentexec/agentexec/internal/lazy"
	"github.com/agentexec/agentexec/shellcfg"
)

// cmd.exe has no parser here, so its text is Unknown except for a few
// exact read-only forms: one command from a short list, then plain words.
// The tokenizer refuses every character cmd gives a meaning beyond "part
// of a word": operators, redirects, quotes, variables (%X%), escapes (^),
// grouping and separators. Refusing is always Unknown, never a guess.
// PowerShell has a lexer of its own (powershell.go); the allowlists below
// are its cmdlets.

// winRejected are the characters that end the allowlist check.
const winRejected = "&|<>()$;%!^`\"'@{}[],#=\n\r"

// winCmdAllow maps cmd.exe commands (matched case-insensitively, as cmd
// does) to whether they accept arguments.
var winCmdAllow = &lazy.Value[map[string]bool]{Build: func() map[string]bool {
	return map[string]bool{
		"dir": true, "type": true, "where": true, "findstr": true, "cd": false,
		"ver": false, "whoami": false, "hostname": false, "chdir": false, "echo": true,
	}
}}

// winPSAllow maps PowerShell cmdlets and their read-only aliases, matched
// case-insensitively, to the parameters each accepts.
var winPSAllow = &lazy.Value[map[string]map[string]bool]{Build: func() map[string]map[string]bool {
	return map[string]map[string]bool{
		"get-childitem": psParams("path", "literalpath", "filter", "include", "exclude", "recurse", "depth", "force", "name", "directory", "file", "hidden", "readonly", "system", "attributes", "followsymlink"),
		"get-content":   psParams("path", "literalpath", "totalcount", "head", "first", "tail", "last", "raw", "encoding", "readcount", "delimiter", "wait"),
		"select-string": psParams("pattern", "path", "literalpath", "simplematch", "casesensitive", "context", "list", "notmatch", "allmatches", "quiet", "raw", "include", "exclude", "encoding", "noemphasis"),
		"get-location":  psParams(),
		"get-item":      psParams("path", "literalpath", "force", "filter", "include", "exclude"),
		"test-path":     psParams("path", "literalpath", "pathtype", "isvalid", "filter", "include", "exclude"),
		"resolve-path":  psParams("path", "literalpath", "relative"),
		"get-filehash":  psParams("path", "literalpath", "algorithm"),
		"get-date":      psParams("format", "uformat"),
		"get-command":   psParams("name", "all", "commandtype"),
		"get-psdrive":   psParams("name", "psprovider"),
		"get-host":      psParams(),
		// The object cmdlets read their input and print; a calculated
		// property would be a script block or hashtable, which the lexer
		// refuses.
		"select-object":  psParams("property", "excludeproperty", "expandproperty", "first", "last", "skip", "skiplast", "unique", "index", "skipindex", "casesensitive"),
		"measure-object": psParams("property", "sum", "average", "maximum", "minimum", "line", "word", "character", "ignorewhitespace", "allstats", "standarddeviation"),
		"sort-object":    psParams("property", "descending", "unique", "top", "bottom", "stable", "casesensitive"),
		"format-list":    psParams("property", "force"),
		"format-table":   psParams("property", "autosize", "wrap", "hidetableheaders", "force"),
		"write-output":   psParams("inputobject", "noenumerate"),
		"write-host":     psParams("object", "nonewline", "separator"),
	}
}}

// winPSAliases maps aliases to their cmdlet's parameter list.
var winPSAliases = &lazy.Value[map[string]string]{Build: func() map[string]string {
	return map[string]string{
		"gci": "get-childitem", "dir": "get-childitem", "ls": "get-childitem",
		"gc": "get-content", "cat": "get-content", "type": "get-content",
		"sls": "select-string", "pwd": "get-location", "gl": "get-location",
		"select": "select-object", "measure": "measure-object", "fl": "format-list", "ft": "format-table",
		"echo": "write-output", "write": "write-output",
	}
}}

func psParams(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// classifyWindows classifies cmd.exe or PowerShell text.
func classifyWindows(text string, sh shellcfg.ShellType, opt Options) Result {
	if max := orDefault(opt.MaxBytes, facts.MaxBytes); len(text) > max {
		return verdictResult(Unknown, "too-long", fmt.Sprintf("command too long: %d bytes is over the %d-byte limit", len(text), max))
	}
	var f finding
	if sh == shellcfg.PowerShell {
		f = classifyPowerShell(text, opt)
	} else {
		f = classifyCmd(text)
	}
	r := verdictResult(f.s, f.rule, f.why)
	r.Evidence[0].End, r.Evidence[0].Text = len(text), clip(text)
	return r
}

// classifyCmd classifies cmd.exe text: one allowlisted command and plain
// words.
func classifyCmd(text string) finding {
	words, bad := winTokens(text)
	if bad != "" {
		return finding{Unknown, "windows-syntax", fmt.Sprintf("cmd text containing %s is not on the read-only allowlist", bad)}
	}
	if len(words) == 0 {
		return finding{Unknown, "empty", "the command is empty"}
	}
	return winCmdRule(words)
}

// winTokens splits text on spaces and tabs, or names the first character
// or word that disqualifies it.
func winTokens(text string) ([]string, string) {
	if i := strings.IndexAny(text, winRejected); i >= 0 {
		return nil, fmt.Sprintf("%q", text[i])
	}
	words := strings.Fields(text)
	for _, w := range words {
		if strings.HasPrefix(w, `\\`) || strings.HasPrefix(w, "//") {
			return nil, "a network (UNC) path"
		}
		if i := strings.IndexByte(w, ':'); i >= 0 && !(i == 1 && isDriveLetter(w[0]) && (len(w) == 2 || w[2] == '\\' || w[2] == '/')) {
			return nil, "a provider or stream path with ':'"
		}
		if strings.HasPrefix(w, ".") && (w == "." || w == "..") && w == words[0] {
			return nil, "a dot-source"
		}
	}
	return words, ""
}

func isDriveLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func winCmdRule(words []string) finding {
	name := strings.ToLower(words[0])
	takesArgs, ok := winCmdAllow.Get()[name]
	switch {
	case !ok:
		return finding{Unknown, "windows-command", fmt.Sprintf("cmd command `%s` is not on the read-only allowlist", words[0])}
	case len(words) > 1 && !takesArgs:
		return finding{Unknown, "windows-command", fmt.Sprintf("cmd command `%s` with arguments is not on the allowlist", words[0])}
	case name == "type" && len(words) == 1:
		return finding{Unknown, "windows-command", "`type` without a file is not on the allowlist"}
	}
	return finding{ReadOnly, "windows-read-only", fmt.Sprintf("cmd `%s` only reads", words[0])}
}
