package session

import (
	"os"
	"path/filepath"
	"testing"

	"vibing/internal/config"
	"vibing/internal/frontmatter"
)

// TestPathsIrrelevant checks when a decision leaves a path unresolved: only
// for a read-only tool in bypassPermissions mode with no rule that reads
// paths; and that the decisions are those of a resolved path.
func TestPathsIrrelevant(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj, out := filepath.Join(tmp, "proj"), filepath.Join(tmp, "out")
	for _, d := range []string{proj, out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(out, filepath.Join(proj, "link")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		mode, tool string
		deny, ask  []string
		allow      []string
		skip       bool
		want       Verdict
	}{
		{"bypass read, no rules", "bypassPermissions", "Read", nil, nil, nil, true, Allow},
		{"bypass read, tool rules only", "bypassPermissions", "Read", []string{"WebFetch"}, []string{"Bash(git push:*)"}, []string{"Read"}, true, Allow},
		{"bypass grep, no rules", "bypassPermissions", "Grep", nil, nil, nil, true, Allow},
		{"bypass read, a read deny", "bypassPermissions", "Read", []string{"Read(" + out + "/**)"}, nil, nil, false, Deny},
		{"bypass read, an Edit deny (a file rule)", "bypassPermissions", "Read", []string{"Edit(**)"}, nil, nil, false, Allow},
		{"bypass read, a regex ask", "bypassPermissions", "Read", nil, []string{"/tool:Read:.*out.*/"}, nil, false, Ask},
		{"bypass read, an invalid rule", "bypassPermissions", "Read", []string{"Read(["}, nil, nil, false, Deny},
		{"bypass write", "bypassPermissions", "Write", nil, nil, nil, false, Allow},
		{"default read", "default", "Read", nil, nil, nil, false, Ask},
		{"acceptEdits read", "acceptEdits", "Read", nil, nil, nil, false, Ask},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := frontmatter.Settings{Mode: tc.mode, Deny: tc.deny, Ask: tc.ask, Allow: tc.allow}
			e, _ := New(config.DefaultConfig(), s, Options{Cwd: proj, Home: tmp, ChatFile: filepath.Join(proj, ".vibing/chat.md")})
			if got := e.pathsIrrelevant(tc.tool, e.env); got != tc.skip {
				t.Errorf("pathsIrrelevant(%s) = %v, want %v", tc.tool, got, tc.skip)
			}
			in := map[string]any{"file_path": "link/x", "path": "link", "pattern": "x"}
			if d := e.Decide(tc.tool, in); d.Decision != tc.want {
				t.Errorf("Decide(%s link/x) = %s (%s), want %s", tc.tool, d.Decision, d.Reason, tc.want)
			}
		})
	}
}
