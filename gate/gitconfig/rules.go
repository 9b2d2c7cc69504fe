package gitconfig

import (
	"path/filepath"
	"strings"

	p "github.com/agentexec/agentexec/gate/programs"
)

// gitRule says how one configuration key can make git run a program.
type gitRule uint8

const (
	grNone             gitRule = iota
	grProgram                  // a non-empty value runs a program or writes a file, for any subcommand
	grRemoteProgram            // runs a program when git talks to a remote
	grEditor                   // launches an editor
	grPager                    // core.pager
	grCmdPager                 // pager.<cmd>
	grFsmonitor                // core.fsmonitor: a hook unless false
	grGPG                      // gpg.program, gpg.<fmt>.program: runs when signatures are shown
	grAlias                    // alias.<name>
	grRemoteURL                // remote.<n>.url/pushurl: the ext:: transport runs a command
	grInsteadOf                // url.<base>.insteadOf: rewrites URLs to base
	grProtocol                 // protocol.allow, protocol.<name>.allow
	grSubmoduleUpdate          // submodule.<n>.update = !command
	grShowSignature            // log.showSignature
	grPartialClone             // extensions.partialClone: missing objects are fetched lazily
	grWorktreeConfig           // extensions.worktreeConfig
	grInclude                  // include.path
	grIncludeIf                // includeIf.<condition>.path
	grPrettyFormat             // format.pretty, pretty.<name>: a %G placeholder shows signatures
	grObjectFormat             // extensions.objectFormat: the index's hash length
	grSubmoduleRecurse         // submodule.recurse: grep and ls-files read submodules
	grDiffSubmodule            // diff.submodule: "diff" runs git diff in each submodule
	grPromisor                 // remote.<n>.promisor: a partial clone fetches missing objects from it
	grVerifySignatures         // merge.verifySignatures: merge and pull run gpg
)

// gitRuleFor returns the rule of a parsed key; grNone keys are dropped at
// parse time, which keeps the cached entries and each evaluation small.
func gitRuleFor(e *gitConfigEntry) gitRule {
	section, _, _ := strings.Cut(e.key, ".")
	name, sub := e.name(), e.subsection()
	// "diff..command" has an empty subsection, which git still reads as
	// one (Qwen git-config "empty subsection name").
	if sub == "" && strings.Count(e.key, ".") < 2 {
		return gitPlainRule(section, name)
	}
	return gitSubsectionRule(section, sub, name)
}

// gitPlainRule covers keys without a subsection.
func gitPlainRule(section, name string) gitRule {
	switch section + "." + name {
	case "core.hookspath", "core.alternaterefscommand", "diff.external",
		"uploadpack.packobjectshook", "interactive.difffilter", "web.browser",
		"help.browser", "man.viewer", "trace2.normaltarget", "trace2.perftarget",
		"trace2.eventtarget":
		return grProgram
	case "core.sshcommand", "core.gitproxy", "core.askpass", "credential.helper",
		"sendemail.sendmailcmd", "sendemail.smtpserver":
		return grRemoteProgram
	case "core.editor", "sequence.editor":
		return grEditor
	case "core.pager":
		return grPager
	case "core.fsmonitor":
		return grFsmonitor
	case "gpg.program":
		return grGPG
	case "log.showsignature":
		return grShowSignature
	case "extensions.partialclone":
		return grPartialClone
	case "extensions.worktreeconfig":
		return grWorktreeConfig
	case "include.path":
		return grInclude
	case "format.pretty":
		return grPrettyFormat
	case "extensions.objectformat":
		return grObjectFormat
	case "submodule.recurse":
		return grSubmoduleRecurse
	case "diff.submodule":
		return grDiffSubmodule
	case "merge.verifysignatures":
		return grVerifySignatures
	case "protocol.allow":
		return grProtocol
	}
	switch section {
	case "pager":
		return grCmdPager
	case "alias":
		return grAlias
	case "pretty":
		return grPrettyFormat
	}
	return grNone
}

