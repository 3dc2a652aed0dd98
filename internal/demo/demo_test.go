package demo_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"vibing/internal/demo"
	"vibing/internal/frontmatter"
	"vibing/internal/run"
)

const tourPrompt = "Show me what you can do in this project."

func TestRegistered(t *testing.T) {
	be, err := run.NewBackend("demo", run.BackendOptions{})
	if err != nil {
		t.Fatalf(`NewBackend("demo") = %v`, err)
	}
	if _, ok := be.(*demo.Demo); !ok {
		t.Errorf(`NewBackend("demo") = %T, want *demo.Demo`, be)
	}
}

func TestTourAllowOnce(t *testing.T) {
	p := newProject(t)
	tu := drive(t, p, tourPrompt, answers(nil), runOpts{})
	if tu.err != nil {
		t.Fatalf("Run() = %v; events %v", tu.err, tu.types())
	}
	ask := []string{"tool_use", "decision", "approval_request", "approval_resolved", "tool_result"}
	direct := []string{"tool_use", "decision", "tool_result"}
	var want []string
	want = append(want, "session", "text")
	want = append(append(want, direct...), "text") // Read README.md: allow list
	want = append(append(want, ask...), "text")    // Edit hello.py: default mode asks
	want = append(append(want, ask...), "text")    // Bash python3 hello.py: asks
	want = append(append(want, direct...), "text") // sudo: default deny rule
	want = append(append(want, ask...), "text")    // WebFetch: ask list
	want = append(append(want, ask...), "text")    // Write hello.py: a diff to review
	want = append(want, "result")
	if got := tu.types(); !reflect.DeepEqual(got, want) {
		t.Fatalf("event types =\n%v\nwant\n%v", got, want)
	}
	if n := tu.count("text"); n <= 12 {
		t.Errorf("text events = %d, want the text streamed in many chunks", n)
	}
	if !strings.Contains(tu.text(), "demo") {
		t.Errorf("text %q does not say it is a demo", tu.text())
	}

	sid := tu.events[0].SessionID
	if !strings.HasPrefix(sid, "demo-") || len(sid) < len("demo-")+8 {
		t.Errorf("session id = %q, want demo-<random>", sid)
	}
	if last := tu.events[len(tu.events)-1]; last.SessionID != sid {
		t.Errorf("result session id = %q, want %q", last.SessionID, sid)
	}

	c := tu.calls()
	tests := []struct {
		name      string
		call      call
		tool      string
		decision  string
		isError   bool
		contains  string
		absentees string
	}{
		{"read", c[0], "Read", "allow", false, "# vibing demo project", ""},
		{"edit", c[1], "Edit", "ask", false, "has been updated", ""},
		{"bash", c[2], "Bash", "ask", false, "Hello, vibing!", ""},
		{"sudo", c[3], "Bash", "deny", true, "sudo", "not executed"},
		{"fetch", c[4], "WebFetch", "ask", false, "simulated, no network", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.call.use.Tool != tt.tool {
				t.Errorf("tool = %q, want %q", tt.call.use.Tool, tt.tool)
			}
			if tt.call.decision.Decision != tt.decision {
				t.Errorf("decision = %q (%s), want %q", tt.call.decision.Decision, tt.call.decision.Reason, tt.decision)
			}
			if tt.call.isError() != tt.isError {
				t.Errorf("is_error = %v, want %v (content %q)", tt.call.isError(), tt.isError, tt.call.content())
			}
			if !strings.Contains(tt.call.content(), tt.contains) {
				t.Errorf("content = %q, want it to contain %q", tt.call.content(), tt.contains)
			}
			if tt.absentees != "" && strings.Contains(tt.call.content(), tt.absentees) {
				t.Errorf("content = %q, must not contain %q", tt.call.content(), tt.absentees)
			}
		})
	}
	if got := c[3].decision.Source; got != "deny_list" {
		t.Errorf("sudo decision source = %q, want deny_list (default deny rules)", got)
	}
	if got := p.read(t, demo.HelloFile); !strings.Contains(got, `greet("vibing")`) || strings.Contains(got, `greet("world")`) {
		t.Errorf("hello.py after an approved edit =\n%s\nwant greet(\"vibing\")", got)
	}
	wantAudit := []string{"allow", "ask_approved", "ask_approved", "deny", "ask_approved", "ask_approved"}
	var gotAudit []string
	for _, r := range tu.audit {
		gotAudit = append(gotAudit, r.Decision)
	}
	if !reflect.DeepEqual(gotAudit, wantAudit) {
		t.Errorf("audit decisions = %v, want %v", gotAudit, wantAudit)
	}
}

