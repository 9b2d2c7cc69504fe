package gate

// launcherBypassClasses are the forms where the words a launcher reads
// before its command are computed: bash splits an unquoted expansion (and
// expands a brace or glob) into words, so an option value or a skipped
// operand may carry the command itself.
var launcherBypassClasses = []bypassClass{
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
}
