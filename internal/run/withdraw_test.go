package run_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sync"
	"testing"
	"time"

	"vibing/internal/run"
	"vibing/internal/runtest"
)

// stepper drives a Runner one event at a time: its events channel is
// unbuffered, so once send returns the runner has taken the event, and it
// handles it before it reads the next stdin line.
type stepper struct {
	t       *testing.T
	be      *chanBackend
	in      *io.PipeWriter
	out     chan run.Output
	done    chan error
	audit   *runtest.Audit
	mu      sync.Mutex
	replies map[string][]run.Verdict // by Permission.ID
	seen    []run.Output
}

func newStepper(t *testing.T) *stepper { return newStepperWith(t, askBash{}) }

func newStepperWith(t *testing.T, eng run.Engine, opts ...func(*run.Runner)) *stepper {
	s := &stepper{t: t, be: &chanBackend{events: make(chan run.Event)}, out: make(chan run.Output, 64),
		done: make(chan error, 1), audit: &runtest.Audit{}, replies: map[string][]run.Verdict{}}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s.in = inW
	r := &run.Runner{Backend: s.be, Engine: eng, Audit: s.audit, ApprovalTimeout: time.Minute}
	for _, o := range opts {
		o(r)
	}
	go func() { s.done <- r.Run(context.Background(), inR, outW); outW.Close() }()
	go func() {
		defer close(s.out)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var o run.Output
			if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
				t.Errorf("stdout line is not JSON: %q", sc.Text())
				continue
			}
			s.out <- o
		}
	}()
	s.write(`{"type":"prompt","text":"hi"}`)
	t.Cleanup(func() { inW.Close() })
	return s
}

func (s *stepper) write(line string) {
	if _, err := fmt.Fprintln(s.in, line); err != nil {
		s.t.Fatalf("stdin: %v", err)
	}
}

func (s *stepper) answer(id string, decision run.Answer) {
	s.write(fmt.Sprintf(`{"type":"approval_response","id":%q,"decision":%q}`, id, decision))
}

// ask sends a permission request; commands starting with "ask" are asked.
func (s *stepper) ask(id, cmd string) {
	s.be.events <- run.Event{Kind: run.KindPermission, Permission: &run.Permission{ID: "req-" + id, ToolUseID: id,
		Tool: "Bash", Input: map[string]any{"command": cmd}, Reply: func(v run.Verdict) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.replies["req-"+id] = append(s.replies["req-"+id], v)
		}}}
}

func (s *stepper) withdraw(requestID string) {
	s.be.events <- run.Event{Kind: run.KindWithdraw, RequestID: requestID}
}

// next returns the next stdout event of type typ, keeping the others seen.
func (s *stepper) next(typ string) run.Output {
	s.t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case o, ok := <-s.out:
			if !ok {
				s.t.Fatalf("stdout ended waiting for %s; seen %v", typ, s.types())
			}
			s.seen = append(s.seen, o)
			if o.Type == typ {
				return o
			}
		case <-timeout:
			s.t.Fatalf("no %s event within 5 s; seen %v", typ, s.types())
		}
	}
}

// finish ends the turn with a result and returns every event seen.
func (s *stepper) finish() []run.Output {
	s.t.Helper()
	s.be.events <- run.Event{Kind: run.KindResult, SessionID: "s1"}
	close(s.be.events)
	for o := range s.out {
		s.seen = append(s.seen, o)
	}
	if err := <-s.done; err != nil {
		s.t.Errorf("Run() = %v, want nil", err)
	}
	return s.seen
}

func (s *stepper) types() []string {
	var out []string
	for _, o := range s.seen {
		out = append(out, o.Type+":"+o.ID)
	}
	return out
}

func (s *stepper) replyCount(requestID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.replies[requestID])
}

func count(evs []run.Output, typ, id string) int {
	n := 0
	for _, o := range evs {
		if o.Type == typ && o.ID == id {
			n++
		}
	}
	return n
}

