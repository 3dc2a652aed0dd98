package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/fakeapi"
	"vibing/internal/run"
)

// With the sandbox on, an approved Write outside the project into /tmp
// lands in the sandbox's private /tmp: the run says the file will not last,
// and indeed it never appears in the real /tmp. A write into the project
// says nothing.
func TestSandboxPrivateTmpWriteSaysItWillNotPersist(t *testing.T) {
	needSandbox(t)
	name := "vibing-vanish-" + filepath.Base(t.TempDir()) + ".txt"
	scratch := filepath.Join("/tmp", name)
	w := newWorld(t, "", "sandbox: \"on\"\n")
	w.api.Close()
	w.api = fakeapi.New(
		fakeapi.Turn{Tools: []fakeapi.ToolCall{{Name: "Write", Input: map[string]any{"file_path": scratch, "content": "scratch\n"}}}},
		fakeapi.Turn{Tools: []fakeapi.ToolCall{{Name: "Write", Input: map[string]any{"file_path": filepath.Join(w.dir, "kept.txt"), "content": "kept\n"}}}},
		fakeapi.Turn{Text: "done"})
	t.Cleanup(func() { os.Remove(scratch) })
	res := w.run(answer(run.AllowOnce))
	var notes []string
	for _, n := range res.all("notice") {
		if strings.Contains(n.Message, "private /tmp") {
			notes = append(notes, n.Message)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], scratch) || !strings.Contains(notes[0], "never appears in your /tmp") {
		t.Errorf("notices about the private /tmp = %q, want one naming %s", notes, scratch)
	}
	if !w.exists("kept.txt") {
		t.Errorf("the approved write into the project did not last")
	}
	if _, err := os.Stat(scratch); err == nil {
		t.Errorf("%s exists outside the sandbox", scratch)
	}
}
