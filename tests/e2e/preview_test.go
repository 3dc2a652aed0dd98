package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"vibing/internal/fakeapi"
	"vibing/internal/run"
)

func call(name string, input map[string]any) fakeapi.Turn {
	return fakeapi.Turn{Tools: []fakeapi.ToolCall{{Name: name, Input: input}}}
}

func (w *world) read(name string) string {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.dir, name))
	if err != nil {
		return "(missing: " + err.Error() + ")"
	}
	return string(b)
}

// approveEdited answers the first approval with allow_once and the given
// updated_input, after checking its preview kind.
func approveEdited(t *testing.T, kind string, updated map[string]any) func(run.Output, func(run.Input)) {
	return func(o run.Output, send func(run.Input)) {
		if o.Type != "approval_request" {
			return
		}
		if o.Preview == nil || o.Preview.Kind != kind {
			t.Errorf("approval_request preview = %+v, want kind %s", o.Preview, kind)
		}
		send(run.Input{Type: "approval_response", ID: o.ID, Decision: run.AllowOnce, UpdatedInput: updated})
	}
}

// The person edits the proposal before approving it: what lands on disk is
// the edited version, through the real CLI (updatedInput in the hook answer).
func TestRealEditedProposalLandsOnDisk(t *testing.T) {
	t.Parallel()
	t.Run("Write", func(t *testing.T) {
		w := newWorld(t, "permissions_ask: [Write]\n", "", fakeapi.Turn{})
		w.api = fakeapi.New(call("Write", map[string]any{"file_path": filepath.Join(w.dir, "notes.txt"), "content": "proposed by the agent\n"}))
		t.Cleanup(w.api.Close)
		res := w.run(approveEdited(t, "new_file", map[string]any{"content": "edited by the person\n"}))
		if got := w.read("notes.txt"); got != "edited by the person\n" {
			t.Errorf("notes.txt = %q, want the edited content; events %v", got, res.types())
		}
		if r := res.all("approval_resolved"); len(r) != 1 || !r[0].Edited {
			t.Errorf("approval_resolved = %+v, want one with edited", r)
		}
		rows := auditRows(t, w)
		if len(rows) != 1 || !rows[0].Edited || len(rows[0].InputSHA256) != 64 {
			t.Errorf("audit rows = %+v, want one edited approval with a SHA-256", rows)
		}
	})
	t.Run("Edit", func(t *testing.T) {
		w := newWorld(t, "permissions_allow: [Read]\npermissions_ask: [Edit]\n", "")
		w.write(filepath.Join(w.dir, "app.js"), "console.log('debug')\nmain()\n")
		abs := filepath.Join(w.dir, "app.js")
		w.api = fakeapi.New(call("Read", map[string]any{"file_path": abs}),
			call("Edit", map[string]any{"file_path": abs, "old_string": "console.log('debug')", "new_string": "logger.debug('x')"}))
		t.Cleanup(w.api.Close)
		res := w.run(approveEdited(t, "diff", map[string]any{"new_string": "logger.info('edited')"}))
		if got := w.read("app.js"); got != "logger.info('edited')\nmain()\n" {
			t.Errorf("app.js = %q, want the edited new_string; events %v", got, res.types())
		}
	})
	t.Run("Bash", func(t *testing.T) {
		w := newWorld(t, "permissions_ask: [Bash]\n", "", bash("touch proposed.txt"))
		w.run(approveEdited(t, "command", map[string]any{"command": "touch edited.txt"}))
		if w.exists("proposed.txt") || !w.exists("edited.txt") {
			t.Errorf("proposed.txt exists=%v edited.txt exists=%v, want only the edited command run", w.exists("proposed.txt"), w.exists("edited.txt"))
		}
	})
	t.Run("an edit a deny rule refuses", func(t *testing.T) {
		w := newWorld(t, "permissions_ask: [Bash]\npermissions_deny: [\"Bash(rm:*)\"]\n", "", bash("touch keep.txt"))
		w.write(filepath.Join(w.dir, "precious.txt"), "x")
		res := w.run(approveEdited(t, "command", map[string]any{"command": "rm precious.txt"}))
		if !w.exists("precious.txt") || w.exists("keep.txt") {
			t.Errorf("precious.txt exists=%v keep.txt exists=%v; want the refused edit not run at all; events %v",
				w.exists("precious.txt"), w.exists("keep.txt"), res.types())
		}
		if !w.api.Received("The edited Bash call is refused") {
			t.Error("the model was not told the edited call was refused")
		}
	})
}

// r: the person's reason reaches the model in the tool result.
func TestRealDenyReasonReachesModel(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "permissions_ask: [Bash]\n", "", bash("touch x.txt"))
	res := w.run(func(o run.Output, send func(run.Input)) {
		if o.Type == "approval_request" {
			send(run.Input{Type: "approval_response", ID: o.ID, Decision: run.DenyOnce, Reason: "use the Makefile target instead"})
		}
	})
	want := "User denied execution of Bash (touch x.txt): use the Makefile target instead"
	if !w.api.Received(want) {
		t.Errorf("the fake API never received %q; events %v", want, res.types())
	}
	if w.exists("x.txt") {
		t.Error("the denied command ran")
	}
}
