package session_test

import (
	"encoding/json"
	"os"
	"testing"

	"vibing/internal/session"
)

// TestBypassCorpus runs testdata/bypass.json: attempts to get past a deny
// rule, the guard or the default deny rules, and attempts to make an allow
// rule cover more than it says. Each case asserts the decision (want) or that
// the call is not allowed (not_allow).
func TestBypassCorpus(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/bypass.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []tcase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("testdata/bypass.json: %v", err)
	}
	if len(cases) < 60 {
		t.Fatalf("bypass corpus has %d cases, want at least 60", len(cases))
	}
	f := newFixture(t) // the corpus never changes the tree: one fixture for all
	seen := map[string]bool{}
	for _, tc := range cases {
		if seen[tc.Name] {
			t.Errorf("duplicate case name %q", tc.Name)
		}
		seen[tc.Name] = true
		if tc.Want == "" && !tc.NotAllow {
			t.Errorf("case %q asserts nothing (set want or not_allow)", tc.Name)
		}
		if tc.Want == session.Allow {
			t.Errorf("case %q: the bypass corpus asserts denials, not allows", tc.Name)
		}
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			e, _ := tc.engine(t, f) // some cases hold invalid rules on purpose
			tc.check(t, f, e.Decide(tc.Tool, f.expandInput(tc.Input)))
		})
	}
}
