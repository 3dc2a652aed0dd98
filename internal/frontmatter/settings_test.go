package frontmatter_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"vibing/internal/frontmatter"
)

func TestSettings(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    frontmatter.Settings
	}{
		{"spec example", "testdata/chats/basic.md", frontmatter.Settings{
			Vibing: true, SessionID: "3f2a9c", CreatedAt: "2026-11-22T10:00:00", WorkingDir: ".",
			Mode: "acceptEdits", Preset: "standard",
			Allow: []string{"Read", "Edit", "Write"},
			Ask:   []string{"Bash", "Bash(npm:*)", "WebFetch(github.com)"},
			Deny:  []string{"Bash(rm -rf)"},
		}},
		{"block lists and quoted keys", "testdata/chats/block.md", frontmatter.Settings{
			Vibing: true, SessionID: "abc'def", Mode: "default",
			Allow: []string{"Read", "Grep", "Bash(git status:*)"},
			Ask:   []string{"Bash"},
			Deny:  []string{"Bash(rm -rf)", "Write(*.key)"},
		}},
		{"alias and single string list", "testdata/chats/alias.md", frontmatter.Settings{
			Vibing: true, Mode: "dontAsk", Allow: []string{"Read"}, Ask: []string{}, Deny: []string{},
		}},
		{"empty frontmatter", "testdata/chats/empty.md", frontmatter.Settings{
			Allow: []string{}, Ask: []string{}, Deny: []string{},
		}},
		{"only comments", "---\n# nothing yet\n---\n", frontmatter.Settings{
			Allow: []string{}, Ask: []string{}, Deny: []string{},
		}},
		{"permission_mode wins over permissions_mode", "---\npermission_mode: plan\npermissions_mode: dontAsk\n---\n", frontmatter.Settings{
			Mode: "plan", Allow: []string{}, Ask: []string{}, Deny: []string{},
			ModeNote: "permission_mode: plan wins over permissions_mode: dontAsk (the original vibing.nvim reads the singular key first)",
		}},
		{"an empty permission_mode leaves permissions_mode", "---\npermission_mode:\npermissions_mode: dontAsk\n---\n", frontmatter.Settings{
			Mode: "dontAsk", Allow: []string{}, Ask: []string{}, Deny: []string{},
		}},
		{"same mode under both keys", "---\npermission_mode: plan\npermissions_mode: plan\n---\n", frontmatter.Settings{
			Mode: "plan", Allow: []string{}, Ask: []string{}, Deny: []string{},
		}},
		{"other keys stay free", "---\nmodel: x\ntitle: permissive fun\nallowance: 3\nasked_by: me\n---\n", frontmatter.Settings{
			Model: "x", Allow: []string{}, Ask: []string{}, Deny: []string{},
		}},
		{"empty values", "---\npermissions_allow:\npermissions_mode:\nmodel: ~\n---\n", frontmatter.Settings{
			Allow: []string{}, Ask: []string{}, Deny: []string{},
		}},
		{"alias of an anchored list", "---\nbase: &b [Read, Grep]\npermissions_allow: *b\n---\n", frontmatter.Settings{
			Allow: []string{"Read", "Grep"}, Ask: []string{}, Deny: []string{},
		}},
		{"BOM", "\xef\xbb\xbf---\nvibing.nvim: true\n---\n", frontmatter.Settings{
			Vibing: true, Allow: []string{}, Ask: []string{}, Deny: []string{},
		}},
		{"fence with trailing blanks, no body", "--- \nmodel: x\n---", frontmatter.Settings{
			Model: "x", Allow: []string{}, Ask: []string{}, Deny: []string{},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			content := []byte(tc.content)
			if strings.HasPrefix(tc.content, "testdata/") {
				var err error
				if content, err = os.ReadFile(filepath.FromSlash(tc.content)); err != nil {
					t.Fatal(err)
				}
			}
			d, err := frontmatter.Parse(content)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got, err := d.Settings()
			if err != nil {
				t.Fatalf("Settings: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Settings() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestMalformed(t *testing.T) {
	tests := []struct {
		name, content string
		wantErr       error
		wantMsg       string // must appear in the error
		inSettings    bool   // Parse succeeds, Settings fails
	}{
		{"no frontmatter", "# Just markdown\n", frontmatter.ErrNoFrontmatter, "", false},
		{"empty file", "", frontmatter.ErrNoFrontmatter, "", false},
		{"fence not on line 1", "\n---\nmodel: x\n---\n", frontmatter.ErrNoFrontmatter, "", false},
		{"indented fence", " ---\nmodel: x\n---\n", frontmatter.ErrNoFrontmatter, "", false},
		{"no closing fence", "---\npermissions_deny: [Bash]\n\nbody\n", frontmatter.ErrMalformed, "no closing", false},
		{"only an opening fence", "---", frontmatter.ErrMalformed, "no closing", false},
		{"invalid YAML", "---\npermissions_allow: [Read\npermissions_deny: [Bash]\n---\n", frontmatter.ErrMalformed, "line", false},
		{"unclosed list names the file line it opens on", "---\nvibing.nvim: true\npermissions_allow: [Read\n---\n", frontmatter.ErrMalformed, "line 3: did not find expected ',' or ']'", false},
		{"unclosed map", "---\nmodel: x\n\npermissions: {a: b\n---\n", frontmatter.ErrMalformed, "line 4:", false},
		{"bad indentation", "---\npermissions_deny:\n  - Bash\n - Read\n---\n", frontmatter.ErrMalformed, "line 4", false},
		{"tab indentation", "---\npermissions_deny:\n\t- Bash\n---\n", frontmatter.ErrMalformed, "line 3", false},
		{"a list at the top", "---\n- Bash\n---\n", frontmatter.ErrMalformed, "line 2", false},
		{"a scalar at the top", "---\njust text\n---\n", frontmatter.ErrMalformed, "line 2", false},
		{"duplicate key", "---\npermissions_deny: [Bash]\npermissions_deny: []\n---\n", frontmatter.ErrMalformed, "line 3", false},
		{"undefined alias", "---\npermissions_deny: *nope\n---\n", frontmatter.ErrMalformed, "", false},
		{"stray carriage return", "---\n\rpermissions_allow: \n---", frontmatter.ErrMalformed, "line 2: a stray carriage return", false},
		{"unicode line separator", "---\nmodel: a\u2028permissions_allow: [Bash]\n---\n", frontmatter.ErrMalformed, "line 2", false},
		{"list is a map", "---\nmodel: x\npermissions_allow:\n  Read: yes\n---\n", frontmatter.ErrMalformed, "permissions_allow", true},
		{"list is a number", "---\npermissions_deny: 42\n---\n", frontmatter.ErrMalformed, "permissions_deny must be a list of rules, got a number (42)", true},
		{"list is a boolean", "---\npermissions_ask: true\n---\n", frontmatter.ErrMalformed, "permissions_ask", true},
		{"list is an empty string", "---\npermissions_deny: \"\"\n---\n", frontmatter.ErrMalformed, "line 2: permissions_deny", true},
		{"nested list item", "---\npermissions_deny:\n  - [Bash]\n---\n", frontmatter.ErrMalformed, "line 3", true},
		{"map list item", "---\npermissions_deny:\n  - Bash: x\n---\n", frontmatter.ErrMalformed, "line 3", true},
		{"empty list item", "---\npermissions_deny:\n  -\n  - Bash\n---\n", frontmatter.ErrMalformed, "empty item", true},
		{"mode is a map", "---\npermissions_mode: {a: b}\n---\n", frontmatter.ErrMalformed, "permissions_mode", true},
		{"alias mode is a list", "---\npermission_mode: [plan]\n---\n", frontmatter.ErrMalformed, "permission_mode", true},
		{"singular deny key", "---\npermissions_allow: [Bash]\npermission_deny: [\"Bash(rm:*)\"]\n---\n", frontmatter.ErrMalformed, "line 3: \"permission_deny\" looks like a permission key but is not one (did you mean permissions_deny?)", true},
		{"deny key with -ed", "---\npermissions_denied: [Bash]\n---\n", frontmatter.ErrMalformed, "did you mean permissions_deny?", true},
		{"wrong case", "---\nPermissions_Allow: [Bash]\n---\n", frontmatter.ErrMalformed, "did you mean permissions_allow?", true},
		{"upper case deny", "---\nPERMISSIONS_DENY: [Bash]\n---\n", frontmatter.ErrMalformed, "PERMISSIONS_DENY", true},
		{"dashes", "---\npermissions-ask: [Bash]\n---\n", frontmatter.ErrMalformed, "did you mean permissions_ask?", true},
		{"nested map", "---\npermissions:\n  deny: [Bash]\n---\n", frontmatter.ErrMalformed, "\"permissions\" looks like a permission key", true},
		{"bare deny key", "---\ndeny: [Bash]\n---\n", frontmatter.ErrMalformed, "\"deny\" looks like a permission key", true},
		{"claude's allowed_tools", "---\nallowed_tools: [Bash]\n---\n", frontmatter.ErrMalformed, "allowed_tools", true},
		{"perms shorthand", "---\nperms_deny: [Bash]\n---\n", frontmatter.ErrMalformed, "did you mean permissions_deny?", true},
		{"mode misspelled", "---\npermissions_mod: plan\n---\n", frontmatter.ErrMalformed, "did you mean permissions_mode?", true},
		{"YAML merge key", "---\nbase: &b {permissions_deny: [Bash]}\n<<: *b\n---\n", frontmatter.ErrMalformed, "line 3: a YAML merge key", true},
		{"vibing.nvim is text", "---\nvibing.nvim: maybe\n---\n", frontmatter.ErrMalformed, "vibing.nvim", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := frontmatter.Parse([]byte(tc.content))
			if tc.inSettings {
				if err != nil {
					t.Fatalf("Parse(%q): %v, want success", tc.content, err)
				}
				_, err = d.Settings()
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error for %q = %v, want %v", tc.content, err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q does not mention %q", err, tc.wantMsg)
			}
		})
	}
}

func TestReadFile(t *testing.T) {
	d, err := frontmatter.ReadFile(filepath.Join("testdata", "chats", "basic.md"))
	if err != nil {
		t.Fatalf("ReadFile: %v", err)
	}
	if s, _ := d.Settings(); s.Mode != "acceptEdits" {
		t.Errorf("ReadFile mode = %q, want acceptEdits", s.Mode)
	}
	bad := filepath.Join(t.TempDir(), "bad.md")
	os.WriteFile(bad, []byte("---\nx: [\n---\n"), 0o644)
	if _, err := frontmatter.ReadFile(bad); !errors.Is(err, frontmatter.ErrMalformed) || !strings.Contains(err.Error(), bad) {
		t.Errorf("ReadFile(bad) = %v, want ErrMalformed naming the file", err)
	}
	if _, err := frontmatter.ReadFile(filepath.Join(t.TempDir(), "missing.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v, want not exist", err)
	}
}
