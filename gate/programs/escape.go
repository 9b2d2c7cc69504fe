package programs

import "strings"

// Escape names a command language's ways of handing text to the shell:
// Vim's `:!cmd`, gdb's `shell cmd`, psql's `\! cmd`. The code such a
// language is given on the command line (vim -c, gdb -ex, less +cmd,
// psql -c) is code the gate does not read, but the shell text it hands
// on is shell text, which the blacklist and the rules read as they read
// `sh -c`'s. ShellTexts over-reads (a `!` that only negates an option is
// read too): stricter, never looser.
type Escape uint8

// The escapes.
const (
	NoEscape Escape = iota
	// EscapeEx is Vim's Ex commands: `!cmd`, `{range}!filter`, `r !cmd`,
	// `w !cmd`, and every other command that takes a `!cmd` argument
	// (a bang command takes the rest of the line, `|` included), and
	// `:terminal cmd`.
	EscapeEx
	// EscapeKeys is a pager's command keys (less +cmd, more): `!cmd` and
	// `|Xcmd` (pipe to the shell up to mark X) run up to a newline.
	EscapeKeys
	// EscapeGdb is gdb's commands, one a line: `shell cmd` (and its
	// abbreviations), `!cmd`, `pipe …|cmd`, `|…|cmd`.
	EscapeGdb
	// EscapeSQL is a database shell's client commands: `\! cmd` (psql,
	// mysql) and mysql's `system cmd`, up to the end of their line.
	EscapeSQL
	// EscapeTcl is Tcl's and expect's commands that start programs:
	// `exec`, `spawn`, `system`, `open |cmd`, up to the command's end.
	EscapeTcl
)

// ShellTexts returns the shell text code hands to the shell, by e's
// grammar.
func (e Escape) ShellTexts(code string) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	for _, line := range strings.Split(code, "\n") {
		switch e {
		case EscapeEx:
			exLine(line, add)
		case EscapeKeys:
			if i := strings.IndexByte(line, '!'); i >= 0 {
				add(line[i+1:])
			}
			if i := strings.IndexByte(line, '|'); i >= 0 && i+2 <= len(line) {
				add(line[i+2:])
			}
		case EscapeGdb:
			gdbLine(line, add)
		case EscapeSQL:
			sqlLine(line, add)
		case EscapeTcl:
			tclLine(line, add)
		}
	}
	return out
}

// exLine reads one line of Ex commands. Any `!` hands what follows it to
// the shell (`:!cmd`, `:r!cmd`, `:%!sort`, `:w !cmd`, `:g/x/!cmd`, a
// command modifier's `silent !cmd`): the forms that do not (`:w!`, `:q!`,
// `:set list!`) have nothing after the `!` or a file name, which read as a
// command is stricter. `:terminal` runs its argument.
func exLine(line string, add func(string)) {
	if i := strings.IndexByte(line, '!'); i >= 0 {
		add(line[i+1:])
		line = line[:i]
	}
	for _, cmd := range strings.Split(line, "|") {
		cmd = strings.TrimLeft(cmd, " \t:")
		word := cmd
		if i := strings.IndexAny(cmd, " \t"); i >= 0 {
			word = cmd[:i]
		}
		if len(word) >= 3 && strings.HasPrefix("terminal", word) {
			args := strings.Fields(cmd[len(word):])
			for len(args) > 0 && strings.HasPrefix(args[0], "++") {
				args = args[1:]
			}
			add(strings.Join(args, " "))
		}
	}
}

// gdbLine reads one gdb command.
func gdbLine(line string, add func(string)) {
	s := strings.TrimLeft(line, " \t")
	switch {
	case strings.HasPrefix(s, "!"):
		add(s[1:])
		return
	case strings.HasPrefix(s, "|"), strings.HasPrefix(s, "pipe ") || strings.HasPrefix(s, "pipe\t"):
		// pipe [-d DELIM] COMMAND | SHELL_COMMAND: the last bar (a
		// delimiter the text names is read as a bar too: stricter).
		if i := strings.LastIndexAny(s, "|"); i >= 0 {
			add(s[i+1:])
		}
		return
	}
	word, rest, _ := strings.Cut(s, " ")
	if len(word) >= 3 && strings.HasPrefix("shell", word) {
		add(rest)
	}
}

// sqlLine reads one line of a database shell: `\!` anywhere, or mysql's
// system at the start of a statement.
func sqlLine(line string, add func(string)) {
	if i := strings.Index(line, `\!`); i >= 0 {
		add(line[i+2:])
		line = line[:i]
	}
	for _, stmt := range strings.Split(line, ";") {
		word, rest, _ := strings.Cut(strings.TrimLeft(stmt, " \t"), " ")
		if strings.EqualFold(word, "system") {
			add(rest)
		}
	}
}

// tclLine reads one line of Tcl: each command (after the line's start, a
// `;` or a `[`) that is exec, spawn or system hands its words on; `open
// "|cmd"` pipes into cmd. Tcl's quoting is read as the shell's, which
// keeps the words.
func tclLine(line string, add func(string)) {
	for _, part := range strings.FieldsFunc(line, func(r rune) bool { return r == ';' || r == '[' || r == ']' }) {
		word, rest, _ := strings.Cut(strings.TrimLeft(part, " \t{"), " ")
		switch word {
		case "exec", "spawn", "system":
			for _, opt := range []string{"-ignorestderr ", "-keepnewline ", "-noecho ", "-nottycopy ", "-nottyinit ", "-- "} {
				rest = strings.TrimPrefix(strings.TrimLeft(rest, " "), opt)
			}
			add(strings.Trim(rest, " {}"))
		case "open":
			if i := strings.IndexByte(rest, '|'); i >= 0 {
				add(strings.Trim(rest[i+1:], ` "{}`))
			}
		}
	}
}
