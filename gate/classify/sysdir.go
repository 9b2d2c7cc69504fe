package classify

import (
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentexec/agentexec/gate/programs"
)

// systemDirs are the directories whose programs a command may name by
// absolute path and still be read as the program of that name: the ones
// every Unix system's packages own. /usr/local/bin and /opt are not among
// them: Homebrew makes them the user's own.
var systemDirs = []string{"/bin", "/usr/bin", "/sbin", "/usr/sbin"}

// systemProgram returns the name a command named by path is read as:
// /usr/bin/cat is cat when the path is a system directory and a name the
// table knows, and every directory on the way there, its symlinks
// resolved, is a root-owned directory no one else may write (so the file
// at that path is what the packages installed, as trusted as the program
// PATH finds for the bare name). The path must be spelled plainly: no
// `.` or `..` component (the kernel resolves `..` after symlinks, so
// /usr/bin/link/../x may be anywhere) and no doubled slash. ok is false
// for every other path, which stays unknown.
func systemProgram(path string) (name string, ok bool) {
	i := strings.LastIndexByte(path, '/')
	if i <= 0 {
		return "", false
	}
	dir, base := path[:i], path[i+1:]
	if base == "" || base == "." || base == ".." || !isSystemDir(dir) || programs.Lookup(base) == nil {
		return "", false
	}
	return base, trustedChain(dir)
}

func isSystemDir(dir string) bool {
	for _, d := range systemDirs {
		if dir == d {
			return true
		}
	}
	return false
}

// trustedChain reports whether dir, and after its symlinks are resolved
// every directory from / down to it, is trusted (trustedDir).
func trustedChain(dir string) bool {
	now := time.Now()
	chainCache.Lock()
	c, ok := chainCache.m[dir]
	chainCache.Unlock()
	if ok && now.Sub(c.at) < chainTTL {
		return c.ok
	}
	v := trustedChainNow(dir)
	chainCache.Lock()
	if chainCache.m == nil {
		chainCache.m = map[string]chainResult{}
	}
	chainCache.m[dir] = chainResult{ok: v, at: now}
	chainCache.Unlock()
	return v
}

// The verdict on each system directory's chain is kept a moment: a
// decision would otherwise stat the same few root-owned directories each
// time (half the cost of `/usr/bin/env python3 --version`). Only root can
// make a root-owned directory writable to others, and the verdict is one
// of four directories, so the cache stays this small.
const chainTTL = time.Second

type chainResult struct {
	ok bool
	at time.Time
}

var chainCache struct {
	sync.Mutex
	m map[string]chainResult
}

func trustedChainNow(dir string) bool {
	if !trustedDir(dir) {
		return false
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || !filepath.IsAbs(real) {
		return false
	}
	for p := real; ; p = filepath.Dir(p) {
		if !trustedDir(p) {
			return false
		}
		if p == "/" {
			return true
		}
	}
}
