package changes_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"vibing/internal/changes"
)

// step is one thing that happens in a turn: a call kept a file (tool set),
// a Bash call's result came (settle), or the file was written or removed.
type step struct {
	keep   string // file name kept before a call of tool
	tool   string
	nocopy bool     // the agent may not read it: no copy
	settle []string // file names whose Bash call ended
	write  string   // file name written with text
	text   string
	remove string
}

func TestTurn(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // the project before the turn
		steps []step
		want  []changes.File // Path and Snapshot are file names
	}{
		{name: "an edited file", files: map[string]string{"a.txt": "old\n"},
			steps: []step{{keep: "a.txt", tool: "Edit"}, {write: "a.txt", text: "new\n"}},
			want:  []changes.File{{Path: "a.txt", By: "edit", Tool: "Edit", Snapshot: "1.before"}}},
		{name: "a created file", steps: []step{{keep: "n.txt", tool: "Write"}, {write: "n.txt", text: "hi\n"}},
			want: []changes.File{{Path: "n.txt", By: "edit", Tool: "Write", Created: true}}},
		{name: "a deleted file", files: map[string]string{"a.txt": "x"},
			steps: []step{{keep: "a.txt", tool: "Bash"}, {remove: "a.txt"}, {settle: []string{"a.txt"}}},
			want:  []changes.File{{Path: "a.txt", By: "bash", Tool: "Bash", Deleted: true, Snapshot: "1.before"}}},
		{name: "an allowed edit that changed nothing is not listed", files: map[string]string{"a.txt": "same"},
			steps: []step{{keep: "a.txt", tool: "Edit"}, {write: "a.txt", text: "same"}}},
		{name: "a Write that was never made is not listed", steps: []step{{keep: "n.txt", tool: "Write"}}},
		{name: "a file Bash wrote", files: map[string]string{"log": "1\n"},
			steps: []step{{keep: "log", tool: "Bash"}, {write: "log", text: "1\n2\n"}, {settle: []string{"log"}}},
			want:  []changes.File{{Path: "log", By: "bash", Tool: "Bash", Snapshot: "1.before"}}},
		{name: "a file unchanged when its Bash call ended is not that call's change", files: map[string]string{"log": "1\n"},
			steps: []step{{keep: "log", tool: "Bash"}, {settle: []string{"log"}}, {write: "log", text: "later\n"}}},
		{name: "the first call that kept a file names it", files: map[string]string{"a.txt": "1"},
			steps: []step{{keep: "a.txt", tool: "Edit"}, {keep: "a.txt", tool: "Bash"}, {write: "a.txt", text: "2"}, {settle: []string{"a.txt"}}},
			want:  []changes.File{{Path: "a.txt", By: "edit", Tool: "Edit", Snapshot: "1.before"}}},
		{name: "an edit after Bash settled keeps the pre-turn copy", files: map[string]string{"a.txt": "1", "b.txt": "b"},
			steps: []step{{keep: "b.txt", tool: "Bash"}, {settle: []string{"b.txt"}}, {keep: "a.txt", tool: "Edit"}, {write: "a.txt", text: "2"},
				{keep: "b.txt", tool: "MultiEdit"}, {write: "b.txt", text: "B"}},
			want: []changes.File{{Path: "a.txt", By: "edit", Tool: "Edit", Snapshot: "2.before"}, {Path: "b.txt", By: "edit", Tool: "MultiEdit", Snapshot: "3.before"}}},
		{name: "a file the agent may not read: seen changed, no copy", files: map[string]string{".env": "A=1", "b.env": "B=1"},
			steps: []step{{keep: ".env", tool: "Edit", nocopy: true}, {write: ".env", text: "A=2"}, {keep: "b.env", tool: "Bash", nocopy: true},
				{write: "b.env", text: "B=1"}, {settle: []string{"b.env"}}},
			want: []changes.File{{Path: ".env", By: "edit", Tool: "Edit", NoCopy: true}}},
		{name: "a folder Bash names is not kept", steps: []step{{keep: "sub", tool: "Bash"}}, files: map[string]string{"sub/x": "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			for name, text := range tt.files {
				write(t, filepath.Join(root, name), text)
			}
			st := &changes.Store{Dir: changes.ChatDir(root, "/x/.vibing/chat/chat-1.md"), Chat: "/x/chat-1.md"}
			turn := st.Begin(1)
			for _, s := range tt.steps {
				switch {
				case s.keep != "":
					if _, err := turn.Keep(filepath.Join(root, s.keep), s.tool, !s.nocopy); err != nil {
						t.Fatalf("Keep(%s) = %v", s.keep, err)
					}
				case s.write != "":
					write(t, filepath.Join(root, s.write), s.text)
				case s.remove != "":
					if err := os.Remove(filepath.Join(root, s.remove)); err != nil {
						t.Fatal(err)
					}
				default:
					var ps []string
					for _, n := range s.settle {
						ps = append(ps, filepath.Join(root, n))
					}
					turn.Settle(ps)
				}
			}
			dir := turn.Dir()
			got, err := turn.Finish()
			for _, s := range tt.steps {
				if !s.nocopy {
					continue
				}
				// nothing of a file the agent may not read is written
				_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
					if err == nil && !d.IsDir() && strings.Contains(read(t, p), tt.files[s.keep]) {
						t.Errorf("%s holds the content of %s, which the agent may not read", p, s.keep)
					}
					return nil
				})
			}
			if err != nil {
				t.Fatalf("Finish() = %v", err)
			}
			for i := range got {
				got[i].Path, _ = filepath.Rel(root, got[i].Path)
				if got[i].Snapshot != "" {
					if filepath.Dir(got[i].Snapshot) != dir {
						t.Errorf("snapshot %s is not in the turn's folder %s", got[i].Snapshot, dir)
					}
					got[i].Snapshot = filepath.Base(got[i].Snapshot)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Finish() = %+v, want %+v", got, tt.want)
			}
			if _, err := os.Stat(dir); len(tt.want) == 0 && dir != "" && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a turn that changed nothing left its folder %s (%v)", dir, err)
			}
		})
	}
}

