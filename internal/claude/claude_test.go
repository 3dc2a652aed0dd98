package claude_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"vibing/internal/claude"
	"vibing/internal/run"
)

func TestArgs(t *testing.T) {
	tests := []struct {
		name string
		turn run.Turn
		want []string
	}{
		{"fresh", run.Turn{}, []string{"--output-format", "stream-json", "--input-format", "stream-json", "--verbose", "--include-partial-messages",
			"--permission-prompt-tool", "stdio", "--permission-mode", "default"}},
		{"plan resumed model", run.Turn{Mode: "plan", SessionID: "abc", Model: "opus"}, []string{"--output-format", "stream-json",
			"--input-format", "stream-json", "--verbose", "--include-partial-messages", "--permission-prompt-tool", "stdio", "--permission-mode", "plan",
			"--resume=abc", "--model", "opus"}},
		{"fork", run.Turn{SessionID: "abc", ForkSession: true}, []string{"--output-format", "stream-json",
			"--input-format", "stream-json", "--verbose", "--include-partial-messages", "--permission-prompt-tool", "stdio", "--permission-mode", "default",
			"--resume=abc", "--fork-session"}},
		{"bypass is never passed on", run.Turn{Mode: "bypassPermissions", DisallowedTools: []string{"WebFetch", "Bash"}},
			[]string{"--output-format", "stream-json", "--input-format", "stream-json", "--verbose", "--include-partial-messages",
				"--permission-prompt-tool", "stdio", "--permission-mode", "default", "--disallowedTools", "WebFetch,Bash"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := claude.Args(tt.turn)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Args(%+v) = %q, want %q", tt.turn, got, tt.want)
			}
			if slices.Contains(got, "--allowedTools") {
				t.Errorf("Args(%+v) passes --allowedTools", tt.turn)
			}
		})
	}
}

const basic = `
init
prompt
text Working on it.
tool t1 Bash {"command":"ls"}
hook t1 Bash {"command":"ls"}
tool t2 Bash {"command":"deny me"}
hook t2 Bash {"command":"deny me"}
canuse t3 Bash {"command":"echo hi"}
result
wait_eof
`

