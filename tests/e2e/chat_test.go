package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	fakeOnce sync.Once
	fakePath string
	fakeErr  error
)

// fakeClaudeBin builds tests/fakeclaude (the scripted CLI stand-in) once.
func fakeClaudeBin(t *testing.T) string {
	t.Helper()
	fakeOnce.Do(func() {
		fakePath = filepath.Join(filepath.Dir(agentBin), "fakeclaude")
		cmd := exec.Command("go", "build", "-o", fakePath, "vibing/tests/fakeclaude")
		out, err := cmd.CombinedOutput()
		if err != nil {
			fakeErr = err
			fakePath = string(out)
		}
	})
	if fakeErr != nil {
		t.Fatalf("build fakeclaude: %v\n%s", fakeErr, fakePath)
	}
	return fakePath
}

// chat is an embedded Neovim with one chat open and the fake CLI set up.
type chat struct {
	*editor
	path   string
	script string
	log    string
	buf    int
}

// scripted writes a fakeclaude script (one step per line).
func scripted(steps ...string) string { return strings.Join(steps, "\n") + "\n" }

// answerScript: one Bash call the chat must ask about, then text and a result.
var answerScript = scripted("init", "prompt", "text Let me run the tests.",
	`tool toolu_1 Bash {"command":"npm test"}`, `hook toolu_1 Bash {"command":"npm test"}`,
	"text All done.", "result",
	// the chat's next message reaches the same live CLI
	"prompt", `tool toolu_2 Bash {"command":"npm test"}`, `hook toolu_2 Bash {"command":"npm test"}`,
	"text Again.", "result", "wait_eof")

