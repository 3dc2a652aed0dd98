package run_test

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"vibing/internal/run"
)

// longTool is a live agent running a long tool. With answers it stops the
// turn when interrupted (a cancelled result) and lives on until its input
// closes, as the claude CLI does; without, it ignores the interrupt and
// runs until it is killed.
type longTool struct {
	events   chan run.Event
	answers  bool
	mu       sync.Mutex
	killed   time.Time
	ended    bool // EndInput
	killOnce sync.Once
}

func (b *longTool) Start(context.Context, run.Turn) (run.Conn, error) { return b, nil }
func (b *longTool) Events() <-chan run.Event                          { return b.events }
func (b *longTool) Prompt(string) error                               { return nil }

func (b *longTool) Interrupt() error {
	if b.answers {
		b.events <- run.Event{Kind: run.KindResult, SessionID: "s-1", IsError: true}
	}
	return nil
}

func (b *longTool) EndInput() {
	b.mu.Lock()
	b.ended = true
	b.mu.Unlock()
	if b.answers {
		b.Kill() // it exits
	}
}

func (b *longTool) Kill() {
	b.killOnce.Do(func() {
		b.mu.Lock()
		b.killed = time.Now()
		b.mu.Unlock()
		close(b.events)
	})
}

// TestRunEnds: while a long tool runs, a signal (the context), a second
// signal (Abort) or the editor going away (stdin closes) ends the run and
// the agent: when it stopped the turn, or after the grace period if it
// does not, or at once after a second signal.
func TestRunEnds(t *testing.T) {
	const grace = 300 * time.Millisecond
	signal := func(cancel func(), _ chan struct{}, _ io.Closer) { cancel() }
	closeStdin := func(_ func(), _ chan struct{}, stdin io.Closer) { stdin.Close() }
	tests := []struct {
		name     string
		answers  bool
		stop     func(cancel func(), abort chan struct{}, stdin io.Closer)
		killedIn time.Duration // after stop, at most
	}{
		{"signal, the agent stops the turn", true, signal, grace / 2},
		{"signal, the agent does not", false, signal, grace + time.Second},
		{"stdin closed, the agent stops the turn", true, closeStdin, grace / 2},
		{"stdin closed, the agent does not", false, closeStdin, grace + time.Second},
		{"second signal", false, func(cancel func(), abort chan struct{}, _ io.Closer) { cancel(); close(abort) }, grace / 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			be := &longTool{events: make(chan run.Event, 4), answers: tt.answers}
			be.events <- run.Event{Kind: run.KindSession, SessionID: "s-1"}
			abort := make(chan struct{})
			r := &run.Runner{Backend: be, Engine: askBash{}, CancelGrace: grace, Abort: abort}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			inR, inW := io.Pipe()
			defer inW.Close()
			done := make(chan error, 1)
			go func() { done <- r.Run(ctx, inR, io.Discard) }()
			go inW.Write([]byte(`{"type":"prompt","text":"go"}` + "\n"))
			time.Sleep(50 * time.Millisecond) // the turn runs
			stopped := time.Now()
			tt.stop(cancel, abort, inW)
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("the run still runs 5 s after it was told to stop")
			}
			be.mu.Lock()
			defer be.mu.Unlock()
			if be.killed.IsZero() {
				t.Fatal("the agent was never killed")
			}
			if took := be.killed.Sub(stopped); took > tt.killedIn {
				t.Errorf("the agent was killed %s after the stop, want at most %s", took, tt.killedIn)
			}
		})
	}
}

// TestRunEndsBetweenMessages: a signal while the live agent waits for the
// next message closes its input (it exits), and the run ends with exit 0.
func TestRunEndsBetweenMessages(t *testing.T) {
	be := &longTool{events: make(chan run.Event, 4)}
	be.events <- run.Event{Kind: run.KindResult, SessionID: "s-1"}
	r := &run.Runner{Backend: be, Engine: askBash{}, CancelGrace: time.Minute}
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx, inR, outW); outW.Close() }()
	go inW.Write([]byte(`{"type":"prompt","text":"go"}` + "\n"))
	sc := bufio.NewScanner(outR)
	for sc.Scan() && !strings.Contains(sc.Text(), `"type":"result"`) {
	}
	go io.Copy(io.Discard, outR)
	cancel()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		be.mu.Lock()
		ended := be.ended
		be.mu.Unlock()
		if ended {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the agent's input was not closed after the signal")
		}
	}
	be.Kill() // the agent exits once its input closed
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run() = %v, want nil after a result", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the run still runs 5 s after the agent exited")
	}
}
