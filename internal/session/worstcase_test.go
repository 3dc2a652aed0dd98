package session_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"vibing/internal/config"
	"vibing/internal/session"
)

// TestWorstCaseDecide runs whole decisions on pathological calls against a
// chat of 1000 rules plus catastrophic regex rules in every list: each
// completes within 10 s (a hang detector, not a benchmark: typical runs take
// well under a second, and -race on a loaded machine must not make it flaky) and none is
// allowed that a small call like it would not be.
func TestWorstCaseDecide(t *testing.T) {
	f := newFixture(t)
	s := benchSettings(1000)
	for i := 0; i < 20; i++ {
		s.Deny = append(s.Deny, fmt.Sprintf("/tool:Bash:(a+)+b%d/", i))
		s.Ask = append(s.Ask, fmt.Sprintf("/tool:Bash:(a+)+c%d/", i))
		s.Allow = append(s.Allow, fmt.Sprintf("/tool:Bash:(a+)+d%d/", i))
	}
	s.Deny = append(s.Deny, "Bash(rm:*)", "Read(**/secret/**/a/**/a/**/a/**/key)")
	s.Allow = append(s.Allow, "Bash(echo:*)", "Bash(true)", "Read(**)")
	e, err := session.New(config.DefaultConfig(), s, tcase{}.options(f))
	if err != nil {
		t.Fatal(err)
	}
	run := strings.Repeat("a", 24)
	tests := []struct {
		name string
		tool string
		in   map[string]any
		want []session.Verdict // the decisions accepted
	}{
		{"regex rules on 9k commands", "Bash", bash(strings.Repeat(run+"; ", 9000)), []session.Verdict{session.Deny}},
		{"1 MB line", "Bash", bash("echo " + strings.Repeat("a", 1<<20)), []session.Verdict{session.Deny, session.Ask}},
		{"9999 allowed commands and rm", "Bash", bash(strings.Repeat("true; ", 9999) + "rm x"), []session.Verdict{session.Deny}},
		// Allowed when the regex budget suffices; denied or asked (fail
		// closed, by whichever regex list the budget ran out in) when it runs
		// out, as it can on a slow or loaded machine or under -race.
		{"10k allowed commands", "Bash", bash(strings.TrimSuffix(strings.Repeat("true; ", 10000), "; ")), []session.Verdict{session.Allow, session.Deny, session.Ask}},
		{"deep secret path", "Read", file("secret/" + strings.Repeat("a/", 5000) + "key"), []session.Verdict{session.Deny}},
		{"deep echo nesting", "Bash", bash(strings.Repeat("echo $(", 200) + "rm x" + strings.Repeat(")", 200)), []session.Verdict{session.Deny}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan session.Decision, 1)
			start := time.Now()
			go func() { done <- e.Decide(tc.tool, tc.in) }()
			select {
			case d := <-done:
				ok := false
				for _, w := range tc.want {
					ok = ok || d.Decision == w
				}
				if !ok {
					t.Errorf("Decide = %s (%s), want one of %v", d.Decision, d.Reason, tc.want)
				}
				t.Logf("%s in %v: %s", d.Decision, time.Since(start).Round(time.Millisecond), d.Reason[:min(len(d.Reason), 120)])
			case <-time.After(10 * time.Second):
				t.Fatalf("Decide did not complete within 10s")
			}
		})
	}
}
