package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"vibing/internal/fakeapi"
	"vibing/internal/frontmatter"
	"vibing/internal/run"
)

// text joins the run's text events.
func (r *runResult) text() string {
	var b strings.Builder
	for _, e := range r.all("text") {
		b.WriteString(e.Text)
	}
	return b.String()
}

// TestRealAPIRetryNotice: while the API answers 529 the CLI retries, and
// each retry is a notice the person sees.
func TestRealAPIRetryNotice(t *testing.T) {
	w := newWorld(t, "", "", fakeapi.Turn{Text: "Answered after the retries."})
	w.api.Overload(2)
	res := w.run(nil)
	if res.code != 0 || len(res.all("result")) != 1 {
		t.Fatalf("exit %d, events %v, want a result; stderr %s", res.code, res.types(), res.stderr)
	}
	var notices []string
	for _, n := range res.all("notice") {
		if strings.HasPrefix(n.Message, "API error") {
			notices = append(notices, n.Message)
		}
	}
	if len(notices) != 2 || !strings.HasPrefix(notices[0], "API error 529 (overloaded), retry 1 of 10 in ") ||
		!strings.HasPrefix(notices[1], "API error 529 (overloaded), retry 2 of 10 in ") || !strings.HasSuffix(notices[1], " s") {
		t.Errorf("notices %q, want two: API error 529 (overloaded), retry 1 (then 2) of 10 in … s", notices)
	}
	if w.api.Refused() != 2 {
		t.Errorf("the API refused %d requests, want 2", w.api.Refused())
	}
	if got := res.text(); got != "Answered after the retries." {
		t.Errorf("text %q, want the answer once", got)
	}
}

// TestRealTextStreams: text arrives as the model writes it (many text
// events, not one per block), is not repeated when the block is complete,
// and two text blocks stay two paragraphs.
func TestRealTextStreams(t *testing.T) {
	first := "Let me think about it: " + strings.Repeat("more words, ", 20)
	w := newWorld(t, "", "", fakeapi.Turn{Text: first, More: []string{"Second paragraph with é and 😀."}})
	w.api.SetDeltaSize(16)
	res := w.run(nil)
	if res.code != 0 {
		t.Fatalf("exit %d, events %v; stderr %s", res.code, res.types(), res.stderr)
	}
	want := first + "\n\nSecond paragraph with é and 😀."
	if got := res.text(); got != want {
		t.Errorf("text\n got %q\nwant %q", got, want)
	}
	if n := len(res.all("text")); n < 15 {
		t.Errorf("%d text events, want one per delta (at least 15)", n)
	}
}

// TestRealLongLineMemory: a 7 MiB text from the API reaches the editor
// whole, while vibing-agent run stays under 30 MiB resident; the CLI writes
// it twice, as one 7 MiB text_delta line and as one 7 MiB assistant line.
func TestRealLongLineMemory(t *testing.T) {
	big := strings.Repeat("A line of a very long answer, \"quoted\" and escaped.\n", 7<<20/52)
	w := newWorld(t, "", "", fakeapi.Turn{Text: big})
	res := w.run(nil)
	if res.code != 0 || len(res.all("result")) != 1 {
		t.Fatalf("exit %d, events %v, want a result; stderr %s", res.code, res.types(), res.stderr)
	}
	if got := res.text(); got != big {
		t.Errorf("text of %d bytes, want the %d bytes of the answer once", len(got), len(big))
	}
	t.Logf("%d bytes in %d text events; peak RSS %d KiB", len(big), len(res.all("text")), res.maxRSS)
	if res.maxRSS == 0 || res.maxRSS > 30*1024 {
		t.Errorf("vibing-agent peak RSS %d KiB, want under 30 MiB", res.maxRSS)
	}
}

