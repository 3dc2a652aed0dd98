package policy_test

import (
	"os"
	"path/filepath"
	"testing"

	"vibing/internal/frontmatter"
	"vibing/internal/policy"
	"vibing/internal/session"
)

// project makes <tmp>/root with .vibing/chat/{chat,other}.md and sub/; the
// chat says working_dir: sub.
func project(t *testing.T) (root, chat, other string) {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(tmp, "root")
	for _, d := range []string{".vibing/chat", "sub", "home"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	chat = filepath.Join(root, ".vibing/chat/chat.md")
	other = filepath.Join(root, ".vibing/chat/other.md")
	body := "---\nvibing.nvim: true\nworking_dir: sub\npermissions_mode: bypassPermissions\npermissions_allow: [\"Bash(echo:*)\", Edit]\n---\n## User\n"
	for _, p := range []string{chat, other} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, chat, other
}

func TestProjectRoot(t *testing.T) {
	t.Parallel()
	tests := []struct{ chat, dir, want string }{
		{"/p/.vibing/chat/c.md", "/elsewhere", "/p"},
		{"/p/sub/.vibing/chat/c.md", "/p", "/p/sub"},
		{"/p/.vibing/c.md", "/x", "/p"},
		{"/p/docs/talk.md", "/p", "/p"},
		{"/p/docs/talk.md", "/q", "/q"},
		{"", "/q", "/q"},
	}
	for _, tt := range tests {
		if got := policy.ProjectRoot(tt.chat, tt.dir); got != tt.want {
			t.Errorf("ProjectRoot(%q, %q) = %q, want %q", tt.chat, tt.dir, got, tt.want)
		}
	}
}

func TestWorkDir(t *testing.T) {
	t.Parallel()
	root, _, _ := project(t)
	dir := filepath.Join(root, "home")
	tests := []struct {
		explicit, workingDir, want string
		err                        bool
	}{
		{"", "sub", filepath.Join(root, "sub"), false},          // relative to the project root, not to dir
		{"", "", dir, false},                                    // else where the caller stands
		{"../sub", "sub", filepath.Join(root, "sub"), false},    // --cwd wins, relative to dir
		{"", filepath.Join(root, "sub"), root + "/sub", false},  // absolute working_dir
		{"", "missing", "", true},                               // must be a folder
		{"", ".vibing/chat/chat.md", "", true},                  // a file is not a folder
		{root, "sub", root, false},                              // absolute --cwd
		{"", "./sub/../sub", filepath.Join(root, "sub"), false}, // cleaned
		{".", "sub", dir, false},                                // --cwd . is dir
		{"", "sub/", filepath.Join(root, "sub"), false},         // trailing slash
		{"", "..", filepath.Dir(root), false},                   // above the root, as written
		{"", "sub", filepath.Join(root, "sub"), false},          // (repeated: stable)
	}
	for _, tt := range tests {
		got, err := policy.WorkDir(dir, root, tt.explicit, tt.workingDir)
		if (err != nil) != tt.err || (!tt.err && got != tt.want) {
			t.Errorf("WorkDir(%q, %q) = %q, %v; want %q, error %v", tt.explicit, tt.workingDir, got, err, tt.want, tt.err)
		}
	}
}

// TestOpenFileAndBufferAgree: a chat read from its file (the command line)
// and from its buffer lines (the editor) loads to the same engine, from any
// current directory: working_dir: sub is relative to the project root, and
// the project's .vibing/ stays guarded.
func TestOpenFileAndBufferAgree(t *testing.T) {
	t.Parallel()
	root, chat, other := project(t)
	fromFile, err := policy.Open(policy.Request{ChatFile: chat, Dir: filepath.Join(root, "home"), Options: session.Options{Home: filepath.Join(root, "home")}})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := frontmatter.ReadFile(chat)
	if err != nil {
		t.Fatal(err)
	}
	s, err := doc.Settings()
	if err != nil {
		t.Fatal(err)
	}
	fromBuffer, err := policy.Open(policy.Request{ChatFile: chat, Settings: &s, Dir: root, Options: session.Options{Home: filepath.Join(root, "home")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range []*policy.Chat{fromFile, fromBuffer} {
		if ch.Root != root || ch.Cwd != filepath.Join(root, "sub") {
			t.Errorf("Root, Cwd = %q, %q; want %q, %q", ch.Root, ch.Cwd, root, filepath.Join(root, "sub"))
		}
		for _, call := range []struct {
			tool string
			in   map[string]any
		}{
			{"Edit", map[string]any{"file_path": other, "old_string": "a", "new_string": "b"}},
			{"Bash", map[string]any{"command": "echo x > ../.vibing/chat/other.md"}},
			{"Bash", map[string]any{"command": "echo x > " + other}},
		} {
			if d := ch.Engine.Decide(call.tool, call.in); d.Decision != session.Deny || d.Source != session.SourceGuard {
				t.Errorf("%s %v = %s/%s (%s), want deny/guard", call.tool, call.in, d.Decision, d.Source, d.Reason)
			}
		}
	}
	a, b := fromFile.Engine.Explain(), fromBuffer.Engine.Explain()
	if a.Cwd != b.Cwd || len(a.Guarded) != len(b.Guarded) {
		t.Fatalf("explanations differ: %v / %v and %v / %v", a.Cwd, a.Guarded, b.Cwd, b.Guarded)
	}
	for i := range a.Guarded {
		if a.Guarded[i] != b.Guarded[i] {
			t.Errorf("guarded[%d] = %q and %q", i, a.Guarded[i], b.Guarded[i])
		}
	}
}
