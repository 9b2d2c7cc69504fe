package programs

import (
	"strings"

	"github.com/agentexec/agentexec/internal/lazy"
)

// find's expression grammar, read by the classifier (what each primary
// does) and by the facts builder (where a computed word may stand).

// FindNoValue are primaries and operators that take no value and only
// test or print to standard output.
var FindNoValue = lazy.NewSet("-print", "-print0", "-ls", "-prune", "-quit", "-true",
	"-false", "-depth", "-d", "-mount", "-xdev", "-follow", "-noleaf",
	"-daystart", "-ignore_readdir_race", "-noignore_readdir_race", "-empty",
	"-executable", "-readable", "-writable", "-nogroup", "-nouser", "-not", "!",
	"-a", "-and", "-o", "-or", "(", ")", ",", "-warn", "-nowarn")

// findOneValue are primaries that take exactly one value (and -newerXY).
var findOneValue = lazy.NewSet("-name", "-iname", "-path", "-ipath", "-wholename",
	"-iwholename", "-regex", "-iregex", "-lname", "-ilname", "-newer", "-anewer",
	"-cnewer", "-amin", "-atime", "-cmin", "-ctime", "-mmin", "-mtime", "-used",
	"-size", "-type", "-xtype", "-user", "-group", "-uid", "-gid", "-perm",
	"-links", "-inum", "-samefile", "-maxdepth", "-mindepth", "-fstype",
	"-context", "-printf", "-regextype", "-files0-from")

// FindOneValue reports a primary that takes exactly one value, a test's
// or a format's, which find never reads as another primary.
func FindOneValue(v string) bool { return findOneValue.Has(v) || findNewerXY(v) }

// findNewerXY matches -newerXY (e.g. -newermt), which takes one value.
func findNewerXY(v string) bool {
	return len(v) == len("-newerXY") && strings.HasPrefix(v, "-newer") &&
		strings.ContainsRune("aBcmt", rune(v[6])) && strings.ContainsRune("aBcmt", rune(v[7]))
}

// FindHelp are help words find reads in primary position.
var FindHelp = lazy.NewSet("--help", "-help", "--version", "-version")

// FindStartOptions come before the starting points.
var FindStartOptions = lazy.NewSet("-P", "-H", "-L")

// FindRuns are the primaries that run a command, up to a ; or +.
var FindRuns = lazy.NewSet("-exec", "-execdir", "-ok", "-okdir")
