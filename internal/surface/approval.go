package surface

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentexec/agentexec/exec"
	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/policy"
)

// ApprovalTTL is how long a user's answer to an approval request may take in
// the multi round-trip protocol (MCP 2026-07-28 and later): after it, the
// answer is ignored and the user is asked again.
const ApprovalTTL = 10 * time.Minute

// maxPending bounds the approval requests waiting for an answer, so that a
// client that never answers cannot grow the server's memory.
const maxPending = 1024

// approvalInput is the id of the elicitation in a multi round-trip result.
const approvalInput = "approve"

// approvalKey is the context key under which a call's approval travels
// from the tool handler to the Runner's Approver.
type approvalKey struct{}

// approval is one tool call's way to the user. The Runner calls approve from
// the goroutine that runs the handler, so it needs no lock.
type approval struct {
	session *mcp.ServerSession // set: ask now with a server-initiated elicitation
	answer  *mcp.ElicitResult  // else: the user's verified answer to this exact call
	always  proposer           // what "always" would write for a request
	log     *slog.Logger
}

// The choices of the approval form when "always" is offered.
const (
	choiceOnce   = "once"
	choiceAlways = "always"
	choiceExact  = "always-exact"
	choiceNo     = "no"
)

// alwaysOffer is an "always" the form offers: the proposal and where it
// is kept.
type alwaysOffer struct {
	p *policy.Proposal
	a *policy.Approvals
}

// proposer makes the "always" offer for a request, nil when none.
type proposer func(req exec.Request, d gate.Decision) *alwaysOffer

// approveFromContext is the Approver of the server's asking Runner: it finds
// the call's approval in ctx. Without one (the Runner used outside a tool
// call) it refuses.
func approveFromContext(ctx context.Context, req exec.Request, d gate.Decision) (bool, error) {
	a, ok := ctx.Value(approvalKey{}).(*approval)
	if !ok {
		return false, nil
	}
	return a.approve(ctx, req, d)
}

// approve is true only on the user's accept. Decline and cancel are both a
// refusal (the observation says rejected); failing to reach the user is an
// error, so that the observation does not claim the user declined.
func (a *approval) approve(ctx context.Context, req exec.Request, d gate.Decision) (bool, error) {
	var offer *alwaysOffer
	if a.always != nil {
		offer = a.always(req, d)
	}
	if a.answer == nil && a.session != nil {
		res, err := a.session.Elicit(ctx, elicitParams(req, d, offer))
		if err != nil {
			return false, fmt.Errorf("could not ask the user: %w", err)
		}
		a.answer = res
	}
	if a.answer == nil || a.answer.Action != "accept" {
		return false, nil
	}
	choice, _ := a.answer.Content["choice"].(string)
	switch {
	case choice == choiceNo:
		return false, nil
	case offer != nil && choice == choiceAlways:
		a.keep(offer, offer.p.Rules)
	case offer != nil && choice == choiceExact && offer.p.Narrower != "":
		a.keep(offer, []string{offer.p.Narrower})
	}
	return true, nil
}

// keep writes the rules an "always" chose; a failure is logged and the
// command still runs this once, as approved.
func (a *approval) keep(offer *alwaysOffer, rules []string) {
	if err := offer.a.Persist(rules); err != nil {
		if a.log != nil {
			a.log.Error("always: could not keep the rule; running the command once", "rules", rules, "error", err)
		}
		return
	}
	if a.log != nil {
		a.log.Info("always: rule added", "rules", rules, "file", offer.p.File)
	}
}

// pendingApprovals remembers the approval requests sent in multi round-trip
// results, so that an answer is taken only for the exact request it was
// asked about, only once, and only before it expires. The state string the
// client echoes is a random nonce; the request it covers stays here.
type pendingApprovals struct {
	mu  sync.Mutex
	ttl time.Duration
	now func() time.Time
	m   map[string]pendingApproval
}

type pendingApproval struct {
	digest  [sha256.Size]byte
	expires time.Time
}

func newPendingApprovals(ttl time.Duration) *pendingApprovals {
	return &pendingApprovals{ttl: ttl, now: time.Now, m: make(map[string]pendingApproval)}
}

// add records an approval request for req and returns the state to echo.
func (p *pendingApprovals) add(req exec.Request) string {
	var nonce [16]byte
	rand.Read(nonce[:]) // never fails (crypto/rand.Read's documented contract)
	state := hex.EncodeToString(nonce[:])
	p.mu.Lock()
	defer p.mu.Unlock()
	p.makeRoom()
	p.m[state] = pendingApproval{digest: requestDigest(req), expires: p.now().Add(p.ttl)}
	return state
}

// take consumes state and reports whether it was issued for req and has not
// expired. A forged, replayed or stale state is false.
func (p *pendingApprovals) take(state string, req exec.Request) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.m[state]
	if !ok {
		return false
	}
	delete(p.m, state)
	return e.digest == requestDigest(req) && p.now().Before(e.expires)
}

// makeRoom drops expired entries and, when still full, the one closest to
// expiry: an unanswered request is the least likely to come back.
func (p *pendingApprovals) makeRoom() {
	now := p.now()
	for k, e := range p.m {
		if !now.Before(e.expires) {
			delete(p.m, k)
		}
	}
	for len(p.m) >= maxPending {
		var oldest string
		for k, e := range p.m {
			if oldest == "" || e.expires.Before(p.m[oldest].expires) {
				oldest = k
			}
		}
		delete(p.m, oldest)
	}
}

// requestDigest hashes the request as JSON: encoding/json sorts map keys, so
// equal requests hash equally however the client ordered the arguments.
func requestDigest(req exec.Request) [sha256.Size]byte {
	b, err := json.Marshal(req)
	if err != nil {
		// A Request is plain data and always marshals; if it ever did not,
		// a random digest matches nothing, so no answer is taken.
		var d [sha256.Size]byte
		rand.Read(d[:])
		return d
	}
	return sha256.Sum256(b)
}
