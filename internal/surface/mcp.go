package surface

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentexec/agentexec/internal/lazyre"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentexec/agentexec/exec"
	"github.com/agentexec/agentexec/gate"
	"github.com/agentexec/agentexec/policy"
)

// The tools an MCP server made by [NewMCPServer] offers.
const (
	ToolRunCommand   = "run_command"
	ToolCheckCommand = "check_command"
)

// ServerName is the implementation name the MCP server reports.
const ServerName = "agentexec"

// multiRoundTripVersion is the first MCP protocol version in which a server
// may not send requests of its own while serving a call: an elicitation must
// travel as an input request in the call's result (SEP-2322).
const multiRoundTripVersion = "2026-07-28"

// MCPOptions configure [NewMCPServer]. The zero value is valid.
type MCPOptions struct {
	// Version is the server version reported to clients ("" = "devel").
	Version string
	// Logger receives the server's diagnostics; nil discards them. With the
	// stdio transport it must not write to stdout, which carries the protocol.
	Logger *slog.Logger
	// Approvals, when set, lets the approval form offer "always": the
	// proposed rule, with the past commands of the workspace it would
	// also have allowed, is written to the local rules file.
	Approvals *policy.Approvals
	// NoAsk never asks the user (Claude Code's dontAsk): what would ask
	// ends as needs_approval.
	NoAsk bool
}

// NewMCPServer returns an MCP server that offers run_command and
// check_command, backed by copies of r; r itself is not modified.
//
// When the gate answers ask and the calling client declared the elicitation
// capability, the server asks the user: with a server-initiated
// elicitation/create on protocol versions before 2026-07-28, with an input
// request in the call's result from then on (multi round-trip, which the SDK
// turns back into the former for older clients). An accept runs that exact
// call once; a decline or a cancel ends it as rejected. For a client without
// elicitation, r's own Approver decides, and with none the call ends as
// needs_approval with the reason and the rule that would allow it.
//
// A refusal is a tool result with isError set, never a JSON-RPC error; so is
// a malformed argument, with a message naming the field.
func NewMCPServer(r *exec.Runner, opts MCPOptions) *mcp.Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Version == "" {
		opts.Version = "devel"
	}
	plain, asking := *r, *r
	asking.Approver = approveFromContext
	s := &mcpServer{plain: &plain, asking: &asking, pending: newPendingApprovals(ApprovalTTL), log: opts.Logger, approvals: opts.Approvals, noAsk: opts.NoAsk}
	srv := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "agentexec command executor", Version: opts.Version},
		&mcp.ServerOptions{Logger: opts.Logger, Instructions: instructions})
	srv.AddTool(runTool(opts.Logger), s.runCommand)
	srv.AddTool(checkTool(opts.Logger), s.checkCommand)
	return srv
}

const instructions = `Run shell commands through run_command instead of any other way: each one is checked against the user's policy before it starts and runs in a sandbox. A refused command comes back with isError and the reason; do not try to get around a refusal with another spelling of the same command. check_command tells you the decision without running anything.`

const runDescription = `Run a command on the user's machine and return its output.

Give either "command" (shell text, run by the detected shell or "shell") or "argv" (a program and its arguments, run without a shell), not both. The command is checked before it starts: a command the policy denies is not run, and the result says why (status "rejected", with the rule); one that needs the user's approval is asked about, or ends with status "needs_approval" and the rule that would allow it. Allowed commands run in a sandbox with a timeout ("timeout", e.g. "30s"); output is capped, keeping its head and tail.`

const checkDescription = `Ask whether a command would be allowed, without running it. Takes the same arguments as run_command and returns the decision (allow, ask or deny), the command's safety class (read-only, write or unknown), the rule that decided and the reason.`

