package run_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"vibing/internal/matcher"
	"vibing/internal/run"
	"vibing/internal/session"
)

// chanBackend is an in-memory backend: the test feeds its events.
type chanBackend struct{ events chan run.Event }

func (b *chanBackend) Start(context.Context, run.Turn) (run.Conn, error) { return b, nil }
func (b *chanBackend) Events() <-chan run.Event                          { return b.events }
func (b *chanBackend) Interrupt() error                                  { return nil }
func (b *chanBackend) Kill()                                             {}

// askBash asks for commands starting with "ask", allows the rest.
type askBash struct{}

func (askBash) Decide(tool string, input map[string]any, _ string) session.Decision {
	cmd, _ := input["command"].(string)
	if len(cmd) >= 7 && cmd[:7] == "managed" {
		return session.Decision{Decision: session.Ask, Rule: "Bash(managed:*)", Source: "managed:/etc/vibing/policy.yaml", Action: "tool:Bash:" + cmd,
			NoAlways: true, NoSession: true, Limit: "the ask rule Bash(managed:*) is managed policy"}
	}
	if len(cmd) >= 3 && cmd[:3] == "ask" {
		return session.Decision{Decision: session.Ask, Rule: "Bash(ask:*)", Source: session.SourceAskList, Action: "tool:Bash:" + cmd}
	}
	return session.Decision{Decision: session.Allow, Source: session.SourceMode, Action: "tool:Bash:" + cmd}
}
func (askBash) Suggest(string, map[string]any) string { return "Bash(ask:*)" }
func (askBash) GrantSession(string, bool) error       { return nil }
func (askBash) GrantOnce(string)                      {}
func (askBash) AddRule(matcher.List, string) error    { return nil }
func (askBash) Resumed() bool                         { return false }

// start runs a Runner on a chanBackend; out receives its stdout lines.
func start(b *testing.B) (*chanBackend, *io.PipeWriter, *bufio.Scanner, chan error) {
	be := &chanBackend{events: make(chan run.Event, 1024)}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &run.Runner{Backend: be, Engine: askBash{}, ApprovalTimeout: time.Minute}
	done := make(chan error, 1)
	go func() { done <- r.Run(context.Background(), inR, outW); outW.Close() }()
	go inW.Write([]byte(`{"type":"prompt","text":"hi"}` + "\n"))
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	return be, inW, sc, done
}

// BenchmarkDecisionLatency measures the time from a permission request
// arriving at the runner to its answer reaching the backend (allow path).
func BenchmarkDecisionLatency(b *testing.B) {
	be, _, sc, _ := start(b)
	go func() {
		for sc.Scan() {
		}
	}()
	replied := make(chan struct{}, 1)
	input := map[string]any{"command": "ls"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		be.events <- run.Event{Kind: run.KindPermission, Permission: &run.Permission{Tool: "Bash", Input: input,
			Reply: func(run.Verdict) { replied <- struct{}{} }}}
		<-replied
	}
	b.StopTimer()
	close(be.events)
}

// BenchmarkApprovalRequestLatency measures the time from a permission
// request that must be asked to its approval_request line on stdout.
func BenchmarkApprovalRequestLatency(b *testing.B) {
	be, inW, sc, _ := start(b)
	input := map[string]any{"command": "ask deploy"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		be.events <- run.Event{Kind: run.KindPermission, Permission: &run.Permission{ToolUseID: fmt.Sprint("t", i), Tool: "Bash", Input: input,
			Reply: func(run.Verdict) {}}}
		for sc.Scan() {
			var o run.Output
			_ = json.Unmarshal(sc.Bytes(), &o)
			if o.Type == "approval_request" {
				break
			}
		}
		b.StopTimer()
		_, _ = fmt.Fprintf(inW, `{"type":"approval_response","id":"t%d","decision":"allow_once"}`+"\n", i)
		for sc.Scan() {
			var o run.Output
			_ = json.Unmarshal(sc.Bytes(), &o)
			if o.Type == "approval_resolved" {
				break
			}
		}
		b.StartTimer()
	}
	b.StopTimer()
	close(be.events)
}

// BenchmarkEventThroughput pushes text events through the JSON Lines path.
func BenchmarkEventThroughput(b *testing.B) {
	be, _, sc, done := start(b)
	counted := make(chan int)
	go func() {
		n := 0
		for sc.Scan() {
			n++
		}
		counted <- n
	}()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		be.events <- run.Event{Kind: run.KindText, Text: "a line of assistant text, about sixty bytes long."}
	}
	be.events <- run.Event{Kind: run.KindResult}
	close(be.events)
	<-done
	n := <-counted
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
	if n < b.N {
		b.Fatalf("got %d lines, want at least %d", n, b.N)
	}
}
