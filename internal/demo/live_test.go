package demo_test

import (
	"context"
	"strings"
	"testing"

	"vibing/internal/demo"
	"vibing/internal/run"
)

// TestConversation: one demo agent answers every message of a chat, and
// each message asks the person for what their answers so far do not cover
// (SPEC §13: approvals on every message, not only the first).
func TestConversation(t *testing.T) {
	tests := []struct {
		name    string
		prompts []string
		answers map[string]run.Answer
		// asked is how many approvals each message asks
		asked []int
		// hello holds what hello.py contains after the conversation
		hello []string
	}{
		{name: "tour, then again", prompts: []string{tourPrompt, "again"}, asked: []int{4, 3},
			hello: []string{`greet("vibing")`, `"Hi again, "`}},
		{name: "again twice: the edit goes back", prompts: []string{"again", "Again!"}, asked: []int{3, 3},
			hello: []string{`greet("world")`, `"Hello, "`}},
		// the first message's session grants for its two commands cover
		// the second message's: only its edit asks
		{name: "session grants last to the next message", prompts: []string{"again", "again"},
			answers: map[string]run.Answer{"Bash": run.AllowForSession}, asked: []int{3, 1}},
		{name: "three messages", prompts: []string{tourPrompt, "again", "again"}, asked: []int{4, 3, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t)
			tu := converse(t, p, tt.prompts, answers(tt.answers), runOpts{})
			if tu.err != nil {
				t.Fatalf("Run() = %v; events %v", tu.err, tu.types())
			}
			turns := tu.turns()
			if len(turns) != len(tt.prompts) {
				t.Fatalf("%d messages answered, want %d; events %v", len(turns), len(tt.prompts), tu.types())
			}
			sid := turns[0].events[0].SessionID
			for i, m := range turns {
				s, r := m.events[0], m.events[len(m.events)-1]
				if s.Type != "session" || s.Turn != i+1 || s.SessionID != sid || s.Resumed == nil || *s.Resumed {
					t.Errorf("message %d starts with %+v, want session %s, turn %d, not resumed", i+1, s, sid, i+1)
				}
				if r.Type != "result" || r.Turn != i+1 || r.SessionID != sid || r.Final || r.Cancelled || *r.IsError {
					t.Errorf("message %d ends with %+v, want the plain result of turn %d in %s", i+1, r, i+1, sid)
				}
				if got := m.count("approval_request"); got != tt.asked[i] {
					t.Errorf("message %d asked %d times, want %d; events %v", i+1, got, tt.asked[i], m.types())
				}
				for _, c := range m.calls() {
					if c.request == nil {
						continue
					}
					// asked and allowed: the call ran
					if c.resolved == nil || c.resolved.By != run.ByUser || c.isError() {
						t.Errorf("message %d, %s asked: resolved %+v, result %q; want it run", i+1, c.use.Tool, c.resolved, c.content())
					}
				}
			}
			got := p.read(t, demo.HelloFile)
			for _, want := range tt.hello {
				if !strings.Contains(got, want) {
					t.Errorf("hello.py lacks %s:\n%s", want, got)
				}
			}
			var allowed int
			for _, r := range tu.audit {
				if r.Decision == run.AuditAskApproved {
					allowed++
				}
			}
			if want := sum(tt.asked); allowed != want {
				t.Errorf("%d ask_approved audit rows, want %d", allowed, want)
			}
		})
	}
}

func sum(ns []int) int {
	t := 0
	for _, n := range ns {
		t += n
	}
	return t
}

// TestConnLive drives the demo agent without the runner: what a live
// backend owes the runner between messages.
func TestConnLive(t *testing.T) {
	start := func(t *testing.T, tu run.Turn) run.Conn {
		t.Helper()
		tu.Cwd = newProject(t).dir
		c, err := (&demo.Demo{}).Start(context.Background(), tu)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// results collects the result texts and the text streamed before each.
	type message struct{ text, result string }
	results := func(evs []run.Event) []message {
		var out []message
		var b strings.Builder
		for _, ev := range evs {
			switch ev.Kind {
			case run.KindText:
				b.WriteString(ev.Text)
			case run.KindResult:
				out = append(out, message{text: b.String(), result: ev.Text})
				b.Reset()
			}
		}
		return out
	}

	t.Run("an interrupt between messages does not stop the next", func(t *testing.T) {
		c := start(t, run.Turn{Prompt: "again"})
		evs := collect(t, c, run.Verdict{Allow: true}, func(ev run.Event) {
			if ev.Kind == run.KindResult {
				_ = c.Interrupt() // too late for this message
			}
		}, "again")
		got := results(evs)
		if len(got) != 2 || got[1].result != "(demo) done" {
			t.Errorf("results %+v, want two, the second done", got)
		}
	})
	t.Run("an interrupted message, then a whole one", func(t *testing.T) {
		c := start(t, run.Turn{Prompt: "again"})
		interrupted := false
		evs := collect(t, c, run.Verdict{Allow: true}, func(ev run.Event) {
			if ev.Kind == run.KindToolUse && !interrupted {
				interrupted = true
				_ = c.Interrupt()
			}
		}, "again")
		got := results(evs)
		if len(got) != 2 || !strings.Contains(got[0].result, "Interrupted after step 1") || got[1].result != "(demo) done" {
			t.Errorf("results %+v, want the first interrupted, the second done", got)
		}
	})
	t.Run("no message after the input ended", func(t *testing.T) {
		c := start(t, run.Turn{Prompt: "again"})
		collect(t, c, run.Verdict{Allow: true}, nil)
		if err := c.(run.Prompter).Prompt("again"); err == nil {
			t.Error("Prompt after EndInput = nil, want an error")
		}
	})
	t.Run("a killed agent takes no message", func(t *testing.T) {
		c := start(t, run.Turn{Prompt: "again"})
		c.Kill()
		collect(t, c, run.Verdict{Allow: true}, nil)
		if err := c.(run.Prompter).Prompt("again"); err == nil {
			t.Error("Prompt after Kill = nil, want an error")
		}
	})
	t.Run("a new model is named in the next reply", func(t *testing.T) {
		c := start(t, run.Turn{Prompt: "again", Model: "opus"})
		evs := collect(t, c, run.Verdict{Allow: true}, func(ev run.Event) {
			if ev.Kind == run.KindResult {
				if err := c.(run.Switcher).SetModel("haiku"); err != nil {
					t.Errorf("SetModel = %v", err)
				}
			}
		}, "again", "again")
		got := results(evs)
		if len(got) != 3 {
			t.Fatalf("results %+v, want 3", got)
		}
		for i, want := range []string{"", "model is now haiku", ""} {
			has := strings.Contains(got[i].text, "model is now")
			if has != (want != "") || !strings.Contains(got[i].text, want) {
				t.Errorf("message %d text %q, want it to name the model only when it changed (%q)", i+1, got[i].text, want)
			}
		}
	})
}
