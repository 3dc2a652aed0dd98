// Package e2e runs the built vibing-agent against the real claude CLI and a
// fake Messages API, and checks real side effects on disk.
package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vibing/internal/audit"
	"vibing/internal/fakeapi"
	"vibing/internal/run"
)

func TestRealDeniedCommandDoesNotRun(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "permissions_deny: [\"Bash(touch:*)\"]\n", "", bash("touch denied.txt"))
	res := w.run(nil)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0; stderr %s", res.code, res.stderr)
	}
	if w.exists("denied.txt") {
		t.Error("denied command ran: denied.txt exists")
	}
	d := res.all("decision")
	if len(d) != 1 || d[0].Decision != "deny" || d[0].Rule != "Bash(touch:*)" {
		t.Errorf("decisions = %+v, want one deny by Bash(touch:*)", d)
	}
	if !w.api.Received(d[0].Reason) {
		t.Errorf("the model never got the denial reason %q", d[0].Reason)
	}
	rows := auditRows(t, w)
	if len(rows) != 1 || rows[0].Decision != "deny" || rows[0].Tool != "Bash" {
		t.Errorf("audit rows = %+v, want one Bash deny", rows)
	}
}

func TestRealAllowedCommandRuns(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "permissions_allow: [\"Bash(touch:*)\"]\n", "", bash("touch allowed.txt"))
	res := w.run(nil)
	if res.code != 0 || !w.exists("allowed.txt") {
		t.Fatalf("exit %d, allowed.txt exists=%v, want 0 and true; events %v", res.code, w.exists("allowed.txt"), res.types())
	}
	if r := res.all("result"); len(r) != 1 || r[0].SessionID == "" {
		t.Errorf("result = %+v, want one with a session id", r)
	}
	if res.maxRSS > 30*1024 {
		t.Errorf("vibing-agent peak RSS %d KiB, want under 30 MiB", res.maxRSS)
	}
}

func TestRealApprovedCommandRunsAfterAnswer(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "permissions_ask: [Bash]\n", "", bash("touch approved.txt"))
	existedAtAsk := true
	res := w.run(func(o run.Output, send func(run.Input)) {
		if o.Type == "approval_request" {
			existedAtAsk = w.exists("approved.txt")
			send(run.Input{Type: "approval_response", ID: o.ID, Decision: run.AllowOnce})
		}
	})
	if existedAtAsk {
		t.Error("approved.txt existed before the person answered")
	}
	if !w.exists("approved.txt") {
		t.Errorf("approved command did not run; events %v", res.types())
	}
	if rows := auditRows(t, w); len(rows) != 1 || rows[0].Decision != "ask_approved" {
		t.Errorf("audit rows = %+v, want one ask_approved", rows)
	}
	t.Logf("peak RSS of vibing-agent run: %d KiB", res.maxRSS)
}

func TestRealApprovalTimeout(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "permissions_ask: [Bash]\n", "approval_timeout_s: 1\n", bash("touch late.txt"))
	res := w.run(nil)
	if w.exists("late.txt") {
		t.Error("timed-out command ran")
	}
	if rs := res.all("approval_resolved"); len(rs) != 1 || rs[0].By != run.ByTimeout {
		t.Errorf("approval_resolved = %+v, want one by timeout", rs)
	}
	if !w.api.Received("Approval timed out after 1 s") {
		t.Error("the model never got the timeout message")
	}
	if rows := auditRows(t, w); len(rows) != 1 || rows[0].Decision != "ask_timeout" {
		t.Errorf("audit rows = %+v, want one ask_timeout", rows)
	}
}

func TestRealDeniedReadNeverReachesModel(t *testing.T) {
	t.Parallel()
	const secret = "TOPSECRET-7f3a9c"
	tests := []struct {
		name     string
		fm       string
		reaches  bool
		decision string
	}{
		{"denied", "permissions_deny: [\"Read(secret.txt)\"]\n", false, "deny"},
		{"allowed (control)", "", true, "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.fm, "", fakeapi.Turn{Tools: []fakeapi.ToolCall{{Name: "Read", Input: map[string]any{"file_path": "PLACEHOLDER"}}}})
			path := filepath.Join(w.dir, "secret.txt")
			w.write(path, secret+"\n")
			w.api.Close()
			w.api = fakeapi.New(fakeapi.Turn{Tools: []fakeapi.ToolCall{{Name: "Read", Input: map[string]any{"file_path": path}}}})
			res := w.run(nil)
			if got := w.api.Received(secret); got != tt.reaches {
				t.Errorf("secret reached the model = %v, want %v; events %v", got, tt.reaches, res.types())
			}
			if d := res.all("decision"); len(d) != 1 || d[0].Decision != tt.decision {
				t.Errorf("decisions = %+v, want one %s", d, tt.decision)
			}
		})
	}
}

