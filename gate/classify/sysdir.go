package classify

import (
	"path/filepath"
	"strings"

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