// gitSubsectionRule covers section.<subsection>.name keys.
func gitSubsectionRule(section, sub, name string) gitRule {
	switch section + "." + name {
	case "diff.command", "diff.textconv", "filter.clean", "filter.smudge",
		"filter.process", "merge.driver", "browser.cmd", "browser.path",
		"man.cmd", "man.path", "difftool.cmd", "difftool.path",
		"mergetool.cmd", "mergetool.path":
		return grProgram
	case "credential.helper", "remote.uploadpack", "remote.receivepack",
		"remote.proxy", "remote.vcs":
		return grRemoteProgram
	case "remote.url", "remote.pushurl":
		return grRemoteURL
	case "url.insteadof", "url.pushinsteadof":
		return grInsteadOf
	case "protocol.allow":
		return grProtocol
	case "gpg.program":
		return grGPG
	case "submodule.update":
		return grSubmoduleUpdate
	case "remote.promisor":
		return grPromisor
	case "includeif.path":
		return grIncludeIf
	}
	return grNone
}

// gitRiskContext is what the rules need to know about the command.
type gitRiskContext struct {
	sub      string
	remote   bool // the subcommand may talk to a remote
	editor   bool // the subcommand may launch an editor
	pagerEnv bool // GIT_PAGER is set (and safe), overriding the config
	showSig  bool // signatures are shown, so gpg runs
	sigKey   string
	lazy     bool // the command may need an object a partial clone lacks
}

func newGitRiskContext(sub string, args []string, e gitEnv, l *gitConfigLoader) *gitRiskContext {
	sub = strings.ToLower(sub)
	local := p.GitLocal(sub) && !(sub == "remote" && gitRemoteTalks(args))
	_, pagerEnv := lookupEnvList(e.vars, "GIT_PAGER")
	c := &gitRiskContext{sub: sub, remote: !local, editor: !local, pagerEnv: pagerEnv}
	c.showSig = sub == "verify-commit" || sub == "verify-tag" || gitArgsShowSignature(sub, args)
	c.lazy = mayLazyFetch(sub, args)
	return c
}

// gitRemoteTalks reports whether a "git remote" form contacts the remote.
func gitRemoteTalks(args []string) bool {
	show, noQuery := false, false
	for _, a := range args {
		switch a {
		case "update", "prune", "set-head", "add":
			return true
		case "show":
			show = true
		case "-n", "--no-query":
			noQuery = true
		}
	}
	return show && !noQuery
}

// gitArgsShowSignature reports arguments that verify signatures, which
// runs the gpg program.
func gitArgsShowSignature(sub string, args []string) bool {
	for _, a := range args {
		switch {
		case a == "--show-signature", strings.Contains(a, "%G"),
			sub == "tag" && (a == "-v" || a == "--verify"):
			return true
		}
	}
	return false
}

// evaluate applies the rules to the effective value of every key: the last
// one, as git reads it. remote.*.url keys are multi-valued, so every value
// counts.
func (c *gitRiskContext) evaluate(entries []gitConfigEntry) string {
	eff := effectiveGitEntries(entries)
	for _, e := range eff {
		if !c.showSig && c.configShowsSignatures(e) {
			c.showSig, c.sigKey = true, e.key
		}
	}
	for _, e := range eff {
		if why := c.check(e); why != "" {
			return why
		}
	}
	if c.sigKey != "" {
		// gpg (or gpg.program, or ssh-keygen for gpg.format=ssh) runs
		// whether or not a program is configured.
		return "git config " + c.sigKey + " makes git " + c.sub + " verify signatures, which runs gpg"
	}
	for i := range entries {
		if e := &entries[i]; e.rule == grRemoteURL && c.remote && strings.HasPrefix(e.value, "ext::") {
			return "git config " + e.key + " uses the ext:: transport, which runs a command"
		}
	}
	return ""
}

