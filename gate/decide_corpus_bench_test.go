package gate

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/agentexec/agentexec/internal/hostile"
)

// BenchmarkDecideCorpus is one pass over the agent corpus per op, every
// command a full decision under the 20-rule policy. Besides the pass it
// reports the distribution per decision (scripts/bench-gate.sh prints it):
// the mean (all time over all decisions), the median, p99 and max of each
// command's best time over the passes (the best is what the code costs,
// the rest is the machine's other load), and the median and mean
// allocations per decision.
func BenchmarkDecideCorpus(b *testing.B) {
	benchDecideSet(b, agentCorpus(b))
}

// BenchmarkDecideMix is BenchmarkDecideCorpus over the long commands agents
// also send: here-documents that write files, multi-line python3 -c
// payloads, 4 KB pipelines and a 100 KB find -exec line (past the parse
// cap, so refused unparsed, but still split and checked).
func BenchmarkDecideMix(b *testing.B) {
	var mix []string
	for _, s := range hostile.Shapes() {
		switch s.Name {
		case "heredoc-write", "heredoc-expanding":
			mix = append(mix, s.Build(2<<10), s.Build(8<<10))
		case "python-c":
			mix = append(mix, s.Build(1<<10), s.Build(4<<10))
		case "pipeline", "and-chain":
			mix = append(mix, s.Build(4<<10))
		case "find-exec":
			mix = append(mix, s.Build(4<<10), s.Build(100<<10))
		}
	}
	benchDecideSet(b, mix)
}

func benchDecideSet(b *testing.B, cmds []string) {
	p := benchPolicy(b)
	allocs := make([]float64, len(cmds))
	var m0, m1 runtime.MemStats
	for i, c := range cmds {
		Decide(Input{Text: c, Policy: p}) // warm: lazy tables, pools
		runtime.ReadMemStats(&m0)
		Decide(Input{Text: c, Policy: p})
		runtime.ReadMemStats(&m1)
		allocs[i] = float64(m1.Mallocs - m0.Mallocs)
	}
	best := make([]time.Duration, len(cmds))
	for i := range best {
		best[i] = time.Duration(1<<63 - 1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for i, c := range cmds {
			t := time.Now()
			Decide(Input{Text: c, Policy: p})
			best[i] = min(best[i], time.Since(t))
		}
	}
	n := float64(b.N * len(cmds))
	slices.Sort(best)
	slices.Sort(allocs)
	var sum float64
	for _, a := range allocs {
		sum += a
	}
	pct := func(q float64) int { return min(len(best)-1, int(q*float64(len(best)))) }
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "mean-ns/decision")
	b.ReportMetric(float64(best[pct(0.5)].Nanoseconds()), "median-ns/decision")
	b.ReportMetric(float64(best[pct(0.99)].Nanoseconds()), "p99-ns/decision")
	b.ReportMetric(float64(best[len(best)-1].Nanoseconds()), "max-ns/decision")
	b.ReportMetric(allocs[pct(0.5)], "median-allocs/decision")
	b.ReportMetric(sum/float64(len(allocs)), "mean-allocs/decision")
}
