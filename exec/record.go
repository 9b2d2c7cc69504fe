package exec

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/agentexec/agentexec/audit"
)

// decisionObservation carries the gate's verdict; execute adds the run.
func decisionObservation(p *plan) Observation {
	d := p.dec
	obs := Observation{
		RunID: p.runID, Decision: d.Action, RuleDecision: d.RuleDecision,
		Safety: d.Safety, Reason: d.Reason, Suggestions: d.Suggestions,
	}
	if d.Rule != nil {
		obs.Rule, obs.RuleSource = d.Rule.Text, d.Rule.Source
	}
	if d.Blacklist != nil {
		obs.Blacklist = d.Blacklist.Name
		if d.Reason == "" {
			obs.Reason = d.Blacklist.Reason
		}
	}
	return obs
}

// requestRecord fills the request and decision fields shared by both kinds.
func requestRecord(kind string, p *plan, approved string) *audit.Record {
	d := p.dec
	rec := &audit.Record{
		Kind: kind, RunID: p.runID, Command: p.req.Command, Argv: p.req.Argv,
		Shell: string(p.shell), Cwd: p.cwd, Mode: string(d.Mode),
		SegmentCount: len(d.Segments), Safety: string(d.Safety), Decision: string(d.Action),
		RuleDecision: d.RuleDecision, Reason: d.Reason, Approved: approved,
		PolicyDigest: p.pol.Digest(),
	}
	if len(p.req.Argv) > 0 {
		rec.Shell = "argv"
	}
	if d.Rule != nil {
		rec.Rule, rec.RuleSource = d.Rule.Text, d.Rule.Source
	}
	if d.Blacklist != nil {
		rec.Blacklist = d.Blacklist.Name
	}
	return rec
}

func decisionRecord(p *plan, approved string) *audit.Record {
	return requestRecord("decision", p, approved)
}

// runRecord describes a finished run. The digest covers the kept output
// exactly as the observation returns it (stdout, then stderr, or the merged
// output), so a stored observation can be checked against the log.
func runRecord(p *plan, approved string, obs Observation) *audit.Record {
	rec := requestRecord("run", p, approved)
	rec.Status, rec.ExitCode, rec.Signal = string(obs.Status), obs.ExitCode, obs.Signal
	rec.DurationMS, rec.StdoutBytes, rec.StderrBytes = obs.DurationMS, obs.StdoutBytes, obs.StderrBytes
	if s := obs.Sandbox; s != nil {
		rec.Sandbox, rec.LandlockABI, rec.Network = s.Profile, s.LandlockABI, s.Network
	}
	rec.ExecGate, rec.Execs, rec.ExecsOmitted = p.execGate, p.execs, p.execsOmitted
	rec.Connections = auditConnections(obs.Network)
	h := sha256.New()
	h.Write([]byte(obs.Stdout))
	h.Write([]byte(obs.Stderr))
	h.Write([]byte(obs.Output))
	rec.OutputSHA256 = hex.EncodeToString(h.Sum(nil))
	return rec
}

// appendRun writes the run's records: the program the exec gate refused,
// if any, then the run.
func (r *Runner) appendRun(p *plan, approved string, obs Observation) error {
	var errs []error
	if p.refusal != nil {
		errs = append(errs, r.append(execRefusedRecord(p)))
	}
	errs = append(errs, r.append(runRecord(p, approved, obs)))
	return errors.Join(errs...)
}
