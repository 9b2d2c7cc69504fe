package gitconfig

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitFixture is a home directory and a repository in a temporary directory,
// with a system config file of its own.
type gitFixture struct {
	t      *testing.T
	root   string
	home   string
	repo   string // work tree
	gitDir string
	system string
	env    []string
}

func newGitFixture(t *testing.T) *gitFixture {
	t.Helper()
	root := t.TempDir()
	f := &gitFixture{
		t:      t,
		root:   root,
		home:   filepath.Join(root, "home"),
		repo:   filepath.Join(root, "work", "repo"),
		system: filepath.Join(root, "etc", "gitconfig"),
	}
	f.gitDir = filepath.Join(f.repo, ".git")
	for _, d := range []string{f.home, filepath.Join(f.gitDir, "objects"), filepath.Join(f.gitDir, "refs"), filepath.Join(f.gitDir, "hooks"), filepath.Dir(f.system), filepath.Join(f.repo, "src", "deep")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.write(filepath.Join(f.gitDir, "HEAD"), "ref: refs/heads/main\n")
	f.write(filepath.Join(f.gitDir, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n")
	f.env = []string{"HOME=" + f.home, "XDG_CONFIG_HOME=", "PAGER=cat", "GIT_PAGER=cat"}
	old := gitSystemConfig
	gitSystemConfig = f.system
	t.Cleanup(func() { gitSystemConfig = old })
	return f
}

func (f *gitFixture) write(path, text string) {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// scopePath returns the file of a scope name used in the tables.
func (f *gitFixture) scopePath(scope string) string {
	switch scope {
	case "system":
		return f.system
	case "global":
		return filepath.Join(f.home, ".gitconfig")
	case "xdg":
		return filepath.Join(f.home, ".config", "git", "config")
	case "local":
		return filepath.Join(f.gitDir, "config")
	case "worktree":
		return filepath.Join(f.gitDir, "config.worktree")
	}
	f.t.Fatalf("unknown scope %q", scope)
	return ""
}

func (f *gitFixture) risk(sub string, args ...string) (bool, string) {
	return Risk(filepath.Join(f.repo, "src", "deep"), f.env, sub, args)
}

// TestGitConfigRiskKeys sets each key in a scope and checks a subcommand,
// with a safe counterpart for every rule.
func TestGitConfigRiskKeys(t *testing.T) {
	tests := []struct {
		name   string
		scope  string
		config string
		sub    string
		args   []string
		risky  bool
	}{
		{"fsmonitor hook", "local", "[core]\n\tfsmonitor = .git/hooks/fsmon\n", "status", nil, true},
		{"fsmonitor true", "global", "[core]\nfsmonitor\n", "status", nil, true},
		{"fsmonitor false", "local", "[core]\n\tfsmonitor = false\n", "status", nil, false},
		{"fsmonitor empty", "local", "[core]\n\tfsmonitor =\n", "status", nil, false},
		{"fsmonitor system", "system", "[core]\n\tfsmonitor = /x\n", "ls-files", nil, true},
		{"diff.external", "local", "[diff]\n\texternal = /bin/x\n", "diff", nil, true},
		{"diff driver command", "global", "[diff \"bin\"]\n\tcommand = x\n", "diff", nil, true},
		{"diff driver textconv", "xdg", "[diff \"pdf\"]\n\ttextconv = pdftotext\n", "log", []string{"-p"}, true},
		{"diff driver xfuncname", "local", "[diff \"go\"]\n\txfuncname = ^func\n", "diff", nil, false},
		{"legacy subsection", "local", "[diff.bin]\n\ttextconv = x\n", "show", nil, true},
		{"case-insensitive names", "local", "[DIFF \"Bin\"]\n\tTextConv = x\n", "show", nil, true},
		{"core.pager without env", "global", "[core]\n\tpager = less -R\n", "log", nil, false}, // GIT_PAGER=cat wins
		{"hooksPath", "local", "[core]\n\thooksPath = .husky\n", "status", nil, true},
		{"alternateRefsCommand", "local", "[core]\n\talternateRefsCommand = x\n", "log", nil, true},
		{"editor for status", "global", "[core]\n\teditor = vim\n", "status", nil, false},
		// git config reads keys without running a credential helper; a
		// network command does run it.
		{"credential helper for config", "global", "[credential \"https://h\"]\n\thelper = x\n", "config", []string{"user.name"}, false},
		{"credential helper for fetch", "global", "[credential \"https://h\"]\n\thelper = x\n", "fetch", nil, true},
		{"credential helper for worktree list", "global", "[credential \"https://h\"]\n\thelper = x\n", "worktree", []string{"list"}, false},
		{"credential helper for ls-remote", "global", "[credential \"https://h\"]\n\thelper = x\n", "ls-remote", nil, true},
		{"editor for commit", "global", "[core]\n\teditor = vim\n", "commit", nil, true},
		{"sequence.editor for rebase", "global", "[sequence]\n\teditor = x\n", "rebase", nil, true},
		{"lfs filter", "global", "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n", "status", nil, true},
		{"lfs required only", "global", "[filter \"lfs\"]\n\trequired = true\n", "status", nil, false},
		{"gpg without signatures", "global", "[gpg]\n\tprogram = /x\n", "log", nil, false},
		{"gpg with --show-signature", "global", "[gpg]\n\tprogram = /x\n", "log", []string{"--show-signature"}, true},
		{"gpg with %G", "global", "[gpg]\n\tprogram = /x\n", "log", []string{"--format=%G?"}, true},
		{"gpg.ssh.program with showSignature", "local", "[gpg \"ssh\"]\n\tprogram = /x\n[log]\n\tshowSignature = true\n", "log", nil, true},
		// gpg runs with or without gpg.program (TestGitConfigSignatures).
		{"showSignature without gpg program", "local", "[log]\n\tshowSignature = true\n", "log", nil, true},
		{"showSignature for status", "local", "[log]\n\tshowSignature = true\n", "status", nil, false},
		{"showSignature false", "local", "[log]\n\tshowSignature = false\n", "log", nil, false},
		{"pretty %G without gpg program", "global", "[pretty]\n\tsig = %h %G?\n", "log", nil, true},
		{"pretty without %G", "global", "[pretty]\n\tsig = %h %an\n", "log", nil, false},
		{"format.pretty %G", "local", "[format]\n\tpretty = %GS\n", "show", nil, true},
		{"merge.verifySignatures for merge", "global", "[merge]\n\tverifySignatures = true\n", "merge", nil, true},
		{"merge.verifySignatures for log", "global", "[merge]\n\tverifySignatures = true\n", "log", nil, false},
		{"promisor remote for status", "local", "[remote \"origin\"]\n\tpromisor = true\n", "status", nil, true},
		{"promisor remote for branch", "local", "[remote \"origin\"]\n\tpromisor = true\n", "branch", nil, false},
		{"promisor false for status", "local", "[remote \"origin\"]\n\tpromisor = false\n", "status", nil, false},
		{"promisor for rev-parse path", "local", "[remote \"origin\"]\n\tpromisor = true\n", "rev-parse", []string{"HEAD:f"}, true},
		{"promisor for rev-parse revision", "local", "[remote \"origin\"]\n\tpromisor = true\n", "rev-parse", []string{"--verify", "HEAD"}, false},
		{"promisor for describe --dirty", "local", "[remote \"origin\"]\n\tpromisor = true\n", "describe", []string{"--dir"}, true},
		{"promisor for describe", "local", "[remote \"origin\"]\n\tpromisor = true\n", "describe", []string{"--tags"}, false},
		{"credential helper for status", "global", "[credential]\n\thelper = store\n", "status", nil, false},
		{"credential helper for fetch", "global", "[credential]\n\thelper = store\n", "fetch", nil, true},
		{"credential url helper for push", "global", "[credential \"https://x\"]\n\thelper = x\n", "push", nil, true},
		{"credential helper reset", "global", "[credential]\n\thelper = store\n\thelper =\n", "fetch", nil, false},
		{"sshCommand for ls-remote", "local", "[core]\n\tsshCommand = x\n", "ls-remote", nil, true},
		{"sshCommand for log", "local", "[core]\n\tsshCommand = x\n", "log", nil, false},
		{"askPass for pull", "local", "[core]\n\taskPass = x\n", "pull", nil, true},
		{"gitProxy for clone", "global", "[core]\n\tgitProxy = x\n", "clone", nil, true},
		{"uploadpack for fetch", "local", "[remote \"origin\"]\n\tuploadpack = x\n", "fetch", nil, true},
		{"uploadpack for status", "local", "[remote \"origin\"]\n\tuploadpack = x\n", "status", nil, false},
		{"receivepack for push", "local", "[remote \"origin\"]\n\treceivepack = x\n", "push", nil, true},
		{"remote -v is local", "local", "[remote \"origin\"]\n\tuploadpack = x\n", "remote", []string{"-v"}, false},
		{"remote show talks", "local", "[remote \"origin\"]\n\tuploadpack = x\n", "remote", []string{"show", "origin"}, true},
		{"remote show -n is local", "local", "[remote \"origin\"]\n\tuploadpack = x\n", "remote", []string{"show", "-n", "origin"}, false},
		{"ext url for fetch", "local", "[remote \"origin\"]\n\turl = ext::sh -c x\n", "fetch", nil, true},
		{"ext url first of two", "local", "[remote \"origin\"]\n\turl = ext::sh -c x\n\turl = https://e/x\n", "fetch", nil, true},
		{"https url for fetch", "local", "[remote \"origin\"]\n\turl = https://example.com/x\n", "fetch", nil, false},
		{"insteadOf ext", "global", "[url \"ext::sh -c x\"]\n\tinsteadOf = https://\n", "fetch", nil, true},
		{"insteadOf https", "global", "[url \"git@github.com:\"]\n\tinsteadOf = https://github.com/\n", "fetch", nil, false},
		{"protocol.ext.allow", "global", "[protocol \"ext\"]\n\tallow = always\n", "fetch", nil, true},
		{"protocol.ext.allow never", "global", "[protocol \"ext\"]\n\tallow = never\n", "fetch", nil, false},
		{"alias of the subcommand", "local", "[alias]\n\tstatus = !touch x\n", "status", nil, true},
		{"other alias", "local", "[alias]\n\tst = status\n", "status", nil, false},
		{"partial clone for show", "local", "[extensions]\n\tpartialClone = origin\n", "show", nil, true},
		{"partial clone for rev-parse", "local", "[extensions]\n\tpartialClone = origin\n", "rev-parse", nil, false},
		{"packObjectsHook", "system", "[uploadpack]\n\tpackObjectsHook = x\n", "status", nil, true},
		{"merge driver", "global", "[merge \"x\"]\n\tdriver = x\n", "status", nil, true},
		{"interactive.diffFilter", "global", "[interactive]\n\tdiffFilter = x\n", "diff", nil, true},
		{"browser cmd", "global", "[browser \"x\"]\n\tcmd = x\n", "status", nil, true},
		{"man viewer", "global", "[man]\n\tviewer = x\n", "status", nil, true},
		{"submodule update command", "local", "[submodule \"s\"]\n\tupdate = !x\n", "status", nil, true},
		{"submodule update rebase", "local", "[submodule \"s\"]\n\tupdate = rebase\n", "status", nil, false},
		{"trace2 target", "system", "[trace2]\n\teventTarget = /tmp/t\n", "status", nil, true},
		{"pager for the subcommand", "global", "[pager]\n\tlog = true\n", "log", nil, false},
		{"comment after value", "local", "[core]\n\tfsmonitor = false # /x\n", "status", nil, false},
		{"quoted semicolon", "local", "[core]\n\tfsmonitor = \"/x;y\"\n", "status", nil, true},
		{"continuation", "local", "[core]\n\tfsmonitor = fa\\\nlse\n", "status", nil, false},
		{"header and key on one line", "local", "[core] fsmonitor = /x\n", "status", nil, true},
		{"bad syntax fails closed", "local", "[core\n\tx = 1\n", "status", nil, true},
		{"bad escape fails closed", "global", "[user]\n\tname = a\\qb\n", "status", nil, true},
		{"worktree config ignored without extension", "worktree", "[core]\n\tfsmonitor = /x\n", "status", nil, false},
		{"unrelated keys", "global", "[user]\n\tname = A\n\temail = a@b\n[init]\n\tdefaultBranch = main\n", "status", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newGitFixture(t)
			f.write(f.scopePath(tt.scope), tt.config)
			got, why := f.risk(tt.sub, tt.args...)
			if got != tt.risky {
				t.Errorf("Risk(%s %v) = %v (%q), want %v", tt.sub, tt.args, got, why, tt.risky)
			}
		})
	}
}

func TestGitConfigRiskPrecedence(t *testing.T) {
	f := newGitFixture(t)
	f.write(f.scopePath("global"), "[core]\n\tfsmonitor = /x\n")
	f.write(f.scopePath("local"), "[core]\n\tfsmonitor = false\n")
	if r, why := f.risk("status"); r {
		t.Errorf("local false should override global hook: %s", why)
	}
	f.write(f.scopePath("global"), "[core]\n\tfsmonitor = false\n")
	f.write(f.scopePath("local"), "[core]\n\tfsmonitor = /x\n")
	if r, _ := f.risk("status"); !r {
		t.Error("local hook after global false not risky")
	}
	// Only the repository's own config turns the extension on.
	f.write(f.scopePath("global"), "[extensions]\n\tworktreeConfig = true\n")
	f.write(f.scopePath("local"), "[core]\n\tfsmonitor = /x\n")
	f.write(f.scopePath("worktree"), "[core]\n\tfsmonitor = false\n")
	if r, _ := f.risk("status"); !r {
		t.Error("config.worktree read on a global extensions.worktreeConfig masked the local hook")
	}
	f.write(f.scopePath("global"), "")
	// The worktree file comes last once the extension is on.
	f.write(f.scopePath("local"), "[extensions]\n\tworktreeConfig = true\n[core]\n\tfsmonitor = false\n")
	f.write(f.scopePath("worktree"), "[core]\n\tfsmonitor = /x\n")
	if r, _ := f.risk("status"); !r {
		t.Error("config.worktree hook not seen under extensions.worktreeConfig")
	}
}

func TestGitConfigRiskPager(t *testing.T) {
	tests := []struct {
		name   string
		env    []string
		config string
		sub    string
		risky  bool
	}{
		{"no pager anywhere", nil, "", "log", false},
		{"core.pager, GIT_PAGER unset", nil, "[core]\n\tpager = less -R\n", "log", true},
		{"core.pager cat", nil, "[core]\n\tpager = cat\n", "log", false},
		{"core.pager, GIT_PAGER=cat", []string{"GIT_PAGER=cat"}, "[core]\n\tpager = delta\n", "log", false},
		{"pager.log command", nil, "[pager]\n\tlog = delta\n", "log", true},
		{"pager.log command, other sub", nil, "[pager]\n\tlog = delta\n", "status", false},
		{"pager.log boolean", nil, "[pager]\n\tlog = false\n", "log", false},
		{"GIT_PAGER=less", []string{"GIT_PAGER=less"}, "", "log", true},
		{"PAGER=less", []string{"PAGER=less"}, "", "status", true},
		{"PAGER=cat", []string{"PAGER=cat"}, "", "status", false},
		{"PAGER empty", []string{"PAGER="}, "", "status", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newGitFixture(t)
			f.env = append([]string{"HOME=" + f.home}, tt.env...)
			if tt.config != "" {
				f.write(f.scopePath("global"), tt.config)
			}
			if got, why := f.risk(tt.sub); got != tt.risky {
				t.Errorf("got %v (%q), want %v", got, why, tt.risky)
			}
		})
	}
}

func TestGitConfigRiskEnv(t *testing.T) {
	risky := []string{
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=x",
		"GIT_CONFIG_PARAMETERS='core.pager'='x'", "GIT_CONFIG=/x", "GIT_CONFIG_GLOBAL=/x",
		"GIT_CONFIG_SYSTEM=/x", "GIT_DIR=/x", "GIT_WORK_TREE=/x", "GIT_EXTERNAL_DIFF=x",
		"GIT_PAGER=less", "PAGER=more", "GIT_SSH=x", "GIT_SSH_COMMAND=x", "GIT_ASKPASS=x",
		"SSH_ASKPASS=x", "GIT_EDITOR=x", "GIT_EXEC_PATH=/x", "GIT_TEMPLATE_DIR=/x",
		"GIT_PROXY_COMMAND=x", "LESSOPEN=|x %s", "LESSCLOSE=x", "GIT_TRACE=/tmp/trace",
		"GIT_TRACE2_EVENT=/tmp/t", "GIT_INDEX_FILE=/tmp/idx",
	}
	safe := []string{"GIT_PAGER=cat", "PAGER=cat", "PAGER=", "GIT_DIR=", "GIT_TRACE=1",
		"GIT_TRACE=0", "EDITOR=vim", "LANG=C.UTF-8", "GIT_TERMINAL_PROMPT=0"}
	f := newGitFixture(t)
	base := []string{"HOME=" + f.home}
	for _, kv := range risky {
		f.env = append(append([]string{}, base...), kv)
		if r, _ := f.risk("status"); !r {
			t.Errorf("env %s: not risky", kv)
		}
	}
	for _, kv := range safe {
		f.env = append(append([]string{}, base...), kv)
		if r, why := f.risk("status"); r {
			t.Errorf("env %s: risky (%s)", kv, why)
		}
	}
}

func TestGitConfigRiskNoSystem(t *testing.T) {
	f := newGitFixture(t)
	f.write(f.system, "[core]\n\tfsmonitor = /x\n")
	if r, _ := f.risk("status"); !r {
		t.Error("system fsmonitor not seen")
	}
	f.env = append(f.env, "GIT_CONFIG_NOSYSTEM=1")
	if r, why := f.risk("status"); r {
		t.Errorf("GIT_CONFIG_NOSYSTEM=1 still reads the system file: %s", why)
	}
}

func TestGitConfigRiskXDG(t *testing.T) {
	f := newGitFixture(t)
	xdg := filepath.Join(f.root, "xdg")
	f.write(filepath.Join(xdg, "git", "config"), "[core]\n\tfsmonitor = /x\n")
	if r, why := f.risk("status"); r {
		t.Errorf("XDG file read while XDG_CONFIG_HOME unset: %s", why)
	}
	f.env = append(f.env, "XDG_CONFIG_HOME="+xdg)
	if r, _ := f.risk("status"); !r {
		t.Error("$XDG_CONFIG_HOME/git/config not read")
	}
}

func TestGitConfigRiskIncludes(t *testing.T) {
	bad := "[core]\n\tfsmonitor = /x\n"
	harmless := "[user]\n\tname = x\n"
	tests := []struct {
		name   string
		config string            // global config; {repo} and {home} are replaced
		files  map[string]string // more files, relative to the fixture root
		risky  bool
	}{
		{"include absolute", "[include]\n\tpath = {root}/inc\n", map[string]string{"inc": bad}, true},
		{"include relative", "[include]\n\tpath = inc/x\n", map[string]string{"home/inc/x": bad}, true},
		{"include tilde", "[include]\n\tpath = ~/y\n", map[string]string{"home/y": bad}, true},
		{"include missing", "[include]\n\tpath = {root}/nope\n", nil, false},
		{"include harmless", "[include]\n\tpath = {root}/inc\n", map[string]string{"inc": harmless}, false},
		{"include nested", "[include]\n\tpath = {root}/a\n", map[string]string{"a": "[include]\n\tpath = b\n", "b": bad}, true},
		{"include cycle", "[include]\n\tpath = {root}/a\n", map[string]string{"a": "[include]\n\tpath = a\n"}, true},
		{"include without value", "[include]\n\tpath\n", nil, true},
		{"include ~user", "[include]\n\tpath = ~root/x\n", nil, true},
		{"include then override", "[include]\n\tpath = {root}/inc\n[core]\n\tfsmonitor = false\n", map[string]string{"inc": bad}, false},
		{"includeIf gitdir match", "[includeIf \"gitdir:{root}/work/\"]\n\tpath = {root}/inc\n", map[string]string{"inc": bad}, true},
		{"includeIf gitdir exact", "[includeIf \"gitdir:{root}/work/repo/.git\"]\n\tpath = {root}/inc\n", map[string]string{"inc": bad}, true},
		{"includeIf gitdir no match", "[includeIf \"gitdir:{root}/other/\"]\n\tpath = {root}/inc\n", map[string]string{"inc": bad}, false},
		{"includeIf gitdir relative pattern", "[includeIf \"gitdir:repo/.git\"]\n\tpath = {root}/inc\n", map[string]string{"inc": bad}, true},
		{"includeIf gitdir star", "[includeIf \"gitdir:{root}/*/repo/\"]\n\tpath = {root}/inc\n", map[string]string{"inc": bad}, true},
		{"includeIf gitdir star no slash", "[includeIf \"gitdir:{root}/*/.git\"]\n\tpath = {root}/inc\n", map[string]string{"inc": bad}, false},
		{"includeIf gitdir case", "[includeIf \"gitdir:{ROOT}/work/\"]\n\tpath = {root}/inc\n", map[string]string{"inc": bad}, false},
		{"includeIf gitdir/i case", "[includeIf \"gitdir/i:{ROOT}/work/\"]\n\tpath = {root}/inc\n", map[string]string{"inc": bad}, true},
		{"includeIf gitdir class", "[includeIf \"gitdir:{root}/[wx]ork/\"]\n\tpath = {root}/inc\n", map[string]string{"inc": bad}, true},
		{"includeIf gitdir posix class", "[includeIf \"gitdir:{root}/[[:alpha:]]ork/\"]\n\tpath = {root}/inc\n", map[string]string{"inc": bad}, true},
		{"includeIf onbranch with risk", "[includeIf \"onbranch:main\"]\n\tpath = {root}/inc\n", map[string]string{"inc": bad}, true},
		{"includeIf onbranch harmless", "[includeIf \"onbranch:main\"]\n\tpath = {root}/inc\n", map[string]string{"inc": harmless}, false},
		{"includeIf hasconfig with risk", "[includeIf \"hasconfig:remote.*.url:https://x/**\"]\n\tpath = {root}/inc\n", map[string]string{"inc": bad}, true},
		{"includeIf unknown condition", "[includeIf \"weird:x\"]\n\tpath = {root}/inc\n", map[string]string{"inc": bad}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newGitFixture(t)
			r := strings.NewReplacer("{root}", f.root, "{ROOT}", strings.ToUpper(f.root), "{home}", f.home)
			f.write(f.scopePath("global"), r.Replace(tt.config))
			for p, text := range tt.files {
				f.write(filepath.Join(f.root, p), text)
			}
			if got, why := f.risk("status"); got != tt.risky {
				t.Errorf("got %v (%q), want %v", got, why, tt.risky)
			}
		})
	}
}

// TestGitConfigIncludeIfMatchesGit evaluates includeIf conditions with our
// matcher and with the git binary (does "git config diff.external" see the
// included file?) and requires the same answer.
func TestGitConfigIncludeIfMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git binary not installed:", err)
	}
	conds := []string{
		"gitdir:{root}/work/", "gitdir:{root}/work/repo/.git", "gitdir:{root}/work/repo",
		"gitdir:{root}/other/", "gitdir:repo/.git", "gitdir:repo/", "gitdir:work/",
		"gitdir:{root}/*/repo/", "gitdir:{root}/*/.git", "gitdir:{root}/**/.git",
		"gitdir:{ROOT}/work/", "gitdir/i:{ROOT}/work/", "gitdir:./work/", "gitdir:./",
		"gitdir:./work/r?po/", "gitdir:{root}/[vw]ork/", "gitdir:{root}/[!w]ork/",
		"gitdir:~/../work/", "gitdir:**/work/**", "gitdir:.git",
	}
	for _, c := range conds {
		f := newGitFixture(t)
		f.env = []string{"HOME=" + f.root, "GIT_PAGER=cat", "PAGER=cat"}
		r := strings.NewReplacer("{root}", f.root, "{ROOT}", strings.ToUpper(f.root))
		cond := r.Replace(c)
		f.write(filepath.Join(f.root, ".gitconfig"), "[includeIf \""+cond+"\"]\n\tpath = inc\n")
		f.write(filepath.Join(f.root, "inc"), "[diff]\n\texternal = x\n")
		cmd := exec.Command("git", "config", "--get", "diff.external")
		cmd.Dir = f.repo
		cmd.Env = append(os.Environ(), "HOME="+f.root, "GIT_CONFIG_NOSYSTEM=1", "XDG_CONFIG_HOME=")
		out, _ := cmd.Output()
		want := strings.TrimSpace(string(out)) == "x"
		got, why := f.risk("diff")
		if got != want {
			t.Errorf("includeIf %q: ours risky=%v (%q), git includes=%v", c, got, why, want)
		}
	}
}

