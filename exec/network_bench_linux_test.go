package exec

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/agentexec/agentexec/gate"
)

// BenchmarkProxyUnused alternates, in blocks of ten runs (so that each
// configuration's standby launcher serves its own runs, as it does for an
// agent whose policy stays the same), a sandboxed run of /bin/true with
// the network cut and the same run with an allowlist (its own network
// namespace, the listener, the egress proxy started and closed) that the
// command never uses, and reports both medians and the time the
// allowlist adds. scripts/bench-net.sh runs it.
func BenchmarkProxyUnused(b *testing.B) {
	cwd := b.TempDir()
	off := &Runner{Mode: gate.ModeYolo, Cwd: cwd}
	pol, err := gate.ParsePolicy([]byte(`{"sandbox": {"network": {"allow": ["registry.npmjs.org", "*.github.com"]}}}`), "bench.json")
	if err != nil {
		b.Fatal(err)
	}
	proxied := &Runner{Mode: gate.ModeYolo, Cwd: cwd, Policy: pol}
	req := Request{Argv: []string{"/bin/true"}}
	for _, r := range []*Runner{off, proxied} {
		if obs := r.RunCommand(context.Background(), req); obs.Status != StatusExited {
			b.Skipf("no sandbox here: %s", obs.Error)
		}
	}
	if obs := proxied.RunCommand(context.Background(), req); obs.Sandbox.Network != "proxy" {
		b.Fatalf("network %q, want proxy", obs.Sandbox.Network)
	}
	var a, p []time.Duration
	run := func(r *Runner, into *[]time.Duration) {
		t0 := time.Now()
		if obs := r.RunCommand(context.Background(), req); obs.Status != StatusExited {
			b.Fatal(obs.Error)
		}
		*into = append(*into, time.Since(t0))
	}
	for i := 0; b.Loop(); i++ {
		if i/10%2 == 0 {
			run(off, &a)
		} else {
			run(proxied, &p)
		}
	}
	if len(a) == 0 || len(p) == 0 {
		return // too few iterations for both
	}
	ma, mp := median(a), median(p)
	b.ReportMetric(float64(ma.Microseconds()), "off-median-µs/run")
	b.ReportMetric(float64(mp.Microseconds()), "proxy-median-µs/run")
	b.ReportMetric(float64((mp - ma).Microseconds()), "added-µs/run")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
