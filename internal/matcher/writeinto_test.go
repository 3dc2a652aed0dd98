package matcher_test

import (
	"os"
	"path/filepath"
	"testing"

	"vibing/internal/command"
)

// TestWriteIntoLinkedFolder holds the deny and ask rules on a write into a
// folder (cp x dir/, tar x -C dir, find dir -name X -delete) to the folder
// the line names and to where it really is: a symlink into a folder a rule
// names fires as the folder itself does (PathPattern.NamesInto tries both).
func TestWriteIntoLinkedFolder(t *testing.T) {
	t.Parallel()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj, outside := filepath.Join(tmp, "proj"), filepath.Join(tmp, "outside")
	for _, d := range []string{"proj/secrets", "proj/src", "outside/keys"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"proj/a.txt", "proj/secrets/key.pem", "outside/keys/id.pem"} {
		if err := os.WriteFile(filepath.Join(tmp, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"proj/lnk": "secrets", "proj/out": outside, "proj/code": "src"} {
		if err := os.Symlink(target, filepath.Join(tmp, link)); err != nil {
			t.Fatal(err)
		}
	}
	env := command.Env{Cwd: proj, Home: filepath.Join(tmp, "home")}
	tests := []struct {
		attack bool
		list   string
		rule   string
		line   string
	}{
		// attacks: the folder is a link into what the rule names
		{true, "deny", "Edit(secrets/**)", "cp a.txt lnk/"},
		{true, "deny", "Edit(secrets/**)", "cp a.txt lnk"},
		{true, "ask", "Edit(secrets/**)", "mv a.txt lnk/"},
		{true, "deny", "Edit(secrets/*.pem)", "tar xf missing.tar -C lnk"},
		{true, "deny", "Edit(" + outside + "/**)", "cp a.txt out/"},
		{true, "deny", "Edit(" + outside + "/keys/**)", "cp -r src out/"},
		{true, "deny", "Edit(secrets/**)", "find lnk -name '*.pem' -delete"},
		{true, "deny", "Edit(" + outside + "/keys/*.pem)", "find out -name '*.pem' -delete"},
		// everyday: the same writes into folders no rule names
		{false, "deny", "Edit(secrets/**)", "cp a.txt code/"},
		{false, "deny", "Edit(secrets/**)", "cp a.txt src/"},
		{false, "ask", "Edit(secrets/**)", "tar xf missing.tar -C code"},
		{false, "deny", "Edit(" + outside + "/**)", "cp a.txt code/"},
		{false, "deny", "Edit(secrets/**)", "find code -name '*.pem' -delete"},
		{false, "deny", "Edit(" + outside + "/keys/*.pem)", "find out -name '*.txt' -delete"},
	}
	for _, tc := range tests {
		c := command.Prepare("Bash", map[string]any{"command": tc.line}, env)
		got := mustRule(t, tc.rule).Match(c, parseList(tc.list))
		if got != tc.attack {
			t.Errorf("%s %s on %q: matched %v, want %v", tc.list, tc.rule, tc.line, got, tc.attack)
		}
	}
}