func TestGitConfigRiskHooks(t *testing.T) {
	f := newGitFixture(t)
	hook := filepath.Join(f.gitDir, "hooks", "post-index-change")
	f.write(hook+".sample", "#!/bin/sh\n")
	os.Chmod(hook+".sample", 0o755)
	f.write(filepath.Join(f.gitDir, "hooks", "pre-commit"), "#!/bin/sh\n")
	os.Chmod(filepath.Join(f.gitDir, "hooks", "pre-commit"), 0o755)
	if r, why := f.risk("status"); r {
		t.Errorf("sample and pre-commit hooks made status risky: %s", why)
	}
	f.write(hook, "#!/bin/sh\ntouch pwned\n")
	if r, why := f.risk("status"); r {
		t.Errorf("non-executable hook made status risky: %s", why)
	}
	os.Chmod(hook, 0o755)
	if r, _ := f.risk("status"); !r {
		t.Error("executable post-index-change not risky")
	}
}

func TestGitConfigRiskRepoDiscovery(t *testing.T) {
	f := newGitFixture(t)
	if r, why := Risk(filepath.Join(f.root, "nope"), f.env, "status", nil); !r {
		t.Error("missing cwd not risky")
	} else {
		t.Log(why)
	}
	if r, _ := Risk("", f.env, "status", nil); !r {
		t.Error("empty cwd not risky")
	}
	// Outside any repository only the user files count.
	outside := filepath.Join(f.root, "work")
	if r, why := Risk(outside, f.env, "status", nil); r {
		t.Errorf("outside a repo: %s", why)
	}
	f.write(f.scopePath("global"), "[diff]\n\texternal = x\n")
	if r, _ := Risk(outside, f.env, "diff", nil); !r {
		t.Error("global diff.external outside a repo not risky")
	}
	// git passes over an invalid .git directory and uses the repository
	// above it; so must we.
	f.write(f.scopePath("global"), "")
	f.write(f.scopePath("local"), "[core]\n\tfsmonitor = /x\n")
	os.MkdirAll(filepath.Join(f.repo, "src", "deep", ".git"), 0o755)
	if r, _ := f.risk("status"); !r {
		t.Error("empty .git directory hid the enclosing repository")
	}
	os.Remove(filepath.Join(f.repo, "src", "deep", ".git"))
	// A gitfile pointing nowhere makes git refuse to run: fail closed.
	f.write(filepath.Join(f.repo, "src", "deep", ".git"), "gitdir: ../../nowhere\n")
	if r, _ := f.risk("status"); !r {
		t.Error("dangling gitfile not risky")
	}
	os.Remove(filepath.Join(f.repo, "src", "deep", ".git"))
	f.write(f.scopePath("local"), "")
	// A directory where the config file should be fails closed.
	f.write(f.scopePath("global"), "")
	os.Remove(f.scopePath("local"))
	os.Mkdir(f.scopePath("local"), 0o755)
	if r, _ := f.risk("status"); !r {
		t.Error("unreadable local config not risky")
	}
}

