package run

// Settling a call: the verdict to the backend and the audit row, which an
// allowed call waits for (the audit log fails closed).

import (
	"time"

	"vibing/internal/session"
)

// settle answers the backend, remembers the verdict and writes the audit
// row. A refusal is answered at once; an allowed call is answered only once
// its row is on disk, and refused if the row cannot be written (the audit
// log fails closed).
func (s *state) settle(p *Permission, v Verdict, d session.Decision, outcome, reason string) {
	s.settleWith(p, v, d, outcome, reason, nil)
}

// settleWith is settle with more audit fields set by extra (the SHA-256 of
// an approved input, whether it was edited).
func (s *state) settleWith(p *Permission, v Verdict, d session.Decision, outcome, reason string, extra func(*AuditEntry)) {
	if v.Allow {
		if err := s.keepFiles(p, v); err != nil {
			s.notice("%s", err.Error())
			v, outcome, reason = Verdict{Message: err.Error()}, AuditDeny, err.Error()
		}
	}
	if !v.Allow && v.Message == "" {
		v.Message = "Denied by vibing"
	}
	if !v.Allow {
		s.reply(p, v)
		s.recordWith(p, d, outcome, reason, extra, func(err error) {
			if err != nil {
				s.notice("audit: the row of a refused call (%s) could not be written: %v", Describe(p.Tool, p.Input), err)
			}
		})
		return
	}
	s.noteVanishing(p, v)
	if k := callKey(p); k != "" {
		s.held[k] = nil
	}
	s.recordWith(p, d, outcome, reason, extra, func(err error) {
		v := v
		if err != nil {
			v = Verdict{Message: "vibing could not write this call's audit row, so it is refused: " + err.Error()}
			s.notice("%s was refused: its audit row could not be written (%v)", Describe(p.Tool, p.Input), err)
		}
		s.reply(p, v)
	})
}

// reply answers p, and every request for the same call that waited for it.
// The verdict is kept for the same call asked again: the same id, tool and
// input, or the input the person edited it to, which the CLI asks about
// when it runs the edit.
func (s *state) reply(p *Permission, v Verdict) {
	s.rememberFetch(p, v)
	if k := callKey(p); k != "" {
		s.verdicts[k] = v
		if v.Allow && v.UpdatedInput != nil {
			s.verdicts[callKey(&Permission{ToolUseID: p.ToolUseID, Tool: p.Tool, Input: v.UpdatedInput})] = v
		}
		for _, q := range s.held[k] {
			q.Reply(v)
		}
		delete(s.held, k)
	}
	p.Reply(v)
}

// record writes the audit row of a tool call off the loop; done (when not
// nil) runs on the loop once the row is written or failed.
func (s *state) record(p *Permission, d session.Decision, outcome, reason string, done func(error)) {
	s.recordWith(p, d, outcome, reason, nil, done)
}

// recordWith is record with more fields set by extra.
func (s *state) recordWith(p *Permission, d session.Decision, outcome, reason string, extra func(*AuditEntry), done func(error)) {
	key := callKey(p) // another input under the same id is a row of its own
	if key == "" {
		key = p.ID
	}
	e := AuditEntry{Time: time.Now(), Chat: s.r.Chat, SessionID: s.sessionID, Key: s.runID + ":" + key,
		Tool: p.Tool, Action: d.Action, Decision: outcome, Rule: d.Rule, Source: d.Source, Reason: reason,
		Resumed: ptr(s.resumed()), Cwd: s.env().Cwd, ToolUseID: p.ToolUseID, Mode: s.mode()}
	if extra != nil {
		extra(&e)
	}
	s.audit.add(e, func(err error) {
		switch {
		case done != nil:
			done(err)
		case err != nil:
			s.notice("audit: %v", err)
		}
	})
}

// flushAudit waits until every queued row is written (or failed), so rows
// written while the run ends survive it.
func (s *state) flushAudit() {
	for s.audit.outstanding() > 0 {
		res := <-s.audit.results
		s.audit.taken()
		res.job.done(res.err)
	}
}

// mode is the engine's permission mode for the audit row, "" when the
// engine does not say.
func (s *state) mode() (m string) {
	defer func() {
		if recover() != nil {
			m = ""
		}
	}()
	if e, ok := s.r.Engine.(interface{ Mode() string }); ok {
		return e.Mode()
	}
	return ""
}
