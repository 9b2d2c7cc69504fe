package classify

import (
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentexec/agentexec/internal/corpus"
)

// loadCorpus returns the corpus of agent commands (internal/corpus).
func loadCorpus(tb testing.TB) []string {
	tb.Helper()
	lines, err := corpus.AgentCommands()
	if err != nil {
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
			Classify(l, Options{})
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
			r = Classify(l, Options{})
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

// reportCPU adds a cpu-ns/op metric: process CPU time per operation
// (divided by per: then it is per command or per byte), which unlike ns/op excludes time spent runnable but
// not running on a loaded machine.
func reportCPU(b *testing.B, cpu0 int64, ok bool, per int) {
	cpu1, ok1 := processCPUTime()
	if ok && ok1 && b.N > 0 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N*per), "cpu-ns/op")
	}
}