// TestGitConfigRiskRealGit builds repositories with the git binary:
// a linked worktree (.git file, commondir) and a bare repository.
func TestGitConfigRiskRealGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git binary not installed:", err)
	}
	f := newGitFixture(t)
	main := filepath.Join(f.root, "main")
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+f.home, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.MkdirAll(main, 0o755)
	git(main, "init", "-q", "-b", "main")
	git(main, "commit", "-q", "--allow-empty", "-m", "x")
	wt := filepath.Join(f.root, "wt")
	git(main, "worktree", "add", "-q", wt)
	if r, why := Risk(wt, f.env, "status", nil); r {
		t.Fatalf("fresh worktree risky: %s", why)
	}
	git(main, "config", "core.fsmonitor", "/x")
	if r, _ := Risk(wt, f.env, "status", nil); !r {
		t.Error("worktree does not see the common config")
	}
	git(main, "config", "core.fsmonitor", "false")
	git(main, "config", "extensions.worktreeConfig", "true")
	git(wt, "config", "--worktree", "diff.external", "x")
	if r, _ := Risk(wt, f.env, "diff", nil); !r {
		t.Error("worktree config.worktree not read")
	}
	if r, why := Risk(main, f.env, "diff", nil); r {
		t.Errorf("main worktree sees the linked worktree's config: %s", why)
	}
	bare := filepath.Join(f.root, "bare.git")
	git(f.root, "init", "-q", "--bare", bare)
	git(bare, "config", "core.hooksPath", "/x")
	if r, _ := Risk(bare, f.env, "log", nil); !r {
		t.Error("bare repository config not read")
	}
}

