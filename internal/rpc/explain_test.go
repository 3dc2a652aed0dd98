package rpc_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/rpc"
)

// TestExplainWithPolicyFiles: explain (what :VibingPermissions shows)
// answers with the policy files of every layer in a list, whether there are
// none, a project Claude settings file, a vibing policy or setup()'s rules.
func TestExplainWithPolicyFiles(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".state"))
	fm := lines("---", "vibing.nvim: true", "permissions_deny: [\"Read(.env)\"]", "---")
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  int // policy files reported at least
	}{
		{"no policy file", nil, 0},
		{"project Claude settings", map[string]string{"proj/.claude/settings.json": `{"permissions":{"deny":["Bash(curl:*)"]}}`}, 1},
		{"project vibing policy", map[string]string{"proj/.vibing/policy.yaml": "deny: [\"Bash(curl:*)\"]\n"}, 1},
		{"user Claude settings and project", map[string]string{
			".claude/settings.json":      `{"permissions":{"ask":["Bash(git push:*)"]}}`,
			"proj/.claude/settings.json": `{"permissions":{"deny":["Read(secrets/**)"]}}`,
		}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for p, body := range tc.files {
				dir := root
				if p[0] == '.' {
					dir = home
				}
				full := filepath.Join(dir, p)
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				defer os.Remove(full)
			}
			proj := filepath.Join(root, "proj")
			if err := os.MkdirAll(proj, 0o755); err != nil {
				t.Fatal(err)
			}
			h := &rpc.Host{}
			got, err := h.Handle(context.Background(), "explain", []any{map[string]any{"lines": fm, "cwd": proj}})
			if err != nil {
				t.Fatalf("explain: %v", err)
			}
			m := got.(map[string]any)
			if m["ok"] != true {
				t.Fatalf("explain failed: %v", m)
			}
			files, ok := m["files"].([]any)
			if !ok && m["files"] != nil {
				t.Fatalf("files = %T %v, want a list", m["files"], m["files"])
			}
			t.Logf("%d files: %v", len(files), files)
			if len(files) < tc.want {
				t.Fatalf("files = %v, want at least %d", files, tc.want)
			}
		})
	}
}

// TestExplainLiveState: explain describes the state the chat is in. A chat
// with a session_id and no live run will resume (asks refused); while its
// live run is a fresh session (the editor passes resumed = false) asks
// prompt; a live run that resumed says so.
func TestExplainLiveState(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".state"))
	fm := lines("---", "vibing.nvim: true", "session_id: 3f2a", "---")
	for _, tc := range []struct {
		name    string
		resumed any // nil: no live run
		want    bool
	}{
		{"no live run", nil, true},
		{"a fresh live run", false, false},
		{"a live run that resumed", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"lines": fm, "cwd": t.TempDir()}
			if tc.resumed != nil {
				args["resumed"] = tc.resumed
			}
			got, err := (&rpc.Host{}).Handle(context.Background(), "explain", []any{args})
			if err != nil {
				t.Fatal(err)
			}
			text, _ := got.(map[string]any)["text"].(string)
			if has := strings.Contains(text, "Resumed session"); has != tc.want {
				t.Errorf("text says resumed: %v, want %v:\n%s", has, tc.want, text)
			}
		})
	}
	if _, err := (&rpc.Host{}).Handle(context.Background(), "explain", []any{map[string]any{"lines": fm, "resumed": "yes"}}); err == nil {
		t.Errorf("explain with resumed = \"yes\" did not fail")
	}
}
