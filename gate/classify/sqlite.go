package classify

import (
	"strings"

	"github.com/agentexec/agentexec/gate/programs"
)

// sqliteRuns reads sqlite3's (and duckdb's) dot commands that run a
// program — .shell and .system by any prefix the shell accepts (.sh,
// .sy), output or input through a pipe, .once/.output -e/-x and .excel
// (an editor or the desktop's viewer), .load (an extension: a shared
// object whose code runs) — and the SQL functions that do (edit() runs
// its second argument as the editor, load_extension() loads an object).
func sqliteRuns(args []string) ([]string, string) {
	var cmds []string
	for _, a := range args {
		low := strings.ToLower(a)
		if strings.Contains(low, "edit(") || strings.Contains(low, "load_extension(") {
			return cmds, "runs an editor or loads an extension from SQL (" + clip(a) + ")"
		}
		for _, line := range strings.Split(a, "\n") {
			l := strings.TrimSpace(line)
			name, rest, _ := strings.Cut(strings.TrimPrefix(l, "."), " ")
			switch {
			case strings.HasPrefix(l, ".") && dotPrefix(name, 2, "shell", "system"):
				cmds = append(cmds, strings.TrimSpace(rest))
			case strings.HasPrefix(l, ".") && strings.Contains(l, "|"):
				return cmds, "pipes through a command with a dot command (" + clip(l) + ")"
			case strings.HasPrefix(l, ".") && dotPrefix(name, 2, "load", "excel"):
				return cmds, "loads an extension or opens a viewer with a dot command (" + clip(l) + ")"
			case strings.HasPrefix(l, ".") && dotPrefix(name, 2, "once", "output") && (strings.Contains(rest, "-e") || strings.Contains(rest, "-x")):
				return cmds, "opens an editor or a viewer with a dot command (" + clip(l) + ")"
			case strings.HasPrefix(l, "-cmd") || l == "-init":
				return cmds, "runs dot commands from its options or a file"
			}
		}
	}
	return cmds, ""
}

// dotPrefix reports a dot command name of at least min letters that is a
// prefix of one of the commands (the shell runs the first command a
// prefix names).
func dotPrefix(name string, min int, cmds ...string) bool {
	if len(name) < min {
		return false
	}
	for _, c := range cmds {
		if strings.HasPrefix(c, name) {
			return true
		}
	}
	return false
}

// sqliteWrites lists the files an sqlite3 command line writes: its
// database (unless -readonly), the files its dot commands name
// (programs.SqliteWriteCommands) and those its SQL names (writefile(F,
// …), VACUUM INTO F, ATTACH F), from its options' scripts (-cmd) and its
// operands; unknown reports a file it may write that the text does not
// name (a computed SQL value, an archive, a file of commands).
func sqliteWrites(args []string) (files []string, unknown bool) {
	var scripts []string
	readonly, db := false, true
	for i := 0; i < len(args); i++ {
		a := args[i]
		opt := "-" + strings.TrimLeft(a, "-")
		switch {
		case !strings.HasPrefix(a, "-") || a == "-":
			if db {
				db = false
				files = append(files, a)
				continue
			}
			scripts = append(scripts, a)
		case opt == "-readonly":
			readonly = true
		case programs.SqliteFlags.Has(opt):
		case opt == "-cmd" && i+1 < len(args):
			scripts = append(scripts, args[i+1])
			i++
		case programs.SqliteValues(opt) > 0:
			unknown = unknown || opt == "-init"
			i += programs.SqliteValues(opt)
		default:
			return files, true // -A ARGS…, or an option sqlite3 reads another way
		}
	}
	if readonly && len(files) > 0 {
		files = files[:0]
	}
	for _, s := range scripts {
		f, u := sqliteScriptWrites(s)
		files, unknown = append(files, f...), unknown || u
	}
	return files, unknown
}

// sqliteScriptWrites lists the files one script (an argument, or what
// sqlite3 reads from standard input) writes: an argument that starts
// with a dot is one dot command, else it is SQL; in a script read from
// standard input each line that starts with a dot is.
func sqliteScriptWrites(script string) (files []string, unknown bool) {
	var sql strings.Builder
	for _, line := range strings.Split(script, "\n") {
		l := strings.TrimSpace(line)
		if !strings.HasPrefix(l, ".") {
			sql.WriteString(line + "\n")
			continue
		}
		words := sqliteDotWords(l[1:])
		if len(words) == 0 {
			continue
		}
		switch name := words[0]; {
		case dotPrefix(name, 1, programs.SqliteOpaqueCommands...):
			unknown = true
		case dotPrefix(name, 1, programs.SqliteWriteCommands...):
			for k := len(words) - 1; k > 0; k-- {
				if w := words[k]; !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "|") {
					files = append(files, sqliteFileName(w))
					break
				}
			}
		}
	}
	f, u := sqlWrites(sql.String())
	return append(files, f...), unknown || u
}