// TestGitConfigParseMatchesGit parses texts with our parser and with
// "git config --list -z" and compares the relevant entries.
func TestGitConfigParseMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git binary not installed:", err)
	}
	texts := []string{
		"[core]\n\tfsmonitor = /x\n",
		"[core]\n\tfsmonitor = \"  spaced  \" # c\n",
		"[core]\n\tpager = less \\\n -R\n",
		"[core]\n\tpager = a\\tb\\\\c\\\"d\n",
		"[core]\n\tpager = a ; comment\n\teditor = \"x;y\" z \n",
		"[Core]\n\tPager\n",
		"[diff \"Bin\\\"x\"]\n\ttextconv = t\n",
		"[diff.Bin]\n\ttextconv = t\n",
		"\xef\xbb\xbf[core]\n\tpager = bom\n",
		"[core]\r\n\tpager = crlf\r\n",
		"[core] pager = inline\n",
		"# c\n; c\n[alias]\n\tst-x = status\n\ts1 = x\n",
		"[core]\n\tpager = \"unterminated\n",
		"[core]\n\tpager = bad\\q\n",
		"[core\n",
		"[diff \"x\"y]\n",
		"pager = nosection\n",
		"[core]\n\t9x = 1\n",
		"[core]\n\tpager = trailing   \n",
		"[core]\n\tpager = \"a\"\"b\"\n",
		"[core]\n\tpager=\n",
		"[remote \"o\"]\n\turl = a\n\turl = b\n",
		"[core]\n\tpager = x # c \\\n",
	}
	dir := t.TempDir()
	for i, text := range texts {
		path := filepath.Join(dir, "cfg")
		os.WriteFile(path, []byte(text), 0o644)
		cmd := exec.Command("git", "config", "--file", path, "--list", "-z")
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, gitErr := cmd.Output()
		entries, err := parseGitConfig(text)
		if (gitErr != nil) != (err != nil) {
			t.Errorf("text %d %q: git error %v, ours %v", i, text, gitErr, err)
			continue
		}
		if err != nil {
			continue
		}
		var want []string
		for _, rec := range bytes.Split(out, []byte{0}) {
			if len(rec) == 0 {
				continue
			}
			k, v, hasV := strings.Cut(string(rec), "\n")
			e := gitConfigEntry{key: k}
			if !strings.Contains(k, ".") || gitRuleFor(&e) == grNone {
				continue
			}
			want = append(want, k+"|"+v+"|"+map[bool]string{true: "v", false: "novalue"}[hasV])
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.key+"|"+e.value+"|"+map[bool]string{true: "novalue", false: "v"}[e.noValue])
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("text %d %q:\n got %q\nwant %q", i, text, got, want)
		}
	}
}

