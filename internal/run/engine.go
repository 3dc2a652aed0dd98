package run

import (
	"context"

	"vibing/internal/auditrow"
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

// Audit decision values: the outcomes of internal/auditrow, as the strings
// AuditEntry.Decision holds.
const (
	AuditAllow       = string(auditrow.Allow)
	AuditDeny        = string(auditrow.Deny)
	AuditAskApproved = string(auditrow.AskApproved)
	AuditAskDenied   = string(auditrow.AskDenied)
	AuditAskTimeout  = string(auditrow.AskTimeout)
	AuditAskPending  = string(auditrow.AskPending)
)

// AuditEntry is one audit row (internal/auditrow).
type AuditEntry = auditrow.Entry

// Recorder stores audit rows (internal/audit in production). Record returns
// once the row is durably stored; a call runs only after that. A row with
// the Key of an earlier one replaces it.
type Recorder interface {
	Record(ctx context.Context, e AuditEntry) error
}