func TestDenyOnceLeavesFileAlone(t *testing.T) {
	p := newProject(t)
	before := p.read(t, demo.HelloFile)
	tu := drive(t, p, tourPrompt, answers(map[string]run.Answer{"Edit": run.DenyOnce, "WebFetch": run.DenyOnce, "Write": run.DenyOnce}), runOpts{})
	if tu.err != nil {
		t.Fatalf("Run() = %v", tu.err)
	}
	if got := p.read(t, demo.HelloFile); got != before {
		t.Errorf("hello.py changed after deny_once:\n%s", got)
	}
	if w := tu.calls()[5]; !w.isError() || !strings.HasPrefix(w.content(), "User denied execution of Write (") {
		t.Errorf("denied write result = %v %q, want an error naming the denial", w.isError(), w.content())
	}
	c := tu.calls()
	edit, fetch := c[1], c[4]
	if !edit.isError() || !strings.HasPrefix(edit.content(), "User denied execution of Edit (") {
		t.Errorf("denied edit result = %v %q, want an error naming the denial", edit.isError(), edit.content())
	}
	if !fetch.isError() || strings.Contains(fetch.content(), "fetched") {
		t.Errorf("denied fetch result = %v %q, want an error and no fetch", fetch.isError(), fetch.content())
	}
	// the Bash call after the denied edit runs the program unchanged
	if !strings.Contains(c[2].content(), "Hello, world!") {
		t.Errorf("bash output %q, want the unchanged program's greeting", c[2].content())
	}
}

// fakeSudo puts a sudo on PATH that leaves a marker when it runs.
func fakeSudo(t *testing.T) (env []string, marker string) {
	t.Helper()
	bin := t.TempDir()
	marker = filepath.Join(t.TempDir(), "sudo-ran")
	script := "#!/bin/sh\ntouch '" + marker + "'\n"
	if err := os.WriteFile(filepath.Join(bin, "sudo"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"PATH=" + bin + ":" + os.Getenv("PATH")}, marker
}

func TestSudoNeverRuns(t *testing.T) {
	tests := []struct {
		name     string
		opts     runOpts
		decision string
		content  string
	}{
		{"pipeline denies", runOpts{}, "deny", "sudo"},
		{"even when allowed", runOpts{engine: allowAll{}}, "allow", "demo: not executed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t)
			env, marker := fakeSudo(t)
			tt.opts.env = env
			tu := drive(t, p, tourPrompt, answers(nil), tt.opts)
			if tu.err != nil {
				t.Fatalf("Run() = %v", tu.err)
			}
			sudo := tu.calls()[3]
			if cmd := sudo.use.Input["command"]; cmd != demo.SudoCommand {
				t.Fatalf("call 4 command = %v, want %q", cmd, demo.SudoCommand)
			}
			if sudo.decision.Decision != tt.decision || !sudo.isError() || !strings.Contains(sudo.content(), tt.content) {
				t.Errorf("sudo: decision %q, result %v %q; want %q and an error containing %q",
					sudo.decision.Decision, sudo.isError(), sudo.content(), tt.decision, tt.content)
			}
			if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the fake sudo ran (marker %s: %v)", marker, err)
			}
		})
	}
}

