package sandbox

import (
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// gitWalkMaxDirs bounds the search for nested repositories under one
// writable root: a run looks at most at this many directories before it
// starts. Deeper repositories of a larger tree are not protected, and the
// Report says so.
var gitWalkMaxDirs = 10000 // a variable for tests

// nestedGit lists what ProtectGit protects under root: the .git of root
// and of every repository below it (a .git directory, or a .git file
// naming a gitdir, with a worktree's commondir), breadth first, looking at
// most at gitWalkMaxDirs directories. Symbolic links are not followed:
// what one points to is either under a writable root, and found there, or
// read-only anyway. complete is false when the bound stopped the walk.
//
// Reading a directory costs 4-15 µs here, so a walk is remembered: a
// directory whose modification and change times and inode are as they
// were is not read again (adding, removing or renaming an entry changes
// them), only stat'ed. A directory changed in the last two seconds is
// always read again: a change within the filesystem's timestamp
// granularity could leave its times as they were.
func nestedGit(root string, cache bool) (paths []string, complete bool) {
	gitWalks.Lock()
	defer gitWalks.Unlock()
	var seen map[string]*dirNode
	if cache {
		if seen = gitWalks.roots[root]; seen == nil {
			if len(gitWalks.roots) >= gitWalkRoots {
				gitWalks.roots = nil
			}
			if gitWalks.roots == nil {
				gitWalks.roots = map[string]map[string]*dirNode{}
			}
			seen = map[string]*dirNode{}
			gitWalks.roots[root] = seen
		}
	}
	now := time.Now().UnixNano()
	next := map[string]*dirNode{}
	queue := []string{root}
	for n := 0; len(queue) > 0; n++ {
		if n == gitWalkMaxDirs {
			complete = false
			break
		}
		dir := queue[0]
		queue = queue[1:]
		node := lookDir(dir, seen[dir], now)
		if node == nil {
			continue // gone or unreadable: nothing below it can be written either
		}
		next[dir] = node
		if node.git {
			paths = append(paths, gitPaths(dir)...)
		}
		for _, s := range node.subdirs {
			queue = append(queue, filepath.Join(dir, s))
		}
	}
	if len(queue) == 0 {
		complete = true
	}
	if cache {
		gitWalks.roots[root] = next
	}
	return paths, complete
}

// gitWalks remembers the last walk of a few writable roots.
var gitWalks struct {
	sync.Mutex
	roots map[string]map[string]*dirNode
}

// gitWalkRacy is how recent a change makes a directory's times
// untrustworthy (a variable for tests).
var gitWalkRacy = 2 * time.Second

// gitWalkRoots is how many roots' walks are remembered.
const gitWalkRoots = 8

// dirNode is what a walk learned of one directory.
type dirNode struct {
	ino          uint64
	mtime, ctime int64
	racy         bool     // changed too recently for its times to be trusted
	subdirs      []string // names of the directories in it, .git excepted
	git          bool     // it has a .git entry
}

// lookDir returns what dir holds: old when dir is unchanged since old was
// made, else what reading it now finds; nil when it cannot be read.
func lookDir(dir string, old *dirNode, now int64) *dirNode {
	var st unix.Stat_t
	if unix.Lstat(dir, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return nil
	}
	mtime, ctime := st.Mtim.Nano(), st.Ctim.Nano()
	if old != nil && !old.racy && old.ino == st.Ino && old.mtime == mtime && old.ctime == ctime {
		return old
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	node := &dirNode{ino: st.Ino, mtime: mtime, ctime: ctime, racy: now-max(mtime, ctime) < int64(gitWalkRacy)}
	for _, e := range ents {
		switch {
		case e.Name() == ".git":
			node.git = true
		case e.Type().IsDir():
			node.subdirs = append(node.subdirs, e.Name())
		}
	}
	return node
}
