package audit

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// TestGroupCommit: records appended concurrently all land, in one
// unbroken chain, each durable when its Append returns, and they share
// syncs (fewer syncs than records); sequential appends sync once each.
func TestGroupCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path, AnchorEvery: 1000})
	const writers, each = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				errs <- l.Append(&Record{Kind: "run", RunID: fmt.Sprintf("%d-%d", g, i), Command: "true"})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	grouped := l.syncs
	for i := range 10 {
		if err := l.Append(&Record{Kind: "run", RunID: fmt.Sprint("seq-", i), Command: "true"}); err != nil {
			t.Fatal(err)
		}
	}
	sequential := l.syncs - grouped
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	rep := mustVerify(t, path, VerifyOptions{})
	if rep.Records != writers*each+10 {
		t.Errorf("verified %d records, want %d", rep.Records, writers*each+10)
	}
	if grouped >= writers*each {
		t.Errorf("%d concurrent records took %d syncs: no group commit", writers*each, grouped)
	}
	if sequential != 10 {
		t.Errorf("10 sequential records took %d syncs, want one each", sequential)
	}
	t.Logf("%d concurrent records: %d syncs", writers*each, grouped)
}

// TestAppendAfterClose: Append after Close fails with ErrClosed.
func TestAppendAfterClose(t *testing.T) {
	l := openLog(t, Options{Path: filepath.Join(t.TempDir(), "audit.jsonl")})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(&Record{Kind: "run"}); err != ErrClosed {
		t.Fatalf("Append after Close = %v, want ErrClosed", err)
	}
}
