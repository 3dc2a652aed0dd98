package claude

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"vibing/internal/run"
)

// message is one stream-json line from the CLI (the fields we use).
// Large parts (message, request, event) stay slices of the line (ref) and
// are decoded where they are used, so a 7 MiB line is not copied whole.
type message struct {
	Type            string  `json:"type"`
	Subtype         string  `json:"subtype"`
	SessionID       string  `json:"session_id"`
	ParentToolUseID string  `json:"parent_tool_use_id"` // a subagent's message: its Task call
	Message         ref     `json:"message"`
	Event           ref     `json:"event"` // stream_event: the API's event
	RequestID       string  `json:"request_id"`
	Request         ref     `json:"request"`
	Response        ref     `json:"response"`
	IsError         bool    `json:"is_error"`
	TotalCostUSD    float64 `json:"total_cost_usd"`
	DurationMS      int64   `json:"duration_ms"`
	// not "result": the result line repeats the last text (7 MiB when
	// it was), and nothing needs it
	Errors []string `json:"errors"`
	Tools  []string `json:"tools"` // system/init: the CLI's tools

	line []byte // the whole line
}

type block struct {
	Type      string         `json:"type"`
	Text      ref            `json:"text"`
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Input     map[string]any `json:"input"`
	ToolUseID string         `json:"tool_use_id"`
	Content   ref            `json:"content"`
	IsError   bool           `json:"is_error"`
}

type chatMessage struct {
	Content ref `json:"content"`
}

type controlRequest struct {
	Subtype   string         `json:"subtype"`
	ToolName  string         `json:"tool_name"`
	Input     map[string]any `json:"input"`
	ToolUseID string         `json:"tool_use_id"`
	// hook_callback
	CallbackID string `json:"callback_id"`
}

type hookInput struct {
	HookEventName string         `json:"hook_event_name"`
	Cwd           string         `json:"cwd"` // where the CLI's shell is (it keeps a cd between Bash calls)
	ToolName      string         `json:"tool_name"`
	ToolInput     map[string]any `json:"tool_input"`
	ToolUseID     string         `json:"tool_use_id"`
}

type controlResponse struct {
	Subtype   string `json:"subtype"`
	RequestID string `json:"request_id"`
	Error     string `json:"error"`
}

// lineReader reads the CLI's output lines. A line is valid until the next
// read: a short one is a slice of the bufio buffer, a long one is gathered
// in a buffer kept until the turn ends (the CLI writes a long text three
// times: as its delta, its message and in the result), so a run holds one
// copy of a long line, not the trail of a growing slice or one per line.
type lineReader struct {
	r   *bufio.Reader
	max int    // longest line accepted
	buf []byte // the gathered long line
}

