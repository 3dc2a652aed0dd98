package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/fakeapi"
)

// A forked chat (fork_of: <session>, no session_id) continues the old
// session under a new id: the run passes --resume with --fork-session, the
// model receives the old conversation, and the session id differs.
func TestRealForkGetsNewSession(t *testing.T) {
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
