package matcher_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/command"
	"vibing/internal/matcher"
)

// hardLinkFixture builds $TMP/proj (the working directory) and $TMP/home
// with files hard-linked to the files deny rules name, made before the call
// as if by `ln` outside the engine's view.
func hardLinkFixture(t *testing.T) (string, command.Env) {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"proj/src", "proj/secrets", "proj/deep/er", "home/.ssh", "outside"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"proj/.env", "proj/README.md", "proj/a.txt", "proj/secrets/key.pem",
		"proj/src/.env", "proj/src/a.go", "home/.ssh/id_rsa", "outside/secret.txt", "proj/deep/.env"} {
		if err := os.WriteFile(filepath.Join(tmp, f), []byte("KEY=x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := [][2]string{
		{"proj/.env", "proj/notes.txt"},               // a link to the denied file, beside it
		{"proj/.env", "outside/env-copy"},             // ... and outside the project
		{"proj/secrets/key.pem", "proj/src/keep.txt"}, // a link in another folder
		{"home/.ssh/id_rsa", "proj/id.txt"},           // a link to a file in the home folder
		{"proj/src/.env", "proj/src/cfg.txt"},         // an any-depth .env, linked in its own folder
		{"outside/secret.txt", "proj/out.txt"},        // a link to an absolute rule's file
		{"proj/a.txt", "proj/b.txt"},                  // two files no rule names
	}
	for _, l := range links {
		if err := os.Link(filepath.Join(tmp, l[0]), filepath.Join(tmp, l[1])); err != nil {
			t.Skipf("hard links not supported here: %v", err)
		}
	}
	if err := os.Symlink("notes.txt", filepath.Join(tmp, "proj/sym")); err != nil {
		t.Fatal(err)
	}
	return tmp, command.Env{Cwd: filepath.Join(tmp, "proj"), Home: filepath.Join(tmp, "home")}
}

func TestHardLinks(t *testing.T) {
	t.Parallel()
	tmp, env := hardLinkFixture(t)
	tests := []struct {
		attack bool
		list   string
		rule   string
		tool   string
		input  string // the command, or the file tool's path
	}{
		// the same file under another name: deny and ask rules follow it
		{true, "deny", "Read(.env)", "Read", "notes.txt"},
		{true, "deny", "Read(.env)", "Read", "$TMP/proj/notes.txt"},
		{true, "deny", "Read(.env)", "Bash", "cat notes.txt"},
		{true, "deny", "Read(.env)", "Bash", "grep KEY notes.txt"},
		{true, "deny", "Read(.env)", "Bash", "cp notes.txt /tmp/leak"},
		{true, "deny", "Read(.env)", "Bash", "cat sym"},
		{true, "deny", "Read(.env)", "Bash", "cat ../outside/env-copy"},
		{true, "ask", "Read(.env)", "Bash", "head -1 notes.txt"},
		{true, "deny", "Edit(.env)", "Edit", "notes.txt"},
		{true, "deny", "Write(.env)", "Write", "notes.txt"},
		{true, "deny", "Read(.env)", "Write", "notes.txt"},
		{true, "deny", "Edit(.env)", "Bash", "sed -i s/x/y/ notes.txt"},
		{true, "deny", "Write(.env)", "Bash", "echo KEY=y > notes.txt"},
		{true, "deny", "Read(secrets/key.pem)", "Read", "src/keep.txt"},
		{true, "deny", "Read(secrets/key.pem)", "Bash", "cd src && cat keep.txt"},
		{true, "deny", "Read(~/.ssh/id_rsa)", "Bash", "base64 id.txt"},
		{true, "deny", "Read(.env)", "Bash", "cat src/cfg.txt"},
		{true, "deny", "Read($TMP/outside/secret.txt)", "Read", "out.txt"},
		// everyday: files with one link, links between files no rule names,
		// rules naming files that do not exist, allow rules
		{false, "deny", "Read(.env)", "Bash", "cat README.md"},
		{false, "deny", "Read(.env)", "Read", "README.md"},
		{false, "deny", "Read(.env)", "Bash", "cat a.txt b.txt"},
		{false, "deny", "Read(.env)", "Edit", "b.txt"},
		{false, "deny", "Read(missing.txt)", "Bash", "cat a.txt notes.txt"},
		{false, "deny", "Read(~/.ssh/id_ed25519)", "Bash", "cat id.txt"},
		{false, "deny", "Read(secrets/key.pem)", "Bash", "cat notes.txt"},
		{false, "deny", "Read(secrets/key.pem)", "Read", "src/a.go"},
		{false, "deny", "Edit(.env)", "Bash", "ls -la"},
		{false, "deny", "Read(.env)", "Bash", "grep -n x src/a.go"},
		{false, "deny", "Read(.env)", "Read", "src"},
		{false, "ask", "Read(id.txt)", "Bash", "cat README.md"},
		{false, "allow", "Read(.env)", "Read", "notes.txt"},
		{false, "allow", "Read(secrets/key.pem)", "Read", "src/keep.txt"},
	}
	attacks, everyday := 0, 0
	for _, tc := range tests {
		if tc.attack {
			attacks++
		} else {
			everyday++
		}
		input := strings.ReplaceAll(tc.input, "$TMP", tmp)
		rule := mustRule(t, strings.ReplaceAll(tc.rule, "$TMP", tmp))
		c := command.Prepare(tc.tool, inputFor(tc.tool, input), env)
		if got := rule.Match(c, parseList(tc.list)); got != tc.attack {
			t.Errorf("%s %s on %s %q: Match = %v, want %v (err %v)", tc.list, tc.rule, tc.tool, tc.input, got, tc.attack, c.Err)
		}
	}
	if attacks < 10 || everyday < 10 {
		t.Errorf("%d attack and %d everyday cases, want at least 10 of each", attacks, everyday)
	}
}

// TestHardLinkSearch: Grep over a hard link to a denied file reads it.
func TestHardLinkSearch(t *testing.T) {
	t.Parallel()
	_, env := hardLinkFixture(t)
	deny := mustRule(t, "Read(.env)")
	for path, want := range map[string]bool{"notes.txt": true, "README.md": false, "b.txt": false} {
		c := command.Prepare("Grep", map[string]any{"pattern": "KEY", "path": path}, env)
		if got := deny.Match(c, matcher.DenyList); got != want {
			t.Errorf("deny Read(.env) on Grep path %s = %v, want %v", path, got, want)
		}
	}
}

// TestHardLinkGlobRules: a rule with glob characters is not followed through
// hard links (the README says so): only literal paths are.
func TestHardLinkGlobRules(t *testing.T) {
	t.Parallel()
	_, env := hardLinkFixture(t)
	c := command.Prepare("Read", map[string]any{"file_path": "src/keep.txt"}, env)
	if mustRule(t, "Read(secrets/*.pem)").Match(c, matcher.DenyList) {
		t.Errorf("a glob rule matched through a hard link; the documented behaviour is that only literal rules do")
	}
}
