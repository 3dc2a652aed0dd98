package run_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"sync"
	"testing"
	"time"

	"vibing/internal/run"
)

// liveBackend is a Prompter: every message asks about one Bash call, then
// ends with a result; the process lives until EndInput.
type liveBackend struct {
	events  chan run.Event
	mu      sync.Mutex
	prompts []string
	ended   bool
	verdict map[string]run.Verdict
}

func (b *liveBackend) Start(_ context.Context, t run.Turn) (run.Conn, error) {
	b.events <- run.Event{Kind: run.KindSession, SessionID: "s-1"}
	return b, b.Prompt(t.Prompt)
}

func (b *liveBackend) Prompt(text string) error {
	b.mu.Lock()
	b.prompts = append(b.prompts, text)
	n := len(b.prompts)
	b.mu.Unlock()
	id := "t" + string(rune('0'+n))
	go func() {
		done := make(chan struct{})
		b.events <- run.Event{Kind: run.KindPermission, Permission: &run.Permission{ID: id, ToolUseID: id, Tool: "Bash",
			Input: map[string]any{"command": "ask " + text}, Reply: func(v run.Verdict) {
				b.mu.Lock()
				b.verdict[id] = v
				b.mu.Unlock()
				close(done)
			}}}
		<-done
		b.events <- run.Event{Kind: run.KindResult, SessionID: "s-1", CostUSD: 0.01, DurationMS: 5}
	}()
	return nil
}

func (b *liveBackend) EndInput() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.ended {
		b.ended = true
		close(b.events)
	}
}

func (b *liveBackend) Events() <-chan run.Event { return b.events }
func (b *liveBackend) Interrupt() error         { return nil }
func (b *liveBackend) Kill()                    {}

// grantsEngine is askBash that remembers its session grants.
type grantsEngine struct {
	askBash
	mu     *sync.Mutex
	grants *[]string
}

func (e grantsEngine) GrantSession(rule string, allow bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	*e.grants = append(*e.grants, rule)
	return nil
}

func TestLiveTurns(t *testing.T) {
	tests := []struct {
		name string
		// answer is the answer to each turn's approval
		answer run.Answer
		// early sends the second prompt before the first result (queued)
		early bool
		// prompts is how many messages the editor sends
		prompts     int
		wantReloads int
		wantGrants  []string
	}{
		{name: "two messages, each with an approval", answer: run.AllowOnce, prompts: 2, wantReloads: 1},
		{name: "a message typed during a turn waits for its result", answer: run.AllowOnce, prompts: 2, early: true, wantReloads: 1},
		{name: "one message, then stdin closes", answer: run.AllowOnce, prompts: 1},
		// the first message's grant, applied to the reloaded engine, then
		// the second message's own answer
		{name: "session grants reach the reloaded engine", answer: run.AllowForSession, prompts: 2, wantReloads: 1,
			wantGrants: []string{"Bash(ask:*)", "Bash(ask:*)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			be := &liveBackend{events: make(chan run.Event, 16), verdict: map[string]run.Verdict{}}
			var mu sync.Mutex
			var grants []string
			reloads := 0
			r := &run.Runner{Backend: be, Engine: askBash{}, ApprovalTimeout: time.Minute,
				Reload: func() (run.Reloaded, error) {
					mu.Lock()
					reloads++
					mu.Unlock()
					return run.Reloaded{Engine: grantsEngine{mu: &mu, grants: &grants}}, nil
				}}
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() { done <- r.Run(context.Background(), inR, outW); outW.Close() }()
			send := func(v any) {
				data, _ := json.Marshal(v)
				go inW.Write(append(data, '\n'))
			}
			send(run.Input{Type: "prompt", Text: "one"})
			sent := 1
			if tt.early && tt.prompts > 1 {
				time.Sleep(20 * time.Millisecond)
				send(run.Input{Type: "prompt", Text: "two"})
				sent++
			}
			var events []run.Output
			sc := bufio.NewScanner(outR)
			for sc.Scan() {
				var o run.Output
				if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
					t.Fatalf("not JSON: %s", sc.Text())
				}
				events = append(events, o)
				switch o.Type {
				case "approval_request":
					send(run.Input{Type: "approval_response", ID: o.ID, Decision: tt.answer})
				case "result":
					if sent < tt.prompts {
						send(run.Input{Type: "prompt", Text: "two"})
						sent++
					} else if o.Turn == tt.prompts {
						inW.Close()
					}
				}
			}
			if err := <-done; err != nil {
				t.Fatalf("Run() = %v, want nil once stdin closed after a result", err)
			}
			var asked, turns []int
			for _, e := range events {
				switch e.Type {
				case "approval_request":
					asked = append(asked, len(turns)+1)
				case "result":
					turns = append(turns, e.Turn)
				}
			}
			want := make([]int, tt.prompts)
			for i := range want {
				want[i] = i + 1
			}
			if !reflect.DeepEqual(turns, want) || !reflect.DeepEqual(asked, want) {
				t.Errorf("results of turns %v, approvals in turns %v; want %v for both", turns, asked, want)
			}
			for id, v := range be.verdict {
				if !v.Allow {
					t.Errorf("call %s refused (%q), want it allowed by the person's answer", id, v.Message)
				}
			}
			if !reflect.DeepEqual(be.prompts, []string{"one", "two"}[:tt.prompts]) {
				t.Errorf("backend prompts = %v", be.prompts)
			}
			if reloads != tt.wantReloads {
				t.Errorf("Reload called %d times, want %d", reloads, tt.wantReloads)
			}
			if !reflect.DeepEqual(grants, tt.wantGrants) && !(len(grants) == 0 && len(tt.wantGrants) == 0) {
				t.Errorf("grants on the reloaded engine = %v, want %v", grants, tt.wantGrants)
			}
		})
	}
}
