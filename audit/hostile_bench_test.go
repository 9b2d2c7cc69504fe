package audit

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentexec/agentexec/internal/hostile"
)

// BenchmarkAppendHostile appends, without fsync, the decision record of
// every hostile shape at every size: redaction and sealing must stay
// linear in the command's length, and the record bounded.
func BenchmarkAppendHostile(b *testing.B) {
	for _, s := range hostile.Shapes() {
		for _, n := range hostile.Sizes {
			text := s.Build(n)
			b.Run(fmt.Sprintf("%s/%dKiB", s.Name, (n+512)>>10), func(b *testing.B) {
				l := openLog(b, Options{Path: filepath.Join(b.TempDir(), "audit.jsonl"), NoSync: true})
				defer l.Close()
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					rec := Record{Kind: "decision", RunID: "r", Command: text, Shell: "bash", Cwd: "/work", Decision: "ask"}
					if err := l.Append(&rec); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