// startChat opens a chat with frontmatter lines fm (between the fences) and
// the fake CLI following script; opts go to setup() on top of the test ones.
func startChat(t *testing.T, fm, script string, opts map[string]any) *chat {
	t.Helper()
	e := start(t)
	root := filepath.Dir(e.dir)
	c := &chat{editor: e, script: filepath.Join(root, "fake.script"), log: filepath.Join(root, "fake.log")}
	if err := os.WriteFile(c.script, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	// the fake CLI reads its script and writes its log beside the project,
	// outside what the sandbox shows: these tests are about the editor
	setup := map[string]any{"bin": agentBin, "claude_cmd": fakeClaudeBin(t), "audit_path": filepath.Join(root, "audit.sqlite"),
		"sandbox": "off"}
	for k, v := range opts {
		setup[k] = v
	}
	e.lua(`
		local script, log, opts = ...
		vim.env.FAKECLAUDE_SCRIPT = script
		vim.env.FAKECLAUDE_LOG = log
		vim.env.VIBING_CLAUDE_BIN = nil
		assert(require("vibing").setup(opts), "setup failed")
	`, nil, c.script, c.log, setup)
	c.path = filepath.Join(e.dir, ".vibing", "chat", "chat-test.md")
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		t.Fatal(err)
	}
	body := "---\nvibing.nvim: true\n" + fm + "---\n\n## User\n\nplease run the tests\n"
	if err := os.WriteFile(c.path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	e.newChat(c.path)
	e.lua(`return vim.api.nvim_get_current_buf()`, &c.buf)
	return c
}

// text is the chat buffer's text.
func (c *chat) text() string {
	c.t.Helper()
	var lines []string
	c.lua(`return vim.api.nvim_buf_get_lines(..., 0, -1, false)`, &lines, c.buf)
	return strings.Join(lines, "\n")
}

// lastReply is the text of the last Assistant section.
func (c *chat) lastReply() string {
	s := c.text()
	i := strings.LastIndex(s, "## Assistant")
	if i < 0 {
		return ""
	}
	return s[i:]
}

// runs is how many runs of this chat have ended.
func (c *chat) runs() int {
	c.t.Helper()
	var n int
	c.lua(`return vim.b[...].vibing_runs or 0`, &n, c.buf)
	return n
}

func (c *chat) waitRuns(n int) {
	c.t.Helper()
	waitLong(c.t, 20*time.Second, "the run to end", func() bool { return c.runs() >= n }, c.text)
}

func (c *chat) waitText(s string) {
	c.t.Helper()
	waitLong(c.t, 10*time.Second, "the chat to show "+s, func() bool { return strings.Contains(c.text(), s) }, c.text)
}

// waitApproval waits for a visible approval block and returns its request id.
func (c *chat) waitApproval() string {
	c.t.Helper()
	var id string
	waitLong(c.t, 10*time.Second, "an approval block", func() bool {
		c.lua(`local v = vim.b[...].vibing_approval; return type(v) == "string" and v or ""`, &id, c.buf)
		return id != "" && strings.Contains(c.text(), "Approval needed")
	}, c.text)
	// The answer keys act with the cursor inside the block, where a person
	// moves to answer.
	c.lua(`return require("vibing.ui.approval").focus(...)`, nil, c.buf)
	return id
}

func (c *chat) status() string {
	c.t.Helper()
	var s string
	c.lua(`return require("vibing").status(...)`, &s, c.buf)
	return s
}

// send presses <CR> on the last line of the chat (which must be current).
func (c *chat) send(message string) {
	c.t.Helper()
	if message != "" {
		c.lua(`local b, m = ...; local n = vim.api.nvim_buf_line_count(b); vim.api.nvim_buf_set_lines(b, n - 1, n, false, { m })`, nil, c.buf, message)
	}
	c.keys("G<CR>")
}

// decisions are the permission answers the fake CLI received, in order.
func (c *chat) decisions() []string {
	c.t.Helper()
	f, err := os.Open(c.log)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	for sc.Scan() {
		var m struct {
			Type     string `json:"type"`
			Response struct {
				Response struct {
					Hook struct {
						Decision string `json:"permissionDecision"`
					} `json:"hookSpecificOutput"`
				} `json:"response"`
			} `json:"response"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.Type == "control_response" && m.Response.Response.Hook.Decision != "" {
			out = append(out, m.Response.Response.Hook.Decision)
		}
	}
	return out
}

// fakeArgs are the arguments of every fake CLI start.
func (c *chat) fakeArgs() [][]string {
	c.t.Helper()
	data, _ := os.ReadFile(c.log)
	var out [][]string
	for _, line := range strings.Split(string(data), "\n") {
		var m struct {
			Type string   `json:"type"`
			Args []string `json:"args"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Type == "args" {
			out = append(out, m.Args)
		}
	}
	return out
}

func waitLong(t *testing.T, d time.Duration, what string, cond func() bool, show func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s; chat:\n%s", what, show())
}

func TestChatStreamsReply(t *testing.T) {
	t.Parallel()
	c := startChat(t, "permissions_allow: [Read]\n", scripted("init", "prompt",
		"text Hello from the fake agent.", `tool toolu_r Read {"file_path":"README.md"}`,
		`hook toolu_r Read {"file_path":"README.md"}`, "text Read it.", "result", "wait_eof"), nil)
	c.send("")
	c.waitRuns(1)
	reply := c.lastReply()
	for _, want := range []string{"Hello from the fake agent.", "⏺ Read: README.md — allowed (Read)", "  ⎿ ran", "Read it."} {
		if !strings.Contains(reply, want) {
			t.Errorf("reply lacks %q:\n%s", want, reply)
		}
	}
	if !strings.HasSuffix(c.text(), "## User\n\n") {
		t.Errorf("chat does not end with a new User section:\n%s", c.text())
	}
	cf, body := readChat(t, c.path)
	if cf.Session != "fake-session-0001" {
		t.Errorf("session_id on disk = %q, want fake-session-0001", cf.Session)
	}
	if !strings.Contains(body, "Hello from the fake agent.") {
		t.Errorf("the reply was not saved:\n%s", body)
	}
	if s := c.status(); s != "" {
		t.Errorf("status after the run = %q, want empty", s)
	}
	if got := c.decisions(); len(got) != 1 || got[0] != "allow" {
		t.Errorf("answers to the CLI = %v, want [allow]", got)
	}
}

func TestChatApprovalKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		keys     string
		record   string // the collapsed line
		answer   string // what the CLI got
		ran      bool
		list     string // frontmatter list that gains the rule
		second   string // the second message's tool line (not prompted)
		grant    string // session grant remembered
		noSecond bool
	}{
		{name: "y allows once", keys: "y", record: "— allowed once by you", answer: "allow", ran: true},
		{name: "n denies once", keys: "n", record: "— denied by you", answer: "deny"},
		{name: "s allows for the session", keys: "s", record: "— allowed for this session", answer: "allow", ran: true,
			grant: "allow Bash(npm test:*)", second: "⏺ Bash: npm test — allowed"},
		{name: "S denies for the session", keys: "S", record: "— denied for this session", answer: "deny",
			grant: "deny Bash(npm test:*)", second: "⏺ Bash: npm test — refused"},
		{name: "a always allows", keys: "a<CR>", record: "— always allowed (Bash(npm test:*) added to permissions_allow)", answer: "allow", ran: true,
			list: "allow", second: "⏺ Bash: npm test — allowed (Bash(npm test:*))"},
		{name: "A always denies", keys: "A<CR>", record: "— always denied", answer: "deny",
			list: "deny", second: "⏺ Bash: npm test — refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startChat(t, "permissions_ask: [Bash]\n", answerScript, nil)
			c.send("")
			c.waitApproval()
			block := c.lastReply()
			for _, want := range []string{"Approval needed: Bash (mutating)", "```sh\nnpm test\n```", "asked by: Bash",
				"suggested rule: Bash(npm test:*)", "[y] allow once", "[A] always deny"} {
				if !strings.Contains(block, want) {
					t.Errorf("approval block lacks %q:\n%s", want, block)
				}
			}
			if s := c.status(); s != "vibing: waiting for your approval" {
				t.Errorf("status = %q, want waiting for your approval", s)
			}
			c.keys(tt.keys)
			c.waitRuns(1)
			reply := c.lastReply()
			if !strings.Contains(reply, "⏺ Bash: npm test "+tt.record) {
				t.Errorf("reply lacks the record %q:\n%s", tt.record, reply)
			}
			if strings.Contains(reply, "Approval needed") {
				t.Errorf("the block did not collapse:\n%s", reply)
			}
			if got := c.decisions(); len(got) != 1 || got[0] != tt.answer {
				t.Errorf("answers to the CLI = %v, want [%s]", got, tt.answer)
			}
			if ran := strings.Contains(reply, "  ⎿ ran"); ran != tt.ran {
				t.Errorf("the call ran = %v, want %v:\n%s", ran, tt.ran, reply)
			}
			cf, _ := readChat(t, c.path)
			if tt.list == "allow" && !has(cf.Allow, "Bash(npm test:*)") || tt.list == "deny" && !has(cf.Deny, "Bash(npm test:*)") {
				t.Errorf("frontmatter allow %v deny %v, want Bash(npm test:*) in %s", cf.Allow, cf.Deny, tt.list)
			}
			if tt.list == "" && (has(cf.Allow, "Bash(npm test:*)") || has(cf.Deny, "Bash(npm test:*)")) {
				t.Errorf("frontmatter allow %v deny %v changed, want no rule added", cf.Allow, cf.Deny)
			}
			var grants []string
			c.lua(`local out = {}; for _, g in ipairs(require("vibing.chat.send").grants(...)) do table.insert(out, g.decision .. " " .. g.rule) end; return out`, &grants, c.buf)
			if got := strings.Join(grants, ","); got != tt.grant {
				t.Errorf("session grants = %q, want %q", got, tt.grant)
			}
			if tt.second == "" {
				return
			}
			// The next message in the same chat is not prompted again.
			c.send("again")
			c.waitRuns(2)
			second := c.lastReply()
			if !strings.Contains(second, tt.second) || strings.Contains(second, "by you") {
				t.Errorf("second reply lacks %q (or was prompted):\n%s", tt.second, second)
			}
			if args := c.fakeArgs(); len(args) != 1 {
				t.Errorf("fake CLI started %d times (%v), want once: the second message goes to the live process", len(args), args)
			}
		})
	}
}

