package oracle

import (
	"context"
	"testing"

	"vibing/internal/session"
)

// allowAll is a stand-in engine that allows every line.
type allowAll struct{}

func (allowAll) Decide(string, map[string]any) session.Decision {
	return session.Decision{Decision: session.Allow, Source: session.SourceMode}
}

// TestOracleCatchesAStandIn: with a stand-in that allows every line, every
// attack intent escapes under every rule set: the judge sees what the lines
// really do, whatever the engine said.
func TestOracleCatchesAStandIn(t *testing.T) {
	r := newTestRunner(t)
	rep, err := New(r).Run(context.Background(), Config{N: 160, Seed: 7, Gate: func(RuleSet) Decider { return allowAll{} }})
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]map[string]int{} // rule set -> intent -> escapes
	for _, f := range rep.Findings {
		if per[f.RuleSet] == nil {
			per[f.RuleSet] = map[string]int{}
		}
		per[f.RuleSet][f.Line.Intent]++
	}
	for _, rs := range RuleSets {
		for _, in := range Intents {
			if per[rs.Name][in] == 0 {
				t.Errorf("rule set %s: no %s line escaped the stand-in", rs.Name, in)
			}
		}
	}
	if rep.Allowed != rep.Lines*len(RuleSets) {
		t.Errorf("the stand-in allowed %d of %d", rep.Allowed, rep.Lines*len(RuleSets))
	}
	t.Logf("%d lines, %d escapes (%v)", rep.Lines, len(rep.Findings), rep.IntentsEscaped())
}