// resumable creates a session with a plain text turn and returns its id.
func resumable(t *testing.T, w *world) string {
	t.Helper()
	res := w.run(nil)
	s := res.all("session")
	if len(s) != 1 || s[0].SessionID == "" || res.code != 0 {
		t.Fatalf("first run: session events %+v, exit %d; stderr %s", s, res.code, res.stderr)
	}
	return s[0].SessionID
}

func TestRealResumedSession(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		config    string
		ran       bool
		approvals int
	}{
		{"resume_ask deny refuses with guidance", "", false, 0},
		{"resume_ask prompt asks and the CLI calls back", "resume_ask: prompt\n", true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, "permissions_ask: [Bash]\n", tt.config, fakeapi.Turn{Text: "Hello."}, bash("touch resumed.txt"))
			id := resumable(t, w)
			w.write(w.chat, "---\nvibing.nvim: true\nsession_id: "+id+"\npermissions_ask: [Bash]\n---\n\n## User\n\nagain\n")
			res := w.run(answer(run.AllowOnce))
			if w.exists("resumed.txt") != tt.ran {
				t.Errorf("resumed.txt exists = %v, want %v; events %v", w.exists("resumed.txt"), tt.ran, res.types())
			}
			if n := len(res.all("approval_request")); n != tt.approvals {
				t.Errorf("approval requests = %d, want %d", n, tt.approvals)
			}
			if s := res.all("session"); len(s) != 1 || s[0].Resumed == nil || !*s[0].Resumed {
				t.Errorf("session = %+v, want resumed", s)
			}
			if !tt.ran {
				d := res.all("decision")
				if len(d) != 1 || d[0].Decision != "deny" || !strings.Contains(d[0].Reason, "/allow") {
					t.Errorf("decision = %+v, want a deny with guidance naming /allow", d)
				}
			}
		})
	}
}

func TestRealAlwaysAllowStopsSecondPrompt(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "permissions_ask: [Bash]\n", "", bash("touch always.txt"), bash("touch always.txt"))
	res := w.run(answer(run.AlwaysAllow), "--write-back")
	if n := len(res.all("approval_request")); n != 1 {
		t.Errorf("approval requests = %d, want 1; events %v", n, res.types())
	}
	added := res.all("rule_added")
	if len(added) != 1 || added[0].List != "allow" {
		t.Fatalf("rule_added = %+v, want one allow rule", added)
	}
	data, _ := os.ReadFile(w.chat)
	if !strings.Contains(string(data), added[0].Rule) || !strings.Contains(string(data), "## User\n\nhello\n") {
		t.Errorf("chat after write-back:\n%s\nwant it to hold %s and the body", data, added[0].Rule)
	}
	if d := res.all("decision"); len(d) != 2 || d[0].Decision != "ask" || d[1].Decision != "allow" {
		t.Errorf("decisions = %+v, want ask then allow", d)
	}
}

func TestRealTwoCallsAskedInOrder(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "permissions_ask: [Bash]\n", "", fakeapi.Turn{Tools: []fakeapi.ToolCall{
		{ID: "toolu_first", Name: "Bash", Input: map[string]any{"command": "touch one.txt", "description": "one"}},
		{ID: "toolu_second", Name: "Bash", Input: map[string]any{"command": "touch two.txt", "description": "two"}},
	}})
	var order []string
	res := w.run(func(o run.Output, send func(run.Input)) {
		switch o.Type {
		case "approval_request", "approval_resolved":
			order = append(order, o.Type+":"+o.ID)
		}
		if o.Type == "approval_request" {
			go func() {
				time.Sleep(100 * time.Millisecond)
				send(run.Input{Type: "approval_response", ID: o.ID, Decision: run.AllowOnce})
			}()
		}
	})
	want := []string{"approval_request:toolu_first", "approval_resolved:toolu_first", "approval_request:toolu_second", "approval_resolved:toolu_second"}
	if !slices.Equal(order, want) {
		t.Errorf("order = %v, want %v", order, want)
	}
	if !w.exists("one.txt") || !w.exists("two.txt") {
		t.Errorf("one.txt %v two.txt %v, want both; events %v", w.exists("one.txt"), w.exists("two.txt"), res.types())
	}
}

func auditRows(t *testing.T, w *world) []audit.Entry {
	t.Helper()
	db, err := audit.Open(w.auditDB)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(context.Background(), audit.Query{})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
