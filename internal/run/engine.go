package run

import (
	"context"
	"time"

	"vibing/internal/matcher"
	"vibing/internal/session"
)

// Engine is what the runner needs from the decision pipeline. *session.Engine
// satisfies it through SessionEngine.
type Engine interface {
	// Decide decides one call; cwd is the folder the agent's shell is in
	// (Permission.Cwd), "" when the backend does not say.
	Decide(tool string, input map[string]any, cwd string) session.Decision
	// Suggest returns the narrowest useful rule for an "always" or
	// "for session" answer to this call.
	Suggest(tool string, input map[string]any) string
	GrantSession(rule string, allow bool) error
	GrantOnce(tool string)
	AddRule(list matcher.List, rule string) error
	Resumed() bool
}

// SessionEngine adapts a *session.Engine to Engine.
type SessionEngine struct{ *session.Engine }

// Decide implements Engine with the session engine's DecideIn.
func (e SessionEngine) Decide(tool string, input map[string]any, cwd string) session.Decision {
	return e.DecideIn(tool, input, cwd)
}

var _ Engine = SessionEngine{}

// Audit decision values.
const (
	AuditAllow       = "allow"
	AuditDeny        = "deny"
	AuditAskApproved = "ask_approved"
	AuditAskDenied   = "ask_denied"
	AuditAskTimeout  = "ask_timeout"
	// AuditAskPending is the row of a call while it is being asked; the
	// outcome rewrites it (same Key).
	AuditAskPending = "ask_pending"
)

// AuditEntry is one audit row: one per tool call, with its final outcome.
// An asked call is written twice under the same Key: ask_pending when asked,
// then its outcome, which replaces the first.
type AuditEntry struct {
	Time      time.Time
	Chat      string
	SessionID string
	Tool      string
	Action    string
	Decision  string // allow | deny | ask_approved | ask_denied | ask_timeout | ask_pending
	Rule      string
	Source    string
	Reason    string
	Key       string // names one tool call of one run
	// InputSHA256 is the hex SHA-256 of the exact input an answered approval
	// let run (its JSON with sorted keys); "" for calls nobody was asked about.
	InputSHA256 string
	Edited      bool // the person edited the input before approving it
	// Resumed says the engine decided as in a resumed session (approval
	// prompts off unless resume_ask is prompt); what-if replays the row so.
	Resumed bool
	// Cwd is the engine's working directory, where its relative rules
	// resolve.
	Cwd string
}

// Recorder stores audit rows (internal/audit in production). Record returns
// once the row is durably stored; a call runs only after that. A row with
// the Key of an earlier one replaces it.
type Recorder interface {
	Record(ctx context.Context, e AuditEntry) error
}