func TestWithdraw(t *testing.T) {
	const withdrawn = "ask_denied: withdrawn by the agent"
	tests := []struct {
		name string
		// steps drive the runner; a1 is being asked when they start.
		steps func(s *stepper)
		// replies wanted, by request id
		replies map[string]int
		// approval_resolved events wanted for a1 and its decision/by
		resolved    int
		decision    string
		by          string
		audit       []string
		noticeCount int
	}{
		{
			name: "the request being asked",
			steps: func(s *stepper) {
				s.withdraw("req-a1")
			},
			replies: map[string]int{"req-a1": 0}, resolved: 1, decision: run.Withdrawn, by: run.ByAgent,
			audit: []string{withdrawn},
		},
		{
			name: "an answer after the withdrawal is refused",
			steps: func(s *stepper) {
				s.withdraw("req-a1")
				s.answer("a1", run.AllowOnce)
				s.next("notice")
			},
			replies: map[string]int{"req-a1": 0}, resolved: 1, decision: run.Withdrawn, by: run.ByAgent,
			audit: []string{withdrawn}, noticeCount: 1,
		},
		{
			name: "a withdrawal after the answer is ignored",
			steps: func(s *stepper) {
				s.answer("a1", run.AllowOnce)
				s.next("approval_resolved")
				s.withdraw("req-a1")
			},
			replies: map[string]int{"req-a1": 1}, resolved: 1, decision: run.AllowOnce.String(), by: run.ByUser,
			audit: []string{"ask_approved: approved by the person (allow_once)"},
		},
		{
			name: "unknown and empty ids are ignored",
			steps: func(s *stepper) {
				s.withdraw("req-nope")
				s.withdraw("")
				s.withdraw("a1") // the tool_use id is not the request id
				s.answer("a1", run.DenyOnce)
				s.next("approval_resolved")
			},
			replies: map[string]int{"req-a1": 1}, resolved: 1, decision: run.DenyOnce.String(), by: run.ByUser,
			audit: []string{"ask_denied: User denied execution of Bash (ask one)"},
		},
		{
			name: "a queued request is dropped without being asked",
			steps: func(s *stepper) {
				s.ask("a2", "ask two")
				s.ask("a3", "ls")
				s.withdraw("req-a2")
				s.answer("a1", run.AllowOnce)
				s.next("approval_resolved")
			},
			replies: map[string]int{"req-a1": 1, "req-a2": 0, "req-a3": 1}, resolved: 1, decision: run.AllowOnce.String(), by: run.ByUser,
			audit: []string{"ask_approved: approved by the person (allow_once)", "allow: "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStepper(t)
			s.ask("a1", "ask one")
			if req := s.next("approval_request"); req.ID != "a1" {
				t.Fatalf("approval_request = %+v, want a1", req)
			}
			tt.steps(s)
			evs := s.finish()
			if n := count(evs, "approval_resolved", "a1"); n != tt.resolved {
				t.Errorf("approval_resolved for a1: %d, want %d; events %v", n, tt.resolved, s.types())
			}
			for _, o := range evs {
				if o.Type == "approval_resolved" && (o.Decision != tt.decision || o.By != tt.by) {
					t.Errorf("approval_resolved = %+v, want decision %s by %s", o, tt.decision, tt.by)
				}
			}
			for id, want := range tt.replies {
				if got := s.replyCount(id); got != want {
					t.Errorf("replies to %s = %d, want %d", id, got, want)
				}
			}
			if n := count(evs, "approval_request", "a2") + count(evs, "decision", "a2"); n != 0 {
				t.Errorf("a withdrawn queued request was decided or asked; events %v", s.types())
			}
			if got := s.audit.Outcomes(); !reflect.DeepEqual(got, tt.audit) {
				t.Errorf("audit = %q, want %q", got, tt.audit)
			}
			if n := count(evs, "notice", ""); n != tt.noticeCount {
				t.Errorf("notices = %d, want %d; events %v", n, tt.noticeCount, s.types())
			}
		})
	}
}
