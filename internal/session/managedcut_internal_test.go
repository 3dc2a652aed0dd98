package session

import (
	"os"
	"path/filepath"
	"testing"

	"vibing/internal/config"
	"vibing/internal/frontmatter"
)

// TestManagedAskSurvivesTheCut: a managed ask rule asks for the calls it
// names whether or not the rule set is cut per call (the cut once dropped
// the managed asks, so a chat allow let a managed-ask edit through).
func TestManagedAskSurvivesTheCut(t *testing.T) {
	proj := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proj, "src/pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	managed := []PolicyFile{{Layer: LayerManaged, Name: "/etc/vibing/policy.yaml",
		Ask: []string{"Edit(src/**)", "Bash(git push:*)"}}}
	chat := frontmatter.Settings{Allow: []string{"Edit(**)", "Bash(git:*)", "Bash(npm:*)"}}
	e, err := New(config.DefaultConfig(), chat, Options{Cwd: proj, Home: t.TempDir(), Policy: managed})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool string
		in   map[string]any
		want Verdict
	}{
		{"Edit", map[string]any{"file_path": "src/pkg/a.go"}, Ask},
		{"Write", map[string]any{"file_path": "src/new.go"}, Ask},
		{"Edit", map[string]any{"file_path": "README.md"}, Allow},
		{"Bash", map[string]any{"command": "git push origin main"}, Ask},
		{"Bash", map[string]any{"command": "npm test && git push"}, Ask},
		{"Bash", map[string]any{"command": "git status"}, Allow},
	}
	for _, tc := range cases {
		if d := e.Decide(tc.tool, tc.in); d.Decision != tc.want {
			t.Errorf("%s %v = %s (%s), want %s", tc.tool, tc.in, d.Decision, d.Reason, tc.want)
		}
	}
}