func TestGitConfigCacheSeesChanges(t *testing.T) {
	f := newGitFixture(t)
	for i := 0; i < 3; i++ {
		f.write(f.scopePath("local"), "[core]\n\tfsmonitor = /x\n")
		if r, _ := f.risk("status"); !r {
			t.Fatal("hook not seen")
		}
		f.write(f.scopePath("local"), "[core]\n\tfsmonitor = no\n")
		if r, why := f.risk("status"); r {
			t.Fatalf("rewritten file still risky: %s", why)
		}
	}
}

func TestWildmatchPath(t *testing.T) {
	tests := []struct {
		pat, text string
		icase     bool
		want      bool
	}{
		{"/a/b/**", "/a/b/c/d", false, true},
		{"/a/b/**", "/a/b", false, false},
		{"**/b/.git", "/x/y/b/.git", false, true},
		{"**/b/.git", "b/.git", false, true},
		{"/a/**/c", "/a/c", false, true},
		{"/a/**/c", "/a/x/y/c", false, true},
		{"/a/*/c", "/a/x/y/c", false, false},
		{"/a/*/c", "/a/x/c", false, true},
		{"/a/?/c", "/a/x/c", false, true},
		{"/a/?/c", "/a//c", false, false},
		{"/a/[!x]/c", "/a/y/c", false, true},
		{"/a/[!x]/c", "/a/x/c", false, false},
		{"/a/[a-c]", "/a/b", false, true},
		{"/A/B", "/a/b", true, true},
		{"/A/B", "/a/b", false, false},
		{"/a/x**y", "/a/xzzy", false, true},
		{"/a/x**y", "/a/xz/y", false, false},
		{strings.Repeat("*a", 200), strings.Repeat("a", 400) + "b", false, false},
	}
	for _, tt := range tests {
		got, ok := wildmatchPath(tt.pat, tt.text, tt.icase)
		if !ok || got != tt.want {
			t.Errorf("wildmatchPath(%q, %q, %v) = %v, %v; want %v", tt.pat, tt.text, tt.icase, got, ok, tt.want)
		}
	}
	for _, p := range []string{"[[:alpha:]]", "a\\", "[abc"} {
		if _, ok := wildmatchPath(p, "a", false); ok {
			t.Errorf("wildmatchPath(%q) claims to understand it", p)
		}
	}
}

