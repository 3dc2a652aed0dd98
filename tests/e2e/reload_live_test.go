package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"vibing/internal/fakeapi"
)

// procStat is one process's parent pid, resident memory and its anonymous
// part (kB) and name, from /proc.
func procStat(pid int) (ppid int, rssKB int, anonKB int, name string, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, 0, 0, "", false
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "Name:":
			name = f[1]
		case "PPid:":
			ppid, _ = strconv.Atoi(f[1])
		case "VmRSS:":
			rssKB, _ = strconv.Atoi(f[1])
		case "RssAnon:":
			anonKB, _ = strconv.Atoi(f[1])
		}
	}
	return ppid, rssKB, anonKB, name, true
}

// treeRSS lists pid and its descendants with their resident memory.
func treeRSS(root int) map[int]string {
	out := map[int]string{}
	pids := map[int]bool{root: true}
	for changed := true; changed; {
		changed = false
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pids[pid] {
				continue
			}
			if ppid, _, _, _, ok := procStat(pid); ok && pids[ppid] {
				pids[pid], changed = true, true
			}
		}
	}
	for pid := range pids {
		if _, rss, anon, name, ok := procStat(pid); ok {
			out[pid] = name + " VmRSS " + strconv.Itoa(rss) + " kB (RssAnon " + strconv.Itoa(anon) + " kB)"
		}
	}
	return out
}

// TestChatRealClaudeEditKeepsLive: `:e` on the chat between two messages
// keeps its live `vibing-agent run` (and the CLI under it), so the second
// message is no resumed session: its call asks for approval instead of being
// refused. It also logs the idle memory of the live process tree.
func TestChatRealClaudeEditKeepsLive(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(
		fakeapi.Turn{Text: "Making one.", Tools: []fakeapi.ToolCall{{Name: "Bash", Input: map[string]any{"command": "touch one.txt", "description": "one"}}}},
		fakeapi.Turn{Text: "Made one."},
		fakeapi.Turn{Text: "Making two.", Tools: []fakeapi.ToolCall{{Name: "Bash", Input: map[string]any{"command": "touch two.txt", "description": "two"}}}},
		fakeapi.Turn{Text: "Made two."},
	)
	t.Cleanup(api.Close)
	c := realChat(t, "permissions_ask: [Bash]\n", api)
	livePid := func() int {
		var pid int
		c.lua(`
			local buf = ...
			for p in pairs(require("vibing.process")._live()) do
				if not p.exited and p.pid and require("vibing.chat.run").live(buf) then
					local f = io.open("/proc/" .. p.pid .. "/cmdline", "r")
					local cmd = f and f:read("*a") or ""
					if f then f:close() end
					if cmd:find("\0run\0", 1, true) then
						return p.pid
					end
				end
			end
			return 0
		`, &pid, c.buf)
		return pid
	}
	c.send("")
	c.waitApproval()
	c.keys("y")
	waitLong(t, 60*time.Second, "the first message to end", func() bool { return c.runs() >= 1 }, c.text)
	pid := livePid()
	if pid == 0 {
		t.Fatalf("no live vibing-agent run after the first message\n%s", c.text())
	}
	time.Sleep(3 * time.Second) // idle
	for p, what := range treeRSS(pid) {
		t.Logf("idle live process tree: pid %d %s", p, what)
	}
	c.lua(`vim.cmd("edit")`, nil)
	time.Sleep(500 * time.Millisecond)
	if got := livePid(); got != pid {
		t.Errorf(":e changed the live process: pid %d before, %d after", pid, got)
	}
	c.send("now the second")
	waitLong(t, 60*time.Second, "the second message's first token", func() bool { return strings.Contains(c.lastReply(), "Making two.") }, c.text)
	c.waitApproval()
	c.keys("y")
	waitLong(t, 60*time.Second, "the second message to end", func() bool { return c.runs() >= 2 }, c.text)
	if _, err := os.Stat(filepath.Join(c.dir, "two.txt")); err != nil {
		t.Errorf("the approved command of the second message did not run: %v\n%s", err, c.text())
	}
	if reply := c.lastReply(); !strings.Contains(reply, "— allowed once by you") || strings.Contains(reply, "resumed") {
		t.Errorf("second reply:\n%s", reply)
	}
	if got := livePid(); got != pid {
		t.Errorf("the second message ran on pid %d, want the live process %d", got, pid)
	}
}
