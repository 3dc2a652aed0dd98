package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/config"
	"vibing/internal/frontmatter"
)

// TestCwdNamesTwin holds cwdNames.passes, which lets namedPaths leave a
// word's path unbuilt, to classify on the path it would build: working
// folders inside and outside the home folder, inside .git, .claude, a
// hooks folder core.hooksPath names and the system's folders, each with
// every name classify knows (in other letter cases and spellings too) and
// everyday names. A pass where classify finds the file fails; rows that
// pass and rows that do not both occur.
func TestCwdNamesTwin(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, proj := filepath.Join(root, "home"), filepath.Join(root, "home", "proj")
	for _, d := range []string{".git/modules/m", ".claude/agents", "githooks", "src/pkg", "sub/.git"} {
		if err := os.MkdirAll(filepath.Join(proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{".ssh", ".config/git", ".local/bin", "bin"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(proj, ".git", "config"), []byte("[core]\n\thooksPath = githooks\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cwds := []string{proj, filepath.Join(proj, "src/pkg"), filepath.Join(proj, ".git"), filepath.Join(proj, ".git/modules/m"),
		filepath.Join(proj, ".claude"), filepath.Join(proj, ".claude/agents"), filepath.Join(proj, "githooks"), filepath.Join(proj, "sub"),
		home, filepath.Join(home, ".ssh"), filepath.Join(home, ".config"), filepath.Join(home, ".config/git"), filepath.Join(home, ".local"),
		filepath.Join(home, "bin"), root, "/", "/etc", "/etc/profile.d", proj + "/src/../src"}
	names := []string{"test", "build", "a", "x.y", "-", "~", "~x", ".", "..", "", "src", "main.go", "Makefile",
		"bin", ".local", "githooks", "modules", "m", "agents", "profile", "profile.d", "etc", "zsh", "gitconfig", "bash.bashrc",
		"HOOKS", "Config", "CONFIG.worktree", "CommonDir", "GITDIR", ".GIT", ".Claude", "claude.MD", "Claude.Local.md", ".MCP.json",
		"hookſ", "ſettings.json", "\u212aey", "config\u0131", "rc", "authorized_keys", ".bashrc", ".Bashrc", ".config", "git", "nvim",
	}
	for n := range homeAutorun {
		names = append(names, strings.Split(strings.TrimSuffix(n, "/"), "/")...)
	}
	for n := range systemAutorun {
		names = append(names, strings.Split(strings.TrimSuffix(n, "/"), "/")...)
	}
	passed, kept := 0, 0
	for _, cwd := range cwds {
		e, err := New(config.DefaultConfig(), frontmatter.Settings{}, Options{Cwd: cwd, Home: home})
		if err != nil {
			t.Fatalf("New in %s: %v", cwd, err)
		}
		for _, n := range names {
			if !e.cwdNameTest().passes(n) {
				kept++
				continue
			}
			passed++
			if h, hit := e.classify(filepath.Join(e.env.Cwd, n)); hit {
				t.Errorf("in %s, %q is passed over, but %s classifies as a file that %s", cwd, n, filepath.Join(e.env.Cwd, n), h.what)
			}
		}
	}
	if passed == 0 || kept == 0 {
		t.Errorf("%d names passed over and %d kept: the table must hold both", passed, kept)
	}
}
