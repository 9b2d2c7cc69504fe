package sandbox

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Expand lists the existing paths an absolute, slash-separated pattern
// names, for a Spec's HiddenPaths or ProtectedPaths: segments are
// path.Match patterns, and ** stands for any number of directories (a
// trailing ** for the directory itself, which a mask or a read-only bind
// covers whole). Symbolic links are listed but not followed while
// walking, and a ** walk does not enter .git directories. Directories
// read are bounded by maxDirs for the whole pattern; complete is false
// when the bound stopped the walk (the paths found are still listed).
func Expand(pattern string, maxDirs int) (paths []string, complete bool) {
	segs := strings.Split(strings.TrimPrefix(path.Clean(pattern), "/"), "/")
	for len(segs) > 0 && segs[len(segs)-1] == "**" {
		segs = segs[:len(segs)-1]
	}
	e := expander{budget: maxDirs, complete: true}
	e.walk("/", segs)
	return dedupe(e.paths), e.complete
}

type expander struct {
	paths    []string
	budget   int
	complete bool
}

func (e *expander) walk(dir string, segs []string) {
	if len(segs) == 0 {
		if _, err := os.Lstat(dir); err == nil {
			e.paths = append(e.paths, dir)
		}
		return
	}
	seg := segs[0]
	if seg == "" || !hasGlobMeta(seg) {
		e.walk(filepath.Join(dir, seg), segs[1:])
		return
	}
	if e.budget <= 0 {
		e.complete = false
		return
	}
	e.budget--
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	if seg == "**" {
		e.walk(dir, segs[1:]) // no directory at all
		for _, d := range ents {
			if d.IsDir() && d.Name() != ".git" {
				e.walk(filepath.Join(dir, d.Name()), segs)
			}
		}
		return
	}
	for _, d := range ents {
		if ok, _ := path.Match(seg, d.Name()); ok {
			e.walk(filepath.Join(dir, d.Name()), segs[1:])
		}
	}
}

func hasGlobMeta(s string) bool { return strings.ContainsAny(s, "*?[") || s == "**" }