func TestProtocolAllowDeny(t *testing.T) {
	tu := (&turn{t: t, script: basic}).run()
	if tu.err != nil {
		t.Fatalf("Run() = %v, want nil; events %v", tu.err, tu.types())
	}
	want := []string{"session", "text", "tool_use", "decision", "tool_result", "tool_use", "decision", "tool_result", "decision", "tool_result", "result"}
	if got := tu.types(); !reflect.DeepEqual(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	// the CLI was started with the gating flags and asked to call us for every tool
	args := tu.log[0]["args"].([]any)
	joined := strings.Trim(strings.Join(strings.Fields(strings.Trim(jsonOf(args), "[]")), " "), " ")
	for _, f := range []string{`"--permission-prompt-tool","stdio"`, `"--permission-mode","default"`, `"--input-format","stream-json"`} {
		if !strings.Contains(joined, f) {
			t.Errorf("args %s lack %s", joined, f)
		}
	}
	var init map[string]any
	for _, m := range tu.log {
		if m["type"] == "control_request" {
			init = m
			break
		}
	}
	hooks := jsonOf(init["request"])
	if !strings.Contains(hooks, `"PreToolUse":[{"hookCallbackIds":["vibing_pre_tool_use"],"matcher":null`) {
		t.Errorf("initialize = %s, want a PreToolUse hook for all tools", hooks)
	}
	ans := tu.answers()
	if d, _ := hookDecision(ans["req-t1"]); d != "allow" {
		t.Errorf("hook t1 answer = %v, want allow", ans["req-t1"])
	}
	if d, r := hookDecision(ans["req-t2"]); d != "deny" || r != "Denied by Bash(deny:*)." {
		t.Errorf("hook t2 answer = %q %q, want deny with the pipeline's reason", d, r)
	}
	can := ans["req-t3"]
	if can["behavior"] != "allow" || jsonOf(can["updatedInput"]) != `{"command":"echo hi"}` {
		t.Errorf("can_use_tool answer = %v, want allow with updatedInput", can)
	}
	if _, ok := can["updatedPermissions"]; ok {
		t.Errorf("can_use_tool answer echoes permission suggestions: %v", can)
	}
	if got, want := tu.audit.Decisions(), []string{"allow", "deny", "allow"}; !reflect.DeepEqual(got, want) {
		t.Errorf("audit = %v, want %v", got, want)
	}
	res := tu.first("result")
	if res.SessionID != "fake-session-0001" || *res.IsError || *res.CostUSD != 0.0012 || *res.DurationMS != 42 {
		t.Errorf("result = %+v", res)
	}
	tu.groupGone()
}

// TestHookCwdReachesEngine checks that the folder the CLI's shell is in
// (the hook input's "cwd") is what the call is decided in, and that a
// can_use_tool request, which names no folder, is decided with none.
func TestHookCwdReachesEngine(t *testing.T) {
	tu := (&turn{t: t, script: `
init
prompt
hook t1 Bash {"command":"cd sub"}
cwd /proj/sub
hook t2 Bash {"command":"cat x"}
canuse t3 Bash {"command":"cat y"}
result
wait_eof
`}).run()
	if tu.err != nil {
		t.Fatalf("Run() = %v, want nil; events %v", tu.err, tu.types())
	}
	if got, want := tu.engine.cwds, []string{"", "/proj/sub", ""}; !reflect.DeepEqual(got, want) {
		t.Errorf("the engine decided in %q, want %q", got, want)
	}
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

// answerWith answers every approval request with decision (and rule).
func answerWith(decision run.Answer, rule string) func(run.Output, func(run.Input)) {
	return func(o run.Output, send func(run.Input)) {
		if o.Type == "approval_request" {
			go send(run.Input{Type: "approval_response", ID: o.ID, Decision: decision, Rule: rule})
		}
	}
}

func TestApprovals(t *testing.T) {
	const script = `
init
prompt
hook a1 Bash {"command":"ask npm install"}
result
wait_eof
`
	tests := []struct {
		name     string
		answer   run.Answer
		rule     string
		allow    bool
		reason   string
		audit    string
		extra    string     // event type that must appear
		resolved run.Answer // approval_resolved decision
	}{
		{"allow once", run.AllowOnce, "", true, "", "ask_approved", "", run.AllowOnce},
		{"deny once", run.DenyOnce, "", false, "User denied execution of Bash (ask npm install)", "ask_denied", "", run.DenyOnce},
		{"allow for session", run.AllowForSession, "", true, "", "ask_approved", "session_grant", run.AllowForSession},
		{"deny for session", run.DenyForSession, "", false, "User denied execution of Bash (ask npm install)", "ask_denied", "session_grant", run.DenyForSession},
		{"always allow", run.AlwaysAllow, "", true, "", "ask_approved", "rule_added", run.AlwaysAllow},
		{"always deny", run.AlwaysDeny, "", false, "User denied execution of Bash (ask npm install)", "ask_denied", "rule_added", run.AlwaysDeny},
		// a rule that does not do is asked again (a notice), so the approval waits on: here until it times out
		{"always allow with an invalid edited rule asks again", run.AlwaysAllow, "Bash(npm", false, "Approval timed out after 5 s", "ask_timeout", "notice", run.DenyOnce},
		{"unknown answer denies", "maybe", "", false, "User denied execution of Bash (ask npm install)", "ask_denied", "notice", run.DenyOnce},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tu := (&turn{t: t, script: script, respond: answerWith(tt.answer, tt.rule), timeout: 5 * time.Second}).run()
			if tu.err != nil {
				t.Fatalf("Run() = %v; events %v", tu.err, tu.types())
			}
			req := tu.first("approval_request")
			if req.ID != "a1" || req.Tool != "Bash" || req.Rule != "Bash(ask:*)" || req.SuggestedRule != "Bash(ask npm install)" ||
				req.TimeoutS != 5 || len(req.Options) != 6 || req.Action != "tool:Bash:ask npm install" {
				t.Errorf("approval_request = %+v", req)
			}
			d, r := hookDecision(tu.answers()["req-a1"])
			if (d == "allow") != tt.allow || (!tt.allow && r != tt.reason) {
				t.Errorf("answer %s: hook = %q %q, want allow=%v %q", tt.answer, d, r, tt.allow, tt.reason)
			}
			if got := tu.audit.Decisions(); !reflect.DeepEqual(got, []string{tt.audit}) {
				t.Errorf("audit = %v, want [%s]", got, tt.audit)
			}
			by := run.ByUser
			if tt.audit == "ask_timeout" {
				by = run.ByTimeout
			}
			if res := tu.first("approval_resolved"); res.By != by || res.Decision != tt.resolved.String() {
				t.Errorf("approval_resolved = %+v, want by %s, decision %s", res, by, tt.resolved)
			}
			if tt.extra != "" && tu.count(tt.extra) != 1 {
				t.Errorf("events %v, want one %s", tu.types(), tt.extra)
			}
		})
	}
}

