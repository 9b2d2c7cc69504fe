package gate

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// corpusPath is the shared corpus of agent commands at the repository root.
const corpusPath = "../testdata/corpus/agent-commands.txt"

// loadCorpus returns the non-comment, non-blank lines of the corpus.
func loadCorpus(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open(corpusPath)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if t := strings.TrimSpace(l); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return lines
}

func TestCorpusShape(t *testing.T) {
	lines := loadCorpus(t)
	if len(lines) < 500 {
		t.Errorf("corpus has %d commands, want at least 500", len(lines))
	}
	seen := map[string]bool{}
	for _, l := range lines {
		if seen[l] {
			t.Errorf("duplicate corpus line %q", l)
		}
		seen[l] = true
	}
}

// BenchmarkClassify classifies the whole corpus per iteration and reports
// the mean cost per command.
func BenchmarkClassify(b *testing.B) {
	lines := loadCorpus(b)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	cpu0, ok := processCPUTime()
	for b.Loop() {
		for _, l := range lines {
			Classify(l, ClassifyOptions{})
		}
	}
	reportCPU(b, cpu0, ok, len(lines))
	runtime.ReadMemStats(&after)
	n := float64(b.N * len(lines))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/command")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/command")
	// cpu-ns/op above is per command here.
}

// TestClassifyCorpusMedian logs the median time to classify one corpus
// command (the best of several runs of each) and the class counts. It
// asserts nothing about time: machines differ; the target is under 10 µs.
func TestClassifyCorpusMedian(t *testing.T) {
	lines := loadCorpus(t)
	const runs = 9
	per := make([]time.Duration, 0, len(lines))
	counts := map[Safety]int{}
	for _, l := range lines {
		best := time.Duration(1<<63 - 1)
		var r Result
		for range runs {
			start := time.Now()
			r = Classify(l, ClassifyOptions{})
			best = min(best, time.Since(start))
		}
		per = append(per, best)
		counts[r.Safety]++
	}
	slices.Sort(per)
	t.Logf("%d commands: median %v, p90 %v, max %v per command (best of %d runs)",
		len(per), per[len(per)/2], per[len(per)*9/10], per[len(per)-1], runs)
	t.Logf("classes: read-only %d, write %d, unknown %d",
		counts[ReadOnly], counts[Write], counts[Unknown])
}

func BenchmarkSed(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range sedCases {
			classifySed(c.args)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(sedCases)), "ns/case")
}

func BenchmarkAwk(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range awkCases {
			classifyAwk(c.args)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(awkCases)), "ns/case")
}

// repeatTo repeats unit until the result is at least n bytes.
func repeatTo(unit string, n int) string {
	return strings.Repeat(unit, (n+len(unit)-1)/len(unit))
}

// BenchmarkSedPathological shows the sed scanner is linear: the ns/byte
// metric stays flat as the script grows from 64 KiB to 1 MiB.
func BenchmarkSedPathological(b *testing.B) {
	inputs := []struct {
		name, unit string
	}{
		{"substitutions", "s/a\\(b*\\)*c/\\1/g;"},
		{"semicolons", ";"},
		{"brackets", "/[[:alpha:][.a.]/]*/p;"},
		{"blocks", "1{"},
		{"text", "a\\\nline\\\n"},
	}
	for _, in := range inputs {
		for _, size := range []int{64 << 10, 256 << 10, 1 << 20} {
			script := repeatTo(in.unit, size)
			b.Run(in.name+"/"+sizeName(size), func(b *testing.B) {
				cpu0, ok := processCPUTime()
				for b.Loop() {
					classifySed([]string{"-n", script})
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(script)), "ns/byte")
				reportCPU(b, cpu0, ok, len(script))
			})
		}
	}
	b.Run("100k-semicolon-commands", func(b *testing.B) {
		script := repeatTo("p;", 200000)
		for b.Loop() {
			classifySed([]string{script})
		}
	})
}

