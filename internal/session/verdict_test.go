package session_test

import (
	"encoding/json"
	"testing"

	"vibing/internal/session"
)

// TestVerdict: the three decision values are valid, anything else is not,
// and a Decision's JSON carries the plain string (the hook, the runner's
// events and `vibing-agent check --json` read it so).
func TestVerdict(t *testing.T) {
	if got := len(session.Decisions); got != 3 {
		t.Fatalf("Decisions = %v, want allow, ask, deny", session.Decisions)
	}
	for _, v := range session.Decisions {
		if !v.Valid() {
			t.Errorf("%q is not Valid", v)
		}
	}
	for _, s := range []string{"", "Allow", "allow ", "ask_approved", "allow_once", "defer"} {
		if session.Verdict(s).Valid() {
			t.Errorf("%q is Valid, want not", s)
		}
	}
	for _, tc := range []struct {
		d    session.Decision
		want string
	}{
		{session.Decision{Decision: session.Ask, Reason: "r", Rule: "Bash", Source: session.SourceAskList, Level: "mutating", Action: "a"},
			`{"decision":"ask","reason":"r","rule":"Bash","source":"ask_list","level":"mutating","action":"a"}`},
		{session.Decision{Decision: session.Deny, Limit: "managed", NoAlways: true},
			`{"decision":"deny","reason":"","rule":"","source":"","level":"","action":"","limit":"managed","no_always":true}`},
	} {
		b, err := json.Marshal(tc.d)
		if err != nil || string(b) != tc.want {
			t.Errorf("json.Marshal(%+v) = %s, %v; want %s", tc.d, b, err, tc.want)
		}
		var back session.Decision
		if err := json.Unmarshal(b, &back); err != nil || back.Decision != tc.d.Decision {
			t.Errorf("json.Unmarshal(%s) = %+v, %v", b, back, err)
		}
	}
}
