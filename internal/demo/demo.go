package demo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
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

// Start starts a demo agent in t.Cwd and sends it the first message. Like
// the claude backend it lives on after the message's result and answers the
// chat's next messages (run.Prompter) in the same session, until EndInput or
// Kill.
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
		events: make(chan run.Event, 16),
		wake:   make(chan struct{}, 1),
		ids:    strings.TrimPrefix(sid, "demo-"),
		model:  t.Model, saidModel: t.Model,
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

var (
	_ run.Prompter = (*conn)(nil)
	_ run.Switcher = (*conn)(nil)
)

// conn is one demo agent: a session that answers messages one at a time.
type conn struct {
	d         *Demo
	turn      run.Turn // as started; each message has its own prompt
	sessionID string   // the same for every message
	ids       string   // tool_use ids are toolu_demo_<ids>_<n>
	ctx       context.Context
	cancel    context.CancelFunc
	events    chan run.Event
	wake      chan struct{} // a message came, or the input ended
	calls     int           // tool calls so far, over all messages: ids stay unique
	saidModel string        // the model the replies last mentioned

	mu          sync.Mutex
	prompts     []string // messages not started yet
	inputEnded  bool
	interrupted bool               // the running message was interrupted
	stopCommand context.CancelFunc // stops the running message's command; nil between messages
	model       string
}

func (c *conn) Events() <-chan run.Event { return c.events }

// Prompt takes the next message; it starts once the running one has ended.
func (c *conn) Prompt(text string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.inputEnded:
		return errors.New("demo: the agent takes no more messages (its input ended)")
	case c.ctx.Err() != nil:
		return errors.New("demo: the agent has stopped")
	}
	// an interrupt meant the message before this one
	c.interrupted = false
	c.prompts = append(c.prompts, text)
	c.signal()
	return nil
}

// EndInput says no more messages come: the agent ends once the running
// message (if any) has ended.
func (c *conn) EndInput() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inputEnded = true
	c.signal()
}

func (c *conn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// SetModel takes the chat's new model: the demo has none, but its next
// reply says which one a real agent would now use.
func (c *conn) SetModel(model string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.model = model
	return nil
}

// SetMode takes the chat's new permission mode; the pipeline applies it to
// every call, and the script does not change with it.
func (c *conn) SetMode(string) error { return nil }

// Interrupt ends the running message after the step it is in (a command
// it runs is stopped); the agent then waits for the next message.
func (c *conn) Interrupt() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.interrupted = true
	if c.stopCommand != nil {
		c.stopCommand()
	}
	return nil
}

// Kill stops the agent at once (and any command it is running).
func (c *conn) Kill() { c.cancel() }

func (c *conn) isInterrupted() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.interrupted
}

// next waits for the next message; ok is false once the input ended with
// no message left, or the agent was killed.
func (c *conn) next() (prompt string, ok bool) {
	for {
		c.mu.Lock()
		if len(c.prompts) > 0 {
			prompt, c.prompts = c.prompts[0], c.prompts[1:]
			c.mu.Unlock()
			return prompt, true
		}
		ended := c.inputEnded
		c.mu.Unlock()
		if ended {
			return "", false
		}
		select {
		case <-c.wake:
		case <-c.ctx.Done():
			return "", false
		}
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

// run answers the first message and every later one, then closes the
// events channel.
func (c *conn) run() {
	defer close(c.events)
	defer c.cancel()
	if !c.emit(run.Event{Kind: run.KindSession, SessionID: c.sessionID}) {
		return
	}
	for prompt, ok := c.turn.Prompt, true; ok; prompt, ok = c.next() {
		if !c.play(prompt) {
			return
		}
	}
}

// play answers one message with its script and a result; false means the
// agent was killed.
func (c *conn) play(prompt string) bool {
	start := time.Now()
	cmdCtx, stop := context.WithCancel(c.ctx)
	defer stop()
	c.mu.Lock()
	c.stopCommand = stop
	if c.interrupted {
		stop()
	}
	model := c.model
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.stopCommand = nil
		c.mu.Unlock()
	}()
	if model != c.saidModel {
		c.saidModel = model
		if model == "" {
			model = "the default model"
		}
		if !c.say(fmt.Sprintf("(demo) The chat's model is now %s. The demo has no model, but a real agent would answer with it from this message on.\n\n", model)) {
			return false
		}
	}
	steps := Script(prompt)
	for i, st := range steps {
		if c.isInterrupted() {
			msg := fmt.Sprintf("(demo) Interrupted after step %d of %d, so I stopped here.", i, len(steps))
			return c.say("\n"+msg+"\n") && c.emit(run.Event{Kind: run.KindResult, SessionID: c.sessionID, Text: msg,
				DurationMS: time.Since(start).Milliseconds()})
		}
		if st.Text != "" && !c.say(st.Text) {
			return false
		}
		if st.Call == nil {
			continue
		}
		c.calls++
		if !c.call(cmdCtx, fmt.Sprintf("toolu_demo_%s_%d", c.ids, c.calls), st.Call) {
			return false
		}
	}
	return c.emit(run.Event{Kind: run.KindResult, SessionID: c.sessionID, Text: "(demo) done",
		DurationMS: time.Since(start).Milliseconds()})
}

// call runs one tool call through the permission request, a command under
// cmdCtx (stopped by an interrupt); false means the agent was killed.
func (c *conn) call(cmdCtx context.Context, id string, tc *Call) bool {
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
		content, isError = c.d.execute(cmdCtx, c.turn, tc.Tool, input)
		if c.ctx.Err() != nil {
			return false
		}
	}
	return c.emit(run.Event{Kind: run.KindToolResult, ToolUseID: id, Tool: tc.Tool, IsError: isError, Content: content})
}