// next reads one line of at most max bytes (without the newline). A
// longer line is consumed and reported as ErrLineTooLong.
func (lr *lineReader) next() ([]byte, error) {
	chunk, err := lr.r.ReadSlice('\n')
	if err == nil {
		return chunk[:len(chunk)-1], nil
	}
	buf := lr.buf[:0]
	tooLong := false
	for {
		if !tooLong && len(buf)+len(chunk) > lr.max+1 {
			tooLong, buf = true, buf[:0]
		}
		if !tooLong {
			if len(buf)+len(chunk) > cap(buf) {
				// 1 MiB, then at once the longest line: no run of copies,
				// and the kernel only backs the pages the line fills
				grown := make([]byte, len(buf), lr.max+1)
				if len(buf)+len(chunk) <= 1<<20 {
					grown = make([]byte, len(buf), 1<<20)
				}
				copy(grown, buf)
				buf = grown
			}
			buf = append(buf, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
		chunk, err = lr.r.ReadSlice('\n')
	}
	lr.buf = buf
	if tooLong {
		return nil, fmt.Errorf("%w (%d MiB)", ErrLineTooLong, lr.max>>20)
	}
	if err != nil {
		return buf, err
	}
	return buf[:len(buf)-1], nil
}

// lineTail reads the CLI's output and counts the bytes read since the last
// newline: the part of a line the CLI wrote without its end.
type lineTail struct {
	r io.Reader
	n atomic.Int64
}

func (t *lineTail) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if i := bytes.LastIndexByte(p[:n], '\n'); i >= 0 {
		t.n.Store(int64(n - i - 1))
	} else {
		t.n.Add(int64(n))
	}
	return n, err
}

// release lets the long-line buffer go (the turn is over).
func (lr *lineReader) release() { lr.buf = nil }

// read turns the CLI's stdout into events, then waits for the CLI to exit
// and closes the events channel. Exactly one of result or error ends it.
func (k *conn) read(stdout io.Reader) {
	defer close(k.events)
	lr := &lineReader{r: bufio.NewReaderSize(stdout, 64*1024), max: k.maxLine}
	var failure error
	for failure == nil {
		line, err := lr.next()
		if err != nil {
			switch {
			case errors.Is(err, io.EOF) && len(bytes.TrimSpace(line)) > 0:
				failure = errors.New("claude stopped in the middle of an output line")
			case errors.Is(err, io.EOF), errors.Is(err, io.ErrClosedPipe):
			default:
				failure = err
			}
			break
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		m := message{line: line}
		if err := json.Unmarshal(line, &m); err != nil {
			failure = fmt.Errorf("claude wrote a line that is not stream-json: %.80q", line)
			break
		}
		if k.dispatch(&m) {
			// the turn is over; the CLI waits for the next message, and
			// exits once its stdin closes (EndInput)
			k.turnOpen.Store(false)
			lr.release()
		}
	}
	if failure != nil {
		k.Kill()
	}
	k.signalInit(fmt.Errorf("%w: claude exited first", ErrInitFailed))
	waitErr := k.cmd.Wait() // the keeper ends after the CLI and after its tree
	k.exited.Store(true)
	k.sweep()
	if !k.turnOpen.Load() && failure == nil {
		return // it ended between turns: nothing was lost
	}
	if failure == nil {
		failure = errors.New("claude exited without a result")
	}
	msg := failure.Error()
	if waitErr != nil {
		msg += " (" + waitErr.Error() + ")"
	}
	if s := k.stderr.String(); s != "" {
		msg += ": " + lastLines(s, 3)
	}
	k.events <- run.Event{Kind: run.KindError, Message: msg}
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// emit sends an event of the turn.
func (k *conn) emit(ev run.Event) {
	if ev.Kind != run.KindText {
		k.text.event()
	}
	k.events <- ev
}

// dispatch handles one line; it reports whether the turn ended.
func (k *conn) dispatch(m *message) bool {
	switch m.Type {
	case "control_response":
		var r controlResponse
		_ = json.Unmarshal(m.Response, &r)
		if r.RequestID == initRequestID {
			if r.Subtype != "success" {
				k.signalInit(fmt.Errorf("%w: %s", ErrInitFailed, r.Error))
			} else {
				k.signalInit(nil)
			}
		}
	case "control_request":
		k.controlRequest(m)
	case "control_cancel_request":
		// The CLI no longer needs the answer (an interrupt, an aborted
		// turn). Only a request still waiting is withdrawn; a cancel that
		// crosses our answer, or names an id we never saw, changes nothing.
		// There is no reply to a cancel.
		if k.settle(m.RequestID) {
			k.emit(run.Event{Kind: run.KindWithdraw, RequestID: m.RequestID})
		}
	case "system":
		switch m.Subtype {
		case "init":
			k.emit(run.Event{Kind: run.KindSession, SessionID: m.SessionID, Tools: m.Tools})
		case "api_retry":
			k.emit(run.Event{Kind: run.KindNotice, Message: retryNotice(m.line)})
		}
	case "stream_event":
		k.text.stream(m.Event, m.ParentToolUseID, k.emit)
	case "assistant":
		for _, b := range blocks(m.Message) {
			switch b.Type {
			case "text":
				k.text.block(b.Text, m.ParentToolUseID, k.emit)
			case "tool_use":
				k.emit(run.Event{Kind: run.KindToolUse, ToolUseID: b.ID, Tool: b.Name, Input: b.Input})
			}
		}
	case "user":
		for _, b := range blocks(m.Message) {
			if b.Type == "tool_result" {
				k.emit(run.Event{Kind: run.KindToolResult, ToolUseID: b.ToolUseID, IsError: b.IsError, Content: contentText(b.Content)})
			}
		}
	case "result":
		k.emit(run.Event{Kind: run.KindResult, SessionID: m.SessionID, IsError: m.IsError,
			CostUSD: m.TotalCostUSD, DurationMS: m.DurationMS})
		return true
	}
	return false
}

// blocks reads a message's content: its blocks, or a string as one text
// block.
func blocks(raw ref) []block {
	var cm chatMessage
	if json.Unmarshal(raw, &cm) != nil {
		return nil
	}
	if len(cm.Content) > 0 && cm.Content[0] == '"' {
		return []block{{Type: "text", Text: cm.Content}}
	}
	var bs []block
	_ = json.Unmarshal(cm.Content, &bs)
	return bs
}

// contentText flattens a tool_result's content (a string or text blocks).
// The editor shows one line of it, so more than resultCap bytes are cut at
// a line end and a last line says how much was left out: a tool's 7 MiB
// output is not copied whole, decoded, then encoded again.
func contentText(raw ref) string {
	var c capped
	if len(raw) > 0 && raw[0] == '"' {
		c.add(raw)
		return c.String()
	}
	var bs []block
	_ = json.Unmarshal(raw, &bs)
	for i, b := range bs {
		if i > 0 {
			c.b = append(c.b, '\n')
		}
		if b.Type == "text" {
			c.add(b.Text)
		} else {
			c.b = append(c.b, "["+b.Type+"]"...)
		}
	}
	return c.String()
}

// resultCap bounds the content of a tool_result event.
const resultCap = 256 << 10

// capped gathers decoded text up to resultCap bytes and counts the rest.
type capped struct {
	b    []byte
	left int // bytes left out (of the JSON text: escapes count as written)
}

// add appends a JSON string literal.
func (c *capped) add(s ref) {
	if len(s) < 2 || s[0] != '"' {
		return
	}
	for _, p := range splitJSONString(s[1:len(s)-1], textChunk) {
		if len(c.b) >= resultCap {
			c.left += len(p)
			continue
		}
		c.b, _ = appendUnquoted(c.b, p)
	}
}

func (c *capped) String() string {
	if len(c.b) <= resultCap && c.left == 0 {
		return string(c.b)
	}
	c.left += max(0, len(c.b)-resultCap)
	cut := c.b[:min(len(c.b), resultCap)]
	i := bytes.LastIndexByte(cut, '\n')
	for i < 0 && len(cut) > 0 && len(cut) < len(c.b) && !utf8.RuneStart(c.b[len(cut)]) {
		cut = cut[:len(cut)-1] // no line end: at least no half character
	}
	if i > 0 {
		cut = cut[:i]
	}
	c.left += min(len(c.b), resultCap) - len(cut)
	return fmt.Sprintf("%s\n… (%d more bytes not shown)", cut, c.left)
}

// controlRequest turns the CLI's questions into permission events; anything
// else is answered with an error (we offer no MCP servers or other
// callbacks).
func (k *conn) controlRequest(m *message) {
	var req controlRequest
	if err := json.Unmarshal(m.Request, &req); err != nil {
		k.respondError(m.RequestID, "malformed control request")
		return
	}
	id := m.RequestID
	switch req.Subtype {
	case "can_use_tool":
		input := req.Input
		k.track(id)
		k.emit(run.Event{Kind: run.KindPermission, Permission: &run.Permission{
			ID: id, ToolUseID: req.ToolUseID, Tool: req.ToolName, Input: input,
			Reply: func(v run.Verdict) {
				if !k.settle(id) {
					return // withdrawn by the CLI, or already answered
				}
				if v.Allow {
					if v.UpdatedInput != nil {
						input = v.UpdatedInput // the person edited the call before approving it
					}
					if input == nil {
						input = map[string]any{}
					}
					k.respond(id, map[string]any{"behavior": "allow", "updatedInput": input})
					return
				}
				k.respond(id, map[string]any{"behavior": "deny", "message": v.Message})
			}}})
	case "hook_callback":
		var wrapper struct {
			Input hookInput `json:"input"`
		}
		if err := json.Unmarshal(m.Request, &wrapper); err != nil || wrapper.Input.ToolName == "" {
			// Not a tool call we can judge: refuse it (fail closed).
			k.respond(id, hookAnswer(run.Verdict{Message: "vibing could not read this hook call"}))
			return
		}
		in := wrapper.Input
		toolUseID := in.ToolUseID
		if toolUseID == "" {
			toolUseID = req.ToolUseID
		}
		k.track(id)
		k.emit(run.Event{Kind: run.KindPermission, Permission: &run.Permission{
			ID: id, ToolUseID: toolUseID, Tool: in.ToolName, Input: in.ToolInput, Cwd: in.Cwd,
			Reply: func(v run.Verdict) {
				if k.settle(id) { // not withdrawn by the CLI, not answered yet
					k.respond(id, hookAnswer(v))
				}
			}}})
	default:
		k.respondError(id, "vibing does not support control request "+req.Subtype)
	}
}

// hookAnswer is a PreToolUse hook's answer; an allow of an input the person
// edited carries it as updatedInput, which the CLI runs instead.
func hookAnswer(v run.Verdict) map[string]any {
	d, reason := "deny", v.Message
	if v.Allow {
		d = "allow"
		if reason == "" {
			reason = "Allowed by vibing"
		}
	}
	out := map[string]any{"hookEventName": "PreToolUse", "permissionDecision": d, "permissionDecisionReason": reason}
	if v.Allow && v.UpdatedInput != nil {
		out["updatedInput"] = v.UpdatedInput
	}
	return map[string]any{"hookSpecificOutput": out}
}

func (k *conn) respond(id string, body map[string]any) {
	_ = k.send(map[string]any{"type": "control_response",
		"response": map[string]any{"subtype": "success", "request_id": id, "response": body}})
}

func (k *conn) respondError(id, msg string) {
	_ = k.send(map[string]any{"type": "control_response",
		"response": map[string]any{"subtype": "error", "request_id": id, "error": msg}})
}