// effectiveGitEntries returns the last entry of each key, in reverse order.
func effectiveGitEntries(entries []gitConfigEntry) []*gitConfigEntry {
	eff := make([]*gitConfigEntry, 0, len(entries))
	var seen map[string]bool
	if len(entries) > 32 {
		seen = make(map[string]bool, len(entries))
	}
	for i := len(entries) - 1; i >= 0; i-- {
		e := &entries[i]
		if seen != nil {
			if seen[e.key] {
				continue
			}
			seen[e.key] = true
		} else if containsGitKey(eff, e.key) {
			continue
		}
		eff = append(eff, e)
	}
	return eff
}

func containsGitKey(eff []*gitConfigEntry, key string) bool {
	for _, e := range eff {
		if e.key == key {
			return true
		}
	}
	return false
}

// check returns why one effective entry makes the command risky, or "".
func (c *gitRiskContext) check(e *gitConfigEntry) string {
	set := e.noValue || e.value != ""
	risky := false
	switch e.rule {
	case grProgram:
		risky = set
	case grRemoteProgram:
		risky = set && c.remote
	case grEditor:
		risky = set && c.editor
	case grPager:
		risky = !c.pagerEnv && (e.noValue || (e.value != "" && e.value != "cat"))
	case grCmdPager:
		risky = e.name() == c.sub && !c.pagerEnv && !gitIsBool(e) && e.value != "cat"
	case grFsmonitor:
		risky = gitBool(e) // a program path is not a boolean
	case grGPG:
		risky = set && c.showSig
	case grAlias:
		risky = e.name() == c.sub
	case grInsteadOf:
		risky = c.remote && strings.HasPrefix(e.subsection(), "ext::")
	case grProtocol:
		risky = c.remote && gitProtocolAllowsExt(e)
	case grSubmoduleUpdate:
		risky = strings.HasPrefix(e.value, "!") || e.noValue
	case grPartialClone:
		risky = set && c.lazy
	case grPromisor:
		risky = gitBool(e) && c.lazy
	case grVerifySignatures:
		risky = gitBool(e) && (c.sub == "merge" || c.sub == "pull")
	}
	if risky {
		return "git config " + e.key + " may make git " + c.sub + " run a program"
	}
	return ""
}

// gitProtocolAllowsExt reports a protocol policy that enables ext::.
func gitProtocolAllowsExt(e *gitConfigEntry) bool {
	v := strings.ToLower(e.value)
	switch e.subsection() {
	case "":
		return v == "always"
	case "ext":
		return v == "always" || v == "user" || e.noValue
	}
	return false
}

// gitIsBool reports whether the value parses as a git boolean.
func gitIsBool(e *gitConfigEntry) bool {
	_, ok := gitParseBool(e)
	return ok
}

// gitBool is the value as a boolean; anything git would reject counts as
// true, the stricter reading for the flags it feeds.
func gitBool(e *gitConfigEntry) bool {
	b, ok := gitParseBool(e)
	return b || !ok
}

// gitParseBool follows git_parse_maybe_bool plus integers.
func gitParseBool(e *gitConfigEntry) (bool, bool) {
	if e.noValue {
		return true, true
	}
	switch strings.ToLower(e.value) {
	case "true", "yes", "on":
		return true, true
	case "", "false", "no", "off":
		return false, true
	}
	if allDigits(strings.TrimPrefix(e.value, "-")) {
		return strings.Trim(e.value, "-0") != "", true
	}
	return false, false
}

// gitConfigLoader collects the relevant entries of every scope in the order
// git applies them.
type gitConfigLoader struct {
	env          gitEnv
	repo         *gitRepo
	entries      []gitConfigEntry
	objectFormat string // extensions.objectFormat of the local file
}

// gitSystemConfig is the system-wide file of a standard git build
// ($(prefix)/etc/gitconfig with prefix=/usr reads /etc/gitconfig). Tests
// point it at a fixture.
var gitSystemConfig = "/etc/gitconfig"

// gitIncludeDepth is git's own limit on nested includes.
const gitIncludeDepth = 10

// load reads system, global, local and worktree configuration for cwd.
func (l *gitConfigLoader) load(cwd string) string {
	repo, why := findGitRepo(cwd)
	if why != "" {
		return why
	}
	return l.loadRepo(repo)
}

