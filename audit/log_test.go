package audit

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the tests re-execute this binary as a writer process, as
// os/exec's tests do: AUDIT_TEST_HELPER names the helper.
func TestMain(m *testing.M) {
	switch os.Getenv("AUDIT_TEST_HELPER") {
	case "":
		os.Exit(m.Run())
	case "write":
		os.Exit(helperWrite())
	}
	fmt.Fprintln(os.Stderr, "unknown AUDIT_TEST_HELPER")
	os.Exit(2)
}

// helperWrite appends AUDIT_TEST_N records (-1: until killed) to
// AUDIT_TEST_PATH.
func helperWrite() int {
	n, _ := strconv.Atoi(os.Getenv("AUDIT_TEST_N"))
	rotate, _ := strconv.ParseInt(os.Getenv("AUDIT_TEST_ROTATE"), 10, 64)
	l, err := Open(Options{Path: os.Getenv("AUDIT_TEST_PATH"), NoSync: os.Getenv("AUDIT_TEST_NOSYNC") != "", AnchorEvery: 16, RotateBytes: rotate})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	padN, _ := strconv.Atoi(os.Getenv("AUDIT_TEST_PAD"))
	pad := strings.Repeat("x", padN) // long lines (in Cwd, not redacted, so writing dominates) make torn writes likelier
	for i := 0; n < 0 || i < n; i++ {
		rec := &Record{Kind: "decision", RunID: fmt.Sprintf("p%d-%d", os.Getpid(), i), Command: "echo " + strconv.Itoa(i), Cwd: pad, Decision: "allow"}
		if err := l.Append(rec); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if err := l.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func helperCmd(t testing.TB, path string, n int, nosync bool) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "AUDIT_TEST_HELPER=write", "AUDIT_TEST_PATH="+path, "AUDIT_TEST_N="+strconv.Itoa(n))
	if nosync {
		cmd.Env = append(cmd.Env, "AUDIT_TEST_NOSYNC=1")
	}
	cmd.Stderr = os.Stderr
	return cmd
}

func openLog(t testing.TB, opt Options) *Log {
	t.Helper()
	l, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func appendN(t testing.TB, l *Log, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		code := i % 3
		rec := &Record{Kind: "run", RunID: fmt.Sprintf("r%d", i), Command: fmt.Sprintf("echo %d <&> \u2028 é", i), ExitCode: &code, Shell: "bash"}
		if err := l.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
}

func writeLog(t testing.TB, opt Options, n int) {
	t.Helper()
	l := openLog(t, opt)
	appendN(t, l, n)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

func mustVerify(t testing.TB, path string, opt VerifyOptions) *Report {
	t.Helper()
	rep, err := Verify(path, opt)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	return rep
}

func chainError(t testing.TB, err error) *ChainError {
	t.Helper()
	var ce *ChainError
	if !errors.As(err, &ce) {
		t.Fatalf("verify error %v (%T), want a *ChainError", err, err)
	}
	return ce
}

func TestAppendVerify(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b", "audit.jsonl")
	l := openLog(t, Options{Path: path})
	rec := &Record{Kind: "decision", RunID: "r1", Command: "curl -H 'Authorization: Bearer abcdefgh12345' x", Argv: []string{"sshpass", "-p", "hunter2"}}
	argv := rec.Argv
	if err := l.Append(rec); err != nil {
		t.Fatal(err)
	}
	if rec.Seq != 1 || rec.Prev != "" || rec.Alg != AlgSHA256 || !isHexHash(rec.Hash) || !strings.HasSuffix(rec.Time, "Z") {
		t.Errorf("chain fields not filled: %+v", rec)
	}
	if argv[2] != "hunter2" || rec.Argv[2] != Redacted || strings.Contains(rec.Command, "abcdefgh") {
		t.Errorf("redaction: caller's argv %q, record argv %q, command %q", argv, rec.Argv, rec.Command)
	}
	appendN(t, l, 9)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(&Record{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close: %v, want ErrClosed", err)
	}
	rep := mustVerify(t, path, VerifyOptions{})
	if rep.Records != 10 || rep.FirstSeq != 1 || rep.LastSeq != 10 || rep.Alg != AlgSHA256 || rep.Anchors != 2 || rep.LastAnchor != 10 {
		t.Errorf("report %+v", rep)
	}
	if got := rep.String(); got != "10 records (seq 1-10) in 1 file(s), chain intact, 2 anchors ok (last at seq 10), sha256 (unkeyed)" {
		t.Errorf("summary %q", got)
	}
	checkMode(t, path, 0o600)
	checkMode(t, path+".anchors", 0o600)
	checkMode(t, filepath.Dir(path), 0o700|os.ModeDir)
	data, _ := os.ReadFile(path)
	if bytes.Contains(data, []byte("hunter2")) || bytes.Contains(data, []byte("abcdefgh12345")) {
		t.Error("a secret reached the log")
	}
}

// TestRedactsEveryTextField: the fields that carry command text are
// redacted, in fresh slices.
func TestRedactsEveryTextField(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path})
	defer l.Close()
	segs := []string{"export GITHUB_TOKEN=abc", "ls"}
	rec := &Record{Kind: "run", Segments: segs, Reason: "such as Bash(curl -u a:hunter2 x)", Output: "token is ghp_16C7e42F292c6912E7710c838347Ae178B4a"}
	if err := l.Append(rec); err != nil {
		t.Fatal(err)
	}
	if segs[0] != "export GITHUB_TOKEN=abc" {
		t.Error("Append modified the caller's Segments")
	}
	data, _ := os.ReadFile(path)
	for _, secret := range []string{"GITHUB_TOKEN=abc", "hunter2", "ghp_16C7"} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("%q reached the log: %s", secret, data)
		}
	}
}

