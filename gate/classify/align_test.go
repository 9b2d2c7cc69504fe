package classify

import "testing"

// Cases from the peer suites (Qwen shellAstParser, vouched roots) that the
// classifier was aligned with, each rule in both directions.
func TestPeerAlignedClasses(t *testing.T) {
	runCases(t, Options{}, []classCase{
		// kill: -n is a signal option only for kill; pkill -s is a session.
		{"kill -n 0 123", un}, {"pkill -n 0", wr}, {"pkill -n0 process", wr},
		{"pkill -s0 process", wr}, {"pkill -s \"$SESSION\" process", wr},
		{"killall -s0 process", un}, {"killall -n0 process", wr},
		{"pkill --signal 0 process", un}, {"pkill -0 process", un},
		{"killall -help", un}, {"kill --signal=\"$SIGNAL\" 123", un},
		{"kill -s\"$S\" 1", un}, {"kill \"$PID\"", wr},
		// <( ) inside a ${…} operand.
		{"echo ${HOME%%<(rm -rf build)}", un}, {"echo \"${x:-<(rm -rf b)}\"", un},
		{"echo ${x/>(rm)/rep}", un}, {"echo ${HOME%%/x}", ro}, {"echo '<(x)'", ro},
		// git branch and --help consumed as a value.
		{"git branch --format --help -d topic", wr}, {"git branch -d topic --help", un},
		{"git branch -- --list", un}, {"git branch -- topic", wr},
		{"git log --output --help", wr}, {"git remote get-url prune", un},
		{"git remote get-url origin", ro},
		// help and empty values on writing options.
		{"sort -o output --help", un}, {"sort -o --help input", wr},
		{"sort --output=", un}, {"sort --output=x", wr},
		{"find . -- -delete", un},
		// sort and tree parse help themselves; the peer leaves it unknown
		// (Qwen shellReadOnlyChecker `sort --help`, `tree --help`).
		{"sort --help", un}, {"tree --version", un}, {"sort -u a", ro}, {"tree -L 2", ro},
		{"uniq --help", ro},
	})
	vouch := Options{ReadOnlyCommands: []string{"gitw", "ib", "mytool"}}
	runCases(t, vouch, []classCase{
		{"ib list .", ro}, {"mytool export data", ro}, {"gitw diff", ro}, {"gitw --json status", ro},
		{"ib -cp lib get", ro}, {"ib -abc list", ro}, {"ib list rm", un},
		{"gitw -C. status", un}, {"gitw -pccore.fsmonitor=./evil.sh status", un},
		{"ib -count=5 list", un}, {"gitw --exec-path ./evil request-pull", un},
		{"gitw push origin main", un}, {"gitw log --output=f", un}, {"gitw svn dcommit", un},
		{"run0 ./payload", un}, {"c++ ./payload", un},
	})
}
