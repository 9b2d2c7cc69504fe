package gate

// launcherBypassClasses are the forms where a computed word of a program
// that runs commands may be (or split into) what runs one: bash splits an
// unquoted expansion (and expands a brace or glob) into words, so a
// launcher's option value or skipped operand may carry the command itself,
// and a word where find reads a primary or tar an option may be -exec or
// --to-command.
var launcherBypassClasses = []bypassClass{
	// Found by running each launcher option from the program's help, with
	// rm after it, under the deny rule and in the sandbox with a stand-in
	// rm: the table had these options' grammar or effect wrong.
	{
		name:    "xargs --process-slot-var takes a value",
		needs:   "xargs",
		refused: []string{"echo | xargs --process-slot-var V rm -f x", "echo | xargs --process-slot-var . rm -f x"},
		allowed: []string{"echo a | xargs --process-slot-var V ls", "echo a | xargs --process-slot-var=V ls"},
	},
	{
		name:    "setarch has an architecture only when its first word is not an option",
		needs:   "setarch",
		refused: []string{"setarch -R rm -f x", "setarch --addr-no-randomize rm -f x", "setarch x86_64 -R rm -f x", "A=-R; setarch $A rm -f x"},
		allowed: []string{"setarch -R ls", "setarch x86_64 ls", "setarch x86_64 -R ls"},
	},
	{
		name:    "fakeroot runs its --faked value as its daemon",
		needs:   "fakeroot",
		refused: []string{"fakeroot -f rm true", "fakeroot --faked=rm true", "fakeroot --faked rm true"},
		allowed: []string{"fakeroot ls", "fakeroot -u ls", "fakeroot -- ls -la"},
	},
	{
		name:    "dbus-run-session runs its --dbus-daemon value",
		needs:   "dbus-run-session",
		refused: []string{"dbus-run-session --dbus-daemon rm true", "dbus-run-session --dbus-daemon=rm true"},
		allowed: []string{"dbus-run-session ls", "dbus-run-session -- ls"},
	},
	{
		name: "watch's -d takes a value only when attached",
		// watch repeats its command until it is killed: seen to run the
		// stand-in rm in the sandbox, not confirmed here.
		unconfirmed: []string{"watch -d rm -f x", "watch -d -n 1 rm -f x", "watch -dpermanent rm -f x"},
		allowed:     []string{"watch -d ls", "watch -n 1 -d git status"},
	},
	{
		name: "a launcher's option value or operand may split into the command",
		refused: []string{
			`T="5 rm -f"; timeout $T x`,
			`N="5 rm -f"; nice -n $N x`,
			`N="5 rm"; nice -n $N -f x`,
			`T="5 rm"; timeout -s KILL $T -f x`,
			`timeout {5,rm} -f x`,
			`N="-c idle rm"; ionice $N -f x`,
		},
		yolo:        []string{`T="5 rm -rf"; timeout $T /`, `N="5 rm -rf"; nice -n $N /`},
		allowed:     []string{`timeout "$T" ls`, `timeout 5 ls`, `nice -n "$N" ls`, `nice -n 5 ls`},
		yoloAllowed: []string{`timeout "$T" ls`, `T=5; timeout "$T" ls`, `nice -n 10 make`},
	},
	{
		name:  "a computed word of find may be a primary that runs a command",
		files: map[string]string{"x": "data"},
		refused: []string{
			`P="x -exec rm -f {} ;"; find . -name $P`,
			`P="-exec rm -f {} ;"; find . -name x $P`,
			`D=-exec; find "$D" rm -f x \;`,
			`D=-execdir; find . -name x "$D" rm -f {} +`,
		},
		yolo:        []string{`P="-o -delete"; find / -name x $P`},
		allowed:     []string{`find . -name "$P"`, `find "./$D" -name x`, `find . -name "*.$ext" -exec grep -l foo {} +`},
		yoloAllowed: []string{`find . -name "$P" -print`, `find src -type f -newer "$REF"`},
	},
	{
		name:  "a computed word may be an option that runs a command",
		files: map[string]string{"x": "data"},
		refused: []string{
			`tar -cf a.tar x; X=--to-command=rm; tar -x $X -f a.tar`,
			`tar -cf a.tar x; X="--to-command=rm -f"; tar -x "$X" -f a.tar`,
			`tar -cf a.tar x; X="-f a.tar --to-command=rm"; tar -x $X`,
		},
		allowed: []string{`tar -czf "$OUT" src`, `tar -xf "$F"`, `sort -k "$K" f`, `ls $X`, `grep -r "$P" .`},
	},
	{
		name: "a computed word may give a pager its commands",
		// less runs +!CMD as its first command on a terminal (the static
		// forms' class leaves it unconfirmed here, as they do).
		unconfirmed: []string{`X='+!rm -f x'; less "$X" f`, "less $X f", `more "$X" f`},
		yolo:        []string{`X='+!rm -rf /'; less "$X" f`, `X='+!rm -rf /'; vim "$X" f`, "vim $X f"},
		allowed:     []string{`less "./$F"`, "less README.md", `vim "src/$F"`},
	},
	{
		name: "set -k read wherever it turns on, for the calls before it too",
		// The keyword option is found call by call as the text is read;
		// a text that turns it on is read again from its start (a loop
		// runs the calls before it again under it).
		files: map[string]string{"env.sh": "rm -f x\n"},
		refused: []string{
			"f() { set -k; }; f; bash -c true BASH_ENV=./env.sh",
			"for i in 1 2; do bash -c true BASH_ENV=./env.sh; set -k; done",
			"bash -c 'set -k; bash -c true BASH_ENV=./env.sh'",
			"eval 'set -k'; bash -c true BASH_ENV=./env.sh",
		},
		yoloAllowed: []string{"f() { set -k; }; echo a=b"},
	},
	{
		name:        "ex reads Ex commands from standard input, whose ! runs a shell command",
		needs:       "ex",
		files:       map[string]string{"f": "text\n"},
		refused:     []string{"ex f <<< '!rm -f x'", "echo '!rm -f x' | ex f", "vim -es f <<< '!rm -f x'", "vi -e f <<'E'\n!rm -f x\nE"},
		yolo:        []string{"ex f <<< '!rm -rf /'", "vim -E f <<< '!rm -rf /'"},
		allowed:     []string{"vim f", "ex -s f < /dev/null"},
		yoloAllowed: []string{"ex f <<< 'set nu'", "vim -es -c '%s/a/b/g' -c wq f"},
	},
	{
		name:        "gdb reads its commands from standard input unless given -batch",
		needs:       "gdb",
		refused:     []string{"gdb -nx <<< 'shell rm -f x'", "gdb -nx <<< '!rm -f x'", "echo 'shell rm -f x' | gdb -nx"},
		yolo:        []string{"gdb -nx <<< 'shell rm -rf /'"},
		yoloAllowed: []string{"gdb -batch -nx <<< 'shell rm -rf /'", "gdb -nx <<< 'info registers'"},
	},
	{
		name:        "script without -c starts a shell that reads standard input",
		needs:       "script",
		refused:     []string{"script -q /dev/null <<< 'rm -f x'", "echo 'rm -f x' | script -q /dev/null"},
		yolo:        []string{"script -q /dev/null <<< 'rm -rf /'"},
		allowed:     []string{"script -qc 'ls' /dev/null", "script -q -c 'make' log.txt"},
		yoloAllowed: []string{"script -qc 'ls' /dev/null"},
	},
	{
		name: "ftp and sftp read their commands from standard input; ! runs a shell command",
		// ftp is not installed here and sftp needs a host: from their
		// manuals.
		unconfirmed: []string{"sftp host <<< '!rm -f x'", "ftp <<< '!rm -f x'", "echo '!rm -f x' | ftp host"},
		yolo:        []string{"echo '!rm -rf /' | ftp host"},
		allowed:     []string{"ftp host"},
	},
	{
		name: "a launcher's chdir option moves the command's working directory",
		// sudo -D DIR (sudo 1.9.3+; -C is its close-from) and env -C DIR
		// start the command in DIR, from their manuals: what rm -rf *
		// removes is there; a computed DIR is one the gate cannot follow.
		yolo:        []string{"sudo -D / rm -rf *", "env -C / rm -rf *", `env -C "$D" rm -rf *`, `sudo --chdir="$D" rm -rf *`},
		yoloAllowed: []string{"env -C /tmp/x rm -rf *", "sudo -C 3 ls", "env -C src make"},
	},
}
