package classify

import (
	"fmt"
	"strings"

	"github.com/agentexec/agentexec/gate/facts"
	"github.com/agentexec/agentexec/internal/lazy"
	"github.com/agentexec/agentexec/shellcfg"
)

// cmd.exe and PowerShell have no parser here, so their text is Unknown
// except for a few exact read-only forms: one command from a short list,
// then plain words. The tokenizer refuses every character either shell
// gives a meaning beyond "part of a word": operators, redirects, quotes,
// variables (%X%, $x), escapes (^, `), grouping, splatting, comments and
// separators. Refusing is always Unknown, never a guess.

// winRejected are the characters that end the allowlist check.
const winRejected = "&|<>()$;%!^`\"'@{}[],#=\n\r"

// winCmdAllow maps cmd.exe commands (matched case-insensitively, as cmd
// does) to whether they accept arguments.
var winCmdAllow = &lazy.Value[map[string]bool]{Build: func() map[string]bool {
	return map[string]bool{
		"dir": true, "type": true, "where": true, "findstr": true, "cd": false,
		"ver": false, "whoami": false, "hostname": false, "chdir": false,
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
	}
}}

// winPSAliases maps aliases to their cmdlet's parameter list.
var winPSAliases = &lazy.Value[map[string]string]{Build: func() map[string]string {
	return map[string]string{
		"gci": "get-childitem", "dir": "get-childitem", "ls": "get-childitem",
		"gc": "get-content", "cat": "get-content", "type": "get-content",
		"sls": "select-string", "pwd": "get-location", "gl": "get-location",
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
func classifyWindows(text string, sh shellcfg.ShellType, maxBytes int) Result {
	if max := orDefault(maxBytes, facts.MaxBytes); len(text) > max {
		return verdictResult(Unknown, "too-long", fmt.Sprintf("command too long: %d bytes is over the %d-byte limit", len(text), max))
	}
	words, bad := winTokens(text)
	if bad != "" {
		return verdictResult(Unknown, "windows-syntax", fmt.Sprintf("%s text containing %s is not on the read-only allowlist", sh, bad))
	}
	if len(words) == 0 {
		return verdictResult(Unknown, "empty", "the command is empty")
	}
	var f finding
	if sh == shellcfg.Cmd {
		f = winCmdRule(words)
	} else {
		f = winPSRule(words)
	}
	r := verdictResult(f.s, f.rule, f.why)
	r.Evidence[0].End, r.Evidence[0].Text = len(text), clip(text)
	return r
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

func winPSRule(words []string) finding {
	name := strings.ToLower(words[0])
	if canon, ok := winPSAliases.Get()[name]; ok {
		name = canon
	}
	params := winPSAllow.Get()[name]
	if params == nil {
		return finding{Unknown, "windows-command", fmt.Sprintf("PowerShell command `%s` is not on the read-only allowlist", words[0])}
	}
	for _, w := range words[1:] {
		if strings.HasPrefix(w, "-") && !params[strings.ToLower(w[1:])] {
			return finding{Unknown, "windows-parameter", fmt.Sprintf("PowerShell parameter `%s` is not on the allowlist for `%s`", w, words[0])}
		}
	}
	return finding{ReadOnly, "windows-read-only", fmt.Sprintf("PowerShell `%s` only reads", words[0])}
}
