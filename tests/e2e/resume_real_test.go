package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vibing/internal/fakeapi"
)

// A chat whose live process ended, with the real CLI: after the idle end
// (live_timeout_s) and in a fork's first message, the next message resumes
// the session. By default the chat says asks will be refused and the Bash
// call is refused with guidance; with resume_ask = "prompt" the chat says
// asks still prompt, the call asks and y runs it.
func TestChatRealResumed(t *testing.T) {
	tests := []struct {
		name, how, ask string
		notice, want   string
	}{
		{"idle, default", "idle", "deny", "asks will be refused. Send /new-session", "⏺ Bash: touch resumed.txt — refused:"},
		{"idle, prompt", "idle", "prompt", `asks will still prompt (resume_ask = "prompt")`, "⏺ Bash: touch resumed.txt — allowed once by you"},
		{"fork, default", "fork", "deny", "asks will be refused. Send /new-session", "⏺ Bash: touch resumed.txt — refused:"},
		{"fork, prompt", "fork", "prompt", `asks will still prompt (resume_ask = "prompt")`, "⏺ Bash: touch resumed.txt — allowed once by you"},
		{"reopened, default", "reopen", "deny", "agent process had ended: this message resumes its session: asks will be refused", "⏺ Bash: touch resumed.txt — refused:"},
		{"reopened, prompt", "reopen", "prompt", "agent process had ended: this message resumes its session: asks will still prompt", "⏺ Bash: touch resumed.txt — allowed once by you"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := fakeapi.New(fakeapi.Turn{Text: "Hello there."},
				fakeapi.Turn{Text: "Creating it.", Tools: []fakeapi.ToolCall{{Name: "Bash", Input: map[string]any{"command": "touch resumed.txt", "description": "create a file"}}}},
				fakeapi.Turn{Text: "Finished."})
			t.Cleanup(api.Close)
			opts := map[string]any{"resume_ask": tt.ask}
			if tt.how == "idle" {
				opts["live_timeout_s"] = 1
			}
			c := realChat(t, "permissions_ask: [Bash]\n", api, opts)
			c.send("")
			waitLong(t, 60*time.Second, "the first message to end", func() bool { return c.runs() >= 1 }, c.text)
			switch tt.how {
			case "idle":
				waitLong(t, 10*time.Second, "the idle notice", func() bool { return strings.Contains(c.text(), "went idle") }, c.text)
			case "reopen":
				// the editor closes the chat (its process ends) and opens it again
				c.lua(`vim.cmd("bdelete! " .. ...)`, nil, c.buf)
				waitLong(t, 10*time.Second, "the process to end", func() bool {
					var n int
					c.lua(`return #vim.tbl_keys(require("vibing.process")._live())`, &n)
					return n == 0
				}, c.text)
				c.newChat(c.path)
				c.lua(`return vim.api.nvim_get_current_buf()`, &c.buf)
			default:
				c.send("/fork")
				var forked string
				waitLong(t, 10*time.Second, "the forked chat to open", func() bool {
					c.lua(`return vim.api.nvim_buf_get_name(0)`, &forked)
					return forked != c.path && forked != ""
				}, c.text)
				c.lua(`return vim.api.nvim_get_current_buf()`, &c.buf)
			}
			c.send("now make the file")
			if tt.ask == "prompt" {
				c.waitApproval()
				c.keys("y")
			}
			waitLong(t, 60*time.Second, "the second message to end", func() bool { return c.runs() >= 1 && strings.Contains(c.lastReply(), "Finished.") }, c.text)
			text := c.text()
			if !strings.Contains(text, tt.notice) {
				t.Errorf("the chat lacks the notice %q:\n%s", tt.notice, text)
			}
			if reply := c.lastReply(); !strings.Contains(reply, tt.want) {
				t.Errorf("reply lacks %q:\n%s", tt.want, reply)
			} else if tt.ask == "deny" && !strings.Contains(reply, "/allow") {
				t.Errorf("the refusal gives no guidance (/allow):\n%s", reply)
			}
			_, err := os.Stat(filepath.Join(c.dir, "resumed.txt"))
			if ran := err == nil; ran != (tt.ask == "prompt") {
				t.Errorf("resumed.txt exists = %v, want %v", ran, tt.ask == "prompt")
			}
		})
	}
}