// loadRepo reads system, global, local and worktree configuration for
// repo (nil: outside any repository, the user files only).
func (l *gitConfigLoader) loadRepo(repo *gitRepo) string {
	l.repo = repo
	for _, p := range l.userPaths() {
		if why := l.file(p, 0); why != "" {
			return why
		}
	}
	if repo == nil {
		return ""
	}
	local, why := l.fileEntries(filepath.Join(repo.commonDir, "config"), 0)
	if why != "" {
		return why
	}
	l.objectFormat = objectFormat(local)
	if worktreeConfig(local) {
		return l.file(filepath.Join(repo.gitDir, "config.worktree"), 0)
	}
	return ""
}

// objectFormat is extensions.objectFormat from the repository's own
// config file, as git reads it (read_repository_format): "" means sha1.
func objectFormat(local []gitConfigEntry) string {
	for i := len(local) - 1; i >= 0; i-- {
		if e := &local[i]; e.rule == grObjectFormat {
			return strings.ToLower(e.value)
		}
	}
	return ""
}

// last returns the effective (last) entry with rule r, or nil.
func (l *gitConfigLoader) last(r gitRule) *gitConfigEntry {
	for i := len(l.entries) - 1; i >= 0; i-- {
		if l.entries[i].rule == r {
			return &l.entries[i]
		}
	}
	return nil
}

// userPaths lists the system and global files, in order.
func (l *gitConfigLoader) userPaths() []string {
	var paths []string
	if v, ok := lookupEnvList(l.env.vars, "GIT_CONFIG_NOSYSTEM"); !ok || !gitBool(&gitConfigEntry{value: v}) {
		paths = append(paths, gitSystemConfig)
	}
	switch {
	case l.env.xdg != "":
		paths = append(paths, filepath.Join(l.env.xdg, "git", "config"))
	case l.env.hasHome:
		paths = append(paths, l.env.homeJoin(".config", "git", "config"))
	}
	if l.env.hasHome {
		paths = append(paths, l.env.homeJoin(".gitconfig"))
	}
	return paths
}

// worktreeConfig reports extensions.worktreeConfig as git reads it: from
// the repository's own config file only, without includes (git's
// read_repository_format). Taking it from any other scope could load a
// config.worktree that git ignores and let it mask a risky local value.
func worktreeConfig(local []gitConfigEntry) bool {
	for i := len(local) - 1; i >= 0; i-- {
		if e := &local[i]; e.rule == grWorktreeConfig {
			return gitBool(e)
		}
	}
	return false
}

// file appends the relevant entries of one config file, expanding its
// includes in place.
func (l *gitConfigLoader) file(path string, depth int) string {
	_, why := l.fileEntries(path, depth)
	return why
}

// fileEntries is file, also returning the file's own entries (without
// its includes).
func (l *gitConfigLoader) fileEntries(path string, depth int) ([]gitConfigEntry, string) {
	if depth > gitIncludeDepth {
		return nil, "git config includes nest deeper than git allows at " + path
	}
	entries, exists, err := readGitConfigFile(path)
	if err != nil {
		return nil, "cannot read or parse git config " + path + ": " + err.Error()
	}
	if !exists {
		return nil, ""
	}
	for i := range entries {
		e := &entries[i]
		var why string
		switch e.rule {
		case grInclude:
			why = l.include(e, path, depth)
		case grIncludeIf:
			why = l.includeIf(e, path, depth)
		default:
			l.entries = append(l.entries, *e)
		}
		if why != "" {
			return nil, why
		}
	}
	return entries, ""
}

