// Package gitconfig reads the configuration a git command would see and
// says whether it may make that command run a program (or write a file)
// that the command line does not show: a pager, an external diff, a
// textconv or filter driver, an fsmonitor or read hook, gpg, a remote
// helper, an alias of the subcommand.
//
// It is the only part of the gate that touches the filesystem, and it
// keeps two caches keyed by file identity (parsed config files, and
// whether a directory is a valid git directory), safe for concurrent use.
// It never runs git and never reads the process environment: HOME,
// XDG_CONFIG_HOME and every GIT_* variable come from the environment the
// caller passes, which is the one the command will run with.
//
// Guarantees: every scope git reads is read (system, global, local,
// worktree, includes and includeIf), and anything this package cannot
// read or evaluate — a file that exists but cannot be parsed, an include
// that cannot be resolved, an environment without HOME — makes the answer
// risky. A command that recurses into submodules (status, diff, grep
// --recurse-submodules, diff.submodule=diff, …) has every populated
// submodule read the same way, found from the index's gitlinks as git
// finds them; an index it cannot read (a split index) makes such a
// command risky. Sharp edge: a program git finds on PATH under a git-*
// name (a custom subcommand or remote helper) is the classifier's concern,
// not this package's.
package gitconfig

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentexec/agentexec/internal/lazy"
)

// Risk reports whether the git configuration and environment a git
// command would see in cwd may make it run a program (or write a file)
// that the command line does not show. sub is the git subcommand ("status",
// "diff", …), args the words after it, env the "K=V" environment the
// command will run with (later entries override earlier ones, as os/exec
// does). The reason names the variable, key or file that decided.
//
// It reads every scope git reads, directly and without running git: system
// (/etc/gitconfig unless GIT_CONFIG_NOSYSTEM), global ($XDG_CONFIG_HOME or
// $HOME/.config git/config, then $HOME/.gitconfig), local (the repository
// found by walking up from cwd, following a .git file and commondir) and
// worktree (config.worktree under extensions.worktreeConfig), following
// include.path and includeIf. Parsed files are cached by path and file
// identity (size, mtime, ctime, inode), so a warm call costs a handful of
// stat calls.
//
// It fails closed: a file that exists but cannot be read or parsed, an
// include that cannot be resolved, or a condition that cannot be evaluated
// while its file sets a relevant key, all make the result risky. HOME and
// XDG_CONFIG_HOME are read from env only: an env without HOME leaves the
// global scope unknown, so the result is risky (the command may well run
// with a HOME whose configuration was not read).
func Risk(cwd string, env []string, sub string, args []string) (risky bool, reason string) {
	if cwd == "" {
		return true, "no working directory to find the git configuration"
	}
	e := gitEnvOf(env)
	if why := e.risk(); why != "" {
		return true, why
	}
	if !e.hasHome {
		return true, "the environment has no HOME, so git's global configuration is unknown"
	}
	l := &gitConfigLoader{env: e}
	if why := l.load(cwd); why != "" {
		return true, why
	}
	if why := l.repoRisk(sub, args); why != "" {
		return true, why
	}
	budget := maxSubmodules
	if why := l.submoduleRisk(sub, args, false, 0, &budget); why != "" {
		return true, why
	}
	return false, ""
}

// repoRisk applies the rules and the hook check to the loaded entries.
func (l *gitConfigLoader) repoRisk(sub string, args []string) string {
	ctx := newGitRiskContext(sub, args, l.env, l)
	if why := ctx.evaluate(l.entries); why != "" {
		return why
	}
	return l.hooksRisk(sub)
}

// gitEnv is the part of the command's environment git consults.
type gitEnv struct {
	vars    []string // "K=V", as given
	home    string
	hasHome bool // HOME is set, possibly to "" (git then reads /.gitconfig)
	xdg     string
}

func gitEnvOf(env []string) gitEnv {
	e := gitEnv{vars: env}
	e.home, e.hasHome = lookupEnvList(env, "HOME")
	e.xdg, _ = lookupEnvList(env, "XDG_CONFIG_HOME")
	return e
}

// homeJoin is git's "$HOME/elem": an empty HOME gives a path under the
// root directory, as git's own string concatenation does.
func (e gitEnv) homeJoin(elem ...string) string {
	base := e.home
	if base == "" {
		base = string(filepath.Separator)
	}
	return filepath.Join(append([]string{base}, elem...)...)
}

