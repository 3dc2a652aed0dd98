package claude_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"vibing/internal/claude"
	"vibing/internal/run"
)

// responses counts the control responses the fake received for request id.
func (tu *turn) responses(id string) int {
	n := 0
	for _, m := range tu.log {
		if m["type"] != "control_response" {
			continue
		}
		if resp, _ := m["response"].(map[string]any); resp["request_id"] == id {
			n++
		}
	}
	return n
}

func (tu *turn) auditRows() []string { return tu.audit.Outcomes() }

func TestCancelRequestWithdrawsTheAskedApproval(t *testing.T) {
	tests := []struct{ name, send string }{
		{"hook_callback", "send_hook"},
		{"can_use_tool", "send_canuse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			script := `
init
prompt
tool w1 Bash {"command":"ask deploy"}
` + tt.send + ` w1 Bash {"command":"ask deploy"}
cancel w1
tool w2 Bash {"command":"ls"}
hook w2 Bash {"command":"ls"}
text Stopped deploying.
result
wait_eof
`
			start := time.Now()
			// Nobody answers: only the withdrawal can close the approval
			// before the 10 s timeout.
			tu := (&turn{t: t, script: script, timeout: 10 * time.Second}).run()
			if tu.err != nil {
				t.Fatalf("Run() = %v; events %v", tu.err, tu.types())
			}
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("run took %s: the withdrawn approval waited for its timeout", el)
			}
			if req := tu.first("approval_request"); req.ID != "w1" {
				t.Errorf("approval_request = %+v, want w1", req)
			}
			res := tu.first("approval_resolved")
			if res.ID != "w1" || res.Decision != run.Withdrawn || res.By != run.ByAgent {
				t.Errorf("approval_resolved = %+v, want w1 withdrawn by agent", res)
			}
			if n := tu.count("approval_resolved"); n != 1 {
				t.Errorf("approval_resolved events = %d, want 1", n)
			}
			if n := tu.responses("req-w1"); n != 0 {
				t.Errorf("the withdrawn request got %d answers, want none", n)
			}
			if d, _ := hookDecision(tu.answers()["req-w2"]); d != "allow" {
				t.Errorf("w2 answered %q, want allow: the run goes on", d)
			}
			want := []string{"ask_denied: withdrawn by the agent", "allow: mode default"}
			if got := tu.auditRows(); !reflect.DeepEqual(got, want) {
				t.Errorf("audit = %q, want %q", got, want)
			}
			if tu.count("result") != 1 || tu.count("error") != 0 || tu.count("notice") != 0 {
				t.Errorf("events %v, want one result, no error, no notice", tu.types())
			}
			tu.groupGone()
		})
	}
}

func TestCancelRequestDropsAQueuedApproval(t *testing.T) {
	// q1 is asked, q2 waits behind it; the CLI withdraws q2, then q1.
	const script = `
init
prompt
send_hook q1 Bash {"command":"ask one"} ; q2 Bash {"command":"ask two"}
cancel q2
cancel q1
hook q3 Bash {"command":"ls"}
result
wait_eof
`
	tu := (&turn{t: t, script: script, timeout: 10 * time.Second}).run()
	if tu.err != nil {
		t.Fatalf("Run() = %v; events %v", tu.err, tu.types())
	}
	var asked, resolved, decided []string
	for _, e := range tu.events {
		switch e.Type {
		case "approval_request":
			asked = append(asked, e.ID)
		case "approval_resolved":
			resolved = append(resolved, e.ID+" "+e.Decision+" by "+e.By)
		case "decision":
			decided = append(decided, e.ID)
		}
	}
	if want := []string{"q1"}; !reflect.DeepEqual(asked, want) {
		t.Errorf("asked %v, want %v (q2 was withdrawn while queued)", asked, want)
	}
	if want := []string{"q1 withdrawn by agent"}; !reflect.DeepEqual(resolved, want) {
		t.Errorf("resolved %v, want %v", resolved, want)
	}
	if want := []string{"q1", "q3"}; !reflect.DeepEqual(decided, want) {
		t.Errorf("decisions for %v, want %v", decided, want)
	}
	for _, id := range []string{"req-q1", "req-q2"} {
		if n := tu.responses(id); n != 0 {
			t.Errorf("withdrawn %s got %d answers, want none", id, n)
		}
	}
	if d, _ := hookDecision(tu.answers()["req-q3"]); d != "allow" {
		t.Errorf("q3 answered %q, want allow", d)
	}
	want := []string{"ask_denied: withdrawn by the agent", "allow: mode default"}
	if got := tu.auditRows(); !reflect.DeepEqual(got, want) {
		t.Errorf("audit = %q, want %q", got, want)
	}
}

func TestCancelRequestForUnknownIDIsIgnored(t *testing.T) {
	// "nope" was never asked; u1 was answered before the CLI cancelled it.
	const script = `
init
prompt
cancel nope
hook u1 Bash {"command":"ls"}
cancel u1
hook u2 Bash {"command":"ls -l"}
result
wait_eof
`
	tu := (&turn{t: t, script: script, timeout: 5 * time.Second}).run()
	if tu.err != nil {
		t.Fatalf("Run() = %v; events %v", tu.err, tu.types())
	}
	want := []string{"session", "decision", "tool_result", "decision", "tool_result", "result"}
	if got := tu.types(); !reflect.DeepEqual(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	for _, id := range []string{"req-u1", "req-u2"} {
		if n := tu.responses(id); n != 1 {
			t.Errorf("%s answered %d times, want once", id, n)
		}
	}
	if got := tu.audit.Decisions(); !reflect.DeepEqual(got, []string{"allow", "allow"}) {
		t.Errorf("audit = %v, want [allow allow]", got)
	}
}

// TestCancelRequestRacesTheAnswer has the person answer at once while the
// CLI withdraws the request: whichever wins, there is exactly one outcome.
func TestCancelRequestRacesTheAnswer(t *testing.T) {
	outcomes := map[string]int{}
	for i := range 12 {
		script := `
init
prompt
send_hook r1 Bash {"command":"ask race"}
sleep ` + []string{"0", "1", "2", "5"}[i%4] + `
cancel r1
sleep 200
result
wait_eof
`
		tu := (&turn{t: t, script: script, respond: answerWith(run.AllowOnce, ""), timeout: 10 * time.Second}).run()
		if tu.err != nil {
			t.Fatalf("run %d: Run() = %v; events %v", i, tu.err, tu.types())
		}
		if n := tu.count("approval_resolved"); n != 1 {
			t.Fatalf("run %d: approval_resolved events = %d, want exactly 1; events %v", i, n, tu.types())
		}
		res := tu.first("approval_resolved")
		rows := tu.auditRows()
		answers := tu.responses("req-r1")
		switch {
		case res.Decision == run.Withdrawn && res.By == run.ByAgent:
			if answers != 0 {
				t.Errorf("run %d: withdrawn, yet the CLI got %d answers", i, answers)
			}
			if !reflect.DeepEqual(rows, []string{"ask_denied: withdrawn by the agent"}) {
				t.Errorf("run %d: audit = %q, want one withdrawn row", i, rows)
			}
		case res.Decision == run.AllowOnce.String() && res.By == run.ByUser:
			// The answer won in the runner. It reached the CLI unless the
			// cancel was read first; never twice.
			if answers > 1 {
				t.Errorf("run %d: the CLI got %d answers, want at most 1", i, answers)
			}
			if !reflect.DeepEqual(rows, []string{"ask_approved: approved by the person (allow_once)"}) {
				t.Errorf("run %d: audit = %q, want one approved row", i, rows)
			}
		default:
			t.Errorf("run %d: approval_resolved = %+v, want withdrawn by agent or allow_once by user", i, res)
		}
		outcomes[res.Decision]++
	}
	t.Logf("outcomes: %v", outcomes)
}

// TestReplyAfterCancelRequestIsNotSent drives the backend directly: an
// answer given after the CLI withdrew the request never reaches the CLI, and
// a second answer to the same request is dropped.
func TestReplyAfterCancelRequestIsNotSent(t *testing.T) {
	const script = `
init
prompt
send_hook x1 Bash {"command":"ask one"}
cancel x1
send_hook x2 Bash {"command":"ls"}
await x2
result
wait_eof
`
	dir := t.TempDir()
	scriptPath, logPath := filepath.Join(dir, "script"), filepath.Join(dir, "log")
	if err := os.WriteFile(scriptPath, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &claude.Claude{Bin: fakeBin, Env: []string{"FAKECLAUDE_SCRIPT=" + scriptPath, "FAKECLAUDE_LOG=" + logPath}, InitTimeout: 5 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := c.Start(ctx, run.Turn{Prompt: "hi", Cwd: dir})
	if err != nil {
		t.Fatalf("Start() = %v", err)
	}
	defer conn.Kill()
	perms := map[string]*run.Permission{}
	var kinds []run.Kind
	for ev := range conn.Events() {
		kinds = append(kinds, ev.Kind)
		switch ev.Kind {
		case run.KindPermission:
			perms[ev.Permission.ID] = ev.Permission
			if ev.Permission.ID == "req-x2" {
				// x1 is answered first: were it written, the fake would log it before x2's.
				ev.Permission.Reply(run.Verdict{Allow: true})
				ev.Permission.Reply(run.Verdict{Message: "second answer"})
			}
		case run.KindWithdraw:
			if ev.RequestID != "req-x1" || perms["req-x1"] == nil {
				t.Fatalf("withdraw %q, want req-x1 after its request", ev.RequestID)
			}
			perms["req-x1"].Reply(run.Verdict{Allow: true})
		case run.KindResult:
			conn.(run.Prompter).EndInput()
		case run.KindError:
			t.Fatalf("backend error: %s", ev.Message)
		}
	}
	want := []run.Kind{run.KindSession, run.KindPermission, run.KindWithdraw, run.KindPermission, run.KindToolResult, run.KindResult}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("events = %v, want %v", kinds, want)
	}
	tu := &turn{t: t}
	data, _ := os.ReadFile(logPath)
	tu.log = parseLog(data)
	if n := tu.responses("req-x1"); n != 0 {
		t.Errorf("withdrawn req-x1 got %d answers, want none", n)
	}
	if n := tu.responses("req-x2"); n != 1 {
		t.Errorf("req-x2 got %d answers, want exactly 1", n)
	}
	if d, _ := hookDecision(tu.answers()["req-x2"]); d != "allow" {
		t.Errorf("req-x2 answered %q, want the first answer (allow)", d)
	}
}
