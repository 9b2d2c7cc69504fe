package audit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// writeLargeLog writes a valid chain of about size bytes at path, and its
// anchors (seq 1, every 64, the last), directly rather than through Append
// (which fsyncs and locks per record): what a long-lived server leaves.
func writeLargeLog(tb testing.TB, path string, size int64) (records uint64) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		tb.Fatal(err)
	}
	af, err := os.OpenFile(path+".anchors", os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		tb.Fatal(err)
	}
	w, aw := bufio.NewWriterSize(f, 1<<20), bufio.NewWriter(af)
	code := 0
	rec := Record{Kind: "run", Shell: "bash", Cwd: "/home/user/project", Mode: "default", Status: "exited",
		ExitCode: &code, Sandbox: "workspace-write", Decision: "allow", Alg: AlgSHA256, Time: "2026-12-01T00:00:00.000000000Z"}
	var written int64
	anchor := func() {
		b, _ := json.Marshal(Anchor{Seq: rec.Seq, Hash: rec.Hash, File: filepath.Base(path), Time: rec.Time})
		aw.Write(append(b, '\n'))
	}
	for written < size {
		rec.Seq++
		rec.RunID = strconv.FormatUint(rec.Seq, 16)
		rec.Command = fmt.Sprintf("go test ./... -run TestNumber%d -count=1 && git diff --stat HEAD~%d", rec.Seq, rec.Seq%50)
		rec.Prev = rec.Hash
		line, err := seal(&rec, nil)
		if err != nil {
			tb.Fatal(err)
		}
		w.Write(line)
		written += int64(len(line))
		if rec.Seq == 1 || rec.Seq%64 == 0 {
			anchor()
		}
	}
	anchor()
	for _, err := range []error{w.Flush(), aw.Flush(), f.Close(), af.Close()} {
		if err != nil {
			tb.Fatal(err)
		}
	}
	return rec.Seq
}

// peakHeap runs fn while sampling the live heap every millisecond and
// returns the highest sample: a bound on the memory fn needed, which no
// timing affects beyond how often it is sampled.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak atomic.Uint64
	read := func() {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > peak.Load() {
			peak.Store(v)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				read()
			}
		}
	}()
	fn()
	read()
	close(stop)
	wg.Wait()
	return peak.Load()
}

// TestStreamingBoundedMemory: Verify, Tail and Scan of a 32 MiB log keep
// their heap far below the log's size (it would not fit in the bound if
// any of them held the log or its anchors). A 1 GB log is measured by
// scripts/audit-large.sh.
func TestStreamingBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 32 MiB log")
	}
	const size, bound = 32 << 20, 12 << 20
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	n := writeLargeLog(t, path, size)
	var rep *Report
	var err error
	if peak := peakHeap(func() { rep, err = Verify(path, VerifyOptions{}) }); peak > bound {
		t.Errorf("Verify of a %d MiB log: heap peaked at %.1f MiB, over %d MiB", size>>20, float64(peak)/(1<<20), bound>>20)
	}
	if err != nil || rep.LastSeq != n || rep.Anchors < int(n/64) {
		t.Fatalf("verify: %v %+v", err, rep)
	}
	var last uint64
	if peak := peakHeap(func() {
		err = Tail(path, 10, func(e Entry) error { last = e.Record.Seq; return e.Err })
	}); peak > bound {
		t.Errorf("Tail: heap peaked at %.1f MiB", float64(peak)/(1<<20))
	}
	if err != nil || last != n {
		t.Fatalf("tail: %v, last seq %d of %d", err, last, n)
	}
	count := 0
	if peak := peakHeap(func() {
		err = Scan(path, func(Entry) error { count++; return nil })
	}); peak > bound {
		t.Errorf("Scan: heap peaked at %.1f MiB", float64(peak)/(1<<20))
	}
	if err != nil || uint64(count) != n {
		t.Fatalf("scan: %v, %d lines of %d", err, count, n)
	}
}

// TestLongLineBounded: a line longer than any record is a break that is
// not held whole, for Verify and the readers alike, and Append refuses
// such a record.
func TestLongLineBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 16 MiB line")
	}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeLog(t, Options{Path: path}, 2)
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.Write(make([]byte, MaxRecordBytes+1))
	f.Write([]byte("\n"))
	f.Close()
	var err error
	// At most one line of MaxRecordBytes is held, with its growth.
	const bound = 4 * MaxRecordBytes
	if peak := peakHeap(func() { _, err = Verify(path, VerifyOptions{}) }); peak > bound {
		t.Errorf("Verify: heap peaked at %.1f MiB", float64(peak)/(1<<20))
	}
	if ce := chainError(t, err); ce.Line != 3 || ce.Reason != "a line longer than 16777216 bytes (not a record the writer writes)" {
		t.Errorf("verify: %v", err)
	}
	l := openLog(t, Options{Path: filepath.Join(t.TempDir(), "big.jsonl")})
	defer l.Close()
	if err := l.Append(&Record{Kind: "decision", Command: strings.Repeat("x", MaxRecordBytes+1)}); err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Errorf("Append of an over-size record: %v", err)
	}
	var got []Entry
	if peak := peakHeap(func() { err = Tail(path, 1, func(e Entry) error { got = append(got, e); return nil }) }); peak > bound {
		t.Errorf("Tail: heap peaked at %.1f MiB", float64(peak)/(1<<20))
	}
	if err != nil || len(got) != 1 || got[0].Err != errLongLine || got[0].Line != 3 {
		t.Errorf("tail: %v %+v", err, got)
	}
}

// TestWriteLargeLog writes the log scripts/audit-large.sh measures:
// AUDIT_LARGE_LOG=PATH AUDIT_LARGE_BYTES=N.
func TestWriteLargeLog(t *testing.T) {
	path := os.Getenv("AUDIT_LARGE_LOG")
	if path == "" {
		t.Skip("set AUDIT_LARGE_LOG (and AUDIT_LARGE_BYTES) to write a large log")
	}
	size, err := strconv.ParseInt(os.Getenv("AUDIT_LARGE_BYTES"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d records", writeLargeLog(t, path, size))
}

// BenchmarkVerifyLarge verifies a 64 MiB log; peak-heap-MiB is the bound
// that matters, records/s the speed.
func BenchmarkVerifyLarge(b *testing.B) {
	path := filepath.Join(b.TempDir(), "audit.jsonl")
	n := writeLargeLog(b, path, 64<<20)
	var peak uint64
	start := time.Now()
	for b.Loop() {
		peak = max(peak, peakHeap(func() {
			if _, err := Verify(path, VerifyOptions{}); err != nil {
				b.Fatal(err)
			}
		}))
	}
	b.ReportMetric(float64(uint64(b.N)*n)/time.Since(start).Seconds(), "records/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