// lookupEnvList returns the last value of key in a "K=V" list.
func lookupEnvList(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		k, v, ok := strings.Cut(env[i], "=")
		if ok && k == key {
			return v, true
		}
	}
	return "", false
}

// gitEnvProgramVars name a program, a configuration source or a repository
// location: any non-empty value makes every git command risky.
var gitEnvProgramVars = lazy.NewSet(
	"GIT_CONFIG", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS",
	"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
	"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR",
	"GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND",
	"GIT_ASKPASS", "SSH_ASKPASS", "GIT_EDITOR",
	"GIT_SEQUENCE_EDITOR", "GIT_EXEC_PATH",
	"GIT_TEMPLATE_DIR", "GIT_PROXY_COMMAND",
	"GIT_ALLOW_PROTOCOL", "LESSOPEN", "LESSCLOSE",
	// status and diff rewrite the index after refreshing it: at this path.
	"GIT_INDEX_FILE",
)

// risk returns why the environment alone makes git risky, or "".
func (e gitEnv) risk() string {
	for _, kv := range e.vars {
		k, v, _ := strings.Cut(kv, "=")
		if why := gitEnvVarRisk(k, v); why != "" {
			return why
		}
	}
	return ""
}

func gitEnvVarRisk(k, v string) string {
	switch {
	case v == "":
		return ""
	case gitEnvProgramVars.Has(k),
		strings.HasPrefix(k, "GIT_CONFIG_KEY_"),
		strings.HasPrefix(k, "GIT_CONFIG_VALUE_"):
		return "environment sets " + k
	case k == "GIT_PAGER" || k == "PAGER":
		if v != "cat" {
			return "environment sets " + k + " to a program other than cat"
		}
	case strings.HasPrefix(k, "GIT_TRACE"):
		// A path or socket target makes git write a file.
		switch strings.ToLower(v) {
		case "0", "1", "2", "false", "true", "no", "yes", "off", "on":
		default:
			return "environment sets " + k + " to a file"
		}
	}
	return ""
}

// gitRepo is a repository found from a directory.
type gitRepo struct {
	gitDir    string // the worktree's git directory
	commonDir string // where config, hooks and objects live
	workTree  string // the directory holding .git; "" for a bare repository
}

// findGitRepo walks up from dir as git's discovery does. It returns a nil
// repo when there is none, and an error when a candidate cannot be read.
func findGitRepo(dir string) (*gitRepo, string) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, "cannot make the working directory absolute"
	}
	start := dir
	for {
		if repo, why, found := gitRepoAt(dir); found || why != "" {
			return repo, why
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	// Checked only here, to save a stat on the common path: with a
	// repository above it, a missing directory cannot run anything anyway.
	if fi, err := os.Stat(start); err != nil || !fi.IsDir() {
		return nil, "working directory " + start + " is not a readable directory"
	}
	return nil, ""
}

// gitRepoAt looks for dir/.git (a directory or a "gitdir:" file) and for a
// bare repository at dir itself. Like git, it passes over a .git directory
// that is not a valid git directory and keeps walking up.
func gitRepoAt(dir string) (*gitRepo, string, bool) {
	dotGit := filepath.Join(dir, ".git")
	fi, err := os.Stat(dotGit)
	switch {
	case err == nil && fi.IsDir():
		repo, why := gitRepoFromDir(dotGit)
		if why != "" {
			return nil, why, true
		}
		if ok, why := validGitDir(repo, fi); why != "" || ok {
			repo.workTree = dir
			return repo, why, true
		}
	case err == nil:
		repo, why, found := gitRepoFromFile(dotGit)
		if repo != nil {
			repo.workTree = dir
		}
		return repo, why, found
	case !os.IsNotExist(err):
		return nil, "cannot stat " + dotGit, true
	}
	if isBareGitDir(dir) {
		repo, why := gitRepoFromDir(dir)
		return repo, why, true
	}
	return nil, "", false
}

func isBareGitDir(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		return false
	}
	o, err1 := os.Stat(filepath.Join(dir, "objects"))
	r, err2 := os.Stat(filepath.Join(dir, "refs"))
	return err1 == nil && err2 == nil && o.IsDir() && r.IsDir()
}

