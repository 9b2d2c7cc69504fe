package exec

import (
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// A symbolic link to a program is that program by its resolved
// executable; a hard link or a renamed copy is not, by name. sameProgram
// finds the system programs an executable is: the same file (a hard
// link) or the same bytes (a copy) as a program in the system's program
// directories, so that the rules about rm hold for ./zz copied from
// /bin/rm. Only an executable outside those directories is looked at,
// by its size first: the content is hashed only when a system program
// has the same size.

// systemBinDirs are the directories whose programs' names the rules and
// the blacklist speak of.
var systemBinDirs = []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}

type fileID struct{ dev, ino uint64 }

// programIndex is every regular file of the system program directories,
// by identity and by size, read once per process when first needed.
type programIndex struct {
	byID   map[fileID][]string
	bySize map[int64][]string
	hashes sync.Map // path -> [32]byte
}

var programs = sync.OnceValue(func() *programIndex {
	ix := &programIndex{byID: map[fileID][]string{}, bySize: map[int64][]string{}}
	seen := map[fileID]bool{}
	for _, dir := range systemBinDirs {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			var st syscall.Stat_t
			if syscall.Stat(p, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
				continue
			}
			id := fileID{uint64(st.Dev), st.Ino}
			ix.byID[id] = append(ix.byID[id], p)
			if !seen[id] {
				seen[id] = true
				ix.bySize[st.Size] = append(ix.bySize[st.Size], p)
			}
		}
	}
	return ix
})

// inSystemDir reports whether exe lies directly in a system program
// directory: its name is the one the rules know it by.
func inSystemDir(exe string) bool {
	dir := filepath.Dir(exe)
	for _, d := range systemBinDirs {
		if dir == d {
			return true
		}
	}
	return false
}

// sameProgram lists the system programs that the executable of pid (at
// its exec stop; exe is its path) is, other than by its own name.
func sameProgram(pid int, exe string) []string {
	exe = strings.TrimSuffix(exe, " (deleted)")
	if exe == "" || inSystemDir(exe) {
		return nil
	}
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/exe")
	if err != nil {
		return nil
	}
	defer f.Close()
	var st syscall.Stat_t
	if syscall.Fstat(int(f.Fd()), &st) != nil {
		return nil
	}
	ix := programs()
	if names := ix.byID[fileID{uint64(st.Dev), st.Ino}]; len(names) > 0 {
		return names
	}
	cands := ix.bySize[st.Size]
	if len(cands) == 0 {
		return nil
	}
	sum, ok := hashFile(f)
	if !ok {
		return nil
	}
	var out []string
	for _, c := range cands {
		if h, ok := ix.hash(c); ok && h == sum {
			out = append(out, ix.byID[idOf(c)]...)
		}
	}
	return out
}

func idOf(p string) fileID {
	var st syscall.Stat_t
	if syscall.Stat(p, &st) != nil {
		return fileID{}
	}
	return fileID{uint64(st.Dev), st.Ino}
}

func (ix *programIndex) hash(p string) ([32]byte, bool) {
	if h, ok := ix.hashes.Load(p); ok {
		return h.([32]byte), true
	}
	f, err := os.Open(p)
	if err != nil {
		return [32]byte{}, false
	}
	defer f.Close()
	h, ok := hashFile(f)
	if ok {
		ix.hashes.Store(p, h)
	}
	return h, ok
}

func hashFile(f *os.File) ([32]byte, bool) {
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return [32]byte{}, false
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out, true
}

// exeIdentity names the executable pid runs (at its exec stop; exe is its
// path) as far as its decision reads it: by device, inode, size and change
// time, or "" when it cannot be looked at. A program of a system program
// directory is judged by its path alone (sameProgram looks only at
// executables elsewhere), so there it is that path, and the file is not
// looked at: most execs of a build or a loop save a stat per exec.
func exeIdentity(pid int, exe string) string {
	if exe = strings.TrimSuffix(exe, " (deleted)"); exe != "" && inSystemDir(exe) {
		return "system"
	}
	var st syscall.Stat_t
	if syscall.Stat("/proc/"+strconv.Itoa(pid)+"/exe", &st) != nil {
		return ""
	}
	return strconv.FormatUint(uint64(st.Dev), 16) + ":" + strconv.FormatUint(st.Ino, 16) + ":" +
		strconv.FormatInt(st.Size, 16) + ":" + strconv.FormatInt(st.Ctim.Sec, 16) + "." + strconv.FormatInt(st.Ctim.Nsec, 16)
}

// environOf is pid's environment at its exec stop (nil when unreadable:
// the classifier then finds no git configuration, and git is not
// read-only).
func environOf(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}
