package session

import (
	"errors"
	"fmt"
	"strings"

	"vibing/internal/command"
	"vibing/internal/matcher"
)

// commandText is the command a call runs, for describing it.
func commandText(c *command.Call) string {
	if c.Tool == "Bash" {
		return c.Command
	}
	return c.RunCommand
}

// searchNote explains a Read rule that fires on a Grep because of what lies
// below its folder rather than the folder itself (h: how the rule matched).
func searchNote(h *matcher.Hit) string {
	if h.Below == "" {
		return ""
	}
	return fmt.Sprintf(", which names files below %s that the search would read; give a narrower path or a glob that leaves them out", h.Below)
}

// Suggest returns the narrowest useful rule for an "always" or "for session"
// answer to a call that asks: for an ask about a file that runs code by
// itself, the Edit rule that names it; for a tool that runs a command, the
// Bash rule for that command; else matcher.Suggest's.
func (e *Engine) Suggest(tool string, input map[string]any) string {
	c := e.Prepare(tool, input)
	bc := c.BashView
	if d := e.DecideCall(c); d.Source == SourceAutorun {
		for _, v := range []*command.Call{c, bc} {
			if v == nil {
				continue
			}
			if hits := e.autorunHits(v); len(hits) > 0 {
				return e.explicitRule(v, hits[0])
			}
		}
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	if bc != nil && bc.Err == nil {
		return e.suggest(bc)
	}
	return e.suggest(c)
}

// coversWithReads is matcher.CoversWithReads with this engine's repository
// check, under its lock.
func (e *Engine) coversWithReads(rules []*matcher.Rule, v *command.Call) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	_, ok := matcher.CoversWithReads(rules, v, e.repoReadable(v))
	return ok
}

// RulesCover checks a rule set typed for an "always" or "for session"
// answer (one line, as Suggest writes it and /allow reads it) against the
// call it answers: every rule must be valid, and together they must cover
// the call — for the allow list, allow it as the allow list would (each
// simple command of a Bash line, each file it writes); for the deny list,
// fire on it. The error says in one sentence what is wrong.
func (e *Engine) RulesCover(tool string, input map[string]any, list matcher.List, text string) error {
	texts := matcher.SplitRules(text)
	if len(texts) == 0 {
		return errors.New("no rule was given")
	}
	rules := make([]*matcher.Rule, 0, len(texts))
	for _, t := range texts {
		r, err := e.parseRule(t)
		if err != nil {
			return err
		}
		rules = append(rules, r)
	}
	c := e.Prepare(tool, input)
	views := []*command.Call{c}
	if bc := c.BashView; bc != nil {
		views = append(views, bc)
	}
	for _, v := range views {
		if list == matcher.AllowList {
			if ok, _ := matcher.Covers(rules, v); ok {
				return nil
			}
			if ok := e.coversWithReads(rules, v); ok && e.readsBeside() {
				return nil // the reads beside them pass as the mode's (allowedWithReads)
			}
			continue
		}
		for _, r := range rules {
			if r.Match(v, list) {
				return nil
			}
		}
	}
	what := "does not allow"
	if list != matcher.AllowList {
		what = "does not match"
	}
	if len(rules) > 1 {
		what = strings.Replace(what, "does", "do", 1)
	}
	hint := ""
	if s := e.Suggest(tool, input); s != "" && s != text && list == matcher.AllowList {
		hint = fmt.Sprintf(" (the rules that do: %s)", s)
	}
	return fmt.Errorf("%s %s %s%s", text, what, describe(c), hint)
}