// TestCancelMidScript cancels the first message at its Edit approval: the
// message ends with a cancelled result (no error: the agent lives on, as the
// live path expects), nothing it was asking about ran, and the same agent
// then answers the next message, asking again.
func TestCancelMidScript(t *testing.T) {
	p := newProject(t)
	cancelled := false
	cancelAtEdit := func(req run.Output) run.Input {
		if req.Tool == "Edit" && !cancelled {
			cancelled = true
			return run.Input{Type: "cancel"}
		}
		return run.Input{Type: "approval_response", ID: req.ID, Decision: run.AllowOnce}
	}
	tu := converse(t, p, []string{tourPrompt, "again"}, cancelAtEdit, runOpts{})
	if tu.err != nil {
		t.Fatalf("Run() = %v, want nil: a cancelled message is not the end of the run", tu.err)
	}
	if n := tu.count("error"); n != 0 {
		t.Errorf("%d error events, want none; events %v", n, tu.types())
	}
	turns := tu.turns()
	if len(turns) != 2 {
		t.Fatalf("%d messages answered, want 2; events %v", len(turns), tu.types())
	}
	first, second := turns[0], turns[1]
	if n := first.count("tool_use"); n != 2 {
		t.Errorf("first message: tool_use events = %d, want 2 (the script stops after the step it was in)", n)
	}
	if !strings.Contains(first.text(), "Interrupted") {
		t.Errorf("first message: text %q does not say the demo was interrupted", first.text())
	}
	if r := first.events[len(first.events)-1]; r.Type != "result" || !r.Cancelled || r.IsError == nil || !*r.IsError || r.Final {
		t.Errorf("first message ends with %+v, want a cancelled result that is not final", r)
	}
	if r := first.calls()[1].resolved; r == nil || r.By != run.ByCancel {
		t.Errorf("edit approval resolved = %+v, want by cancel", r)
	}
	if n := second.count("approval_request"); n == 0 {
		t.Errorf("second message asked nothing; events %v", second.types())
	}
	for _, c := range second.calls() {
		if c.isError() {
			t.Errorf("second message: %s failed: %q", c.use.Tool, c.content())
		}
	}
	if r := second.events[len(second.events)-1]; r.Type != "result" || r.Cancelled || (r.IsError != nil && *r.IsError) {
		t.Errorf("second message ends with %+v, want a plain result", r)
	}
	got := p.read(t, demo.HelloFile)
	if !strings.Contains(got, `greet("world")`) {
		t.Errorf("hello.py has the edit that was cancelled at its approval:\n%s", got)
	}
	if !strings.Contains(got, `"Hi again, "`) {
		t.Errorf("hello.py lacks the second message's approved edit:\n%s", got)
	}
}

func TestAlwaysAllowNotAskedAgain(t *testing.T) {
	p := newProject(t)
	// the person keeps the suggested rules for the edit and the grep and
	// narrows the one for cat (the editor lets them edit it) to exactly
	// this command
	always := func(req run.Output) run.Input {
		m := run.Input{Type: "approval_response", ID: req.ID, Decision: run.AlwaysAllow}
		if req.Input["command"] == demo.BashCommand {
			m.Rule = "Bash(python3 hello.py)"
		}
		return m
	}
	first := drive(t, p, "Do it again", always, runOpts{})
	if first.err != nil {
		t.Fatalf("first Run() = %v", first.err)
	}
	if got := first.count("approval_request"); got != 3 {
		t.Fatalf("first run: %d approval requests, want 3; events %v", got, first.types())
	}
	if got := first.count("rule_added"); got != 3 {
		t.Errorf("first run: %d rule_added events, want 3", got)
	}
	if got := p.read(t, demo.HelloFile); !strings.Contains(got, `"Hi again, "`) {
		t.Errorf("hello.py after the first edit =\n%s", got)
	}
	doc, err := frontmatter.ReadFile(p.chat)
	if err != nil {
		t.Fatal(err)
	}
	s, err := doc.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Read(**)", "Edit(hello.py)", "Bash(python3 hello.py)", "Bash(python3 hello.py --again)"}; !reflect.DeepEqual(s.Allow, want) {
		t.Errorf("allow list after always_allow = %q, want %q", s.Allow, want)
	}

	second := drive(t, p, "again please", answers(nil), runOpts{})
	if second.err != nil {
		t.Fatalf("second Run() = %v", second.err)
	}
	want := []string{"session", "text", "tool_use", "decision", "tool_result", "text", "tool_use", "decision", "tool_result",
		"text", "tool_use", "decision", "tool_result", "text", "result"}
	if got := second.types(); !reflect.DeepEqual(got, want) {
		t.Errorf("second run events = %v, want %v (no approval)", got, want)
	}
	for i, c := range second.calls() {
		if c.decision.Decision != "allow" || c.decision.Source != "allow_list" || c.isError() {
			t.Errorf("call %d %s: decision %q from %q (error %v), want allow from allow_list",
				i, c.use.Tool, c.decision.Decision, c.decision.Source, c.isError())
		}
	}
	if got := p.read(t, demo.HelloFile); !strings.Contains(got, `"Hello, "`) {
		t.Errorf("hello.py after the second edit =\n%s\nwant the greeting toggled back", got)
	}
}