// TestKeptContent: the copies hold the content before and after the turn,
// privately, and the manifest lists them in the event's order.
func TestKeptContent(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "a.sh")
	write(t, a, "echo old\n")
	if err := os.Chmod(a, 0o755); err != nil {
		t.Fatal(err)
	}
	st := &changes.Store{Dir: changes.ChatDir(root, "chat-1.md"), Chat: "chat-1.md"}
	turn := st.Begin(3)
	if kept, err := turn.Keep(a, "Edit", true); !kept || err != nil {
		t.Fatalf("Keep = %v, %v", kept, err)
	}
	if kept, _ := turn.Keep(a, "Edit", true); kept {
		t.Errorf("a file is kept once per turn")
	}
	write(t, a, "echo new\n")
	if _, err := turn.Finish(); err != nil {
		t.Fatal(err)
	}
	var m changes.Manifest
	data, err := os.ReadFile(filepath.Join(turn.Dir(), changes.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	want := []changes.Entry{{Path: a, By: "edit", Tool: "Edit", Existed: true, Mode: 0o755, Before: "1.before", After: "1.after"}}
	if !m.Done || m.Turn != 3 || !reflect.DeepEqual(m.Files, want) {
		t.Errorf("manifest = %+v, want done, turn 3, files %+v", m, want)
	}
	for name, text := range map[string]string{"1.before": "echo old\n", "1.after": "echo new\n"} {
		p := filepath.Join(turn.Dir(), name)
		if got := read(t, p); got != text {
			t.Errorf("%s = %q, want %q", name, got, text)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", name, fi.Mode().Perm())
		}
	}
	for _, d := range []string{turn.Dir(), st.Dir} {
		if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 {
			t.Errorf("%s mode %v, want 0700", d, fi.Mode().Perm())
		}
	}
	if got := read(t, filepath.Join(root, ".vibing", "turns", ".gitignore")); got == "" {
		t.Errorf("no .gitignore beside the chats' turns")
	}
}

// TestKeepFails: a copy that cannot be written, or a file a file tool names
// that cannot be copied, is an error (the runner refuses the call).
func TestKeepFails(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "a.txt"), "a")
	write(t, filepath.Join(root, "big"), "0123456789")
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	blocked := filepath.Join(root, "blocked")
	write(t, blocked, "a file where the turns folder would go")
	tests := []struct {
		name  string
		store changes.Store
		file  string
		tool  string
	}{
		{"the turns folder cannot be made", changes.Store{Dir: filepath.Join(blocked, "chat")}, "a.txt", "Edit"},
		{"a folder", changes.Store{Dir: filepath.Join(root, "t1")}, "sub", "Write"},
		{"a file over the limit", changes.Store{Dir: filepath.Join(root, "t2"), MaxFile: 4}, "big", "Edit"},
		{"Bash, where the copy cannot be written", changes.Store{Dir: filepath.Join(blocked, "chat")}, "a.txt", "Bash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := tt.store.Begin(1)
			if kept, err := turn.Keep(filepath.Join(root, tt.file), tt.tool, true); err == nil || kept {
				t.Errorf("Keep(%s, %s) = %v, %v; want an error", tt.file, tt.tool, kept, err)
			}
			if turn.Tracks(filepath.Join(root, tt.file)) {
				t.Errorf("a file whose copy failed is tracked")
			}
		})
	}
}

func TestPruneAndForget(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "a")
	st := &changes.Store{Dir: changes.ChatDir(root, "/p/.vibing/chat/chat-9.md"), Keep: 2}
	var dirs []string
	for i := 1; i <= 4; i++ {
		write(t, a, "v"+string(rune('0'+i)))
		turn := st.Begin(i)
		if _, err := turn.Keep(a, "Edit", true); err != nil {
			t.Fatal(err)
		}
		write(t, a, "w"+string(rune('0'+i)))
		if _, err := turn.Finish(); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, turn.Dir())
	}
	for i, d := range dirs {
		_, err := os.Stat(d)
		if kept := err == nil; kept != (i >= 2) {
			t.Errorf("turn %d kept = %v, want only the last 2 kept", i+1, kept)
		}
	}
	if err := changes.ForgetChat(root, "/p/.vibing/chat/chat-9.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(st.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ForgetChat left %s", st.Dir)
	}
}

func TestChatDir(t *testing.T) {
	tests := []struct{ chat, want string }{
		{"/p/.vibing/chat/chat-20261124-001500.md", "/p/.vibing/turns/chat-20261124-001500"},
		{"/p/notes/plan.md", "/p/.vibing/turns/plan"},
		{"/", "/p/.vibing/turns/_"},
		{"/p/..", "/p/.vibing/turns/_"},
		{"", "/p/.vibing/turns/_"},
	}
	for _, tt := range tests {
		if got := changes.ChatDir("/p", tt.chat); got != tt.want {
			t.Errorf("ChatDir(/p, %q) = %q, want %q", tt.chat, got, tt.want)
		}
	}
}

func write(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Error(err)
	}
	return string(data)
}