func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode() & (os.ModePerm | os.ModeDir); got != want {
		t.Errorf("%s: mode %v, want %v", path, got, want)
	}
}

func TestReopenContinues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeLog(t, Options{Path: path}, 3)
	writeLog(t, Options{Path: path}, 4)
	if rep := mustVerify(t, path, VerifyOptions{}); rep.LastSeq != 7 || rep.Anchors != 3 {
		t.Errorf("report %+v", rep)
	}
}

func TestConcurrentGoroutines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path, NoSync: true, AnchorEvery: 7})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if err := l.Append(&Record{Kind: "decision", RunID: fmt.Sprint(g, i)}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	l.Close()
	if rep := mustVerify(t, path, VerifyOptions{}); rep.Records != 400 {
		t.Errorf("%d records, want 400", rep.Records)
	}
}

// TestMultiProcess: 10 processes append 200 records each to one log.
func TestMultiProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 10 processes")
	}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	runWriters(t, path, 10, 200)
	rep := mustVerify(t, path, VerifyOptions{})
	if rep.Records != 2000 || rep.LastSeq != 2000 {
		t.Errorf("report %+v, want 2000 records", rep)
	}
	data, _ := os.ReadFile(path)
	if n := bytes.Count(data, []byte("\n")); n != 2000 {
		t.Errorf("%d lines, want 2000", n)
	}
}

// TestMultiProcessRotation: processes sharing a log that rotates under
// them keep one chain across the files.
func TestMultiProcessRotation(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 4 processes")
	}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	runWriters(t, path, 4, 100, "AUDIT_TEST_ROTATE=8000")
	rep := mustVerify(t, path, VerifyOptions{})
	if rep.Records != 400 || len(rep.Files) < 5 {
		t.Errorf("%d records in %d files, want 400 in several", rep.Records, len(rep.Files))
	}
}

