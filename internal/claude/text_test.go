package claude

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"vibing/internal/run"
)

// replay feeds stream-json lines to a conn's dispatch and returns what it
// emitted: consecutive text events joined into one "text:" entry, and how
// many text events there were.
func replay(t *testing.T, lines []string) (got []string, textEvents int) {
	t.Helper()
	k := &conn{events: make(chan run.Event, 1<<16)}
	for _, line := range lines {
		m := message{line: []byte(line)}
		if err := json.Unmarshal(m.line, &m); err != nil {
			t.Fatalf("line %.80q: %v", line, err)
		}
		k.dispatch(&m)
	}
	close(k.events)
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			got = append(got, "text:"+text.String())
			text.Reset()
		}
	}
	for ev := range k.events {
		switch ev.Kind {
		case run.KindText:
			textEvents++
			text.WriteString(ev.Text)
			continue
		}
		flush()
		switch ev.Kind {
		case run.KindSession:
			got = append(got, "session")
		case run.KindNotice:
			got = append(got, "notice:"+ev.Message)
		case run.KindToolUse:
			got = append(got, "tool_use:"+ev.Tool)
		case run.KindToolResult:
			got = append(got, "tool_result:"+ev.Content)
		case run.KindResult:
			got = append(got, "result")
		default:
			got = append(got, fmt.Sprint("kind ", ev.Kind))
		}
	}
	flush()
	return got, textEvents
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// The testdata files are what the real CLI 2.1.330 printed against
// internal/fakeapi (one 529 answer first, text deltas of 6 bytes): a turn
// of two text blocks and a Bash call, then a text after its result.
func TestTranscripts(t *testing.T) {
	t.Parallel()
	first := "text:I'll look.\n\nTwo paragraphs\n\nhere: é 😀 \"quoted\"."
	tests := []struct {
		file          string
		want          []string
		minTextEvents int
	}{
		{"cli-2.1.330-whole.jsonl", []string{"session", first, "tool_use:Bash", "tool_result:hi", "text:Done: hi.", "result"}, 3},
		{"cli-2.1.330-partial.jsonl", []string{"session", "notice:API error 529 (overloaded), retry 1 of 10 in 0.5 s",
			first, "tool_use:Bash", "tool_result:hi", "text:Done: hi.", "result"}, 11},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			got, n := replay(t, readLines(t, "testdata/"+tt.file))
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("events\n got %q\nwant %q", got, tt.want)
			}
			if n < tt.minTextEvents {
				t.Errorf("%d text events, want at least %d (streamed as written)", n, tt.minTextEvents)
			}
		})
	}
}

