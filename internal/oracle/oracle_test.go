package oracle

import (
	"context"
	"strings"
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

// TestOracleSlice is make test's fixed-seed slice of make oracle: attack
// lines asked of the real engine under every rule set, what it allows run
// for real, and the everyday corpus. No line may escape, and no everyday
// line may be asked or refused while each of its effects is allowed.
func TestOracleSlice(t *testing.T) {
	r := newTestRunner(t)
	everyday, err := ReadEveryday("../../tests/friction/testdata/everyday.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := New(r).Run(context.Background(), Config{N: 1500, Seed: 1, Everyday: everyday})
	if err != nil {
		t.Fatal(err)
	}
	var sum strings.Builder
	rep.Summary(&sum)
	t.Log("\n" + sum.String())
	for _, f := range rep.Findings {
		t.Errorf("%s", f)
	}
	for _, l := range rep.FalseLines {
		t.Errorf("false positive: %s", l)
	}
	if rep.Runs == 0 || rep.Everyday == 0 {
		t.Fatalf("nothing ran: %d runs, %d everyday decisions", rep.Runs, rep.Everyday)
	}
}