// BenchmarkAwkPathological shows the awk scanner is linear.
func BenchmarkAwkPathological(b *testing.B) {
	inputs := []struct {
		name, unit string
	}{
		{"statements", "x = a[i] / 2; y = \"s\\\"t\"; if ($1 ~ /re[a-z]+/) n++;\n"},
		{"parens", "(((("},
		{"prints", "print a, b > \"/dev/stderr\";\n"},
		{"comments", "# comment with \" and / and system(\n"},
	}
	for _, in := range inputs {
		for _, size := range []int{64 << 10, 256 << 10, 1 << 20} {
			prog := "{" + repeatTo(in.unit, size) + "}"
			b.Run(in.name+"/"+sizeName(size), func(b *testing.B) {
				cpu0, ok := processCPUTime()
				for b.Loop() {
					classifyAwk([]string{prog})
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(prog)), "ns/byte")
				reportCPU(b, cpu0, ok, len(prog))
			})
		}
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return strconv.Itoa(n>>20) + "MiB"
	}
	return strconv.Itoa(n>>10) + "KiB"
}

// newBenchGitFixture is a repository with realistic global and local
// configuration (aliases, a credential helper, an editor, remotes and
// branches, an include), aged past the racy window so the cache is warm.
func newBenchGitFixture(b *testing.B) (cwd string, env []string) {
	root := b.TempDir()
	home := filepath.Join(root, "home")
	repo := filepath.Join(root, "src", "project")
	gitDir := filepath.Join(repo, ".git")
	files := map[string]string{
		filepath.Join(home, ".gitconfig"): "[user]\n\tname = A Developer\n\temail = dev@example.com\n" +
			"[core]\n\teditor = vim\n\tautocrlf = input\n[credential]\n\thelper = cache --timeout=3600\n" +
			"[alias]\n\tst = status -sb\n\tco = checkout\n\tlg = log --graph --oneline\n" +
			"[init]\n\tdefaultBranch = main\n[pull]\n\trebase = true\n[include]\n\tpath = ~/.gitconfig.local\n",
		filepath.Join(home, ".gitconfig.local"): "[user]\n\tsigningkey = ABCDEF\n",
		filepath.Join(gitDir, "config"): "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n" +
			"[remote \"origin\"]\n\turl = git@github.com:org/project.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n" +
			"[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n",
		filepath.Join(gitDir, "HEAD"): "ref: refs/heads/main\n",
	}
	for p, text := range files {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, d := range []string{"objects", "refs", "hooks"} {
		os.MkdirAll(filepath.Join(gitDir, d), 0o755)
	}
	cwd = filepath.Join(repo, "internal", "server")
	os.MkdirAll(cwd, 0o755)
	time.Sleep(gitConfigRacyWindow + 100*time.Millisecond)
	return cwd, []string{"HOME=" + home, "PAGER=cat", "GIT_PAGER=cat", "PATH=/usr/bin:/bin", "LANG=C.UTF-8"}
}

// BenchmarkGitConfigRisk measures a warm call (files parsed and cached):
// the cost is the stat calls of discovery, every scope and the hooks.
func BenchmarkGitConfigRisk(b *testing.B) {
	cwd, env := newBenchGitFixture(b)
	old := gitSystemConfig
	gitSystemConfig = filepath.Join(filepath.Dir(cwd), "no-system-gitconfig")
	defer func() { gitSystemConfig = old }()
	if r, why := gitConfigRisk(cwd, env, "status", nil); r {
		b.Fatalf("fixture is risky: %s", why)
	}
	for _, sub := range []string{"status", "log"} {
		b.Run(sub, func(b *testing.B) {
			b.ReportAllocs()
			cpu0, ok := processCPUTime()
			for b.Loop() {
				gitConfigRisk(cwd, env, sub, nil)
			}
			reportCPU(b, cpu0, ok, 1)
		})
	}
	// The floor: one stat of an existing file, the unit the call is made of.
	b.Run("one-stat-baseline", func(b *testing.B) {
		p := filepath.Join(cwd, "..", "..", ".git", "config")
		cpu0, ok := processCPUTime()
		for b.Loop() {
			os.Stat(p)
		}
		reportCPU(b, cpu0, ok, 1)
	})
}

// reportCPU adds a cpu-ns/op metric: process CPU time per operation
// (divided by per: then it is per command or per byte), which unlike ns/op excludes time spent runnable but
// not running on a loaded machine.
func reportCPU(b *testing.B, cpu0 int64, ok bool, per int) {
	cpu1, ok1 := processCPUTime()
	if ok && ok1 && b.N > 0 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N*per), "cpu-ns/op")
	}
}