// TestKilledWriter kills a writer in a tight write loop: verify finds at
// most a torn tail, the next writer repairs it, and verify passes again.
func TestKilledWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("starts writer processes")
	}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	torn := 0
	for round := 0; round < 10; round++ {
		cmd := helperCmd(t, path, -1, round%2 == 0)
		cmd.Env = append(cmd.Env, "AUDIT_TEST_PAD="+strconv.Itoa(1<<(10+rng.Intn(9))))
		cmd.Stderr = nil
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitGrowth(t, path)
		time.Sleep(time.Duration(rng.Intn(50)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		_, err := Verify(path, VerifyOptions{})
		if err != nil && !IsTorn(err) {
			t.Fatalf("round %d: after SIGKILL: %v", round, err)
		}
		if err != nil {
			torn++
		}
		writeLog(t, Options{Path: path}, 1)
		mustVerify(t, path, VerifyOptions{})
	}
	t.Logf("%d of 10 kills left a torn tail", torn)
}

// waitGrowth waits until the log at path grows, so the writer is writing.
func waitGrowth(t *testing.T, path string) {
	var start int64
	if fi, err := os.Stat(path); err == nil {
		start = fi.Size()
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if fi, err := os.Stat(path); err == nil && fi.Size() > start {
			return
		}
	}
	t.Fatal("the writer never wrote")
}

// TestTornRepair writes a torn line by hand: verify names it, the next
// writer moves it to PATH.torn, and the chain continues.
func TestTornRepair(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeLog(t, Options{Path: path}, 3)
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"seq":4,"time":"20`)
	f.Close()
	_, err := Verify(path, VerifyOptions{})
	if ce := chainError(t, err); !ce.Torn || ce.Line != 4 || !strings.Contains(ce.Error(), "line 4: torn last line") {
		t.Fatalf("torn tail: %v", err)
	}
	writeLog(t, Options{Path: path}, 2)
	if rep := mustVerify(t, path, VerifyOptions{}); rep.LastSeq != 5 {
		t.Errorf("report %+v", rep)
	}
	torn, err := os.ReadFile(path + ".torn")
	if err != nil || !bytes.Contains(torn, []byte(`"offset":`)) {
		t.Errorf("torn file %q, %v", torn, err)
	}
	checkMode(t, path+".torn", 0o600)
}

func TestKeyed(t *testing.T) {
	dir := t.TempDir()
	key := []byte("0123456789abcdef0123456789abcdef")
	path := filepath.Join(dir, "audit.jsonl")
	writeLog(t, Options{Path: path, Key: key}, 5)

	if rep := mustVerify(t, path, VerifyOptions{Key: key}); rep.Alg != AlgHMACSHA256 || !rep.Authenticated ||
		!strings.HasSuffix(rep.String(), "hmac-sha256 (keyed)") {
		t.Errorf("right key: %+v", rep)
	}
	_, err := Verify(path, VerifyOptions{Key: []byte("the wrong key, the wrong key...")})
	if ce := chainError(t, err); ce.Line != 1 || !strings.Contains(ce.Reason, "hash mismatch") {
		t.Errorf("wrong key: %v", err)
	}
	if _, err := Verify(path, VerifyOptions{}); !errors.Is(err, ErrKeyRequired) {
		t.Errorf("no key: %v, want ErrKeyRequired", err)
	}
	if _, err := Open(Options{Path: path}); err == nil || !strings.Contains(err.Error(), "cannot share a log") {
		t.Errorf("unkeyed writer on a keyed log: %v", err)
	}
	if _, err := Open(Options{Path: path, Key: []byte("another key entirely!")}); err == nil || !strings.Contains(err.Error(), "wrong key") {
		t.Errorf("writer with the wrong key: %v", err)
	}

	unkeyed := filepath.Join(dir, "plain.jsonl")
	writeLog(t, Options{Path: unkeyed}, 2)
	_, err = Verify(unkeyed, VerifyOptions{Key: key})
	if ce := chainError(t, err); ce.Line != 1 || !strings.Contains(ce.Reason, "downgraded") {
		t.Errorf("unkeyed log verified with a key: %v", err)
	}
}

// TestDowngrade replaces a keyed chain's tail with recomputed unkeyed
// records: without the key it is an alg change, with it an unkeyed record.
func TestDowngrade(t *testing.T) {
	dir := t.TempDir()
	key := []byte("0123456789abcdef0123456789abcdef")
	path := filepath.Join(dir, "audit.jsonl")
	writeLog(t, Options{Path: path, Key: key, AnchorEvery: 1000}, 3)
	os.Remove(path + ".anchors")
	lines := readLines(t, path)
	var prev Record
	prev, _ = parseLine(lines[1])
	forged := Record{Seq: 3, Time: prev.Time, Kind: "run", RunID: "x", Alg: AlgSHA256, Prev: prev.Hash}
	line, _ := seal(&forged, nil)
	lines[2] = line[:len(line)-1]
	writeLines(t, path, lines)
	for _, opt := range []VerifyOptions{{}, {Key: key}} {
		_, err := Verify(path, opt)
		if ce := chainError(t, err); ce.Line != 3 {
			t.Errorf("downgraded record, key %v: %v", opt.Key != nil, err)
		}
	}
}

func readLines(t testing.TB, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

func writeLines(t testing.TB, path string, lines [][]byte) {
	t.Helper()
	data := append(bytes.Join(lines, []byte("\n")), '\n')
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestTruncatedTail cuts whole records off the end: only the anchors show.
func TestTruncatedTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeLog(t, Options{Path: path, AnchorEvery: 4}, 10)
	lines := readLines(t, path)
	writeLines(t, path, lines[:7])
	_, err := Verify(path, VerifyOptions{})
	ce := chainError(t, err)
	if ce.Line != 7 || !strings.Contains(ce.Reason, "log ends at seq 7") || !strings.Contains(ce.Reason, "anchors seq 10") {
		t.Errorf("truncated log: %v", err)
	}
}

func TestEdits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeLog(t, Options{Path: path}, 6)
	orig := readLines(t, path)
	cases := []struct {
		name string
		edit func(l [][]byte) [][]byte
		line int
		why  string
	}{
		{"delete middle", func(l [][]byte) [][]byte { return append(l[:2:2], l[3:]...) }, 3, "sequence number 4 follows 2"},
		{"delete head", func(l [][]byte) [][]byte { return l[1:] }, 1, "chain starts at seq 2"},
		{"swap", func(l [][]byte) [][]byte { l[2], l[3] = l[3], l[2]; return l }, 3, "sequence number"},
		{"duplicate", func(l [][]byte) [][]byte { return append(l[:3:3], l[2:]...) }, 4, "sequence number 3 follows 3"},
		{"reformat", func(l [][]byte) [][]byte {
			l[1] = bytes.Replace(l[1], []byte(`,"kind"`), []byte(`, "kind"`), 1)
			return l
		}, 2, "not in canonical form"},
		{"extra field", func(l [][]byte) [][]byte { l[4] = append([]byte(`{"x":1,`), l[4][1:]...); return l }, 5, "not in canonical form"},
		{"edit value", func(l [][]byte) [][]byte { l[0] = bytes.Replace(l[0], []byte("echo 0"), []byte("echo 9"), 1); return l }, 1, "hash mismatch (record edited)"},
		{"empty line", func(l [][]byte) [][]byte { return append(l[:3:3], append([][]byte{{}}, l[3:]...)...) }, 4, "empty line"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lines := append([][]byte(nil), orig...)
			writeLines(t, path, c.edit(lines))
			_, err := Verify(path, VerifyOptions{})
			if ce := chainError(t, err); ce.Line != c.line || !strings.Contains(ce.Reason, c.why) {
				t.Errorf("got %v, want line %d: %s", err, c.line, c.why)
			}
		})
	}
}