func TestChatApprovalTimeout(t *testing.T) {
	t.Parallel()
	c := startChat(t, "permissions_ask: [Bash]\n", answerScript, map[string]any{"approval_timeout_s": 2})
	c.send("")
	c.waitApproval()
	var countdown string
	c.lua(`
		local ns = require("vibing.ui.approval").ns
		for _, m in ipairs(vim.api.nvim_buf_get_extmarks(..., ns, 0, -1, { details = true })) do
			local vt = m[4].virt_text
			if vt then return vt[1][1] end
		end
		return ""
	`, &countdown, c.buf)
	if !strings.Contains(countdown, "s left") {
		t.Errorf("countdown virtual text = %q, want a live countdown", countdown)
	}
	c.waitRuns(1)
	if reply := c.lastReply(); !strings.Contains(reply, "⏺ Bash: npm test — denied: no answer within 2 s") {
		t.Errorf("reply lacks the timeout record:\n%s", reply)
	}
	if got := c.decisions(); len(got) != 1 || got[0] != "deny" {
		t.Errorf("answers to the CLI = %v, want [deny]", got)
	}
	var maps int
	c.lua(`local n = 0; for _, m in ipairs(vim.api.nvim_buf_get_keymap(..., "n")) do if m.lhs == "y" then n = n + 1 end end; return n`, &maps, c.buf)
	if maps != 0 {
		t.Errorf("the answer keys are still mapped after the timeout")
	}
}

