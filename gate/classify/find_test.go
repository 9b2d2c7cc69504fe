package classify

import "testing"

func TestFindRules(t *testing.T) {
	runCases(t, Options{}, []classCase{
		{"find . -maxdepth 2 -type d", ro}, {"find -L . -name x", ro}, {"find . -newermt 2020-01-01", ro},
		{"find . -newerXY x", un}, {"find . \\( -name a -o -name b \\) -print0", ro}, {"find . ! -name a", ro},
		{"find . -printf '%p\\n'", ro}, {"find . -size +1M -mtime -2", ro}, {"find . -path ./x -prune -o -print", ro},
		{"find a b c -name x", ro}, {"find -O3 . -name x", ro}, {"find -D tree . -name x", ro},
		{"find . -name -delete", un}, {"find . -mtime -2 -size -10k", ro}, // Qwen `find . -name -delete` → unknown {"find . -name x -delete", wr}, {"find . -fprint0 out", wr},
		{"find . -fprintf out '%p'", wr}, {"find . -fls out", wr},
		// Qwen `find . -exec echo {} \;` → unknown: only writers and kill
		// are classified inside -exec.
		{"find . -exec wc -l {} +", un}, {"find . -exec grep -q x {} \\; -print", un},
		{"find . -fprint --help --help", un}, {"find . -fprint --help", wr}, {"find . -okdir rm {} \\;", wr},
		{"find . -exec sort -o out {} \\;", wr}, {"find . -exec kill {} \\;", wr}, {"find . -exec kill -0 {} \\;", un},
		{"find . -exec sed -i s/a/b/ {} +", wr}, {"find . -exec rm --help \\;", un}, {"find . -exec \\;", un},
		{"find . -exec python3 {} \\;", un}, {"find . -exec cat {} \\; -exec rm {} \\;", wr},
		{"find . -exec find {} -delete \\;", wr}, {"find . -exec mytool {} \\;", un}, {"find . -exec + \\;", un},
		{"find . -version", un}, {"find * -name x", un}, {"find . -name $N", un},
	})
	runCases(t, Options{ReadOnlyCommands: []string{"mytool"}}, []classCase{
		{"find . -exec mytool {} \\;", un}, {"find . -exec mytool rm \\;", un},
	})
}