func runTool(log *slog.Logger) *mcp.Tool {
	return &mcp.Tool{
		Name: ToolRunCommand, Title: "Run a command", Description: runDescription,
		InputSchema:  requestSchema(),
		OutputSchema: outputSchema[exec.Observation](log),
		Annotations:  &mcp.ToolAnnotations{Title: "Run a command", DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
	}
}

func checkTool(log *slog.Logger) *mcp.Tool {
	return &mcp.Tool{
		Name: ToolCheckCommand, Title: "Check a command", Description: checkDescription,
		InputSchema:  requestSchema(),
		OutputSchema: outputSchema[gate.Decision](log),
		Annotations:  &mcp.ToolAnnotations{Title: "Check a command", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}
}

func ptr[T any](v T) *T { return &v }

// requestSchema is the input schema of both tools, inferred from
// exec.Request. The struct is ours and plain, so inference cannot fail
// short of a programming error, which the tests catch.
func requestSchema() *jsonschema.Schema {
	s, err := jsonschema.For[exec.Request](nil)
	if err != nil {
		panic(fmt.Sprintf("surface: input schema of exec.Request: %v", err))
	}
	return s
}

// outputSchema infers T's schema. The output schema only informs clients,
// so a type it cannot describe loses the schema, not the tool.
func outputSchema[T any](log *slog.Logger) any {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		log.Warn("tool output schema omitted", "error", err)
		return nil
	}
	return s
}

// mcpServer holds two copies of the caller's Runner: plain keeps its
// Approver (nil: an ask ends as needs_approval), asking reaches the user
// through the call's approval in the context.
type mcpServer struct {
	plain, asking *exec.Runner
	pending       *pendingApprovals
	log           *slog.Logger
	approvals     *policy.Approvals // nil: "always" is not offered
	noAsk         bool
}

func (s *mcpServer) runCommand(ctx context.Context, call *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	req, err := decodeArguments(call.Params.Arguments)
	if err != nil {
		return observationResult(exec.Observation{Status: exec.StatusError, Error: err.Error()}), nil
	}
	ctx, r, ask := s.route(ctx, call, req)
	if ask != nil {
		s.log.Info("run_command: asking the user to approve")
		return ask, nil
	}
	obs := r.RunCommand(ctx, req)
	// The command text stays out of the log, which MCP clients keep in
	// files: it may hold secrets the audit log would redact. The run id
	// finds the call in the audit log.
	s.log.Info("run_command", "run_id", obs.RunID, "status", obs.Status, "decision", obs.Decision, "duration_ms", obs.DurationMS)
	return observationResult(obs), nil
}

// route picks how this call may reach the user: not at all (the plain
// Runner), by a server-initiated elicitation (a session before 2026-07-28),
// or by the answer a retried multi round-trip call carries. A call that must
// still ask gets the input-request result to return instead of a Runner.
func (s *mcpServer) route(ctx context.Context, call *mcp.CallToolRequest, req exec.Request) (context.Context, *exec.Runner, *mcp.CallToolResult) {
	switch {
	case s.noAsk || !canElicit(call.ClientCapabilities()):
		return ctx, s.plain, nil
	case legacySession(call.Session):
		return context.WithValue(ctx, approvalKey{}, &approval{session: call.Session, always: s.always(), log: s.log}), s.asking, nil
	}
	answer := s.answerFor(call, req)
	if d, ask := s.wouldAsk(req); answer == nil && ask {
		return ctx, nil, &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{approvalInput: elicitParams(req, d, s.always()(req, d))},
			RequestState:  s.pending.add(req),
		}
	}
	return context.WithValue(ctx, approvalKey{}, &approval{answer: answer, always: s.always(), log: s.log}), s.asking, nil
}

// answerFor returns the user's answer carried by a retried call in the
// multi round-trip protocol. It counts only if the state it echoes was
// issued for this very request, unexpired and unused.
func (s *mcpServer) answerFor(call *mcp.CallToolRequest, req exec.Request) *mcp.ElicitResult {
	res, ok := call.Params.InputResponses[approvalInput].(*mcp.ElicitResult)
	if !ok || !s.pending.take(call.Params.RequestState, req) {
		return nil
	}
	return res
}

// wouldAsk reports whether the gate would ask about req. The question goes
// out before RunCommand, so that asking leaves no refusal in the audit log;
// the retried call is gated and audited in full.
func (s *mcpServer) wouldAsk(req exec.Request) (gate.Decision, bool) {
	d, err := s.asking.Check(req)
	return d, err == nil && d.Action == gate.Ask
}

// canElicit reports whether the client can show a form: a client that
// declared only URL elicitation cannot.
func canElicit(caps *mcp.ClientCapabilities) bool {
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

// legacySession reports whether the session was initialized on a protocol
// version that lets the server send an elicitation request mid-call.
func legacySession(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion < multiRoundTripVersion
}

func (s *mcpServer) checkCommand(_ context.Context, call *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	req, err := decodeArguments(call.Params.Arguments)
	if err != nil {
		return errorResult(err), nil
	}
	d, err := s.plain.Check(req)
	if err != nil {
		return errorResult(err), nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: decisionText(d)}}, StructuredContent: d}, nil
}

// decodeArguments decodes a tool call's arguments strictly: an unknown
// field, a wrong type or a request that is neither command nor argv is an
// error naming the field.
func decodeArguments(raw json.RawMessage) (exec.Request, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return exec.Request{}, errors.New(`invalid arguments: missing; give "command" or "argv"`)
	}
	req, err := exec.DecodeRequest(raw)
	if err == nil {
		err = req.Validate()
	}
	if err != nil {
		return exec.Request{}, fmt.Errorf("invalid arguments: %w", err)
	}
	return req, nil
}