// gitRepoFromFile follows a ".git" file ("gitdir: PATH", relative to the
// file's directory), as linked worktrees and submodules use. git refuses
// to run with an invalid one, which is reported as risky.
func gitRepoFromFile(path string) (*gitRepo, string, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "cannot read " + path, true
	}
	line, _, _ := strings.Cut(string(data), "\n")
	target, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir: ")
	if !ok || target == "" {
		return nil, path + " is not a gitdir file", true
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	fi, err := os.Stat(target)
	if err != nil || !fi.IsDir() {
		return nil, path + " points to a missing git directory", true
	}
	repo, why := gitRepoFromDir(target)
	if why != "" {
		return nil, why, true
	}
	if ok, why := validGitDir(repo, fi); !ok || why != "" {
		return nil, path + " points to an invalid git directory", true
	}
	return repo, "", true
}

// gitRepoFromDir completes a repository from its git directory, following
// a commondir file when there is one.
func gitRepoFromDir(gitDir string) (*gitRepo, string) {
	repo := &gitRepo{gitDir: gitDir, commonDir: gitDir}
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	switch {
	case err == nil:
		c := strings.TrimRight(string(data), "\r\n")
		if c == "" {
			return nil, "empty commondir in " + gitDir
		}
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		repo.commonDir = filepath.Clean(c)
	case !os.IsNotExist(err):
		return nil, "cannot read the commondir of " + gitDir
	}
	return repo, ""
}

// gitDirValidity caches validGitDir by the stamps of the git and common
// directories: adding or removing HEAD, objects or refs changes them.
var gitDirValidity struct {
	sync.Mutex
	m map[string]gitDirValid
}

type gitDirValid struct {
	git, common fileStamp
	ok          bool
}

// validGitDir is git's is_git_directory: HEAD in the git directory, and
// objects and refs directories in the common directory. fi is the stat of
// the git directory, already made by the caller.
func validGitDir(repo *gitRepo, fi os.FileInfo) (bool, string) {
	key := gitDirValid{git: stampOf(fi)}
	if repo.commonDir != repo.gitDir {
		cfi, err := os.Stat(repo.commonDir)
		if err != nil {
			return false, "cannot stat the common git directory " + repo.commonDir
		}
		key.common = stampOf(cfi)
	}
	gitDirValidity.Lock()
	c, hit := gitDirValidity.m[repo.gitDir]
	gitDirValidity.Unlock()
	if hit && c.git == key.git && c.common == key.common {
		return c.ok, ""
	}
	key.ok = isFile(filepath.Join(repo.gitDir, "HEAD")) &&
		isDir(filepath.Join(repo.commonDir, "objects")) &&
		isDir(filepath.Join(repo.commonDir, "refs"))
	if !isRacy(key.git) && !isRacy(key.common) {
		gitDirValidity.Lock()
		if gitDirValidity.m == nil || len(gitDirValidity.m) >= gitConfigCacheMax {
			gitDirValidity.m = make(map[string]gitDirValid)
		}
		gitDirValidity.m[repo.gitDir] = key
		gitDirValidity.Unlock()
	}
	return key.ok, ""
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// gitReadHooks are the hooks git may run during commands that only read:
// post-index-change fires when status or diff refreshes the index, and
// reference-transaction on any ref update.
var gitReadHooks = []string{"post-index-change", "reference-transaction"}

// gitNoIndexWrite are subcommands that never refresh or write the index or
// update a ref in their read-only forms, so no read hook can fire.
var gitNoIndexWrite = lazy.NewSet(
	"log", "show", "blame", "annotate",
	"rev-parse", "rev-list", "cat-file", "ls-tree",
	"for-each-ref", "show-ref", "branch", "tag",
	"remote", "shortlog", "reflog", "name-rev",
	"merge-base", "var", "version", "whatchanged",
)

// hooksRisk reports an executable read hook in the repository's hooks
// directory (core.hooksPath is risky by itself).
func (l *gitConfigLoader) hooksRisk(sub string) string {
	if l.repo == nil || gitNoIndexWrite.Has(strings.ToLower(sub)) {
		return ""
	}
	for _, h := range gitReadHooks {
		p := filepath.Join(l.repo.commonDir, "hooks", h)
		fi, err := os.Stat(p)
		if err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return "executable hook " + p
		}
		if err != nil && !os.IsNotExist(err) {
			return "cannot stat hook " + p
		}
	}
	return ""
}
