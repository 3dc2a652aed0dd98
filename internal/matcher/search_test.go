package matcher

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/command"
)

func TestGlobDir(t *testing.T) {
	tests := map[string]string{
		"*.go": "", "**/*.go": "", "src/*.go": "src", "secrets/**": "secrets", "/etc/**": "/etc",
		"../x/*": "../x", "/*": "/", "a/b/c.txt": "a/b", "{a,b}/*": "", "src/{a,b}/*": "src",
	}
	for in, want := range tests {
		if got := command.GlobDir(in); got != want {
			t.Errorf("globDir(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGrepFilter(t *testing.T) {
	tests := []struct {
		glob string
		want string // pieces joined by "|"; "" = no filtering
	}{
		{"*.go", "*.go"},
		{"*.{ts,tsx}", "*.{ts,tsx}"},
		{"*.ts, *.tsx", "*.ts|*.tsx"},
		{"*.ts *.js", "*.ts|*.js"},
		{"!*.go", ""},       // a negation selects nearly everything
		{"src/**/*.go", ""}, // a folder part: not read as a base name
		{"[", ""},           // does not compile
		{"", ""},
	}
	for _, tt := range tests {
		if got := strings.Join(command.GrepFilter(map[string]any{"glob": tt.glob}), "|"); got != tt.want {
			t.Errorf("grepFilter(%q) = %q, want %q", tt.glob, got, tt.want)
		}
	}
	if command.GrepFilter(map[string]any{"glob": 3}) != nil {
		t.Error("a glob that is not a string must not filter")
	}
}

// TestSearchWalkBudget: a Grep whose folder holds more entries than are
// walked fires an any-depth deny rule (what cannot be seen is not allowed);
// one the walk covers does not.
func TestSearchWalkBudget(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 30; i++ {
		if err := os.WriteFile(filepath.Join(dir, "f"+strings.Repeat("x", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := ParseRule("Read(.env)")
	if err != nil {
		t.Fatal(err)
	}
	env := command.Env{Cwd: dir, Home: "/nonexistent-home"}
	grep := func() *command.Call { return command.Prepare("Grep", map[string]any{"pattern": "x"}, env) }
	if r.Match(grep(), DenyList) {
		t.Fatal("a folder without .env fired Read(.env)")
	}
	old := command.MaxSearchEntries
	command.MaxSearchEntries = 10
	defer func() { command.MaxSearchEntries = old }()
	if !r.Match(grep(), DenyList) {
		t.Fatal("a folder larger than the walk did not fire Read(.env)")
	}
}
