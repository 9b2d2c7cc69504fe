package surface

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentexec/agentexec/exec"
)

// DefaultParallel is how many requests [Serve] runs at once by default.
const DefaultParallel = 4

// DefaultGrace is how long [Serve] lets running requests go on after its
// input ends or its context is cancelled, by default.
const DefaultGrace = 30 * time.Second

// ServeOptions configure [Serve]. The zero value is valid.
type ServeOptions struct {
	// Parallel is how many requests run at once (<= 0: DefaultParallel).
	// Reading stops while all are busy, so a fast writer is held back
	// instead of queueing without bound.
	Parallel int
	// Grace is how long running requests may go on once the input ends or
	// ctx is done (<= 0: DefaultGrace); then they are cancelled, which ends
	// each command's whole process tree, and their observations are written
	// with the output they had.
	Grace time.Duration
	// MaxLineBytes bounds one input line (<= 0: MaxLineBytes).
	MaxLineBytes int
}

// ServeLine is one input line of [Serve]: an id of any JSON type, echoed
// back verbatim, and the request.
type ServeLine struct {
	ID      json.RawMessage `json:"id"`
	Request json.RawMessage `json:"request"`
}

// ServeAnswer is one output line of [Serve]: the id of the line it answers
// (null when the line had none or could not be parsed) and either the
// observation or, for a line that could not be understood, the error.
type ServeAnswer struct {
	ID          json.RawMessage   `json:"id"`
	Observation *exec.Observation `json:"observation,omitempty"`
	Error       string            `json:"error,omitempty"`
}

// Serve answers JSON-lines requests from in on out until in ends or ctx is
// done. Each input line is {"id": ..., "request": Request}; each answer is
// one line {"id": ..., "observation": Observation}, written whole (answers
// never interleave) in the order the requests finish, not the order they
// came. A line that is not such an object answers {"id": ..., "error": "..."}
// (id null when it could not be read) and the stream goes on; blank lines
// are skipped.
//
// When in ends, or ctx is done (a signal), Serve reads no more, lets running
// requests finish within the grace period, then cancels the rest, waits for
// their answers and returns. It returns nil then; an error only when in or
// out fails. in is read by a goroutine of its own, which a return on ctx
// leaves blocked in in.Read until that returns (at exit for a process's
// stdin).
func Serve(ctx context.Context, r *exec.Runner, in io.Reader, out io.Writer, opts ServeOptions) error {
	opts = opts.withDefaults()
	runCtx, cancelRuns := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRuns()
	s := &server{runner: r, runCtx: runCtx, out: out, slots: make(chan struct{}, opts.Parallel)}
	lines := make(chan inputLine)
	stop := make(chan struct{})
	defer close(stop)
	go readLines(in, opts.MaxLineBytes, lines, stop)
	readErr := s.dispatch(ctx, lines)
	s.drain(opts.Grace, cancelRuns)
	return errors.Join(readErr, s.writeErr)
}

func (o ServeOptions) withDefaults() ServeOptions {
	if o.Parallel <= 0 {
		o.Parallel = DefaultParallel
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = MaxLineBytes
	}
	return o
}

type server struct {
	runner *exec.Runner
	runCtx context.Context
	slots  chan struct{}
	wg     sync.WaitGroup

	mu       sync.Mutex // one answer at a time, and writeErr
	out      io.Writer
	writeErr error
}

// dispatch starts a request per line until the lines end or ctx is done.
func (s *server) dispatch(ctx context.Context, lines <-chan inputLine) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case l, ok := <-lines:
			if !ok {
				return nil
			}
			if l.err != nil {
				return l.err
			}
			if !s.handle(ctx, l) {
				return nil
			}
		}
	}
}

// handle answers a bad line at once and starts a good one when a slot is
// free. It is false when ctx ended while waiting for a slot.
func (s *server) handle(ctx context.Context, l inputLine) bool {
	if l.Blank() {
		return true
	}
	id, req, err := parseLine(l)
	if err != nil {
		s.answer(ServeAnswer{ID: id, Error: err.Error()})
		return true
	}
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		s.answer(ServeAnswer{ID: id, Error: "not run: serve is shutting down"})
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.slots }()
		obs := s.runner.RunCommand(s.runCtx, req)
		s.answer(ServeAnswer{ID: id, Observation: &obs})
	}()
	return true
}