// TestScriptedLongLineMemory: the same bound for lines the real CLI does
// not write: a 7 MiB tool result (the editor gets its start and a line
// saying how much was left out) and a 7 MiB text.
func TestScriptedLongLineMemory(t *testing.T) {
	w := newWorld(t, "permissions_allow: [Read]\n", "sandbox: \"off\"\n") // the script lies outside the sandbox's view
	w.claude = fakeClaudeBin(t)
	script := filepath.Join(t.TempDir(), "script")
	w.write(script, scripted("init", "prompt", `tool t1 Read {"file_path":"big.txt"}`, `hook t1 Read {"file_path":"big.txt"}`,
		"bigresult t1 7340032", "bigline 7340032", "result", "wait_eof"))
	t.Setenv("FAKECLAUDE_SCRIPT", script)
	res := w.run(nil)
	if res.code != 0 || len(res.all("result")) != 1 {
		t.Fatalf("exit %d, events %v, want a result; stderr %s; %+v", res.code, res.types(), res.stderr, res.events)
	}
	tr := res.all("tool_result") // the hook step's own "ran", then the 7 MiB one
	if len(tr) != 2 || tr[1].Content == nil {
		t.Fatalf("tool_result events %d, want 2", len(tr))
	}
	content := *tr[1].Content
	if !strings.HasPrefix(content, strings.Repeat("x", 99)+"\n") ||
		!strings.HasSuffix(content, "more bytes not shown)") || len(content) > 300<<10 {
		t.Fatalf("tool_result of %d bytes: %.40q … %q, want the start of the output and what was left out",
			len(content), content, content[max(0, len(content)-60):])
	}
	if got := res.text(); len(got) != 7340032 {
		t.Errorf("text of %d bytes, want 7340032", len(got))
	}
	t.Logf("tool_result content %d bytes; peak RSS %d KiB", len(content), res.maxRSS)
	if res.maxRSS == 0 || res.maxRSS > 30*1024 {
		t.Errorf("vibing-agent peak RSS %d KiB, want under 30 MiB", res.maxRSS)
	}
}

// TestWriteBackKeepsAppends: while vibing-agent run --write-back adds 100
// rules to the chat's frontmatter (each replaces the file), this process
// appends 20,000 lines to the chat body under the chat's lock; every rule
// and every line is in the file afterwards.
func TestWriteBackKeepsAppends(t *testing.T) {
	w := newWorld(t, "permissions_ask: [Bash]\n", "sandbox: \"off\"\n") // the script lies outside the sandbox's view
	w.claude = fakeClaudeBin(t)
	const rules, lines, batch = 100, 20000, 5
	steps := []string{"init", "prompt"}
	for i := 0; i < rules; i++ {
		steps = append(steps, fmt.Sprintf(`hook t%d Bash {"command":"tool%d x"}`, i, i))
	}
	script := filepath.Join(t.TempDir(), "script")
	w.write(script, scripted(append(steps, "result", "wait_eof")...))
	t.Setenv("FAKECLAUDE_SCRIPT", script)

	// The appender starts with the first approval; approval i is answered
	// (and its rule written) once the appender is i/rules of the way, so the
	// rule writes fall among the appends.
	var done atomic.Int64
	appended := make(chan error, 1)
	start := sync.OnceFunc(func() {
		go func() {
			for i := 0; i < lines; i += batch {
				var b strings.Builder
				for j := i; j < i+batch; j++ {
					fmt.Fprintf(&b, "body line %d\n", j)
				}
				if err := frontmatter.AppendFile(w.chat, []byte(b.String())); err != nil {
					appended <- err
					return
				}
				done.Add(batch)
			}
			appended <- nil
		}()
	})
	asked := 0
	res := w.run(func(o run.Output, send func(run.Input)) {
		if o.Type != "approval_request" {
			return
		}
		start()
		for done.Load() < int64(asked*lines/rules) {
			time.Sleep(time.Millisecond)
		}
		asked++
		send(run.Input{Type: "approval_response", ID: o.ID, Decision: run.AlwaysAllow})
	}, "--write-back")
	if err := <-appended; err != nil {
		t.Fatal(err)
	}
	if res.code != 0 || len(res.all("rule_added")) != rules {
		t.Fatalf("exit %d, %d rule_added, want 0 and %d; stderr %s", res.code, len(res.all("rule_added")), rules, res.stderr)
	}
	data, err := os.ReadFile(w.chat)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := frontmatter.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	settings, err := doc.Settings()
	if err != nil || len(settings.Allow) != rules {
		t.Errorf("%d rules in permissions_allow (%v), want %d", len(settings.Allow), err, rules)
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "body line ") {
			seen[l] = true
		}
	}
	if len(seen) != lines {
		t.Errorf("%d of %d appended lines are in the chat: %d lost", len(seen), lines, lines-len(seen))
	}
}
