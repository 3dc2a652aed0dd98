package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"vibing/internal/run"
)

// textChunk bounds the text of one run.KindText event. A long text (a 7 MiB
// block) is decoded and sent piece by piece, so the run holds the line it
// read plus a few pieces, never a second and third copy of the whole text.
const textChunk = 8 << 10

// ref is a JSON value left undecoded: a slice of the line being read (no
// copy), valid until the next line is read. What is used of it is decoded
// when it is used.
type ref []byte

// UnmarshalJSON keeps data itself; encoding/json passes a slice of its input.
func (r *ref) UnmarshalJSON(data []byte) error {
	*r = data
	return nil
}

// streamEvent is the part of a stream_event line (the raw API event the
// CLI passes on with --include-partial-messages) that text streaming uses.
type streamEvent struct {
	Type         string `json:"type"`
	ContentBlock struct {
		Type string `json:"type"`
	} `json:"content_block"`
	Delta struct {
		Type string `json:"type"`
		Text ref    `json:"text"`
	} `json:"delta"`
}

// textStream turns the CLI's text into run.KindText events: text_delta
// stream events as the model writes them, and the text blocks of assistant
// messages that were not streamed. The CLI sends the assistant message of a
// streamed block once the block is complete (before its content_block_stop),
// so such a block is counted when it starts and skipped when its message
// arrives. Two text blocks in a row are separated by a blank line.
type textStream struct {
	// streamed counts, per parent_tool_use_id, the text blocks that were
	// streamed and whose assistant message has not arrived yet.
	streamed map[string]int
	scratch  []byte // where a piece of text is decoded
	open     bool   // the last event sent was text
	newlines int    // how many newlines (up to 2) the text sent so far ends with
	newBlock bool   // a text block started: its first text starts a paragraph
}

// event notes an event that is not text: the next text starts afresh.
func (ts *textStream) event() { ts.open, ts.newBlock = false, false }

// stream handles a stream_event of parent (a subagent's tool_use id, or "").
func (ts *textStream) stream(raw ref, parent string, emit func(run.Event)) {
	var ev streamEvent
	if json.Unmarshal(raw, &ev) != nil {
		return
	}
	switch ev.Type {
	case "message_start":
		ts.count(parent, 0) // an aborted message leaves no block to skip
	case "content_block_start":
		if ev.ContentBlock.Type == "text" {
			ts.count(parent, ts.streamed[parent]+1)
			ts.newBlock = true
		}
	case "content_block_delta":
		if ev.Delta.Type == "text_delta" {
			ts.text(ev.Delta.Text, emit)
		}
	}
}

func (ts *textStream) count(parent string, n int) {
	if ts.streamed == nil {
		ts.streamed = map[string]int{}
	}
	ts.streamed[parent] = n
}

// block handles a text block of an assistant message of parent.
func (ts *textStream) block(text ref, parent string, emit func(run.Event)) {
	if n := ts.streamed[parent]; n > 0 {
		ts.streamed[parent] = n - 1 // it was streamed already
		return
	}
	ts.newBlock = true
	ts.text(text, emit)
}

// text sends a JSON string (raw, with its quotes) as text events of at most
// about textChunk bytes each.
func (ts *textStream) text(raw ref, emit func(run.Event)) {
	if len(raw) < 2 || raw[0] != '"' {
		return
	}
	for _, piece := range splitJSONString(raw[1:len(raw)-1], textChunk) {
		b, err := appendUnquoted(ts.scratch[:0], piece)
		ts.scratch = b
		if err != nil || len(b) == 0 {
			continue
		}
		ts.send(string(b), emit)
	}
}

// send emits s, after the paragraph break a new block needs.
func (ts *textStream) send(s string, emit func(run.Event)) {
	if ts.newBlock && ts.open && ts.newlines < 2 {
		s = "\n\n"[ts.newlines:] + s
	}
	ts.newBlock = false
	emit(run.Event{Kind: run.KindText, Text: s})
	ts.open = true
	n := 0
	for n < len(s) && n < 2 && s[len(s)-1-n] == '\n' {
		n++
	}
	if n == len(s) && n < 2 { // only newlines: they add to those before
		n = min(2, ts.newlines+n)
	}
	ts.newlines = n
}

