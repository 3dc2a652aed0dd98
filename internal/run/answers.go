package run

import (
	"errors"
	"fmt"

	"vibing/internal/matcher"
	"vibing/internal/session"
)

// RuleChecker is what an Engine may also offer: a check that a rule set
// typed for an "always" or "for session" answer is valid and covers the
// call (session.Engine.RulesCover). Without it only validity is checked.
type RuleChecker interface {
	RulesCover(tool string, input map[string]any, list matcher.List, rules string) error
}

// checkRules reads the rule set of an always or for-session answer (one
// line, rules separated by spaces outside parentheses). A set that is
// invalid or does not cover the pending call leaves the approval waiting:
// a notice naming the approval, the answer and the rule tells the editor
// to ask for the rule again, so a typo never turns into a deny nor saves a
// rule that misses the call.
func (s *state) checkRules(a Answer, text string, list matcher.List) ([]string, bool) {
	ap := s.pending
	rules := matcher.SplitRules(text)
	var err error
	if len(rules) == 0 {
		err = errors.New("no rule was given")
	} else if rc, ok := s.r.Engine.(RuleChecker); ok {
		err = s.guard(func() error { return rc.RulesCover(ap.perm.Tool, ap.perm.Input, list, text) })
	} else {
		for _, r := range rules {
			if _, err = matcher.ParseRule(r); err != nil {
				break
			}
		}
	}
	if err != nil {
		_ = s.w.Write(Output{Type: "notice", ID: ap.id, Decision: a.String(), Rule: text,
			Message: fmt.Sprintf("%s: %v; the approval is still waiting: type a rule that covers the call, or answer another way", a, err)})
		return nil, false
	}
	return rules, true
}

// PartDecider is what an Engine may also offer: the decision on each simple
// command of a compound Bash line, shown in its approval block
// (session.Engine.DecideParts).
type PartDecider interface {
	DecideParts(tool string, input map[string]any, cwd string) []session.Part
}

// answerQuestions approves an AskUserQuestion call with the person's
// answers: the CLI gets them in updatedInput.answers and tells the agent
// what was answered. An allow without answers is passed on as it is (the
// agent hears that nothing was answered).
func (s *state) answerQuestions(m Input) {
	ap := s.pending
	if len(m.Answers) > 0 {
		merged := make(map[string]any, len(ap.perm.Input)+1)
		for k, v := range ap.perm.Input {
			merged[k] = v
		}
		answers := make(map[string]any, len(m.Answers))
		for q, a := range m.Answers {
			answers[q] = a
		}
		merged["answers"] = answers
		ap.updated, ap.answered = merged, true
	}
	s.approve(AllowOnce)
}
