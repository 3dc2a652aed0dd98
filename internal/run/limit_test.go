package run_test

import (
	"reflect"
	"strings"
	"testing"

	"vibing/internal/run"
)

// A managed ask offers only the once answers, says why, and an answer that
// is not offered (an always-allow typed by hand) denies the call once.
func TestManagedAskOffersOnceAnswers(t *testing.T) {
	tests := []struct {
		answer    run.Answer
		wantAllow bool
	}{
		{"allow_once", true},
		{"deny_once", false},
		{"always_allow", false},
		{"allow_for_session", false},
	}
	for _, tt := range tests {
		t.Run(tt.answer.String(), func(t *testing.T) {
			s := newStepper(t)
			s.ask("t1", "managed push")
			req := s.next("approval_request")
			if want := []run.Answer{run.AllowOnce, run.DenyOnce}; !reflect.DeepEqual(req.Options, want) {
				t.Fatalf("options = %v, want %v", req.Options, want)
			}
			if !strings.Contains(req.Limit, "managed policy") {
				t.Errorf("limit = %q, want why", req.Limit)
			}
			s.answer("t1", tt.answer)
			res := s.next("approval_resolved")
			if got := res.Decision == "allow_once"; got != tt.wantAllow {
				t.Errorf("answer %s resolved as %s, want allowed=%v", tt.answer, res.Decision, tt.wantAllow)
			}
			evs := s.finish()
			if !tt.wantAllow && tt.answer != "deny_once" {
				found := false
				for _, e := range evs {
					if e.Type == "notice" && strings.Contains(e.Message, "is not offered") {
						found = true
					}
				}
				if !found {
					t.Errorf("no notice that %s is not offered; events %v", tt.answer, s.types())
				}
			}
		})
	}
}