// splitJSONString cuts the inside of a JSON string literal into pieces of
// about n bytes, never inside an escape sequence, a surrogate pair or a
// UTF-8 sequence, so each piece unquotes on its own.
func splitJSONString(s []byte, n int) [][]byte {
	var out [][]byte
	start, i := 0, 0
	for i < len(s) {
		if i-start >= n && utf8.RuneStart(s[i]) {
			out = append(out, s[start:i])
			start = i
		}
		if s[i] != '\\' {
			i++
			continue
		}
		w := 2
		if i+6 <= len(s) && s[i+1] == 'u' {
			w = 6
			if highSurrogate(s[i+2:i+6]) && i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
				w = 12
			}
		}
		i = min(len(s), i+w)
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func highSurrogate(hex []byte) bool {
	v, err := strconv.ParseUint(string(hex), 16, 16)
	return err == nil && v >= 0xD800 && v < 0xDC00
}

// unquote decodes the inside of a JSON string literal, as encoding/json
// does (invalid UTF-8 and lone surrogates become U+FFFD).
func unquote(inner []byte) (string, error) {
	b, err := appendUnquoted(nil, inner)
	return string(b), err
}

// appendUnquoted appends the decoded inside of a JSON string literal to
// dst: one pass, no temporary copies (a long text is decoded piece by piece
// into one reused buffer).
func appendUnquoted(dst, s []byte) ([]byte, error) {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return dst, errBadString
			}
			if r, ok := escapes[s[i+1]]; ok {
				dst = append(dst, r)
				i += 2
				continue
			}
			if s[i+1] != 'u' {
				return dst, errBadString
			}
			r, n := unicodeEscape(s[i:])
			if n == 0 {
				return dst, errBadString
			}
			dst = utf8.AppendRune(dst, r)
			i += n
		case c < 0x20 || c == '"':
			return dst, errBadString
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[i:i+n]...)
			}
			i += n
		}
	}
	return dst, nil
}

var (
	errBadString = errors.New("claude wrote a text that is not a JSON string")
	escapes      = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}
)

// unicodeEscape decodes \uXXXX at the start of s, or a surrogate pair of
// two; it returns the rune and the bytes used (0: not an escape).
func unicodeEscape(s []byte) (rune, int) {
	r := hex4(s)
	if r < 0 {
		return 0, 0
	}
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
		if r2 := hex4(s[6:]); r2 >= 0 {
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				return dec, 12
			}
		}
	}
	return utf8.RuneError, 6
}

// hex4 reads the XXXX of \uXXXX at the start of s (-1: malformed).
func hex4(s []byte) rune {
	if len(s) < 6 {
		return -1
	}
	v, err := strconv.ParseUint(string(s[2:6]), 16, 16)
	if err != nil {
		return -1
	}
	return rune(v)
}

// retry is a system/api_retry line: the CLI waits before it asks the API
// again.
type retry struct {
	Attempt      int    `json:"attempt"`
	MaxRetries   int    `json:"max_retries"`
	RetryDelayMS int64  `json:"retry_delay_ms"`
	ErrorStatus  *int   `json:"error_status"` // null when no HTTP answer came
	Error        string `json:"error"`        // "overloaded", "rate_limit", "unknown" …
}

// retryNotice says what an api_retry line means to the person:
// "API error 529 (overloaded), retry 3 of 10 in 8 s".
func retryNotice(line []byte) string {
	var r retry
	_ = json.Unmarshal(line, &r)
	what := "API request failed"
	if r.ErrorStatus != nil {
		what = fmt.Sprintf("API error %d", *r.ErrorStatus)
	}
	if r.Error != "" && r.Error != "unknown" {
		what += " (" + r.Error + ")"
	}
	s := fmt.Sprintf("%s, retry %d", what, r.Attempt)
	if r.MaxRetries > 0 {
		s += fmt.Sprintf(" of %d", r.MaxRetries)
	}
	secs := float64((r.RetryDelayMS+50)/100) / 10
	return s + " in " + strconv.FormatFloat(secs, 'f', -1, 64) + " s"
}