func TestAlwaysAllowStopsSecondPrompt(t *testing.T) {
	const script = `
init
prompt
hook a1 Bash {"command":"ask npm install"}
hook a2 Bash {"command":"ask npm install"}
result
wait_eof
`
	tu := (&turn{t: t, script: script, respond: answerWith(run.AlwaysAllow, ""), timeout: 5 * time.Second}).run()
	if n := tu.count("approval_request"); n != 1 {
		t.Errorf("approval requests = %d, want 1 (events %v)", n, tu.types())
	}
	if got := tu.first("rule_added"); got.List != "allow" || got.Rule != "Bash(ask npm install)" {
		t.Errorf("rule_added = %+v", got)
	}
	for _, id := range []string{"req-a1", "req-a2"} {
		if d, _ := hookDecision(tu.answers()[id]); d != "allow" {
			t.Errorf("%s answered %q, want allow", id, d)
		}
	}
}

func TestApprovalsOneAtATimeInOrder(t *testing.T) {
	const script = `
init
prompt
hooks q1 Bash {"command":"ask one"} ; q2 Bash {"command":"ask two"} ; q3 Bash {"command":"ls"}
result
wait_eof
`
	var order []string
	tu := (&turn{t: t, script: script, timeout: 5 * time.Second, respond: func(o run.Output, send func(run.Input)) {
		switch o.Type {
		case "approval_request", "approval_resolved":
			order = append(order, o.Type+":"+o.ID)
		}
		if o.Type == "approval_request" {
			go func() {
				time.Sleep(50 * time.Millisecond)
				send(run.Input{Type: "approval_response", ID: o.ID, Decision: run.AllowOnce})
			}()
		}
	}}).run()
	want := []string{"approval_request:q1", "approval_resolved:q1", "approval_request:q2", "approval_resolved:q2"}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("approval order = %v, want %v", order, want)
	}
	if got, want := tu.audit.Decisions(), []string{"ask_approved", "ask_approved", "allow"}; !reflect.DeepEqual(got, want) {
		t.Errorf("audit = %v, want %v (q3 waits its turn)", got, want)
	}
}

func TestApprovalTimeout(t *testing.T) {
	const script = `
init
prompt
hook a1 Bash {"command":"ask rm -r build"}
result
wait_eof
`
	start := time.Now()
	tu := (&turn{t: t, script: script, timeout: time.Second}).run()
	if tu.err != nil {
		t.Fatalf("Run() = %v", tu.err)
	}
	if el := time.Since(start); el < time.Second || el > 5*time.Second {
		t.Errorf("run took %s, want about the 1 s timeout", el)
	}
	d, r := hookDecision(tu.answers()["req-a1"])
	if d != "deny" || r != "Approval timed out after 1 s" {
		t.Errorf("hook = %q %q, want deny: Approval timed out after 1 s", d, r)
	}
	if res := tu.first("approval_resolved"); res.By != run.ByTimeout {
		t.Errorf("approval_resolved = %+v, want by timeout", res)
	}
	if got := tu.audit.Decisions(); !reflect.DeepEqual(got, []string{"ask_timeout"}) {
		t.Errorf("audit = %v", got)
	}
}

