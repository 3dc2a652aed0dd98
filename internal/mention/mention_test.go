package mention_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/frontmatter"
	"vibing/internal/mention"
	"vibing/internal/session"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	for _, f := range []string{".env", "src/a.go", "docs/My Notes.md", "home/.ssh/id_rsa"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
	}
	eng, err := session.New(nil, frontmatter.Settings{Deny: []string{"Read(.env)", "Read(~/.ssh/**)"}}, session.Options{Cwd: dir, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		prompt  string
		denied  string // the mention text refused ("" = none)
		allowed int
	}{
		// attacks: every form the CLI reads must be caught
		{"what is in @.env ?", ".env", 0},
		{"look at @.env, then", ".env,", 0},
		{"read @./.env#L1-3", "./.env#L1-3", 0},
		{"read @.env:1", ".env:1", 0},
		{`read @".env"`, ".env", 0},
		{"read @" + filepath.Join(dir, ".env"), filepath.Join(dir, ".env"), 0},
		{"and @~/.ssh/id_rsa please", "~/.ssh/id_rsa", 0},
		{"(@.env)", ".env)", 0},
		{"@src/a.go and @.env", ".env", 1},
		{"src/../.env via @src/../.env", "src/../.env", 0},
		// everyday: mentions that stay allowed
		{"explain @src/a.go", "", 1},
		{"compare @src/a.go:10 with @docs", "", 2},
		{`see @"docs/My Notes.md"`, "", 1},
		{"mail me at dev@example.com", "", 1},
		{"no mention here", "", 0},
		{"@src/a.go#L1-L20 please", "", 1},
		{"env files like .env are ignored unless mentioned", "", 0},
		{"@missing/file.txt", "", 1},
		{"two: @src/a.go @src/a.go", "", 2},
		{"trailing @src/a.go.", "", 1},
	}
	for _, tt := range tests {
		res := mention.Check(eng, tt.prompt, dir, home)
		switch {
		case tt.denied == "" && res.Denied != nil:
			t.Errorf("Check(%q) denied @%s (%s), want it sent", tt.prompt, res.Denied.Text, res.Denied.Decision.Reason)
		case tt.denied != "" && (res.Denied == nil || res.Denied.Text != tt.denied):
			t.Errorf("Check(%q) = %+v, want @%s denied", tt.prompt, res.Denied, tt.denied)
		case tt.denied == "" && len(res.Allowed) != tt.allowed:
			t.Errorf("Check(%q) allowed %d mentions, want %d", tt.prompt, len(res.Allowed), tt.allowed)
		}
		if res.Denied != nil && !strings.Contains(res.Denied.Refusal(), "It was not sent") {
			t.Errorf("refusal %q does not say the message was not sent", res.Denied.Refusal())
		}
	}
}
