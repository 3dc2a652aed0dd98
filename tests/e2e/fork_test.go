package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vibing/internal/fakeapi"
)

// A forked chat (fork_of: <session>, no session_id) continues the old
// session under a new id: the run passes --resume with --fork-session, the
// model receives the old conversation, the session id differs, and the run
// is a resumed session (asks follow resume_ask, as for any --resume).
func TestRealForkGetsNewSession(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", "", fakeapi.Turn{Text: "Noted."}, fakeapi.Turn{Text: "Going on."})
	old := resumable(t, w)

	w.chat = filepath.Join(w.dir, ".vibing", "chat", "chat-fork.md")
	w.write(w.chat, "---\nvibing.nvim: true\nfork_of: "+old+"\n---\n\n## User\n\nand now?\n")
	res := w.run(nil)
	if res.code != 0 {
		t.Fatalf("forked run: exit %d; stderr %s", res.code, res.stderr)
	}
	s := res.all("session")
	if len(s) != 1 || s[0].SessionID == "" {
		t.Fatalf("forked run: session events %+v", s)
	}
	if s[0].Resumed == nil || !*s[0].Resumed {
		t.Errorf("the fork's first run is not a resumed session (SPEC §4 step 8): %+v", s[0])
	}
	if s[0].SessionID == old {
		t.Errorf("the fork kept the old session id %s, want a new one", old)
	}
	r := res.all("result")
	if len(r) != 1 || r[0].SessionID != s[0].SessionID {
		t.Errorf("result = %+v, want the fork's session id %s", r, s[0].SessionID)
	}
	main := w.api.MainRequests()
	if len(main) < 2 {
		t.Fatalf("main requests = %d, want 2", len(main))
	}
	if last := main[len(main)-1].Body; !strings.Contains(last, "Noted.") {
		t.Errorf("the fork's request does not carry the old answer %q: the old conversation should go on", "Noted.")
	}
}

// The editor's /fork with the real CLI: the new chat's first message
// continues the old conversation and its result writes a session id that
// differs from the old chat's, which keeps its own.
func TestChatRealFork(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(fakeapi.Turn{Text: "Noted."}, fakeapi.Turn{Text: "Going on in the fork."})
	t.Cleanup(api.Close)
	c := realChat(t, "", api)
	c.send("")
	waitLong(t, 60*time.Second, "the first message to end", func() bool { return c.runs() >= 1 }, c.text)
	old, _ := readChat(t, c.path)
	if old.Session == "" {
		t.Fatalf("no session_id in the chat:\n%s", c.text())
	}
	c.send("/fork")
	var forked string
	var buf int
	waitLong(t, 10*time.Second, "the forked chat to open", func() bool {
		c.lua(`return vim.api.nvim_buf_get_name(0)`, &forked)
		return forked != c.path && forked != ""
	}, c.text)
	c.lua(`return vim.api.nvim_get_current_buf()`, &buf)
	c.buf = buf
	fc, text := readChat(t, forked)
	if fc.Session != "" || !strings.Contains(text, "fork_of: "+old.Session) || !strings.Contains(text, "Noted.") {
		t.Fatalf("forked chat before its first message:\n%s", text)
	}
	c.send("and now?")
	waitLong(t, 60*time.Second, "the fork's message to end", func() bool { return c.runs() >= 1 }, c.text)
	fc, text = readChat(t, forked)
	if fc.Session == "" || fc.Session == old.Session {
		t.Errorf("forked chat session_id = %q, old chat's %q: want a new one\n%s", fc.Session, old.Session, text)
	}
	if !strings.Contains(c.lastReply(), "Going on in the fork.") {
		t.Errorf("fork reply:\n%s", c.lastReply())
	}
	if after, _ := readChat(t, c.path); after.Session != old.Session {
		t.Errorf("the old chat's session_id changed to %q", after.Session)
	}
	main := api.MainRequests()
	if last := main[len(main)-1].Body; !strings.Contains(last, "Noted.") {
		t.Error("the fork's request does not carry the old answer: the old conversation should go on")
	}
}
