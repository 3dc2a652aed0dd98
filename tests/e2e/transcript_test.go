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
