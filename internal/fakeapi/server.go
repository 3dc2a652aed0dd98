package fakeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"unicode/utf8"
)

// ToolCall is one tool_use block of a scripted turn.
type ToolCall struct {
	ID    string         // tool_use id; generated when empty
	Name  string         // tool name, e.g. "Bash"
	Input map[string]any // tool input
}

// Turn is one scripted assistant response to a main-loop request.
type Turn struct {
	Text  string     // text block (omitted when empty)
	More  []string   // further text blocks, each a content block of its own, after Text
	Tools []ToolCall // tool_use blocks, in order
}

// texts is the turn's text blocks; a turn with no blocks at all gets one
// empty text block, as the API does.
func (t Turn) texts() []string {
	var out []string
	if t.Text != "" || (len(t.More) == 0 && len(t.Tools) == 0) {
		out = append(out, t.Text)
	}
	return append(out, t.More...)
}

// Request is one request the server received.
type Request struct {
	Path  string
	Model string
	Main  bool   // it carried tools and consumed (or would consume) a scripted turn
	Body  string // the raw body
}

// Server is a running fake Messages API.
type Server struct {
	URL string

	srv *httptest.Server

	mu        sync.Mutex
	turns     []Turn
	next      int
	requests  []Request
	ids       int
	overload  int // main requests still to refuse with 529
	refused   int
	deltaSize int // bytes per text_delta; 0: one delta per block
}

// Overload makes the next n main-loop requests fail with HTTP 529
// overloaded_error (they consume no scripted turn), as the real API does when
// it is overloaded; the CLI retries them.
func (s *Server) Overload(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.overload = n
}

// Refused reports how many requests were answered with 529.
func (s *Server) Refused() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// SetDeltaSize streams each text block in text_delta events of at most n
// bytes (split on UTF-8 boundaries), as the model writes it; 0 sends one
// delta per block.
func (s *Server) SetDeltaSize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deltaSize = n
}

// New starts a server on 127.0.0.1 that answers main-loop requests with
// turns in order and, once they run out, with the text "Done.".
func New(turns ...Turn) *Server {
	s := &Server{turns: turns}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.handle))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("fakeapi: listen: %v", err))
	}
	s.srv.Listener = l
	s.srv.Start()
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Requests returns a copy of every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// MainRequests returns the requests that carried tools.
func (s *Server) MainRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Main {
			out = append(out, r)
		}
	}
	return out
}

// Received reports whether any request body contains text.
func (s *Server) Received(text string) bool {
	for _, r := range s.Requests() {
		if strings.Contains(r.Body, text) {
			return true
		}
	}
	return false
}

// TurnsServed reports how many scripted turns were consumed.
func (s *Server) TurnsServed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

type requestBody struct {
	Model  string            `json:"model"`
	Stream bool              `json:"stream"`
	Tools  []json.RawMessage `json:"tools"`
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var rb requestBody
	_ = json.Unmarshal(body, &rb)
	main := strings.HasSuffix(r.URL.Path, "/v1/messages") && len(rb.Tools) > 0

	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: r.URL.Path, Model: rb.Model, Main: main, Body: string(body)})
	if main && s.overload > 0 {
		s.overload--
		s.refused++
		s.mu.Unlock()
		overloaded(w)
		return
	}
	deltaSize := s.deltaSize
	var turn Turn
	switch {
	case !strings.HasSuffix(r.URL.Path, "/v1/messages"):
	case main && s.next < len(s.turns):
		turn = s.turns[s.next]
		s.next++
	case main:
		turn = Turn{Text: "Done."}
	default:
		turn = Turn{Text: "ok"}
	}
	for i := range turn.Tools {
		if turn.Tools[i].ID == "" {
			s.ids++
			turn.Tools[i].ID = fmt.Sprintf("toolu_fake%04d", s.ids)
		}
	}
	s.mu.Unlock()

	switch {
	case strings.HasSuffix(r.URL.Path, "/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 1})
	case !strings.HasSuffix(r.URL.Path, "/v1/messages"):
		writeJSON(w, map[string]any{})
	case rb.Stream:
		stream(w, rb.Model, turn, deltaSize)
	default:
		writeJSON(w, message(rb.Model, turn))
	}
}

// overloaded is the API's answer when it is overloaded (no retry-after: the
// CLI backs off on its own, about 0.6 s, 1.2 s, 2.4 s …).
func overloaded(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(529)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error",
		"error": map[string]any{"type": "overloaded_error", "message": "Overloaded"}})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func stopReason(t Turn) string {
	if len(t.Tools) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func usage() map[string]any {
	return map[string]any{"input_tokens": 10, "output_tokens": 5,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
}

// message is the non-streaming form of a turn.
func message(model string, t Turn) map[string]any {
	var content []any
	for _, text := range t.texts() {
		content = append(content, map[string]any{"type": "text", "text": text})
	}
	for _, tc := range t.Tools {
		content = append(content, map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": tc.Input})
	}
	return map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stopReason(t), "stop_sequence": nil, "usage": usage()}
}

func stream(w http.ResponseWriter, model string, t Turn, deltaSize int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	var buf bytes.Buffer
	ev := func(name string, v map[string]any) {
		v["type"] = name
		data, _ := json.Marshal(v)
		fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", name, data)
	}
	msg := message(model, Turn{})
	msg["content"] = []any{}
	msg["stop_reason"] = nil
	ev("message_start", map[string]any{"message": msg})
	idx := 0
	for _, text := range t.texts() {
		ev("content_block_start", map[string]any{"index": idx, "content_block": map[string]any{"type": "text", "text": ""}})
		for _, d := range chunks(text, deltaSize) {
			ev("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "text_delta", "text": d}})
		}
		ev("content_block_stop", map[string]any{"index": idx})
		idx++
	}
	for _, tc := range t.Tools {
		in, _ := json.Marshal(tc.Input)
		ev("content_block_start", map[string]any{"index": idx, "content_block": map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": map[string]any{}}})
		ev("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		ev("content_block_stop", map[string]any{"index": idx})
		idx++
	}
	ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stopReason(t), "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	ev("message_stop", map[string]any{})
	_, _ = w.Write(buf.Bytes())
}

// chunks splits s into pieces of at most n bytes without splitting a UTF-8
// sequence; n <= 0 (or a short s) gives s whole.
func chunks(s string, n int) []string {
	if n <= 0 || len(s) <= n {
		return []string{s}
	}
	var out []string
	for len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 { // a character longer than n: the whole character
			for cut = n; cut < len(s) && !utf8.RuneStart(s[cut]); cut++ {
			}
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
