package run

import "vibing/internal/session"

// edited applies an answer that carries the person's edited input: only an
// allow_once may carry one, and the edit goes through the pipeline again,
// so an edit can never run what a deny rule refuses.
func (s *state) edited(m Input, a Answer, denied string) {
	ap := s.pending
	if a != AllowOnce {
		s.notice("an edited input can only be approved once (%s); the call is denied once instead", AllowOnce)
		s.resolve(false, ByUser, denied, AuditAskDenied, DenyOnce)
		return
	}
	merged := make(map[string]any, len(ap.perm.Input)+len(m.UpdatedInput))
	for k, v := range ap.perm.Input {
		merged[k] = v
	}
	for k, v := range m.UpdatedInput {
		merged[k] = v
	}
	d := s.pipeline(&Permission{Tool: ap.perm.Tool, Input: merged, Cwd: ap.perm.Cwd})
	if d.Decision == session.Deny {
		msg := "The edited " + ap.perm.Tool + " call is refused: " + d.Reason
		s.notice("%s", msg)
		s.resolve(false, ByUser, msg, AuditAskDenied, DenyOnce)
		return
	}
	ap.updated = merged
	s.approve(a)
}