// includePath resolves an include's path as git does: ~/ is HOME, and a
// relative path is relative to the including file's directory. An empty
// path is skipped (ok with "").
func (l *gitConfigLoader) includePath(e *gitConfigEntry, from string) (path, why string) {
	v := e.value
	switch {
	case e.noValue:
		return "", "git config " + e.key + " without a value in " + from
	case v == "":
		return "", ""
	case v == "~" || strings.HasPrefix(v, "~/"):
		if !l.env.hasHome {
			return "", "git config " + e.key + " uses ~ but HOME is unset"
		}
		v = l.env.homeJoin(v[1:])
	case strings.HasPrefix(v, "~") || strings.HasPrefix(v, "%("):
		return "", "git config " + e.key + " = " + v + " cannot be resolved"
	}
	if !filepath.IsAbs(v) {
		v = filepath.Join(filepath.Dir(from), v)
	}
	return v, ""
}

func (l *gitConfigLoader) include(e *gitConfigEntry, from string, depth int) string {
	path, why := l.includePath(e, from)
	if path == "" {
		return why
	}
	return l.file(path, depth+1)
}

// includeIf evaluates gitdir: and gitdir/i: conditions exactly. Any other
// condition (onbranch:, hasconfig:, unknown ones) is only harmless when
// its file sets nothing relevant.
func (l *gitConfigLoader) includeIf(e *gitConfigEntry, from string, depth int) string {
	path, why := l.includePath(e, from)
	if path == "" {
		return why
	}
	cond := e.subsection()
	pat, icase := "", false
	switch {
	case strings.HasPrefix(cond, "gitdir:"):
		pat = cond[len("gitdir:"):]
	case strings.HasPrefix(cond, "gitdir/i:"):
		pat, icase = cond[len("gitdir/i:"):], true
	default:
		return l.unsureInclude(e, path, depth)
	}
	match, sure := l.gitdirMatches(pat, icase, from)
	switch {
	case !sure:
		return l.unsureInclude(e, path, depth)
	case match:
		return l.file(path, depth+1)
	}
	return ""
}

// unsureInclude handles an include whose condition cannot be evaluated:
// risky when the file (with its own includes) sets any relevant key.
func (l *gitConfigLoader) unsureInclude(e *gitConfigEntry, path string, depth int) string {
	sub := &gitConfigLoader{env: l.env, repo: l.repo}
	if why := sub.file(path, depth+1); why != "" {
		return why
	}
	if len(sub.entries) > 0 {
		return "git config " + e.key + " has a condition that cannot be evaluated and its file sets " + sub.entries[0].key
	}
	return ""
}

// gitdirMatches evaluates a gitdir: pattern against the repository's git
// directory, as git's include_by_gitdir does (real path first, then the
// absolute path). For a linked worktree the common directory must agree,
// or the answer is unsure.
func (l *gitConfigLoader) gitdirMatches(pat string, icase bool, from string) (match, sure bool) {
	if l.repo == nil {
		return false, true
	}
	pattern, prefix, ok := l.gitdirPattern(pat, from)
	if !ok {
		return false, false
	}
	m1, ok1 := gitdirTry(pattern, prefix, icase, l.repo.gitDir)
	if !ok1 {
		return false, false
	}
	if l.repo.commonDir != l.repo.gitDir {
		m2, ok2 := gitdirTry(pattern, prefix, icase, l.repo.commonDir)
		if !ok2 || m1 != m2 {
			return false, false
		}
	}
	return m1, true
}

// gitdirPattern expands ~/ and ./ and adds git's implicit **/ and trailing
// ** (prepare_include_condition_pattern).
func (l *gitConfigLoader) gitdirPattern(pat, from string) (string, int, bool) {
	prefix := 0
	switch {
	case pat == "~" || strings.HasPrefix(pat, "~/"):
		if !l.env.hasHome {
			return "", 0, false
		}
		pat = l.env.home + pat[1:]
	case strings.HasPrefix(pat, "~") || strings.HasPrefix(pat, "%("):
		return "", 0, false
	}
	switch {
	case strings.HasPrefix(pat, "./"):
		real, err := filepath.EvalSymlinks(from)
		if err != nil {
			return "", 0, false
		}
		dir := filepath.Dir(real)
		pat = dir + pat[1:]
		prefix = len(dir) + 1
	case !filepath.IsAbs(pat):
		pat = "**/" + pat
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	return pat, prefix, true
}

// gitdirTry matches the real path of dir, then its absolute path.
func gitdirTry(pattern string, prefix int, icase bool, dir string) (bool, bool) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false, false
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false, false
	}
	for _, text := range []string{real, abs} {
		m, ok := gitdirMatchPrefix(pattern, prefix, text, icase)
		if !ok {
			return false, false
		}
		if m {
			return true, true
		}
	}
	return false, true
}