func TestCancelDuringApproval(t *testing.T) {
	const script = `
init
prompt
spawn
hook a1 Bash {"command":"ask deploy"}
wait_interrupt
wait_eof
`
	tu := (&turn{t: t, script: script, timeout: 10 * time.Second, respond: func(o run.Output, send func(run.Input)) {
		if o.Type == "approval_request" {
			go send(run.Input{Type: "cancel"})
		}
	}}).run()
	// The CLI answers the interrupt with a result and lives on for the
	// chat's next message: the turn ends cancelled, the run does not fail.
	if tu.err != nil {
		t.Fatalf("Run() = %v after a cancel the CLI acknowledged, want nil", tu.err)
	}
	if res := tu.first("approval_resolved"); res.By != run.ByCancel {
		t.Errorf("approval_resolved = %+v, want by cancel", res)
	}
	if d, _ := hookDecision(tu.answers()["req-a1"]); d != "deny" {
		t.Errorf("hook answered %q after cancel, want deny", d)
	}
	if n := tu.count("result"); n != 1 || tu.count("error") != 0 {
		t.Errorf("events %v, want exactly one result and no error", tu.types())
	}
	if res := tu.first("result"); !res.Cancelled || res.IsError == nil || !*res.IsError {
		t.Errorf("result = %+v, want cancelled and is_error", res)
	}
	interrupted := false
	for _, m := range tu.log {
		if m["type"] == "control_request" && strings.Contains(jsonOf(m), `"interrupt"`) {
			interrupted = true
		}
	}
	if !interrupted {
		t.Error("no interrupt control request reached the CLI")
	}
	tu.groupGone()
}

func TestStdinClosedEarlyDenies(t *testing.T) {
	const script = `
init
prompt
sleep 200
hook a1 Bash {"command":"ask deploy"}
hook a2 Bash {"command":"ls"}
result
wait_eof
`
	tu := &turn{t: t, script: script, timeout: 10 * time.Second}
	// The prompt is the only line: the pipe closes right after it.
	tu.respond = func(o run.Output, send func(run.Input)) {}
	tu.closeAfterPrompt = true
	tu.run()
	if tu.err != nil {
		t.Fatalf("Run() = %v; events %v", tu.err, tu.types())
	}
	if d, why := hookDecision(tu.answers()["req-a1"]); d != "deny" || !strings.Contains(why, "editor is gone") {
		t.Errorf("ask with the editor gone answered %q (%q), want a deny that says the editor is gone", d, why)
	}
	if d, _ := hookDecision(tu.answers()["req-a2"]); d != "allow" {
		t.Errorf("allowed call answered %q, want allow", d)
	}
}

func TestReliability(t *testing.T) {
	tests := []struct {
		name   string
		script string
		cancel bool
		want   string // in the error message
	}{
		{"crash mid-turn", "init\nprompt\nspawn\ntext half\ncrash\n", false, "without a result"},
		{"non-zero exit", "init\nprompt\nstderr boom: no credit\nexit 3\n", false, "exit status 3"},
		{"garbage", "init\nprompt\nspawn\ngarbage\nwait_eof\n", false, "not stream-json"},
		{"10 MB line", "init\nprompt\nspawn\nbigline 10485760\nwait_eof\n", false, "longer than the limit"},
		{"partial line", "init\nprompt\npartial\nexit 0\n", false, "middle of an output line"},
		{"hang then cancel", "init\nprompt\nspawn\nhang\n", true, "cancelled"},
		{"initialize refused", "init_error\nwait_eof\n", false, "initialize"},
		{"dies before initialize", "exit 1\n", false, "initialize"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tu := &turn{t: t, script: tt.script, timeout: 5 * time.Second}
			if tt.cancel {
				tu.respond = func(o run.Output, send func(run.Input)) {
					if o.Type == "session" {
						go func() { time.Sleep(100 * time.Millisecond); send(run.Input{Type: "cancel"}) }()
					}
				}
			}
			start := time.Now()
			tu.run()
			if tu.err == nil {
				t.Fatalf("Run() = nil, want an error; events %v", tu.types())
			}
			if n := tu.count("error"); n != 1 {
				t.Fatalf("events %v, want exactly one error", tu.types())
			}
			if msg := tu.first("error").Message; !strings.Contains(msg, tt.want) {
				t.Errorf("error = %q, want it to mention %q", msg, tt.want)
			}
			if tu.count("result") != 0 {
				t.Errorf("events %v: a result after a failure", tu.types())
			}
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("run took %s", el)
			}
			tu.groupGone()
		})
	}
}
