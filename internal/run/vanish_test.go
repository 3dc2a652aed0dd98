package run_test

import (
	"strings"
	"testing"

	"vibing/internal/run"
)

// An allowed write into the sandbox's private /tmp says, once per file, that
// the file will not last; a write elsewhere, or a refused one, says nothing.
func TestWriteIntoPrivateTmpSaysItWillNotPersist(t *testing.T) {
	s := newStepperWith(t, askBash{}, func(r *run.Runner) {
		r.Vanishes = func(p string) bool { return strings.HasPrefix(p, "/tmp/") && !strings.HasPrefix(p, "/tmp/shown/") }
	})
	s.ask("t1", "echo hi > /tmp/report.txt")
	s.ask("t2", "echo again > /tmp/report.txt")
	s.ask("t3", "echo hi > /tmp/shown/kept.txt")
	s.ask("t4", "ask > /tmp/refused.txt")
	s.next("approval_request")
	s.answer("t4", run.DenyOnce)
	s.next("approval_resolved")
	s.ask("t5", "ask && cp a.txt /tmp/approved.txt")
	s.next("approval_request")
	s.answer("t5", run.AllowOnce)
	s.next("approval_resolved")
	var notes []string
	for _, o := range s.finish() {
		if o.Type == "notice" && strings.Contains(o.Message, "private /tmp") {
			notes = append(notes, o.Message)
		}
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "writes /tmp/report.txt") || !strings.Contains(notes[1], "writes /tmp/approved.txt") {
		t.Fatalf("notices about the private /tmp = %q, want one for /tmp/report.txt, one for /tmp/approved.txt", notes)
	}
	if !strings.Contains(notes[0], "never appears in your /tmp") {
		t.Errorf("notice %q does not say the file will not persist", notes[0])
	}
}
