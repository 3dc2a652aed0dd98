package e2e

import (
	"strings"
	"testing"
	"time"

	"vibing/internal/fakeapi"
	"vibing/internal/run"
)

// TestLiveTwoMessagesBothAsk: one vibing-agent run, one claude process, two
// messages; the second arrives as a prompt line after the first result. Each
// asks for a Bash call, each is answered allow_once, and both run: the
// second message is not a resumed session (SPEC §13).
func TestLiveTwoMessagesBothAsk(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "permissions_ask: [Bash]\n", "",
		fakeapi.Turn{Text: "First.", Tools: []fakeapi.ToolCall{{Name: "Bash", Input: map[string]any{"command": "touch one.txt", "description": "one"}}}},
		fakeapi.Turn{Text: "Made one."},
		fakeapi.Turn{Text: "Second.", Tools: []fakeapi.ToolCall{{Name: "Bash", Input: map[string]any{"command": "touch two.txt", "description": "two"}}}},
		fakeapi.Turn{Text: "Made two."},
	)
	allow := answer(run.AllowOnce)
	res := w.runLive([]string{"and now the second file"}, func(o run.Output, send func(run.Input)) {
		allow(o, send)
		if o.Type == "result" && o.Turn == 1 {
			// between the messages the person types /model: the live CLI switches
			w.write(w.chat, "---\nvibing.nvim: true\nmodel: claude-live-switch\npermissions_ask: [Bash]\n---\n\n## User\n\nhello\n")
		}
	})
	if res.code != 0 {
		t.Fatalf("exit %d, want 0 after stdin closed after the last result; stderr:\n%s", res.code, res.stderr)
	}
	for _, f := range []string{"one.txt", "two.txt"} {
		if !w.exists(f) {
			t.Errorf("%s was not made: the approved call did not run", f)
		}
	}
	if n := len(res.all("approval_request")); n != 2 {
		t.Errorf("approval requests = %d, want 2 (one per message)", n)
	}
	var turns []int
	var sessions []string
	for _, e := range res.all("session") {
		turns = append(turns, e.Turn)
		sessions = append(sessions, e.SessionID)
		if e.Resumed == nil || *e.Resumed {
			t.Errorf("session event %+v: want resumed false (the process is live)", e)
		}
	}
	if len(turns) != 2 || turns[0] != 1 || turns[1] != 2 || sessions[0] != sessions[1] || sessions[0] == "" {
		t.Errorf("session events: turns %v sessions %v, want turns 1 and 2 of one session", turns, sessions)
	}
	results := res.all("result")
	if len(results) != 2 || results[0].Turn != 1 || results[1].Turn != 2 {
		t.Errorf("results %+v, want turns 1 and 2", results)
	}
	// the second request carries the first message's history: one conversation
	main := w.api.MainRequests()
	if last := main[len(main)-1].Body; !strings.Contains(last, "touch one.txt") || !strings.Contains(last, "and now the second file") {
		t.Errorf("the last API request does not carry both messages: %.400s", last)
	}
	if m := main[len(main)-1].Model; m != "claude-live-switch" {
		t.Errorf("the second message went to model %q, want claude-live-switch (set between the messages)", m)
	}
	if got := auditRows(t, w); len(got) != 2 || got[0].Decision != "ask_approved" || got[1].Decision != "ask_approved" {
		t.Errorf("audit rows %+v, want two ask_approved", got)
	}
	w.waitGone(5 * time.Second)
}