func line(v map[string]any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

func delta(parent any, text string) string {
	return line(map[string]any{"type": "stream_event", "parent_tool_use_id": parent,
		"event": map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": text}}})
}

func blockStart(parent any, typ string) string {
	return line(map[string]any{"type": "stream_event", "parent_tool_use_id": parent,
		"event": map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": typ}}})
}

func messageStart(parent any) string {
	return line(map[string]any{"type": "stream_event", "parent_tool_use_id": parent, "event": map[string]any{"type": "message_start"}})
}

func assistantText(parent any, texts ...string) string {
	var content []any
	for _, s := range texts {
		content = append(content, map[string]any{"type": "text", "text": s})
	}
	return line(map[string]any{"type": "assistant", "parent_tool_use_id": parent, "message": map[string]any{"content": content}})
}

func TestTextStreaming(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"streamed text is not repeated", []string{blockStart(nil, "text"), delta(nil, "Hel"), delta(nil, "lo"), assistantText(nil, "Hello")},
			[]string{"text:Hello"}},
		{"unstreamed blocks are paragraphs", []string{assistantText(nil, "One.", "Two.")}, []string{"text:One.\n\nTwo."}},
		{"a block ending in a newline gets one more", []string{assistantText(nil, "One.\n", "Two.")}, []string{"text:One.\n\nTwo."}},
		{"a block ending in a blank line gets none", []string{assistantText(nil, "One.\n\n", "Two.")}, []string{"text:One.\n\nTwo."}},
		{"empty blocks add nothing", []string{assistantText(nil, "One.", "", "Two.")}, []string{"text:One.\n\nTwo."}},
		{"a subagent's text counts on its own", []string{
			blockStart(nil, "text"), delta(nil, "Main"),
			assistantText("toolu_task", "Sub"),
			assistantText(nil, "Main"),
		}, []string{"text:Main\n\nSub"}},
		{"an aborted message leaves nothing to skip", []string{
			messageStart(nil), blockStart(nil, "text"), delta(nil, "Cut"),
			messageStart(nil), assistantText(nil, "Whole"),
		}, []string{"text:Cut\n\nWhole"}},
		{"a thinking block is not text", []string{blockStart(nil, "thinking"), assistantText(nil, "Said")}, []string{"text:Said"}},
		{"a string content is one text", []string{line(map[string]any{"type": "assistant", "message": map[string]any{"content": "plain"}})},
			[]string{"text:plain"}},
		{"api_retry without a status", []string{line(map[string]any{"type": "system", "subtype": "api_retry", "attempt": 2,
			"max_retries": 10, "retry_delay_ms": 8040, "error_status": nil, "error": "unknown"})},
			[]string{"notice:API request failed, retry 2 of 10 in 8 s"}},
		{"api_retry of a rate limit", []string{line(map[string]any{"type": "system", "subtype": "api_retry", "attempt": 3,
			"max_retries": 10, "retry_delay_ms": 1216, "error_status": 429, "error": "rate_limit"})},
			[]string{"notice:API error 429 (rate_limit), retry 3 of 10 in 1.2 s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, _ := replay(t, tt.lines)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("events\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestSplitJSONString(t *testing.T) {
	t.Parallel()
	texts := []string{"", "plain ascii text", "é😀漢字 mixed", "quote \" back \\ slash / tab\t nl\n", "\x01\x1f control",
		"surrogates 😀😀😀 \U0001F600", strings.Repeat("ab\n", 50)}
	for _, text := range texts {
		quoted, _ := json.Marshal(text)
		ascii := []byte(strings.ReplaceAll(string(quoted), "😀", `\ud83d\ude00`)) // escaped surrogate pairs too
		for _, raw := range [][]byte{quoted, ascii} {
			inner := raw[1 : len(raw)-1]
			for n := 1; n <= 9; n++ {
				var b strings.Builder
				for _, p := range splitJSONString(inner, n) {
					if len(p) > n+11 {
						t.Errorf("piece %q of %q is %d bytes, want at most %d", p, text, len(p), n+11)
					}
					s, err := unquote(p)
					if err != nil {
						t.Fatalf("splitJSONString(%s, %d): piece %q: %v", raw, n, p, err)
					}
					b.WriteString(s)
				}
				if b.String() != text {
					t.Errorf("splitJSONString(%s, %d) joins to %q, want %q", raw, n, b.String(), text)
				}
			}
		}
	}
}

// A 7 MiB text arrives as events of at most textChunk bytes (plus a
// paragraph break).
func TestLongTextIsSentInPieces(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("seven mebibytes of text \"with\" escapes\n", 7<<20/40)
	k := &conn{events: make(chan run.Event, 1<<12)}
	m := message{line: []byte(assistantText(nil, big))}
	if err := json.Unmarshal(m.line, &m); err != nil {
		t.Fatal(err)
	}
	go func() {
		k.dispatch(&m)
		close(k.events)
	}()
	var b strings.Builder
	n := 0
	for ev := range k.events {
		if len(ev.Text) > textChunk+4 {
			t.Fatalf("a text event of %d bytes, want at most %d", len(ev.Text), textChunk+4)
		}
		b.WriteString(ev.Text)
		n++
	}
	if b.String() != big {
		t.Errorf("the pieces join to %d bytes, want the %d of the text", b.Len(), len(big))
	}
	t.Logf("%d bytes in %d text events", len(big), n)
}

// unquote agrees with encoding/json on every string literal, invalid UTF-8
// and lone surrogates included.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{"", "plain", `quote \" back \\ slash \/ \b\f\n\r\t`, `\u00e9\u6f22\ud83d\ude00`, `\ud83d`,
		`\ude00\ud83d x`, `\ud83d\u0041`, "raw é😀", "bad \xff utf8 \xed\xa0\x80", `\u12`, `trailing \`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, inner string) {
		var want string
		wantErr := json.Unmarshal([]byte(`"`+inner+`"`), &want)
		got, err := unquote([]byte(inner))
		if wantErr != nil {
			return // not a JSON string: the CLI's lines are checked before this
		}
		if err != nil || got != want {
			t.Errorf("unquote(%q) = %q, %v; encoding/json: %q", inner, got, err, want)
		}
	})
}

func TestContentText(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a line of tool output é\n", 7<<20/25)
	quote := func(s string) ref { b, _ := json.Marshal(s); return b }
	tests := []struct {
		name      string
		raw       ref
		want      string // the whole content, or its start when cut
		cut       bool
		wantLines int
	}{
		{"string", quote("hi\nthere"), "hi\nthere", false, 2},
		{"blocks", ref(`[{"type":"text","text":"one"},{"type":"image"},{"type":"text","text":"two"}]`), "one\n[image]\ntwo", false, 3},
		{"7 MiB string", quote(long), "a line of tool output é\n", true, resultCap / 25},
		{"7 MiB in a block", ref(`[{"type":"text","text":` + string(quote(long)) + `}]`), "a line of tool output é\n", true, resultCap / 25},
		{"no line end", quote(strings.Repeat("é", resultCap)), "éé", true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := contentText(tt.raw)
			if !tt.cut {
				if got != tt.want {
					t.Errorf("contentText = %q, want %q", got, tt.want)
				}
				return
			}
			last := got[strings.LastIndexByte(got, '\n')+1:]
			if !strings.HasPrefix(got, tt.want) || len(got) > resultCap+64 || !utf8.ValidString(got) ||
				!strings.HasPrefix(last, "… (") || !strings.HasSuffix(last, " more bytes not shown)") {
				t.Errorf("contentText of %d bytes = %d bytes %.40q … %q, want a valid start under %d bytes and a last line saying what is left out",
					len(tt.raw), len(got), got, last, resultCap)
			}
			if n := strings.Count(got, "\n"); n < tt.wantLines-1 {
				t.Errorf("contentText kept %d lines, want about %d", n, tt.wantLines)
			}
		})
	}
}
