package gate

// shellBypassClasses are the bypass classes found in what bash does with
// the text (its assignments, directories and expansions), as opposed to
// what programs do with their options. TestBypassClasses and
// TestBypassClassesConfirm read them with the others.
var shellBypassClasses = []bypassClass{
	{
		name: "a declaration builtin reads a quoted or computed operand as an assignment",
		// export 'BASH_ENV=f' sets BASH_ENV as export BASH_ENV=f does:
		// the shell started next sources f (bash-confirmed).
		files: map[string]string{"env.sh": "rm -f x\n"},
		refused: []string{
			"export 'BASH_ENV=./env.sh'; bash -c true",
			`export "BASH_ENV"=./env.sh; bash -c true`,
			`export BASH_"ENV=./env.sh"; bash -c true`,
			"builtin export BASH_ENV=./env.sh; bash -c true",
			"command export BASH_ENV=./env.sh; bash -c true",
			"export -- 'BASH_ENV=./env.sh'; bash -c true",
			"declare -x 'BASH_ENV=./env.sh'; bash -c true",
			"x='BASH_ENV=./env.sh'; export $x; bash -c true",
			"v=BASH_ENV; export \"$v=./env.sh\"; bash -c true",
			"f=./env.sh; export \"BASH_ENV=$f\"; bash -c true",
		},
		allowed: []string{"export 'FOO=bar'; ls", `export FOO="$(pwd)"; ls`, "export -f f; ls",
			"export FOO=bar; ls"},
		yolo: []string{"echo 'rm -rf /' > e; export 'BASH_ENV=./e'; bash -c true",
			"v=BASH_ENV; export \"$v=./e\"; bash -c true"},
		yoloAllowed: []string{"export 'FOO=bar'; ls", `export "FOO=$x"; ls`, "export -f f", "declare -F"},
	},
}