// TestFlipAnyByte flips bytes at random positions of whole records: verify
// must fail naming the line the byte is on.
func TestFlipAnyByte(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeLog(t, Options{Path: path, AnchorEvery: 1000}, 8)
	orig, _ := os.ReadFile(path)
	rng := rand.New(rand.NewSource(1))
	positions := []int{0, len(orig) - 1, len(orig) - 2, bytes.IndexByte(orig, '\n')}
	for range 300 {
		positions = append(positions, rng.Intn(len(orig)))
	}
	for _, pos := range positions {
		data := append([]byte(nil), orig...)
		data[pos] ^= byte(1 + rng.Intn(255))
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		want := bytes.Count(orig[:pos], []byte("\n")) + 1
		_, err := Verify(path, VerifyOptions{})
		if ce := chainError(t, err); ce.Line != want {
			t.Fatalf("flip at %d (%q→%q): %v, want line %d", pos, orig[pos], data[pos], err, want)
		}
	}
}

func TestRotation(t *testing.T) {
	rotated := func(t *testing.T) (string, *Report) {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		writeLog(t, Options{Path: path, RotateBytes: 1500, AnchorEvery: 5}, 20)
		writeLog(t, Options{Path: path, RotateBytes: 1500, AnchorEvery: 5}, 22)
		rep := mustVerify(t, path, VerifyOptions{})
		if rep.Records != 42 || len(rep.Files) < 4 || rep.Files[len(rep.Files)-1] != path {
			t.Fatalf("report %+v", rep)
		}
		return path, rep
	}
	t.Run("intact", func(t *testing.T) {
		_, rep := rotated(t)
		for _, f := range rep.Files {
			checkMode(t, f, 0o600)
		}
	})
	t.Run("current file removed", func(t *testing.T) {
		// A new writer continues the newest rotated file's chain: the
		// chain links, but the anchors show the lost records.
		path, _ := rotated(t)
		os.Remove(path)
		writeLog(t, Options{Path: path}, 1)
		_, err := Verify(path, VerifyOptions{})
		if ce := chainError(t, err); !strings.Contains(ce.Reason, "cut off the end") || !strings.HasSuffix(ce.File, ".anchors") {
			t.Errorf("missing current file: %v", err)
		}
	})
	t.Run("rotated file removed", func(t *testing.T) {
		path, rep := rotated(t)
		os.Remove(rep.Files[1])
		_, err := Verify(path, VerifyOptions{})
		if ce := chainError(t, err); ce.File != rep.Files[2] || ce.Line != 1 || !strings.Contains(ce.Reason, "follows") {
			t.Errorf("missing rotated file: %v", err)
		}
	})
}