func TestChatCancel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		wait   func(c *chat)
		want   []string
	}{
		{"during streaming", scripted("init", "prompt", "text Working on it.", "wait_interrupt", "wait_eof"),
			func(c *chat) { c.waitText("Working on it.") }, []string{"Working on it.", "⏹ Cancelled."}},
		{"during an approval", scripted("init", "prompt", `tool toolu_1 Bash {"command":"npm test"}`,
			`hook toolu_1 Bash {"command":"npm test"}`, "wait_interrupt", "wait_eof"),
			func(c *chat) { c.waitApproval() }, []string{"⏺ Bash: npm test — denied: cancelled before an answer", "⏹ Cancelled."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startChat(t, "permissions_ask: [Bash]\n", tt.script, nil)
			c.send("")
			tt.wait(c)
			if s := c.status(); !strings.HasPrefix(s, "vibing: ") {
				t.Errorf("status while running = %q, want vibing: …", s)
			}
			c.keys("<C-c>")
			c.waitRuns(1)
			reply := c.lastReply()
			for _, w := range tt.want {
				if !strings.Contains(reply, w) {
					t.Errorf("reply lacks %q:\n%s", w, reply)
				}
			}
			if strings.Contains(reply, "  ⎿ ran") {
				t.Errorf("a call ran after the cancel:\n%s", reply)
			}
			var last string
			c.lua(`return vim.b[...].vibing_last_run`, &last, c.buf)
			if last != "cancelled" {
				t.Errorf("vibing_last_run = %q, want cancelled", last)
			}
		})
	}
}

func TestTwoChatsAtOnce(t *testing.T) {
	t.Parallel()
	c := startChat(t, "permissions_ask: [Bash]\n", scripted("init", "prompt", "text first chat here.",
		`hook toolu_1 Bash {"command":"touch one"}`, "result", "wait_eof"), nil)
	first := c.buf
	c.send("")
	c.waitApproval()
	// A second chat in the same editor, with its own process and script.
	second := filepath.Join(c.dir, ".vibing", "chat", "chat-two.md")
	if err := os.WriteFile(second, []byte("---\nvibing.nvim: true\npermissions_ask: [Bash]\n---\n\n## User\n\nhi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script2 := c.script + "2"
	if err := os.WriteFile(script2, []byte(scripted("init", "prompt", "text second chat here.",
		`hook toolu_2 Bash {"command":"touch two"}`, "result", "wait_eof")), 0o644); err != nil {
		t.Fatal(err)
	}
	c.lua(`vim.env.FAKECLAUDE_SCRIPT = ...`, nil, script2)
	c.newChat(second)
	c.lua(`return vim.api.nvim_get_current_buf()`, &c.buf)
	c.send("")
	c.waitApproval()
	var running []int
	c.lua(`return require("vibing.chat.send").list()`, &running)
	if len(running) != 2 {
		t.Fatalf("running chats = %v, want 2", running)
	}
	c.keys("y") // answers the second chat only: the cursor is there
	c.waitRuns(1)
	if r := c.lastReply(); !strings.Contains(r, "second chat here.") || !strings.Contains(r, "⏺ Bash: touch two — allowed once by you") {
		t.Errorf("second chat reply:\n%s", r)
	}
	c.buf = first
	if s := c.status(); s != "vibing: waiting for your approval" {
		t.Errorf("first chat status = %q, want it still waiting", s)
	}
	c.lua(`vim.api.nvim_set_current_buf(...)`, nil, first)
	c.keys("n")
	c.waitRuns(1)
	if r := c.lastReply(); !strings.Contains(r, "first chat here.") || !strings.Contains(r, "⏺ Bash: touch one — denied by you") || strings.Contains(r, "second chat") {
		t.Errorf("first chat reply:\n%s", r)
	}
}

// A resumed chat (session_id, no live process) with a CLI that sends only
// the PreToolUse hook callback and never can_use_tool: by default the call
// is refused with guidance; with resume_ask = "prompt" the person is asked
// and the answer goes back as the hook's decision, which is all the CLI
// needs to run or skip the call.
func TestResumedChat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, ask, key string
		want           string
		hook           []string
	}{
		{"default refuses with guidance", "", "", "⏺ Bash: npm test — refused:", []string{"deny"}},
		{"prompt, allowed", "prompt", "y", "⏺ Bash: npm test — allowed once by you", []string{"allow"}},
		{"prompt, denied", "prompt", "n", "⏺ Bash: npm test — denied by you", []string{"deny"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := map[string]any{}
			if tt.ask != "" {
				opts["resume_ask"] = tt.ask
			}
			c := startChat(t, "session_id: abc-123\npermissions_ask: [Bash]\n", answerScript, opts)
			c.send("")
			if tt.key != "" {
				c.waitApproval()
				c.keys(tt.key)
			}
			c.waitRuns(1)
			reply := c.lastReply()
			if !strings.Contains(reply, tt.want) {
				t.Errorf("resumed chat reply lacks %q:\n%s", tt.want, reply)
			}
			if tt.key == "" && !strings.Contains(reply, "/allow") {
				t.Errorf("the refusal gives no guidance (/allow):\n%s", reply)
			}
			if got := c.decisions(); strings.Join(got, ",") != strings.Join(tt.hook, ",") {
				t.Errorf("hook answers the CLI received = %v, want %v", got, tt.hook)
			}
			args := c.fakeArgs()
			if len(args) != 1 || !strings.Contains(strings.Join(args[0], " "), "abc-123") {
				t.Errorf("fake CLI args = %v, want --resume abc-123", args)
			}
			if cf, _ := readChat(t, c.path); cf.Session != "fake-session-0001" {
				t.Errorf("session_id = %q, want the CLI's fake-session-0001", cf.Session)
			}
		})
	}
}

func TestChatErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		opts   map[string]any
		want   []string
	}{
		{"no claude CLI", answerScript, map[string]any{"claude_cmd": "/nonexistent/claude"},
			[]string{"claude CLI not found", "npm install -g @anthropic-ai/claude-code"}},
		{"not logged in", scripted("init", "prompt", "stderr Invalid API key · Please run /login", "exit 1"), nil,
			[]string{"Please run /login", "log in (/login)"}},
		{"backend crash", scripted("init", "prompt", "text partial answer", "crash"), nil,
			[]string{"partial answer", "⚠ Error:", ":checkhealth vibing"}},
		{"no vibing-agent", answerScript, map[string]any{"bin": "/nonexistent/vibing-agent"},
			[]string{"vibing-agent not found at /nonexistent/vibing-agent; run make"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startChat(t, "", tt.script, tt.opts)
			c.send("")
			c.waitRuns(1)
			if !strings.Contains(tt.want[0], "partial") {
				// nothing was answered: the message stays, the notification says why
				if text := c.text(); strings.Contains(text, "## Assistant") || !strings.HasSuffix(text, "## User\n\nplease run the tests") {
					t.Errorf("the message is not kept as the User section:\n%s", text)
				}
				n := c.lastNote()
				for _, w := range append([]string{"the message was not sent (it is kept)"}, tt.want...) {
					if !strings.Contains(n.Msg, w) {
						t.Errorf("notification %q lacks %q", n.Msg, w)
					}
				}
				if n.Level != 4 {
					t.Errorf("last notification = %+v, want an ERROR", n)
				}
				return
			}
			reply := c.lastReply()
			for _, w := range tt.want {
				if !strings.Contains(reply, w) {
					t.Errorf("reply lacks %q:\n%s", w, reply)
				}
			}
			var errLines int
			for _, l := range strings.Split(reply, "\n") {
				if strings.HasPrefix(l, "⚠ Error:") {
					errLines++
				}
			}
			if errLines != 1 {
				t.Errorf("error lines = %d, want exactly 1:\n%s", errLines, reply)
			}
			if n := c.lastNote(); n.Level != 4 {
				t.Errorf("last notification = %+v, want an ERROR", n)
			}
			if !strings.HasSuffix(c.text(), "## User\n\n") {
				t.Errorf("no new User section after the error:\n%s", c.text())
			}
		})
	}
}