func TestResumedSession(t *testing.T) {
	p := newProject(t)
	const sid = "demo-0123456789abcdef"
	if err := frontmatter.EditFile(p.chat, func(d *frontmatter.Document) error {
		return d.Set(frontmatter.KeySessionID, sid)
	}); err != nil {
		t.Fatal(err)
	}
	before := p.read(t, demo.HelloFile)
	tu := drive(t, p, "Once again", answers(nil), runOpts{})
	if tu.err != nil {
		t.Fatalf("Run() = %v", tu.err)
	}
	if s := tu.events[0]; s.Type != "session" || s.SessionID != sid || s.Resumed == nil || !*s.Resumed {
		t.Errorf("first event = %+v, want session %s resumed", s, sid)
	}
	if n := tu.count("approval_request"); n != 0 {
		t.Errorf("%d approval requests in a resumed session, want 0 (resume_ask = deny)", n)
	}
	for _, c := range tu.calls() {
		if c.decision.Decision != "deny" || !strings.Contains(c.content(), "resumed") {
			t.Errorf("%s: decision %q, result %q; want a deny that explains resumed sessions",
				c.use.Tool, c.decision.Decision, c.content())
		}
	}
	if got := p.read(t, demo.HelloFile); got != before {
		t.Errorf("hello.py changed in a resumed session without approval:\n%s", got)
	}
	if last := tu.events[len(tu.events)-1]; last.Type != "result" || last.SessionID != sid {
		t.Errorf("last event = %+v, want result of session %s", last, sid)
	}
}

func TestScript(t *testing.T) {
	tests := []struct {
		prompt string
		calls  int
	}{
		{tourPrompt, 6},
		{"again", 3},
		{"Do it AGAIN, please.", 3},
		{"against all odds", 6},
	}
	for _, tt := range tests {
		n := 0
		for _, s := range demo.Script(tt.prompt) {
			if s.Call != nil {
				n++
			}
		}
		if n != tt.calls {
			t.Errorf("Script(%q) has %d calls, want %d", tt.prompt, n, tt.calls)
		}
	}
}

// collect reads a Conn's events, answering permissions with verdict, and
// calls after(ev) on each. After the n-th result it sends later[n] as the
// next message, or ends the input when there is none; it fails if the
// channel is not closed in time.
func collect(t *testing.T, c run.Conn, verdict run.Verdict, after func(run.Event), later ...string) []run.Event {
	t.Helper()
	var evs []run.Event
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				return evs
			}
			evs = append(evs, ev)
			if ev.Kind == run.KindPermission {
				ev.Permission.Reply(verdict)
			}
			if after != nil {
				after(ev)
			}
			if ev.Kind == run.KindResult {
				p := c.(run.Prompter)
				if len(later) == 0 {
					p.EndInput()
				} else {
					if err := p.Prompt(later[0]); err != nil {
						t.Errorf("Prompt(%q) = %v", later[0], err)
					}
					later = later[1:]
				}
			}
		case <-deadline:
			t.Fatalf("events channel not closed after 10 s; got %d events", len(evs))
		}
	}
}

