package demo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"vibing/internal/run"
)

// Defaults.
const (
	DefaultChunkDelay  = 40 * time.Millisecond // between streamed text chunks
	DefaultBashTimeout = 10 * time.Second
	DefaultMaxOutput   = 16 << 10 // bytes of tool output kept
	chunkSize          = 24       // characters per streamed text chunk (about)
)

// Demo is the scripted backend. The zero value works and streams without
// pauses (what tests want); New returns the settings the editor demo uses.
type Demo struct {
	ChunkDelay  time.Duration // pause between text chunks, so the editor shows streaming
	BashTimeout time.Duration // a Bash call is killed after this; default 10 s
	MaxOutput   int           // bytes of tool output kept; default 16 KiB
}

var _ run.Backend = (*Demo)(nil)

func init() {
	run.Register("demo", func(run.BackendOptions) (run.Backend, error) { return New(), nil })
}

// New returns a Demo with the defaults used by `vibing-agent run --backend demo`.
func New() *Demo {
	return &Demo{ChunkDelay: DefaultChunkDelay, BashTimeout: DefaultBashTimeout, MaxOutput: DefaultMaxOutput}
}

// Start begins a scripted turn in t.Cwd.
func (d *Demo) Start(ctx context.Context, t run.Turn) (run.Conn, error) {
	if t.Cwd == "" {
		return nil, fmt.Errorf("demo: the turn has no working directory")
	}
	sid := t.SessionID
	if sid == "" {
		var err error
		if sid, err = newSessionID(); err != nil {
			return nil, err
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	c := &conn{
		d: d, turn: t, sessionID: sid, ctx: cctx, cancel: cancel,
		events:    make(chan run.Event, 16),
		interrupt: make(chan struct{}),
		ids:       strings.TrimPrefix(sid, "demo-"),
	}
	go c.run()
	return c, nil
}

func newSessionID() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("demo: session id: %w", err)
	}
	return "demo-" + hex.EncodeToString(b), nil
}

// conn is one scripted turn.
type conn struct {
	d         *Demo
	turn      run.Turn
	sessionID string
	ids       string // tool_use ids are toolu_demo_<ids>_<n>
	ctx       context.Context
	cancel    context.CancelFunc
	events    chan run.Event

	interruptOnce sync.Once
	interrupt     chan struct{}
}

func (c *conn) Events() <-chan run.Event { return c.events }

// Interrupt makes the script stop after the current step.
func (c *conn) Interrupt() error {
	c.interruptOnce.Do(func() { close(c.interrupt) })
	return nil
}

// Kill stops the script at once (and any command it is running).
func (c *conn) Kill() { c.cancel() }

func (c *conn) interrupted() bool {
	select {
	case <-c.interrupt:
		return true
	default:
		return false
	}
}

// emit sends an event; false means the turn was killed.
func (c *conn) emit(ev run.Event) bool {
	if c.ctx.Err() != nil {
		return false
	}
	select {
	case c.events <- ev:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// say streams text in several chunks, as a model would.
func (c *conn) say(text string) bool {
	for i, chunk := range chunks(text, chunkSize) {
		if i > 0 && c.d.ChunkDelay > 0 {
			select {
			case <-time.After(c.d.ChunkDelay):
			case <-c.ctx.Done():
				return false
			}
		}
		if !c.emit(run.Event{Kind: run.KindText, Text: chunk}) {
			return false
		}
	}
	return true
}

// chunks splits s after spaces into pieces of about n bytes; joined they give s.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := strings.IndexByte(s[n:], ' ')
		if cut < 0 {
			break
		}
		cut += n + 1
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// ask sends the permission request and waits for the verdict; ok is false
// when the turn was killed first.
func (c *conn) ask(id, tool string, input map[string]any) (v run.Verdict, ok bool) {
	ch := make(chan run.Verdict, 1)
	reply := func(v run.Verdict) {
		select {
		case ch <- v:
		default: // Reply is called once; a second call must not block the runner
		}
	}
	// every demo command runs in a new shell in the turn's folder: a cd never lasts
	p := &run.Permission{ID: id, ToolUseID: id, Tool: tool, Input: input, Cwd: c.turn.Cwd, Reply: reply}
	if !c.emit(run.Event{Kind: run.KindPermission, Permission: p}) {
		return run.Verdict{}, false
	}
	select {
	case v := <-ch:
		return v, true
	case <-c.ctx.Done():
		return run.Verdict{}, false
	}
}

// run plays the script and closes the events channel.
func (c *conn) run() {
	defer close(c.events)
	defer c.cancel()
	start := time.Now()
	if !c.emit(run.Event{Kind: run.KindSession, SessionID: c.sessionID}) {
		return
	}
	steps := Script(c.turn.Prompt)
	calls := 0
	for i, st := range steps {
		if c.interrupted() {
			msg := fmt.Sprintf("(demo) Interrupted after step %d of %d, so I stopped here.", i, len(steps))
			if c.say("\n\n" + msg + "\n") {
				c.emit(run.Event{Kind: run.KindResult, SessionID: c.sessionID, Text: msg,
					DurationMS: time.Since(start).Milliseconds()})
			}
			return
		}
		if st.Text != "" && !c.say(st.Text) {
			return
		}
		if st.Call == nil {
			continue
		}
		calls++
		if !c.call(fmt.Sprintf("toolu_demo_%s_%d", c.ids, calls), st.Call) {
			return
		}
	}
	c.emit(run.Event{Kind: run.KindResult, SessionID: c.sessionID, Text: "(demo) done",
		DurationMS: time.Since(start).Milliseconds()})
}

// call runs one tool call through the permission request; false means the
// turn was killed.
func (c *conn) call(id string, tc *Call) bool {
	input := tc.Input(c.turn.Cwd)
	if !c.emit(run.Event{Kind: run.KindToolUse, ToolUseID: id, Tool: tc.Tool, Input: input}) {
		return false
	}
	v, ok := c.ask(id, tc.Tool, input)
	if !ok {
		return false
	}
	var content string
	isError := true
	switch {
	case !v.Allow:
		content = v.Message
		if content == "" {
			content = "Denied"
		}
	case tc.NeverRun:
		content = "demo: not executed (the demo never runs this command, even when it is allowed)"
	default:
		if v.UpdatedInput != nil {
			input = v.UpdatedInput // the person edited the call before approving it
		}
		content, isError = c.d.execute(c.ctx, c.turn, tc.Tool, input)
		if c.ctx.Err() != nil {
			return false
		}
	}
	return c.emit(run.Event{Kind: run.KindToolResult, ToolUseID: id, Tool: tc.Tool, IsError: isError, Content: content})
}
