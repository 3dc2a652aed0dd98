package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vibing/internal/changes"
	"vibing/internal/fakeapi"
	"vibing/internal/run"
)

// TestRealFilesChanged: with the real CLI, the turn's end lists the file an
// Edit changed and the file a Bash line appended to, each with its pre-turn
// copy, and not the file the line only touched.
func TestRealFilesChanged(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "permissions_allow: [Read, Edit, Bash]\n", "")
	app, log := filepath.Join(w.dir, "app.js"), filepath.Join(w.dir, "log.txt")
	w.write(app, "console.log('debug')\nmain()\n")
	w.write(log, "one\n")
	w.write(filepath.Join(w.dir, "keep.txt"), "k\n")
	w.api = fakeapi.New(call("Read", map[string]any{"file_path": app}),
		call("Edit", map[string]any{"file_path": app, "old_string": "console.log('debug')", "new_string": "logger.debug('x')"}),
		call("Bash", map[string]any{"command": "echo two >> log.txt && touch keep.txt", "description": "log"}),
		fakeapi.Turn{Text: "Done."})
	t.Cleanup(w.api.Close)
	res := w.run(answer(run.AllowOnce))
	fc := res.all("files_changed")
	if len(fc) != 1 {
		t.Fatalf("files_changed events: %d, want 1; events %v\n%s", len(fc), res.types(), res.stderr)
	}
	ev := fc[0]
	if want := changes.ChatDir(w.dir, w.chat); filepath.Dir(ev.Dir) != want {
		t.Errorf("dir %s, want a turn of %s", ev.Dir, want)
	}
	want := []struct{ path, by, before string }{{app, "edit", "console.log('debug')\nmain()\n"}, {log, "bash", "one\n"}}
	if len(ev.Files) != len(want) {
		t.Fatalf("files %+v, want %d", ev.Files, len(want))
	}
	for i, f := range ev.Files {
		snap, err := os.ReadFile(f.Snapshot)
		if f.Path != want[i].path || f.By != want[i].by || err != nil || string(snap) != want[i].before {
			t.Errorf("file %d = %+v (snapshot %q, %v), want %s by %s with %q", i, f, snap, err, want[i].path, want[i].by, want[i].before)
		}
	}
	if got := w.read("app.js"); got != "logger.debug('x')\nmain()\n" {
		t.Errorf("app.js = %q: the Edit did not run", got)
	}
	types := res.types()
	for i, typ := range types {
		if typ == "files_changed" && (i+1 >= len(types) || types[i+1] != "result") {
			t.Errorf("files_changed is not just before the result: %v", types)
		}
	}
}

// TestChatRealModifiedFiles: in the editor, with the real CLI, the answer
// ends with the Modified files list; gd opens the diff against the pre-turn
// content and gr puts the file back.
func TestChatRealModifiedFiles(t *testing.T) {
	t.Parallel()
	unused := fakeapi.New()
	t.Cleanup(unused.Close)
	c := realChat(t, "permissions_allow: [Read, Edit]\n", unused)
	notes := filepath.Join(c.dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("draft\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// the turns name the chat's project, known once it is open
	api := fakeapi.New(call("Read", map[string]any{"file_path": notes}),
		call("Edit", map[string]any{"file_path": notes, "old_string": "draft", "new_string": "final"}),
		fakeapi.Turn{Text: "Edited notes.txt."})
	t.Cleanup(api.Close)
	c.lua(`vim.env.ANTHROPIC_BASE_URL = ...`, nil, api.URL)
	c.send("")
	waitLong(t, 60*time.Second, "the run to end", func() bool { return c.runs() >= 1 }, c.text)
	reply := c.lastReply()
	if !strings.Contains(reply, "Modified files · gd diff · gr revert · gR revert all · ../turns/chat-test/") || !strings.Contains(reply, "\n  notes.txt\n") {
		t.Fatalf("no Modified files list naming notes.txt:\n%s", reply)
	}
	if b, _ := os.ReadFile(notes); string(b) != "final\n" {
		t.Fatalf("notes.txt = %q: the Edit did not run", b)
	}
	c.lua(`
		local buf = ...
		for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
			if l == "  notes.txt" then vim.api.nvim_win_set_cursor(0, { i, 0 }) end
		end`, nil, c.buf)
	c.keys("gd")
	var diff struct {
		Wins int      `msgpack:"wins"`
		Old  []string `msgpack:"old"`
		Diff bool     `msgpack:"diff"`
	}
	c.lua(`local wins = vim.api.nvim_tabpage_list_wins(0)
		return { wins = #wins, old = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(wins[1]), 0, -1, false),
			diff = vim.wo[wins[1]].diff and vim.wo[wins[2]].diff }`, &diff)
	if diff.Wins != 2 || !diff.Diff || strings.Join(diff.Old, "\n") != "draft" {
		t.Errorf("gd: %+v, want two windows in diff mode, the old side holding the pre-turn content", diff)
	}
	c.lua(`vim.cmd("tabclose")`, nil)
	c.keys("gr")
	waitFor(t, "notes.txt reverted", func() bool { b, _ := os.ReadFile(notes); return string(b) == "draft\n" })
}
