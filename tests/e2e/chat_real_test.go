package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"vibing/internal/fakeapi"
)

// TestChatRealClaude is the chat loop with the real claude CLI against the
// fake Messages API: a streamed reply, an approval answered with a key in the
// buffer, the command run for real, the session id written back.
func TestChatRealClaude(t *testing.T) {
	t.Parallel()
	claude := claudeBin(t)
	api := fakeapi.New(
		fakeapi.Turn{Text: "I will create the file.", Tools: []fakeapi.ToolCall{{Name: "Bash", Input: map[string]any{"command": "touch approved.txt", "description": "create a file"}}}},
		fakeapi.Turn{Text: "Created approved.txt."},
	)
	t.Cleanup(api.Close)
	c := startChat(t, "permissions_ask: [Bash]\n", "", map[string]any{"claude_cmd": claude})
	home := filepath.Join(filepath.Dir(c.dir), "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	c.lua(`
		local home, url = ...
		vim.env.HOME = home
		vim.env.ANTHROPIC_BASE_URL = url
		vim.env.ANTHROPIC_API_KEY = "test"
		for _, k in ipairs({ "DISABLE_TELEMETRY", "DISABLE_AUTOUPDATER", "DISABLE_ERROR_REPORTING", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC" }) do
			vim.env[k] = "1"
		end
		vim.env.CLAUDE_CODE_ENABLE_TELEMETRY = "0"
	`, nil, home, api.URL)
	c.send("")
	c.waitApproval()
	if _, err := os.Stat(filepath.Join(c.dir, "approved.txt")); err == nil {
		t.Fatal("approved.txt exists before the answer")
	}
	if block := c.lastReply(); !strings.Contains(block, "```sh\ntouch approved.txt\n```") || !strings.Contains(block, "I will create the file.") {
		t.Errorf("reply before the answer:\n%s", block)
	}
	c.keys("y")
	waitLong(t, 60*time.Second, "the run to end", func() bool { return c.runs() >= 1 }, c.text)
	reply := c.lastReply()
	for _, want := range []string{"⏺ Bash: touch approved.txt — allowed once by you", "Created approved.txt."} {
		if !strings.Contains(reply, want) {
			t.Errorf("reply lacks %q:\n%s", want, reply)
		}
	}
	if _, err := os.Stat(filepath.Join(c.dir, "approved.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	cf, _ := readChat(t, c.path)
	if cf.Session == "" {
		t.Error("no session_id written into the chat")
	}
}

// realChat is a chat whose claude_cmd is the real CLI against api.
// opts go to setup() too.
func realChat(t *testing.T, fm string, api *fakeapi.Server, opts ...map[string]any) *chat {
	t.Helper()
	setup := map[string]any{"claude_cmd": claudeBin(t)}
	for _, o := range opts {
		for k, v := range o {
			setup[k] = v
		}
	}
	c := startChat(t, fm, "", setup)
	home := filepath.Join(filepath.Dir(c.dir), "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	c.lua(`
		local home, url = ...
		vim.env.HOME = home
		vim.env.ANTHROPIC_BASE_URL = url
		vim.env.ANTHROPIC_API_KEY = "test"
		for _, k in ipairs({ "DISABLE_TELEMETRY", "DISABLE_AUTOUPDATER", "DISABLE_ERROR_REPORTING", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC" }) do
			vim.env[k] = "1"
		end
		vim.env.CLAUDE_CODE_ENABLE_TELEMETRY = "0"
	`, nil, home, api.URL)
	return c
}

// TestChatRealClaudeTwoMessages: the chat keeps one live CLI process, so the
// second message asks too (it is not a resumed session), and y runs both
// calls. It also measures <CR> to the first token of each message: the
// second one has the warm process.
func TestChatRealClaudeTwoMessages(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(
		fakeapi.Turn{Text: "Making one.", Tools: []fakeapi.ToolCall{{Name: "Bash", Input: map[string]any{"command": "touch one.txt", "description": "one"}}}},
		fakeapi.Turn{Text: "Made one."},
		fakeapi.Turn{Text: "Making two.", Tools: []fakeapi.ToolCall{{Name: "Bash", Input: map[string]any{"command": "touch two.txt", "description": "two"}}}},
		fakeapi.Turn{Text: "Made two."},
	)
	t.Cleanup(api.Close)
	c := realChat(t, "permissions_ask: [Bash]\n", api)
	var firstToken [2]time.Duration
	for i, step := range []struct{ msg, text, file string }{{"", "Making one.", "one.txt"}, {"now the second", "Making two.", "two.txt"}} {
		t0 := time.Now()
		c.send(step.msg)
		waitLong(t, 60*time.Second, "the first token", func() bool { return strings.Contains(c.lastReply(), step.text) }, c.text)
		firstToken[i] = time.Since(t0)
		c.waitApproval()
		c.keys("y")
		waitLong(t, 60*time.Second, "the message to end", func() bool { return c.runs() >= i+1 }, c.text)
		if _, err := os.Stat(filepath.Join(c.dir, step.file)); err != nil {
			t.Errorf("message %d: the approved command did not run: %v\n%s", i+1, err, c.text())
		}
		if !strings.Contains(c.lastReply(), "— allowed once by you") {
			t.Errorf("message %d reply:\n%s", i+1, c.lastReply())
		}
	}
	t.Logf("<CR> to first token: cold process %v, warm process %v", firstToken[0], firstToken[1])
	var live bool
	c.lua(`return require("vibing.chat.run").live(...)`, &live, c.buf)
	if !live {
		t.Error("the chat's process ended after the second message; want it alive until the chat closes")
	}
	// closing the chat ends the process
	c.lua(`vim.cmd("bdelete! " .. ...)`, nil, c.buf)
	waitLong(t, 10*time.Second, "the process to end", func() bool {
		var n int
		c.lua(`return #vim.tbl_keys(require("vibing.process")._live())`, &n)
		return n == 0
	}, c.text)
}

// TestDemoHeadless runs `make demo`'s script headlessly: the demo chat runs
// to completion with scripted key answers, in isolated XDG folders. Its
// second message goes to the same live demo agent and asks again.
func TestDemoHeadless(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(filepath.Join(repoRoot, "scripts", "demo.sh"), "--headless")
	cmd.Env = append(os.Environ(), "VIBING_DEMO_AGENT="+agentBin, "VIBING_DEMO_NVIM="+nvimBinary(t), "VIBING_DEMO_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo.sh --headless: %v\n%s", err, out)
	}
	s := string(out)
	for _, want := range []string{
		"vibing DEMO",
		"⏺ Read: README.md — allowed (Read(**))",
		"⏺ Edit: hello.py — always allowed (Edit(hello.py) added to permissions_allow) by you",
		"⏺ Bash: python3 hello.py — allowed for this session (Bash(python3",
		"⏺ Bash: sudo rm -rf /tmp/vibing-demo-never — refused",
		"⏺ WebFetch: https://example.com/ — denied by you",
		"⏺ Write: README.md — allowed once by you",
		// The second message: no prompt where the rule and the grant
		// apply, a prompt for the new command.
		"⏺ Edit: hello.py — allowed (Edit(hello.py))",
		"⏺ Bash: python3 hello.py — allowed (Bash(python3",
		"⏺ Bash: python3 hello.py --again — allowed once by you",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("demo output lacks %q:\n%s", want, s)
		}
	}
	if n, n2 := strings.Count(s, "\nmessage "), strings.Count(s, "\nmessage 2: Bash "); n != 5 || n2 != 1 {
		t.Errorf("scripted answers = %d, %d of them a Bash in message 2; want 5 and 1 (the second message asks too):\n%s", n, n2, s)
	}
	// one agent answered both messages: its tool_use ids go on counting
	// (a new process would start again from 1)
	if m := regexp.MustCompile(`message 1: Edit (toolu_demo_\w+)_2 `).FindStringSubmatch(s); m == nil || !strings.Contains(s, "message 2: Bash "+m[1]+"_9 ") {
		t.Errorf("the second message's prompt is not call 9 of the first message's agent:\n%s", s)
	}
	if readme, err := os.ReadFile(filepath.Join(dir, "project", "README.md")); err != nil || !strings.Contains(string(readme), "Notes from the demo agent") {
		t.Errorf("README.md after the demo's approved Write (%v):\n%s", err, readme)
	}
	hello, err := os.ReadFile(filepath.Join(dir, "project", "hello.py"))
	if err != nil || !strings.Contains(string(hello), `greet("vibing")`) || !strings.Contains(string(hello), "Hi again, ") {
		t.Errorf("hello.py after the demo (%v):\n%s", err, hello)
	}
	if _, err := os.Stat(filepath.Join(dir, "xdg", "state", "vibing", "audit.sqlite")); err != nil {
		t.Errorf("the demo's audit log is not in its own XDG_STATE_HOME: %v", err)
	}
}
