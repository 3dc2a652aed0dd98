package run

import (
	"errors"
	"fmt"
)

// grant is a session grant the runner applied (allow_for_session,
// deny_for_session, an always_allow's grant).
type grant struct {
	rule  string
	allow bool
}

// endTurn handles the backend's result. A one-turn backend is stopped after
// the grace period; a live one (a Prompter) waits for the next message, or
// ends once the editor closed its stdin.
func (s *state) endTurn(ev Event) {
	p, live := s.conn.(Prompter)
	if s.cancelled && !live {
		return // the cancel is reported when the backend ends
	}
	s.resultSent = true
	out := Output{Type: "result", SessionID: s.sessionID, IsError: ptr(ev.IsError),
		CostUSD: costOf(ev), DurationMS: ptr(ev.DurationMS), Turn: s.turn}
	if s.cancelled {
		// the backend stopped the turn when interrupted and lives on
		out.IsError, out.Cancelled = ptr(true), true
		s.killC = nil
	}
	out.Final = !live
	s.reportChanges()
	_ = s.w.Write(out)
	if !live {
		s.armKill()
		return
	}
	s.between = true
	if len(s.prompts) > 0 {
		next := s.prompts[0]
		s.prompts = s.prompts[1:]
		s.nextTurn(p, next)
		return
	}
	s.endInputIfIdle()
}

// endInputIfIdle ends a live backend that waits for a message that cannot
// come any more: the run then exits 0 after the last result.
func (s *state) endInputIfIdle() {
	if !s.ending || !s.between {
		return
	}
	if p, ok := s.conn.(Prompter); ok {
		p.EndInput()
		// the CLI exits on EOF; one that waits (for a background command
		// it started) is stopped with everything it started
		s.armKill()
	}
}

// prompt handles a message from the editor after the first.
func (s *state) prompt(text string) {
	p, live := s.conn.(Prompter)
	switch {
	case !live:
		s.notice("this agent answers one message per run; the message was ignored")
	case s.ending:
		s.notice("the run is ending; the message was ignored")
	case s.cancelled && !s.between:
		s.notice("the run is being cancelled; the message was ignored")
	case s.between:
		s.nextTurn(p, text)
	default:
		s.prompts = append(s.prompts, text) // sent once the running turn's result came
	}
}

// nextTurn starts the next message on the live backend: the engine is built
// again from the chat (rules changed in between count), keeping this run's
// session grants and its resumed state.
func (s *state) nextTurn(p Prompter, text string) {
	if s.r.Reload != nil {
		rl, err := s.r.Reload()
		for _, n := range rl.Notes {
			s.notice("%s", n)
		}
		if err != nil {
			_ = s.fail(fmt.Errorf("the chat could not be read again for the next message: %w", err))
			p.EndInput()
			s.conn.Kill()
			return
		}
		eng := rl.Engine
		s.switchTo(rl)
		for _, g := range s.grants {
			if err := eng.GrantSession(g.rule, g.allow); err != nil {
				s.notice("the session grant %s no longer applies: %v", g.rule, err)
			}
		}
		for _, t := range s.onces {
			eng.GrantOnce(t)
		}
		s.r.Engine = eng
	}
	s.turn++
	s.beginChanges()
	s.between, s.resultSent, s.cancelled, s.idled = false, false, false, false
	s.sessionSent = true
	_ = s.w.Write(Output{Type: "session", SessionID: s.sessionID, Resumed: ptr(s.resumed()), Turn: s.turn})
	if s.idle != nil {
		s.touch()
	}
	if err := p.Prompt(text); err != nil {
		_ = s.fail(fmt.Errorf("could not send the message to the agent: %w", err))
		s.conn.Kill()
	}
}

// switchTo passes a changed model or plan mode to the live backend; one it
// cannot pass on is said in a notice (the engine's mode still decides every
// call).
func (s *state) switchTo(rl Reloaded) {
	sw, ok := s.conn.(Switcher)
	if rl.Model != s.r.Turn.Model {
		if err := errIf(ok, func() error { return sw.SetModel(rl.Model) }); err != nil {
			s.notice("the model stays %q for this process: %v", s.r.Turn.Model, err)
		} else {
			s.r.Turn.Model = rl.Model
		}
	}
	if (rl.Mode == "plan") != (s.r.Turn.Mode == "plan") {
		if err := errIf(ok, func() error { return sw.SetMode(rl.Mode) }); err != nil {
			s.notice("the agent's own mode stays %q: %v", s.r.Turn.Mode, err)
		} else {
			s.r.Turn.Mode = rl.Mode
		}
	}
}

func errIf(ok bool, f func() error) error {
	if !ok {
		return errors.New("this agent cannot switch while it runs")
	}
	return f()
}

// costOf is a result's cost, or nil for a backend that reports none (the
// demo agent): the editor then shows no cost rather than "$0.0000".
func costOf(ev Event) *float64 {
	if ev.CostUSD == 0 {
		return nil
	}
	return ptr(ev.CostUSD)
}