// drain waits for running requests, cancelling them after grace.
func (s *server) drain(grace time.Duration, cancel context.CancelFunc) {
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		cancel()
		<-done
	}
}

// answer writes one line in one Write under the lock, so that concurrent
// answers never interleave.
func (s *server) answer(a ServeAnswer) {
	b, err := encodeLine(a)
	if err != nil {
		b, _ = encodeLine(ServeAnswer{ID: a.ID, Error: "cannot encode the answer: " + err.Error()})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.writeErr != nil {
		return
	}
	if _, err := s.out.Write(b); err != nil {
		s.writeErr = fmt.Errorf("writing answers: %w", err)
	}
}

// encodeLine encodes v as one line. HTML escaping is off: "<" stays "<",
// as a reader of command output expects; the JSON is as valid either way.
func encodeLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return b.Bytes(), err
}

// parseLine reads one line strictly. The id is returned whenever it could be
// read, so that even a bad request is answered under its id. Text that is
// not valid Unicode is refused before anything else: decoding would turn
// it into U+FFFD and run other bytes than were sent.
func parseLine(l inputLine) (json.RawMessage, exec.Request, error) {
	if l.TooLong {
		return l.ID, exec.Request{}, fmt.Errorf("line %d: %d bytes, longer than the limit of %d (--max-line-bytes); not run", l.N, l.Size, l.max)
	}
	textErr := exec.CheckJSONText(l.Text)
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(l.Text, &fields); err != nil {
		if textErr != nil {
			return nil, exec.Request{}, fmt.Errorf("line %d: %w; not run", l.N, textErr)
		}
		return nil, exec.Request{}, fmt.Errorf("line %d: %s", l.N, envelopeError(l.Text, err))
	}
	id := fields["id"]
	if exec.CheckJSONText(id) != nil {
		id = nil // never echo invalid text
	}
	if textErr != nil {
		return id, exec.Request{}, fmt.Errorf("line %d: %w; not run", l.N, textErr)
	}
	if err := checkEnvelope(fields); err != nil {
		return id, exec.Request{}, fmt.Errorf("line %d: %w", l.N, err)
	}
	req, err := exec.DecodeRequest(fields["request"])
	if err == nil {
		err = req.Validate()
	}
	if err != nil {
		return id, exec.Request{}, fmt.Errorf("line %d: %w", l.N, err)
	}
	return id, req, nil
}

// lineShape is what a line must be, for errors.
const lineShape = `a JSON object {"id": ..., "request": {"command": "..."}}`

// envelopeError says why a line is not a JSON object, in our words.
func envelopeError(text []byte, err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("want %s, got %s", lineShape, jsonKindOf(text))
	}
	return fmt.Sprintf("want %s: %s", lineShape, exec.JSONErrorText(err))
}

// jsonKindOf names the kind of the JSON value text starts with.
func jsonKindOf(text []byte) string {
	t := bytes.TrimSpace(text)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	case '{':
		return "an object"
	}
	return "a number"
}

// checkEnvelope insists on exactly the fields of ServeLine, so that a typo
// ("requests") is an error rather than a silently empty request.
func checkEnvelope(fields map[string]json.RawMessage) error {
	var unknown []string
	for k := range fields {
		if k != "id" && k != "request" {
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("unknown field %s (a line has only \"id\" and \"request\")", strings.Join(unknown, ", "))
	}
	if r, ok := fields["request"]; !ok || string(bytes.TrimSpace(r)) == "null" {
		return errors.New(`"request": missing; want {"command": "..."} or {"argv": [...]}`)
	}
	return nil
}

// inputLine is one line read, or the read error that ended the input.
type inputLine struct {
	Line
	max int
	err error
}

// readLines sends in's lines until EOF, an error or stop. It runs in its own
// goroutine so that Serve can stop waiting for input that may never come.
func readLines(in io.Reader, max int, lines chan<- inputLine, stop <-chan struct{}) {
	defer close(lines)
	fr := NewLineReader(in, max)
	for {
		f, err := fr.Next()
		l := inputLine{Line: f, max: fr.Max()}
		switch {
		case errors.Is(err, io.EOF):
			return
		case err != nil:
			l = inputLine{Line: Line{N: f.N}, err: fmt.Errorf("reading requests: %w", err)}
		}
		select {
		case lines <- l:
		case <-stop:
			return
		}
		if err != nil {
			return
		}
	}
}