func errorResult(err error) *mcp.CallToolResult {
	res := &mcp.CallToolResult{}
	res.SetError(err)
	return res
}

// observationResult carries the observation twice, as MCP asks of a tool
// with an output schema: as text for the model and as structured content.
func observationResult(obs exec.Observation) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: obs.Text()}},
		StructuredContent: obs,
		IsError:           isFailure(obs.Status),
	}
}

// isFailure reports whether the command did not run to its end. A command
// that ran and exited non-zero is not a tool failure: its exit code and
// output are the answer.
func isFailure(st exec.Status) bool {
	return st != exec.StatusExited
}

// decisionText is check_command's answer for the model.
func decisionText(d gate.Decision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "decision: %s\nsafety: %s\n", d.Action, d.Safety)
	if d.Rule != nil {
		fmt.Fprintf(&b, "rule: %s (%s, from %s)\n", d.Rule.Text, d.Rule.Action, d.Rule.Source)
	}
	if d.Blacklist != nil {
		fmt.Fprintf(&b, "blacklisted: %s\n", d.Blacklist.Name)
	}
	if d.Reason != "" {
		fmt.Fprintf(&b, "reason: %s\n", d.Reason)
	}
	switch len(d.Suggestions) {
	case 0:
	case 1:
		fmt.Fprintf(&b, "a rule that would allow it: %s\n", d.Suggestions[0])
	default: // one rule per part of the command: all are needed
		fmt.Fprintf(&b, "rules that together would allow it: %s\n", strings.Join(d.Suggestions, " and "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// always returns the proposal maker of this server: what "always" would
// write for a request (nil when it is not offered).
func (s *mcpServer) always() proposer {
	return func(req exec.Request, d gate.Decision) *alwaysOffer {
		if s.approvals == nil {
			return nil
		}
		cwd := req.Cwd
		if cwd == "" || !filepath.IsAbs(cwd) {
			cwd = filepath.Join(s.approvals.Workspace, cwd)
		}
		p, ok := s.approvals.Propose(policy.RequestText(req.Command, req.Argv), cwd, d)
		if !ok {
			return nil
		}
		return &alwaysOffer{p: p, a: s.approvals}
	}
}

// elicitParams is the approval form: a message and no fields, so that the
// client shows accept, decline and cancel.
func elicitParams(req exec.Request, d gate.Decision, offer *alwaysOffer) *mcp.ElicitParams {
	var b strings.Builder
	fmt.Fprintf(&b, "An agent wants to run this command:\n\n    %s\n", commandText(req))
	if req.Cwd != "" {
		fmt.Fprintf(&b, "\nin %s\n", req.Cwd)
	}
	if d.Reason != "" {
		fmt.Fprintf(&b, "\nIt needs your approval: %s\n", d.Reason)
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{}}
	if offer == nil {
		if len(d.Suggestions) > 0 {
			fmt.Fprintf(&b, "\nTo allow such commands for good, add %s to the policy's allow list.\n", strings.Join(d.Suggestions, " and "))
		}
		b.WriteString("\nAccept runs exactly this command, this one time.")
		return &mcp.ElicitParams{Mode: "form", Message: b.String(), RequestedSchema: schema}
	}
	b.WriteString("\n" + offer.p.Preview())
	choices := []string{choiceOnce, choiceAlways}
	names := []string{"Yes, this once", "Always: add " + strings.Join(offer.p.Rules, " and ")}
	if offer.p.Narrower != "" {
		choices = append(choices, choiceExact)
		names = append(names, "Always, only this exact command: add "+offer.p.Narrower)
	}
	choices = append(choices, choiceNo)
	names = append(names, "No")
	b.WriteString("\nAccept with the choice you want; decline refuses.")
	schema["properties"] = map[string]any{"choice": map[string]any{
		"type": "string", "title": "Run it?", "enum": choices, "enumNames": names, "default": choiceOnce,
	}}
	return &mcp.ElicitParams{Mode: "form", Message: b.String(), RequestedSchema: schema}
}

// plainWord matches an argument that reads the same unquoted.
var plainWord = lazyre.New(`^[A-Za-z0-9_./=:@%+,-]+$`)

// commandText shows a request the way a person reads it: the command text,
// or argv with every argument that is not a plain word quoted.
func commandText(req exec.Request) string {
	if req.Command != "" || len(req.Argv) == 0 {
		return req.Command
	}
	words := make([]string, len(req.Argv))
	for i, w := range req.Argv {
		if plainWord.MatchString(w) {
			words[i] = w
		} else {
			words[i] = strconv.Quote(w)
		}
	}
	return strings.Join(words, " ")
}