func TestOptionsErrors(t *testing.T) {
	dir := t.TempDir()
	for _, opt := range []Options{
		{},
		{Path: filepath.Join(dir, "a"), Key: []byte{}},
		{Path: filepath.Join(dir, "a"), RotateBytes: -1},
		{Path: filepath.Join(dir, "a"), AnchorEvery: -1},
	} {
		if l, err := Open(opt); err == nil {
			l.Close()
			t.Errorf("Open(%+v) succeeded", opt)
		}
	}
}

func TestLoadKey(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "key")
	os.WriteFile(good, []byte("0123456789abcdef0123\n"), 0o600)
	if key, err := LoadKey(good); err != nil || string(key) != "0123456789abcdef0123" {
		t.Errorf("LoadKey: %q, %v", key, err)
	}
	open := filepath.Join(dir, "open")
	os.WriteFile(open, []byte("0123456789abcdef0123\n"), 0o640)
	os.Chmod(open, 0o640)
	if _, err := LoadKey(open); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("group-readable key: %v", err)
	}
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("abc"), 0o600)
	if _, err := LoadKey(short); err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Errorf("short key: %v", err)
	}
	if _, err := LoadKey(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing key: %v", err)
	}
}

func TestDefaultPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"}, "/s/agentexec/audit.jsonl"},
		{map[string]string{"HOME": "/h"}, "/h/.local/state/agentexec/audit.jsonl"},
		{map[string]string{}, ""},
	}
	for _, c := range cases {
		if got := DefaultPath(env(c.env)); got != filepath.FromSlash(c.want) {
			t.Errorf("DefaultPath(%v) = %q, want %q", c.env, got, c.want)
		}
	}
}

