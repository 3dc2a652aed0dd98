package run_test

import (
	"strings"
	"testing"

	"vibing/internal/frontmatter"
	"vibing/internal/run"
	"vibing/internal/session"
)

// TestAlwaysRuleChecked: the rule set typed for an always or for-session
// answer must be valid and cover the pending call; otherwise the approval
// stays waiting and a notice naming it tells the editor to ask again. A set
// that covers adds every rule, and the same call no longer asks.
func TestAlwaysRuleChecked(t *testing.T) {
	const line = "python3 hello.py && make"
	tests := []struct {
		name      string
		answers   []string // rule sets typed, in order; the last one is accepted
		decision  run.Answer
		wantRules []string // rule_added / session_grant rules
		wantAllow bool
		rejected  []string // what the notices say, in order
	}{
		{name: "the suggestion, untouched", answers: []string{""}, decision: run.AlwaysAllow,
			wantRules: []string{"Bash(python3 hello.py)", "Bash(make)"}, wantAllow: true},
		{name: "a typo, then the fix", answers: []string{"Bash(pyhton3 hello.py) Bash(make)", "Bash(python3:*) Bash(make)"}, decision: run.AlwaysAllow,
			wantRules: []string{"Bash(python3:*)", "Bash(make)"}, wantAllow: true, rejected: []string{"do not allow Bash (python3 hello.py && make)"}},
		{name: "an invalid rule, then one that covers half, then the fix", answers: []string{"Bash(python3 hello.py", "Bash(python3 hello.py)", ""}, decision: run.AlwaysAllow,
			wantRules: []string{"Bash(python3 hello.py)", "Bash(make)"}, wantAllow: true, rejected: []string{"not closed", "does not allow"}},
		{name: "an always deny that misses", answers: []string{"Bash(rm:*)", "Bash(make:*)"}, decision: run.AlwaysDeny,
			wantRules: []string{"Bash(make:*)"}, rejected: []string{"does not match"}},
		{name: "for session, a rule for another tool", answers: []string{"Read(hello.py)", ""}, decision: run.AllowForSession,
			wantRules: []string{"Bash(python3 hello.py)", "Bash(make)"}, wantAllow: true, rejected: []string{"does not allow"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			e, err := session.New(nil, frontmatter.Settings{Vibing: true}, session.Options{Cwd: dir, Home: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			s := newStepperWith(t, run.SessionEngine{Engine: e})
			s.ask("t1", line)
			req := s.next("approval_request")
			if req.SuggestedRule != "Bash(python3 hello.py) Bash(make)" {
				t.Errorf("suggested_rule = %q", req.SuggestedRule)
			}
			for i, rule := range tc.answers {
				msg := `{"type":"approval_response","id":"t1","decision":"` + tc.decision.String() + `"`
				if rule != "" {
					msg += `,"rule":"` + rule + `"`
				}
				s.write(msg + "}")
				if i == len(tc.answers)-1 {
					break
				}
				n := s.next("notice")
				if n.ID != "t1" || n.Decision != tc.decision.String() || n.Rule != rule || !strings.Contains(n.Message, tc.rejected[i]) || !strings.Contains(n.Message, "still waiting") {
					t.Errorf("notice %+v, want one for t1 naming %q and saying %q", n, rule, tc.rejected[i])
				}
			}
			res := s.next("approval_resolved")
			if res.Decision != tc.decision.String() {
				t.Errorf("resolved as %q, want %q", res.Decision, tc.decision)
			}
			if tc.wantAllow {
				// the same call again: decided at once
				s.ask("t2", line)
				d := s.next("decision")
				for d.ID != "t2" {
					d = s.next("decision")
				}
				if d.Decision != session.Allow.String() {
					t.Errorf("the same call again: %s (%s), want allow", d.Decision, d.Reason)
				}
			}
			outs := s.finish()
			var added []string
			for _, o := range outs {
				if o.Type == "rule_added" || o.Type == "session_grant" {
					added = append(added, o.Rule)
				}
				if o.Type == "approval_request" && o.ID == "t2" {
					t.Errorf("the same call asked again after %s", tc.decision)
				}
			}
			if strings.Join(added, " ") != strings.Join(tc.wantRules, " ") {
				t.Errorf("rules applied %q, want %q", added, tc.wantRules)
			}
			if v := s.lastReply("req-t1"); v.Allow != tc.wantAllow {
				t.Errorf("verdict %+v, want allow=%v", v, tc.wantAllow)
			}
		})
	}
}

// TestApprovalShowsEachCommand: the approval of a compound line carries the
// verdict on each of its simple commands.
func TestApprovalShowsEachCommand(t *testing.T) {
	e, err := session.New(nil, frontmatter.Settings{Vibing: true, Allow: []string{"Bash(npm:*)"}, Ask: []string{"Bash(rm:*)"}},
		session.Options{Cwd: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s := newStepperWith(t, run.SessionEngine{Engine: e})
	s.ask("t1", "npm test && rm -rf build")
	req := s.next("approval_request")
	var got []string
	for _, c := range req.Preview.Commands {
		got = append(got, c.Command+" "+c.Decision+" "+c.Rule)
	}
	if want := "npm test allow Bash(npm:*)|rm -rf build ask Bash(rm:*)"; strings.Join(got, "|") != want {
		t.Errorf("preview commands %q, want %q", got, want)
	}
	s.answer("t1", run.DenyOnce)
	s.next("approval_resolved")
	s.finish()
}
