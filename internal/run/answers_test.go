package run_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"vibing/internal/run"
	"vibing/internal/session"
)

// denyRm asks commands starting with "ask" and denies any holding "rm ".
type denyRm struct{ askBash }

func (denyRm) Decide(tool string, input map[string]any, cwd string) session.Decision {
	if cmd, _ := input["command"].(string); strings.Contains(cmd, "rm ") {
		return session.Decision{Decision: session.Deny, Reason: "rm is refused (deny: Bash(rm:*)).", Rule: "Bash(rm:*)", Source: session.SourceDenyList}
	}
	return askBash{}.Decide(tool, input, cwd)
}

func (s *stepper) lastReply(requestID string) run.Verdict {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.replies[requestID]
	if len(r) != 1 {
		s.t.Fatalf("%s got %d replies, want 1", requestID, len(r))
	}
	return r[0]
}

func TestApprovalRequestCarriesPreview(t *testing.T) {
	s := newStepperWith(t, denyRm{})
	s.ask("t1", "ask echo hi > out.txt")
	req := s.next("approval_request")
	if req.Preview == nil || req.Preview.Kind != "command" || req.Preview.Command != "ask echo hi > out.txt" {
		t.Fatalf("preview = %+v, want the command", req.Preview)
	}
	if got := strings.Join(req.Preview.Effects, "; "); got != "writes out.txt (redirection)" {
		t.Errorf("effects = %q", got)
	}
	if req.Detail != "ask echo hi > out.txt" {
		t.Errorf("detail = %q", req.Detail)
	}
	s.answer("t1", run.DenyOnce)
	s.next("approval_resolved")
	s.be.events <- run.Event{Kind: run.KindResult}
	s.finish()
}

