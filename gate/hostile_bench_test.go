package gate

import (
	"fmt"
	"testing"

	"github.com/agentexec/agentexec/internal/hostile"
)

// BenchmarkHostile is a full decision (the 20-rule policy of
// BenchmarkDecide, default mode) per op for every hostile shape at every
// size: the cost per input byte must not grow with the size
// (scripts/bench-gate.sh prints it per MiB).
func BenchmarkHostile(b *testing.B) {
	p := benchPolicy(b)
	for _, s := range hostile.Shapes() {
		for _, n := range hostile.Sizes {
			text := s.Build(n)
			b.Run(fmt.Sprintf("%s/%dKiB", s.Name, (n+512)>>10), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					Decide(Input{Text: text, Policy: p})
				}
			})
		}
	}
}