// gitdirMatchPrefix compares the first prefix bytes literally and the rest
// with wildmatch, as git does for ./ patterns.
func gitdirMatchPrefix(pattern string, prefix int, text string, icase bool) (bool, bool) {
	if prefix > 0 {
		if len(text) < prefix {
			return false, true
		}
		a, b := pattern[:prefix], text[:prefix]
		if (!icase && a != b) || (icase && !strings.EqualFold(a, b)) {
			return false, true
		}
	}
	return wildmatchPath(pattern[prefix:], text[prefix:], icase)
}

// Plant is what setting a configuration key does to later git commands.
type Plant uint8

// The plants.
const (
	// PlantNothing: no rule reads the key; it changes nothing git runs.
	PlantNothing Plant = iota
	// PlantCommand: a value of the key may be a command a later git
	// command runs (a pager, an fsmonitor hook, an external diff, a
	// helper, an ext:: remote): PlantedCommand reads it.
	PlantCommand
	// PlantOpaque: later commands act on what the value does not spell
	// (include.path names another configuration file).
	PlantOpaque
)

// PlantedKey says what setting key (git config KEY VALUE, git clone -c
// KEY=VALUE) makes later git commands do, by the rules this package
// reads configuration on disk with, so that configuration a text writes
// is weighed as the same configuration found on disk would be. Aliases
// are the caller's: their grammar is git's command line, not a rule.
func PlantedKey(key string) Plant {
	e, ok := plantedEntry(key, "")
	if !ok {
		return PlantNothing
	}
	switch gitRuleFor(e) {
	case grProgram, grRemoteProgram, grEditor, grPager, grCmdPager, grFsmonitor, grGPG,
		grSubmoduleUpdate, grRemoteURL, grInsteadOf:
		return PlantCommand
	case grInclude, grIncludeIf:
		return PlantOpaque
	}
	return PlantNothing
}

// PlantedCommand is the shell text a later git command runs once key is
// set to value ("" when none: submodule.<n>.update = rebase, a remote URL
// that is not ext::), and whether git runs it with arguments after its
// words (core.sshCommand gets the host and the remote command, an editor
// the file, a helper its action; a pager and an ext:: command get none).
func PlantedCommand(key, value string) (command string, appends bool) {
	e, ok := plantedEntry(key, value)
	if !ok {
		return "", false
	}
	switch gitRuleFor(e) {
	case grPager, grCmdPager:
		return value, false
	case grProgram, grRemoteProgram, grEditor, grFsmonitor, grGPG:
		return value, true
	case grSubmoduleUpdate:
		if cmd, ok := strings.CutPrefix(value, "!"); ok {
			return cmd, true // the commit is its argument
		}
	case grRemoteURL:
		if cmd, ok := strings.CutPrefix(value, "ext::"); ok {
			return cmd, false
		}
	case grInsteadOf:
		// url.ext::CMD.insteadOf rewrites matching URLs to ext::CMD.
		if cmd, ok := strings.CutPrefix(e.subsection(), "ext::"); ok {
			return cmd, false
		}
	}
	return "", false
}

// plantedEntry is key as the parser keeps it: section and name
// lower-cased, the subsection as written.
func plantedEntry(key, value string) (*gitConfigEntry, bool) {
	first, last := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if first <= 0 || last == len(key)-1 {
		return nil, false
	}
	k := strings.ToLower(key[:first]) + key[first:last] + strings.ToLower(key[last:])
	return &gitConfigEntry{key: k, value: value}, true
}
