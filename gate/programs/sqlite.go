package programs

import "github.com/agentexec/agentexec/internal/lazy"

// sqlite3's command line (sqlite3 3.40 -help): its options take one dash
// or two, a few take values, and -A gives the rest of the line to the
// archive command.

// SqliteFlags are sqlite3's options that take no value.
var SqliteFlags = lazy.NewSet("-append", "-ascii", "-bail", "-batch", "-box", "-column", "-csv", "-deserialize",
	"-echo", "-header", "-noheader", "-html", "-interactive", "-json", "-line", "-list", "-markdown",
	"-memtrace", "-nofollow", "-quote", "-readonly", "-safe", "-stats", "-table", "-tabs", "-version", "-help", "-zip")

// SqliteValues is how many values sqlite3's option opt takes (0 for a
// flag or an option it does not have). A switch, not a map: a map at
// package level is built at every start-up (TestNothingBuiltAtInit).
func SqliteValues(opt string) int {
	switch opt {
	case "-lookaside", "-pagecache":
		return 2
	case "-cmd", "-init", "-maxsize", "-mmap", "-newline", "-nonce", "-nullvalue", "-separator", "-vfs":
		return 1
	}
	return 0
}

// SqliteWriteCommands are the dot commands that write the file their
// operands name (the last operand that is not an option; .backup and
// .save take a schema first), by any prefix the shell may read as one
// of them: sqlite3 3.40 wrote the file of each of .output, .once, .log,
// .trace, .clone, .open (the database it opens, which --new truncates),
// .backup and .save.
var SqliteWriteCommands = []string{"output", "once", "log", "trace", "clone", "open", "backup", "save"}

// SqliteOpaqueCommands are the dot commands that write files, or read
// commands, the text does not name: .archive (.ar -x extracts its
// members) and .read (a file of commands).
var SqliteOpaqueCommands = []string{"archive", "read"}
