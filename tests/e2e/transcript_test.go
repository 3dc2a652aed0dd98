package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vibing/internal/fakeapi"
)

// TestChatRealTranscript: what the real claude CLI streams for one message
// with several tool calls lands in the chat as it happened. Two Bash calls of
// one assistant message get their decisions before either result comes back
// (measured: tool_use, decision, tool_use, decision, tool_result,
// tool_result), so each output must find its own call; calls the CLI refuses
// itself (text not in the file, an unknown tool, invalid input) never reach
// the permission check and come back only as error results; the whole output
// is kept, folded under its summary, in the saved chat too.
func TestChatRealTranscript(t *testing.T) {
	t.Parallel()
	api := fakeapi.New() // the turns need the project's folder: replaced below
	c := realChat(t, "permissions_allow: [Bash, Edit]\n", api)
	foo := filepath.Join(c.dir, "foo.py")
	if err := os.WriteFile(foo, []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	api.Close()
	api = fakeapi.New(
		fakeapi.Turn{Text: "Running both.", Tools: []fakeapi.ToolCall{
			{Name: "Bash", Input: map[string]any{"command": "echo one; echo one-b; echo one-c", "description": "first"}},
			{Name: "Bash", Input: map[string]any{"command": "echo two", "description": "second"}},
		}},
		fakeapi.Turn{Text: "Now the edits.", Tools: []fakeapi.ToolCall{
			{Name: "Edit", Input: map[string]any{"file_path": foo, "old_string": "not in the file", "new_string": "y"}},
			{Name: "NoSuchTool", Input: map[string]any{"a": 1}},
			{Name: "Bash", Input: map[string]any{"nocommand": "x"}},
		}},
		fakeapi.Turn{Text: "All done."},
	)
	t.Cleanup(api.Close)
	c.lua(`vim.env.ANTHROPIC_BASE_URL = ...`, nil, api.URL)
	c.send("")
	waitLong(t, 60*time.Second, "the message to end", func() bool { return c.runs() >= 1 }, c.text)
	reply := c.lastReply()
	for _, want := range []string{
		"⏺ Bash: echo one; echo one-b; echo one-c — allowed (Bash)\n  ⎿ one (+2 lines)\n  ```output\n  one\n  one-b\n  one-c\n  ```\n⏺ Bash: echo two — allowed (Bash)\n  ⎿ two\n",
		"✗ Edit: foo.py — not run: String to replace not found in file.\n",
		"✗ NoSuchTool: {\"a\":1} — not run: Error: No such tool available: NoSuchTool\n",
		"✗ Bash: {\"nocommand\":\"x\"} — not run: InputValidationError: Bash failed due to the following issue",
		"All done.\n",
	} {
		if !strings.Contains(reply, want) {
			t.Errorf("reply lacks %q:\n%s", want, reply)
		}
	}
	t.Logf("reply:\n%s", reply)
	// folded under the summary in the window, and so in the file once reopened
	var folded []int
	c.lua(`
		local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
		for i, l in ipairs(lines) do
			if l == "  ⎿ one (+2 lines)" then
				return { vim.fn.foldclosed(i + 2), vim.fn.foldclosedend(i), i }
			end
		end
		return { 0, 0, 0 }
	`, &folded)
	if folded[0] != folded[2] || folded[1] != folded[2]+5 {
		t.Errorf("the output is not folded under its summary line %d: foldclosed %d, foldclosedend %d", folded[2], folded[0], folded[1])
	}
	saved, err := os.ReadFile(c.path)
	if err != nil || !strings.Contains(string(saved), "  ⎿ one (+2 lines)\n  ```output\n  one\n  one-b\n  one-c\n  ```\n") {
		t.Errorf("the saved chat lacks the whole output (%v):\n%s", err, saved)
	}
}

// TestRealStreamOrder pins what docs/protocol.md says about tool_result with
// the real CLI: the calls of one assistant message are decided before the
// first result comes back (the results in either order: both were seen), and a call the CLI refuses itself (input that does
// not validate, an unknown tool, an Edit whose text is not in the file) gets
// a tool_use and an error tool_result but no decision: it never reaches the
// permission check.
func TestRealStreamOrder(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "permissions_allow: [Bash, Edit]\n", "")
	foo := filepath.Join(w.dir, "foo.py")
	w.write(foo, "x = 1\n")
	w.api.Close()
	w.api = fakeapi.New(
		fakeapi.Turn{Tools: []fakeapi.ToolCall{
			{ID: "toolu_b1", Name: "Bash", Input: map[string]any{"command": "echo one", "description": "a"}},
			{ID: "toolu_b2", Name: "Bash", Input: map[string]any{"command": "echo two", "description": "b"}},
		}},
		fakeapi.Turn{Tools: []fakeapi.ToolCall{
			{ID: "toolu_e", Name: "Edit", Input: map[string]any{"file_path": foo, "old_string": "not there", "new_string": "y"}},
			{ID: "toolu_u", Name: "NoSuchTool", Input: map[string]any{"a": 1}},
			{ID: "toolu_v", Name: "Bash", Input: map[string]any{"nocommand": "x"}},
		}},
	)
	t.Cleanup(w.api.Close)
	res := w.run(nil)
	var order []string
	decided := map[string]bool{}
	results := map[string]bool{}
	for _, e := range res.events {
		switch e.Type {
		case "decision":
			decided[e.ID] = true
			order = append(order, "decision "+e.ID)
		case "tool_result":
			results[e.ID] = e.IsError != nil && *e.IsError
			order = append(order, "result "+e.ID)
		}
	}
	// the results come in either order (both were seen)
	first := strings.Join(order[:4], ", ")
	if !strings.HasPrefix(first, "decision toolu_b1, decision toolu_b2, result ") || !strings.Contains(first, "result toolu_b1") {
		t.Errorf("the two Bash calls: %s; want both decisions before the results", first)
	}
	for _, id := range []string{"toolu_e", "toolu_u", "toolu_v"} {
		isErr, ok := results[id]
		if decided[id] || !ok || !isErr {
			t.Errorf("%s: decided %v, error result %v (seen %v); want an error result and no decision", id, decided[id], isErr, ok)
		}
	}
}