// TestRoundTrip: any strings, invalid UTF-8 included, make a record that
// verifies.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path, NoSync: true})
	rng := rand.New(rand.NewSource(2))
	for range 300 {
		b := make([]byte, rng.Intn(40))
		rng.Read(b)
		s := string(b)
		if err := l.Append(&Record{Kind: s, Command: s + " <x>&", Argv: []string{s, "\u2028"}, Cwd: s}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	mustVerify(t, path, VerifyOptions{})
}

func BenchmarkAppend(b *testing.B) {
	for _, nosync := range []bool{false, true} {
		name := map[bool]string{false: "fsync", true: "nosync"}[nosync]
		b.Run(name, func(b *testing.B) {
			l := openLog(b, Options{Path: filepath.Join(b.TempDir(), "audit.jsonl"), NoSync: nosync})
			defer l.Close()
			rec := Record{Kind: "run", RunID: "r", Command: "go test ./... -run TestX", Shell: "bash", Cwd: "/work", Decision: "allow"}
			start := time.Now()
			for b.Loop() {
				r := rec
				if err := l.Append(&r); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
		})
	}
}

// BenchmarkAppendParallel appends with fsync from GOMAXPROCS×4
// goroutines at once, as serve --parallel and mcp do: group commit lets
// them share syncs.
func BenchmarkAppendParallel(b *testing.B) {
	l := openLog(b, Options{Path: filepath.Join(b.TempDir(), "audit.jsonl")})
	defer l.Close()
	b.SetParallelism(4)
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			rec := Record{Kind: "run", RunID: "r", Command: "go test ./... -run TestX", Shell: "bash", Cwd: "/work", Decision: "allow"}
			if err := l.Append(&rec); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
}

// TestOpenExisting: a writer extends a log whose head verifies, repairs a
// torn-only file, and refuses anything else.
func TestOpenExisting(t *testing.T) {
	cases := []struct {
		data string
		ok   bool
	}{
		{"", true},
		{"partial line, no newline", true},
		{"garbage\n", false},
		{"{}\n", false},
		{"\n", false},
	}
	for _, c := range cases {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		os.WriteFile(path, []byte(c.data), 0o644)
		l, err := Open(Options{Path: path})
		if (err == nil) != c.ok {
			t.Errorf("Open on %q: %v, want ok=%v", c.data, err, c.ok)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "refusing to extend") {
				t.Errorf("Open on %q: unclear error %v", c.data, err)
			}
			continue
		}
		checkMode(t, path, 0o600)
		appendN(t, l, 2)
		l.Close()
		mustVerify(t, path, VerifyOptions{})
	}
}

// runWriters starts n helper processes that each append records records to
// the log at path (with extra environment entries) and waits for all.
func runWriters(t *testing.T, path string, n, records int, env ...string) {
	t.Helper()
	var cmds []*exec.Cmd
	for range n {
		cmd := helperCmd(t, path, records, true)
		cmd.Env = append(cmd.Env, env...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
}

// BenchmarkOpen opens a log of 200 records and closes it without
// appending: what each process that writes to the log (every `agentexec
// run`) pays to read and check the head before its first record.
func BenchmarkOpen(b *testing.B) {
	path := filepath.Join(b.TempDir(), "audit.jsonl")
	l := openLog(b, Options{Path: path, NoSync: true})
	for i := range 200 {
		rec := Record{Kind: "run", RunID: fmt.Sprint(i), Command: "go test ./... -run TestX", Shell: "bash", Cwd: "/work", Decision: "allow"}
		if err := l.Append(&rec); err != nil {
			b.Fatal(err)
		}
	}
	l.Close()
	b.ReportAllocs()
	for b.Loop() {
		l, err := Open(Options{Path: path, NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		l.Close()
	}
}