func TestAnswers(t *testing.T) {
	tests := []struct {
		name       string
		answer     string
		wantAllow  bool
		wantMsg    string
		wantInput  map[string]any // the UpdatedInput sent to the agent
		wantEdited bool
		wantNotice string
	}{
		{name: "deny with a reason",
			answer:  `{"type":"approval_response","id":"t1","decision":"deny_once","reason":"  use make clean instead "}`,
			wantMsg: "User denied execution of Bash (ask clean): use make clean instead"},
		{name: "deny without a reason",
			answer:  `{"type":"approval_response","id":"t1","decision":"deny_once"}`,
			wantMsg: "User denied execution of Bash (ask clean)"},
		{name: "edited and approved",
			answer:    `{"type":"approval_response","id":"t1","decision":"allow_once","updated_input":{"command":"ask clean --dry-run"}}`,
			wantAllow: true, wantInput: map[string]any{"command": "ask clean --dry-run", "description": "clean up"}, wantEdited: true},
		{name: "an edit a deny rule refuses",
			answer:     `{"type":"approval_response","id":"t1","decision":"allow_once","updated_input":{"command":"ask clean; rm -rf src"}}`,
			wantMsg:    "The edited Bash call is refused: rm is refused (deny: Bash(rm:*)).",
			wantNotice: "The edited Bash call is refused"},
		{name: "an edit with an always answer",
			answer:     `{"type":"approval_response","id":"t1","decision":"always_allow","updated_input":{"command":"ask x"}}`,
			wantMsg:    "User denied execution of Bash (ask clean)",
			wantNotice: "an edited input can only be approved once"},
		{name: "an unknown answer",
			answer:     `{"type":"approval_response","id":"t1","decision":"allow_always"}`,
			wantMsg:    "User denied execution of Bash (ask clean)",
			wantNotice: `unknown answer "allow_always" (want one of [allow_once deny_once allow_for_session deny_for_session always_allow always_deny]); the call is denied once`},
		{name: "no answer",
			answer:     `{"type":"approval_response","id":"t1"}`,
			wantMsg:    "User denied execution of Bash (ask clean)",
			wantNotice: `unknown answer ""`},
		{name: "an unknown answer with an edit",
			answer:     `{"type":"approval_response","id":"t1","decision":"Allow_Once","updated_input":{"command":"ask x"}}`,
			wantMsg:    "User denied execution of Bash (ask clean)",
			wantNotice: `unknown answer "Allow_Once"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStepperWith(t, denyRm{})
			s.be.events <- run.Event{Kind: run.KindPermission, Permission: &run.Permission{ID: "req-t1", ToolUseID: "t1",
				Tool: "Bash", Input: map[string]any{"command": "ask clean", "description": "clean up"}, Reply: func(v run.Verdict) {
					s.mu.Lock()
					defer s.mu.Unlock()
					s.replies["req-t1"] = append(s.replies["req-t1"], v)
				}}}
			s.next("approval_request")
			s.write(tc.answer)
			res := s.next("approval_resolved")
			if res.Edited != tc.wantEdited {
				t.Errorf("approval_resolved edited = %v, want %v", res.Edited, tc.wantEdited)
			}
			s.be.events <- run.Event{Kind: run.KindResult}
			outs := s.finish()
			v := s.lastReply("req-t1")
			if v.Allow != tc.wantAllow || v.Message != tc.wantMsg {
				t.Errorf("verdict = %+v, want allow=%v message %q", v, tc.wantAllow, tc.wantMsg)
			}
			if got, want := run.InputHash(v.UpdatedInput), run.InputHash(tc.wantInput); tc.wantInput != nil && got != want {
				t.Errorf("updated input = %v, want %v", v.UpdatedInput, tc.wantInput)
			}
			if tc.wantInput == nil && v.UpdatedInput != nil {
				t.Errorf("updated input = %v, want none", v.UpdatedInput)
			}
			var notices []string
			for _, o := range append(s.seen, outs...) {
				if o.Type == "notice" {
					notices = append(notices, o.Message)
				}
			}
			if tc.wantNotice != "" && !strings.Contains(strings.Join(notices, "\n"), tc.wantNotice) {
				t.Errorf("notices %q, want one with %q", notices, tc.wantNotice)
			}
			rows := s.audit.Rows()
			if len(rows) != 1 {
				t.Fatalf("audit rows %+v, want 1", rows)
			}
			row := rows[0]
			approved := map[string]any{"command": "ask clean", "description": "clean up"}
			if tc.wantInput != nil {
				approved = tc.wantInput
			}
			if row.InputSHA256 != run.InputHash(approved) || len(row.InputSHA256) != 64 || row.Edited != tc.wantEdited {
				t.Errorf("audit row sha=%q edited=%v, want sha of %v, edited=%v", row.InputSHA256, row.Edited, approved, tc.wantEdited)
			}
		})
	}
}

// TestParseAnswer: the six answers read as themselves; anything else, the
// editor's typo, another value set's word or a different case, is an error
// naming the value and the six.
func TestParseAnswer(t *testing.T) {
	for _, a := range run.Options {
		if got, err := run.ParseAnswer(string(a)); got != a || err != nil {
			t.Errorf("ParseAnswer(%q) = %q, %v; want itself", a, got, err)
		}
	}
	if len(run.Options) != 6 {
		t.Errorf("Options = %v, want the six answers", run.Options)
	}
	for _, s := range []string{"", "allow", "deny", "allow_always", "ALLOW_ONCE", " allow_once", "allow_once ", run.Withdrawn, "ask_approved"} {
		got, err := run.ParseAnswer(s)
		if err == nil || got != "" {
			t.Errorf("ParseAnswer(%q) = %q, %v; want an error", s, got, err)
			continue
		}
		if want := fmt.Sprintf("unknown answer %q (want one of [allow_once deny_once allow_for_session deny_for_session always_allow always_deny])", s); err.Error() != want {
			t.Errorf("ParseAnswer(%q) error %q, want %q", s, err, want)
		}
	}
}

// TestAnswerWire: the answers travel as plain strings both ways, an unknown
// one included (the runner, not the decoder, refuses it).
func TestAnswerWire(t *testing.T) {
	b, err := json.Marshal(run.Output{Type: "approval_request", Options: run.Options})
	if want := `{"type":"approval_request","options":["allow_once","deny_once","allow_for_session","deny_for_session","always_allow","always_deny"]}`; err != nil || string(b) != want {
		t.Errorf("json.Marshal = %s, %v; want %s", b, err, want)
	}
	for _, line := range []string{`{"type":"approval_response","id":"t1","decision":"always_deny","rule":"Bash(rm:*)"}`, `{"type":"approval_response","id":"t1","decision":"maybe"}`} {
		var in run.Input
		if err := json.Unmarshal([]byte(line), &in); err != nil {
			t.Fatalf("json.Unmarshal(%s): %v", line, err)
		}
		if b, err := json.Marshal(in); err != nil || string(b) != line {
			t.Errorf("the input %s comes back as %s, %v", line, b, err)
		}
	}
}
