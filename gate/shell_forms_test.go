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
	{
		name: "a C-style for loop's header runs its command substitutions",
		// for ((i=$(rm -f x); …)) ran rm under bash before the arithmetic
		// failed; the header was never read for calls.
		refused: []string{
			"for ((i=$(rm -f x); i<1; i++)); do :; done",
			"for ((i=0; i<$(rm -f x)1; i++)); do :; done",
			"for ((i=0; i<1; i+=$(rm -f x)1)); do :; done",
			"for ((i=`rm -f x`0; i<1; i++)); do :; done",
		},
		// The classifier asks for any arithmetic on a variable, so the near
		// misses are yolo's.
		yolo:        []string{"for ((i=$(rm -rf /); i<1; i++)); do :; done", "for ((;$(rm -rf ~);)); do :; done"},
		yoloAllowed: []string{"for ((i=0; i<3; i++)); do echo $i; done", "for ((i=0; i<$(ls | wc -l); i++)); do echo $i; done"},
	},
}
