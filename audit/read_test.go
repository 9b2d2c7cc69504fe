package audit

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestTailAcrossRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeLog(t, Options{Path: path, RotateBytes: 600}, 12)
	files, _ := ChainFiles(path)
	if len(files) < 3 {
		t.Fatalf("want rotated files, have %q", files)
	}
	for _, n := range []int{0, 1, 5, 12, 100} {
		var seqs []uint64
		err := Tail(path, n, func(e Entry) error {
			seqs = append(seqs, e.Record.Seq)
			return e.Err
		})
		if err != nil {
			t.Fatal(err)
		}
		want := min(n, 12)
		if len(seqs) != want || (want > 0 && (seqs[0] != uint64(12-want+1) || seqs[want-1] != 12)) {
			t.Errorf("Tail(%d): seqs %v", n, seqs)
		}
	}
}

// TestFollow appends across several rotations while a follower reads:
// it sees every record once, in order.
func TestFollow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeLog(t, Options{Path: path}, 2)
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var seqs []uint64
	done := make(chan error)
	started := make(chan bool)
	go func() {
		done <- Follow(ctx, path, 1, 5*time.Millisecond, func(e Entry) error {
			if e.Err != nil {
				return e.Err
			}
			mu.Lock()
			seqs = append(seqs, e.Record.Seq)
			if len(seqs) == 1 {
				close(started)
			}
			mu.Unlock()
			return nil
		})
	}()
	<-started // the tail is printed: what follows is followed
	l := openLog(t, Options{Path: path, RotateBytes: 700, NoSync: true})
	for i := 0; i < 30; i++ {
		if err := l.Append(&Record{Kind: "decision", RunID: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	l.Close()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(seqs)
		mu.Unlock()
		if n >= 31 {
			break
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for i, s := range seqs {
		if s != uint64(i+2) {
			t.Fatalf("follower saw %v, want 2..32 in order", seqs)
		}
	}
	if len(seqs) != 31 {
		t.Fatalf("follower saw %d records, want 31: %v", len(seqs), seqs)
	}
}

func TestScan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeLog(t, Options{Path: path, RotateBytes: 600}, 9)
	n := 0
	err := Scan(path, func(e Entry) error {
		n++
		if e.Err != nil || e.Record.Seq != uint64(n) {
			t.Errorf("entry %d: %+v", n, e)
		}
		return nil
	})
	if err != nil || n != 9 {
		t.Errorf("Scan: %d entries, %v", n, err)
	}
}

// lastNewline finds the last "\n" before an offset whatever the distance
// to it: inside the first small chunk, at a chunk's edge, across the
// doubling chunks of a long line, or nowhere.
func TestLastNewline(t *testing.T) {
	for _, tc := range []struct {
		name       string
		head, tail int // bytes before the last newline, and after it
	}{
		{"none", -1, 10},
		{"last byte", 100, 0},
		{"short line", 100, 300},
		{"first chunk edge", 10, 4095},
		{"just past the first chunk", 10, 4096},
		{"across doubled chunks", 10, 70000},
		{"past the largest chunk", 10, 300000},
		{"at offset 0", 0, 9000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var data []byte
			want := int64(0)
			if tc.head >= 0 {
				data = append(bytes.Repeat([]byte("a\n"), tc.head/2), bytes.Repeat([]byte("b"), tc.head%2)...)
				data = append(data, '\n')
				want = int64(len(data))
			}
			data = append(data, bytes.Repeat([]byte("x"), tc.tail)...)
			got, err := lastNewline(bytes.NewReader(data), int64(len(data)))
			if err != nil || got != want {
				t.Fatalf("lastNewline = %d, %v; want %d", got, err, want)
			}
		})
	}
}