func TestConnStops(t *testing.T) {
	tests := []struct {
		name string
		stop func(c run.Conn, cancel context.CancelFunc)
		// an interrupt finishes the step it is in and ends with a result
		// saying so; a kill or a cancelled context ends at once
		results    int
		wantResult bool
	}{
		{"interrupt", func(c run.Conn, _ context.CancelFunc) { _ = c.Interrupt() }, 1, true},
		{"kill", func(c run.Conn, _ context.CancelFunc) { c.Kill() }, 0, false},
		{"context", func(_ run.Conn, cancel context.CancelFunc) { cancel() }, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newProject(t).dir
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c, err := (&demo.Demo{}).Start(ctx, run.Turn{Prompt: tourPrompt, Cwd: dir})
			if err != nil {
				t.Fatal(err)
			}
			uses, results := 0, 0
			evs := collect(t, c, run.Verdict{Allow: true}, func(ev run.Event) {
				switch ev.Kind {
				case run.KindToolUse:
					uses++
					if uses == 1 {
						tt.stop(c, cancel) // while the first call waits for its verdict
					}
				case run.KindToolResult:
					results++
				}
			})
			if uses != 1 || results != tt.results {
				t.Errorf("tool uses = %d, results = %d; want 1 and %d", uses, results, tt.results)
			}
			last := evs[len(evs)-1]
			if tt.wantResult {
				if last.Kind != run.KindResult || !strings.Contains(last.Text, "Interrupted") {
					t.Errorf("last event = %+v, want a result saying it was interrupted", last)
				}
			} else if last.Kind == run.KindResult {
				t.Errorf("last event = %+v, want the turn to end without a result", last)
			}
		})
	}
}

// TestConnResumesSessionID: a resumed session keeps its id, in every
// message's result, and tool_use ids stay unique over the messages (the
// runner decides a call once per id).
func TestConnResumesSessionID(t *testing.T) {
	dir := newProject(t).dir
	c, err := (&demo.Demo{}).Start(context.Background(), run.Turn{Prompt: "again", Cwd: dir, SessionID: "demo-abc"})
	if err != nil {
		t.Fatal(err)
	}
	evs := collect(t, c, run.Verdict{Message: "no"}, nil, "again")
	if evs[0].Kind != run.KindSession || evs[0].SessionID != "demo-abc" {
		t.Errorf("first event = %+v, want session demo-abc", evs[0])
	}
	results, ids := 0, map[string]bool{}
	for _, ev := range evs {
		switch ev.Kind {
		case run.KindResult:
			results++
			if ev.SessionID != "demo-abc" {
				t.Errorf("result %d = %+v, want result of demo-abc", results, ev)
			}
		case run.KindToolUse:
			if ids[ev.ToolUseID] {
				t.Errorf("tool_use id %s used twice", ev.ToolUseID)
			}
			ids[ev.ToolUseID] = true
		case run.KindSession:
			if ev.SessionID != "demo-abc" {
				t.Errorf("session event %+v, want demo-abc", ev)
			}
		}
	}
	if results != 2 || len(ids) != 2*len(calls("again")) {
		t.Errorf("%d results and %d tool calls, want 2 and %d", results, len(ids), 2*len(calls("again")))
	}
	if last := evs[len(evs)-1]; last.Kind != run.KindResult {
		t.Errorf("last event = %+v, want the second result", last)
	}
}

// calls counts the tool calls of prompt's script.
func calls(prompt string) []*demo.Call {
	var out []*demo.Call
	for _, s := range demo.Script(prompt) {
		if s.Call != nil {
			out = append(out, s.Call)
		}
	}
	return out
}