// sqliteDotWords splits a dot command's line as the shell does: blanks
// separate words, and '…' or "…" quote one.
func sqliteDotWords(l string) []string {
	var out []string
	for l = strings.TrimLeft(l, " \t\r"); l != ""; l = strings.TrimLeft(l, " \t\r") {
		if q := l[0]; q == '\'' || q == '"' {
			end := strings.IndexByte(l[1:], q)
			if end < 0 {
				return append(out, l[1:])
			}
			out, l = append(out, l[1:1+end]), l[2+end:]
			continue
		}
		end := strings.IndexAny(l, " \t\r")
		if end < 0 {
			return append(out, l)
		}
		out, l = append(out, l[:end]), l[end:]
	}
	return out
}

// sqliteFileName is the file a database name opens: a file: URI's path
// (file:F?mode=rwc), else the name.
func sqliteFileName(name string) string {
	if rest, ok := strings.CutPrefix(name, "file:"); ok {
		rest, _, _ = strings.Cut(rest, "?")
		rest, _, _ = strings.Cut(rest, "#")
		if h, ok := strings.CutPrefix(rest, "//"); ok {
			_, rest, _ = strings.Cut(h, "/") // file://localhost/etc/x: the path after the host
			rest = "/" + rest
		}
		return rest
	}
	return name
}

// sqlWrites lists the files SQL writes: writefile(F, …)'s first
// argument, VACUUM … INTO F and ATTACH [DATABASE] F (a database that is
// created or written). A name that is not one string literal followed by
// what the statement puts after it (a computed name, a concatenation) is
// unknown.
func sqlWrites(sql string) (files []string, unknown bool) {
	low := strings.ToLower(sql)
	for _, k := range []struct{ word, then string }{{"writefile", ","}, {"into", ""}, {"attach", "as"}} {
		for at := 0; ; {
			i := sqlWordAt(low, k.word, at)
			if i < 0 {
				break
			}
			at = i + len(k.word)
			if k.word == "into" && !sqlVacuumBefore(low, i) {
				continue
			}
			rest := strings.TrimLeft(sql[at:], " \t\r\n")
			switch k.word {
			case "writefile":
				if !strings.HasPrefix(rest, "(") {
					continue
				}
				rest = strings.TrimLeft(rest[1:], " \t\r\n")
			case "attach":
				if r, ok := cutWordFold(rest, "database"); ok {
					rest = r
				}
			}
			lit, after, ok := sqlString(rest)
			after = strings.ToLower(strings.TrimLeft(after, " \t\r\n"))
			if !ok || !(k.then == "" && (after == "" || after[0] == ';') || k.then != "" && strings.HasPrefix(after, k.then)) {
				unknown = true
				continue
			}
			files = append(files, sqliteFileName(lit))
		}
	}
	return files, unknown
}

// sqlWordAt is the index of the first whole word w in low at or after
// from, or -1.
func sqlWordAt(low, w string, from int) int {
	for from < len(low) {
		i := strings.Index(low[from:], w)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(w)
		if (i == 0 || !sqlIdentByte(low[i-1])) && (end == len(low) || !sqlIdentByte(low[end])) {
			return i
		}
		from = end
	}
	return -1
}

func sqlIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9'
}

// sqlVacuumBefore reports an INTO that ends a VACUUM statement (VACUUM
// [schema] INTO F), not an INSERT INTO.
func sqlVacuumBefore(low string, into int) bool {
	start := strings.LastIndexByte(low[:into], ';') + 1
	f := strings.Fields(low[start:into])
	return len(f) >= 1 && len(f) <= 2 && f[0] == "vacuum"
}

// cutWordFold cuts a leading keyword w (any case) and the blanks after it.
func cutWordFold(s, w string) (string, bool) {
	if len(s) > len(w) && strings.EqualFold(s[:len(w)], w) && !sqlIdentByte(strings.ToLower(s[len(w) : len(w)+1])[0]) {
		return strings.TrimLeft(s[len(w):], " \t\r\n"), true
	}
	return s, false
}

// sqlString reads one SQL string literal at the start of s ('…' with ”
// for a quote; "…", which SQLite reads as a string where no column is
// named), and what follows it.
func sqlString(s string) (lit, rest string, ok bool) {
	if s == "" || s[0] != '\'' && s[0] != '"' {
		return "", s, false
	}
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != q {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			b.WriteByte(q)
			i++
			continue
		}
		return b.String(), s[i+1:], true
	}
	return "", s, false
}
