package session_test

import (
	"os"
	"path/filepath"
	"testing"

	"vibing/internal/session"
)

// TestHooksPathRunsCode: the folder core.hooksPath names (in the
// repository's configuration or the person's) holds files that run code,
// like .git/hooks: a write there asks in every mode; a write elsewhere does
// not.
func TestHooksPathRunsCode(t *testing.T) {
	for _, where := range []string{"repo", "global"} {
		f := newFixture(t)
		cfg := "[core]\n\thooksPath = .githooks\n"
		file := filepath.Join(f.proj, ".git", "config")
		if where == "global" {
			cfg = "[user]\n\tname = x\n[core]\n\thooksPath = ~/hooks\n"
			file = filepath.Join(f.home, ".gitconfig")
			if err := os.MkdirAll(filepath.Join(f.proj, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(f.proj, ".git", "config"), []byte("[core]\n\tbare = false\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		hook := ".githooks/pre-commit"
		if where == "global" {
			hook = "~/hooks/pre-commit"
		}
		cases := []struct {
			tool  string
			input map[string]any
			want  session.Verdict
		}{
			{"Bash", map[string]any{"command": "echo id > " + hook}, session.Ask},
			{"Bash", map[string]any{"command": "cp x " + filepath.Dir(hook) + "/"}, session.Ask},
			{"Write", map[string]any{"file_path": hook, "content": "id"}, session.Ask},
			{"Bash", map[string]any{"command": "echo ok > notes.txt"}, session.Allow},
			{"Write", map[string]any{"file_path": "src/b.go", "content": "package x"}, session.Allow},
		}
		for _, c := range cases {
			e, err := tcase{Mode: "bypassPermissions"}.engine(t, f)
			if err != nil {
				t.Fatal(err)
			}
			d := e.Decide(c.tool, f.expandInput(c.input))
			if d.Decision != c.want {
				t.Errorf("%s: %s %v = %s (%s), want %s", where, c.tool, c.input, d.Decision, d.Reason, c.want)
			}
		}
	}
}