// TestGitConfigRiskConcurrent shares the cache between goroutines that
// read while a config file keeps changing; run it with -race.
func TestGitConfigRiskConcurrent(t *testing.T) {
	f := newGitFixture(t)
	f.write(f.scopePath("global"), "[alias]\n\tst = status\n")
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; i < 200; i++ {
				f.risk("status")
				f.risk("log", "--oneline")
			}
			done <- true
		}()
	}
	for i := 0; i < 50; i++ {
		os.WriteFile(f.scopePath("local"), []byte("[core]\n\tfsmonitor = "+[]string{"false", "/x"}[i%2]+"\n"), 0o644)
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	f.write(f.scopePath("local"), "[core]\n\tfsmonitor = /x\n")
	if r, _ := f.risk("status"); !r {
		t.Error("final hook not seen")
	}
}

// TestGitConfigCanary runs real git with program-valued keys pointing at a
// canary script. Where Risk says safe, git must not run the
// canary; the positive controls show the harness can see a run.
func TestGitConfigCanary(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git binary not installed:", err)
	}
	tests := []struct {
		config string // {c} is the canary path
		sub    string
		args   []string
	}{
		{"[credential]\n\thelper = !{c}\n", "status", nil},
		{"[credential]\n\thelper = !{c}\n", "log", []string{"-p"}},
		{"[core]\n\teditor = {c}\n", "status", nil},
		{"[sequence]\n\teditor = {c}\n", "log", nil},
		{"[core]\n\tsshCommand = {c}\n", "status", nil},
		{"[core]\n\tgitProxy = {c}\n", "diff", nil},
		{"[core]\n\taskPass = {c}\n", "show", nil},
		{"[remote \"origin\"]\n\turl = ssh://example.invalid/x\n\tuploadpack = {c}\n", "status", nil},
		{"[remote \"origin\"]\n\turl = ssh://example.invalid/x\n\tuploadpack = {c}\n", "remote", []string{"-v"}},
		{"[gpg]\n\tprogram = {c}\n", "log", []string{"-1"}},
		{"[alias]\n\tst = !{c}\n", "status", nil},
		{"[core]\n\tfsmonitor = false\n", "status", nil},
		{"[diff \"x\"]\n\txfuncname = {c}\n", "diff", nil},
		{"[submodule \"s\"]\n\tupdate = rebase\n", "status", nil},
		{"[extensions]\n\tpartialClone = origin\n[remote \"origin\"]\n\turl = ssh://example.invalid/x\n\tuploadpack = {c}\n", "rev-parse", []string{"HEAD"}},
	}
	controls := []struct {
		config, sub string
		args        []string
	}{
		{"[core]\n\tfsmonitor = {c}\n", "status", nil},
		{"[diff]\n\texternal = {c}\n", "diff", nil},
	}
	run := func(t *testing.T, config, sub string, args []string) (ran, risky bool, why string) {
		f := newGitFixture(t)
		canary := filepath.Join(f.root, "canary.sh")
		marker := filepath.Join(f.root, "RAN")
		f.write(canary, "#!/bin/sh\ntouch "+marker+"\nexit 1\n")
		os.Chmod(canary, 0o755)
		repo := filepath.Join(f.root, "real")
		os.MkdirAll(repo, 0o755)
		env := append(os.Environ(), "HOME="+f.home, "GIT_CONFIG_NOSYSTEM=1", "XDG_CONFIG_HOME=",
			"GIT_PAGER=cat", "PAGER=cat", "GIT_TERMINAL_PROMPT=0",
			"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		git := func(args ...string) {
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env = repo, env
			cmd.Run()
		}
		git("init", "-q")
		f.write(filepath.Join(repo, "a.txt"), "one\n")
		git("add", "a.txt")
		git("commit", "-q", "-m", "one")
		f.write(filepath.Join(repo, "a.txt"), "two\n")
		f.write(filepath.Join(repo, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n"+strings.ReplaceAll(config, "{c}", canary))
		cmd := exec.Command("git", append([]string{sub}, args...)...)
		cmd.Dir, cmd.Env = repo, env
		cmd.Run()
		_, err := os.Stat(marker)
		risky, why = Risk(repo, []string{"HOME=" + f.home, "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat", "PAGER=cat"}, sub, args)
		return err == nil, risky, why
	}
	for _, tt := range tests {
		ran, risky, why := run(t, tt.config, tt.sub, tt.args)
		if ran && !risky {
			t.Errorf("git %s %v ran the canary with %q, but Risk says safe", tt.sub, tt.args, tt.config)
		}
		t.Logf("git %s %v with %q: ran=%v risky=%v %s", tt.sub, tt.args, tt.config, ran, risky, why)
	}
	for _, c := range controls {
		ran, risky, _ := run(t, c.config, c.sub, c.args)
		if !ran || !risky {
			t.Errorf("control git %s with %q: ran=%v risky=%v, want both", c.sub, c.config, ran, risky)
		}
	}
}

// TestGitConfigRiskEnvOnly checks that HOME and XDG_CONFIG_HOME come from
// the env given and never from the process: a hostile process HOME is not
// read, and an env without HOME leaves the global scope unknown.
func TestGitConfigRiskEnvOnly(t *testing.T) {
	f := newGitFixture(t)
	hostile := filepath.Join(f.root, "hostile")
	f.write(filepath.Join(hostile, ".gitconfig"), "[core]\n\tfsmonitor = /x\n")
	f.write(filepath.Join(hostile, "xdg", "git", "config"), "[core]\n\tfsmonitor = /x\n")
	t.Setenv("HOME", hostile)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(hostile, "xdg"))
	if r, why := f.risk("status"); r {
		t.Errorf("the process HOME or XDG_CONFIG_HOME was read: %s", why)
	}
	for _, env := range [][]string{nil, {"PAGER=cat"}, {"HOME"}} {
		f.env = env
		if r, why := f.risk("status"); !r {
			t.Errorf("env %q without HOME: not risky", env)
		} else if !strings.Contains(why, "HOME") {
			t.Errorf("env %q: reason %q does not name HOME", env, why)
		}
	}
	f.env = []string{"HOME=" + hostile, "HOME=" + f.home} // the last one wins
	if r, why := f.risk("status"); r {
		t.Errorf("the earlier HOME was read: %s", why)
	}
}

// TestGitConfigEmptyHome: git builds "$HOME/.gitconfig" by concatenation,
// so HOME= reads /.gitconfig and /.config/git/config (git 2.39:
// `HOME= git config --global --list` says "unable to read config file
// '/.gitconfig'"). The scope is read there, not skipped.
func TestGitConfigEmptyHome(t *testing.T) {
	l := &gitConfigLoader{env: gitEnvOf([]string{"HOME=", "GIT_CONFIG_NOSYSTEM=1"})}
	got := strings.Join(l.userPaths(), " ")
	want := filepath.Join("/", ".config", "git", "config") + " " + filepath.Join("/", ".gitconfig")
	if got != want {
		t.Errorf("HOME= reads %q, want %q", got, want)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git binary not installed:", err)
	}
	cmd := exec.Command("git", "config", "--global", "--list")
	cmd.Env = []string{"HOME=", "PATH=" + os.Getenv("PATH")}
	out, _ := cmd.CombinedOutput()
	if _, err := os.Stat("/.gitconfig"); os.IsNotExist(err) && !strings.Contains(string(out), "'/.gitconfig'") {
		t.Errorf("git with HOME= does not look for /.gitconfig: %s", out)
	}
}
