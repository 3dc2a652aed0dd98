// Package runtest holds test helpers shared by the tests of the runner and
// its backends (internal/run, internal/claude, internal/demo): an audit
// recorder that keeps its rows in memory. It is used by tests only.
package runtest

import (
	"context"
	"sync"

	"vibing/internal/run"
)

// Audit is a run.Recorder that keeps the runner's audit rows in memory, as
// the database keeps them: a row with the same call key replaces the earlier
// one (an ask_pending row, then its outcome). Safe for concurrent use.
type Audit struct {
	mu   sync.Mutex
	rows []run.AuditEntry
}

var _ run.Recorder = (*Audit)(nil)

// Record implements run.Recorder.
func (a *Audit) Record(_ context.Context, e run.AuditEntry) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := range a.rows {
		if e.Key != "" && a.rows[i].Key == e.Key {
			a.rows[i] = e
			return nil
		}
	}
	a.rows = append(a.rows, e)
	return nil
}

// Rows returns a copy of the rows recorded so far, in order.
func (a *Audit) Rows() []run.AuditEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]run.AuditEntry(nil), a.rows...)
}

// Decisions returns each row's outcome (allow, deny, ask_approved, ...).
func (a *Audit) Decisions() []string {
	var out []string
	for _, r := range a.Rows() {
		out = append(out, r.Decision)
	}
	return out
}

// Outcomes returns each row as "outcome: reason".
func (a *Audit) Outcomes() []string {
	var out []string
	for _, r := range a.Rows() {
		out = append(out, r.Decision+": "+r.Reason)
	}
	return out
}
