package policy

import (
	"context"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentexec/agentexec/gate"
)

// Watcher keeps a policy in force and reads it again when one of its files
// changes. A reload is atomic: the new policy replaces the old one whole,
// and a file that no longer loads keeps the old policy in force and is
// reported once per broken version.
type Watcher struct {
	opts Options
	logf func(format string, args ...any)

	cur atomic.Pointer[Loaded]

	mu      sync.Mutex // one reload at a time; guards stamps and broken
	stamps  map[string]stamp
	broken  string // the stamps of the version that failed, reported once
	checked time.Time
}

// stamp is what tells a file changed: presence, identity, size and time.
type stamp struct {
	fi os.FileInfo // nil: absent
}

func (s stamp) same(t stamp) bool {
	switch {
	case s.fi == nil || t.fi == nil:
		return s.fi == nil && t.fi == nil
	case !os.SameFile(s.fi, t.fi):
		return false
	}
	return s.fi.Size() == t.fi.Size() && s.fi.ModTime().Equal(t.fi.ModTime())
}

// NewWatcher starts from l, loaded with o; logf reports reloads and
// broken edits (nil: silent).
func NewWatcher(o Options, l *Loaded, logf func(format string, args ...any)) *Watcher {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	w := &Watcher{opts: o, logf: logf}
	w.cur.Store(l)
	w.stamps = stampAll(l.Watch)
	return w
}

func stampAll(paths []string) map[string]stamp {
	out := make(map[string]stamp, len(paths))
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			fi = nil
		}
		out[p] = stamp{fi}
	}
	return out
}

// minCheck is how often Policy looks at the files at most: a burst of
// requests does not stat them for each.
const minCheck = 100 * time.Millisecond

// Policy checks the files (at most every minCheck) and returns the policy
// in force: the Runner's PolicyFunc.
func (w *Watcher) Policy() *gate.Policy {
	w.check(false)
	return w.cur.Load().Policy
}

// Loaded is the account of the policy in force.
func (w *Watcher) Loaded() *Loaded {
	return w.cur.Load()
}

// Reload reads the files again now, changed or not (after an "always"
// approval wrote its rule). An error leaves the old policy in force.
func (w *Watcher) Reload() error {
	return w.check(true)
}

// Run checks the files every interval until ctx is done, so a broken edit
// is reported even while no request comes.
func (w *Watcher) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.check(false)
		}
	}
}

func (w *Watcher) check(force bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !force && time.Since(w.checked) < minCheck {
		return nil
	}
	w.checked = time.Now()
	now := stampAll(w.cur.Load().Watch)
	if !force && sameStamps(now, w.stamps) {
		return nil
	}
	key := stampKey(now)
	l, err := Load(w.opts)
	if err != nil {
		if key != w.broken {
			w.broken = key
			w.logf("agentexec: %v; the policy in force is unchanged (digest %s)", err, w.cur.Load().Policy.Digest())
		}
		return err
	}
	w.broken = ""
	old := w.cur.Swap(l)
	w.stamps = stampAll(l.Watch)
	if d := l.Policy.Digest(); d != old.Policy.Digest() {
		w.logf("agentexec: policy reloaded from %s (digest %s)", describeFiles(l.Files), d)
	}
	return nil
}

func sameStamps(a, b map[string]stamp) bool {
	if len(a) != len(b) {
		return false
	}
	for k, s := range a {
		t, ok := b[k]
		if !ok || !s.same(t) {
			return false
		}
	}
	return true
}

// stampKey names one version of the files, to report a broken one once.
func stampKey(m map[string]stamp) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var s string
	for _, k := range keys {
		if st := m[k]; st.fi != nil {
			s += fmt.Sprintf("%s:%d:%d;", k, st.fi.Size(), st.fi.ModTime().UnixNano())
		}
	}
	return s
}

func describeFiles(files []File) string {
	if len(files) == 0 {
		return "(no file)"
	}
	s := files[0].Path
	if len(files) > 1 {
		s += fmt.Sprintf(" and %d more", len(files)-1)
	}
	return s
}
