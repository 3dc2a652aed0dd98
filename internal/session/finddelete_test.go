package session_test

import (
	"os"
	"path/filepath"
	"testing"

	"vibing/internal/session"
)

// TestFindDeleteGuard: find ... -delete writes below its root; when the
// tests before -delete are ANDed and name the entries (-name, -iname), the
// guard fires only when a guarded path, a folder on the way to it, or an
// entry below it has such a name. Everything else below a root that holds
// .vibing/ is refused as before.
func TestFindDeleteGuard(t *testing.T) {
	t.Parallel()
	attack := []string{
		"find . -delete",
		"find . -name '*.md' -delete",
		"find . -name chat.md -delete",
		"find . -name notes.md -delete", // an entry below .vibing/chat, not the chat file
		"find . -name 'audit*' -delete",
		"find .vibing -delete",
		"find . -name '*' -delete",
		"find . -o -name x -delete",
		"find . ! -name '*.go' -delete",
		"find . -not -name '*.go' -type f -delete",
		"find . -iname 'CHAT.MD' -delete",
		"find . -name '.vib*' -delete",
		"find . -name chat -delete",
		"find . -name '[!x]*' -delete",
		"find . -name '*.pyc' -o -delete",
		"find . -name '*.pyc' , -delete",
		"find . -delete -name '*.pyc'",
		"find . \\( -name '*.pyc' -o -name '*.md' \\) -delete",
		"find . \\( -name '*.pyc' -delete \\)",
		"find -L . -name '*.pyc' -delete",
		"find . -follow -name '*.pyc' -delete",
		`find . -name "$PAT" -delete`,
		"find . -path '*/.vibing/*' -delete",
		"find . -name '*.pyc' -exec true \\; -delete",
		"find ~ -name '*.yaml' -delete",
		"cd .vibing && find . -name '*.pyc' -delete",
		"find vlink/ -name '*.pyc' -delete",
	}
	everyday := []string{
		"find . -name '*.pyc' -delete",
		"find . -name node_modules -prune -o -name '*.pyc' -delete",
		"find . -name '*.pyc' -o -name '*.pyo' -delete",
		"find . \\( -name '*.pyc' -o -name __pycache__ \\) -delete",
		"find build -delete",
		"find . -type f -name '*.o' -delete",
		"find /tmp/x -delete",
		"find . -iname '*.LOG' -mtime +7 -delete",
		"find . -name '*.tmp' ! -path './src/*' -delete",
		"find . -maxdepth 2 -name .DS_Store -delete",
		"find src -name '*.orig' -delete",
		"find ~ -name '*.pyc' -delete",
		"find . -name '*.pyc' -print -delete",
		"find -P . -type d -empty -name tmp -delete",
	}
	for _, cmd := range attack {
		cmd := cmd
		t.Run("attack "+cmd, func(t *testing.T) {
			t.Parallel()
			f := guardFixture(t)
			tc := tcase{Mode: "bypassPermissions", Tool: "Bash", Input: bash(cmd), Want: session.Deny, Source: session.SourceGuard}
			tc.run(t, f)
		})
	}
	for _, cmd := range everyday {
		cmd := cmd
		t.Run("everyday "+cmd, func(t *testing.T) {
			t.Parallel()
			f := guardFixture(t)
			tc := tcase{Mode: "bypassPermissions", Tool: "Bash", Input: bash(cmd), Want: session.Allow}
			tc.run(t, f)
		})
	}
	if len(attack) < 10 || len(everyday) < 10 {
		t.Errorf("%d attack and %d everyday cases, want at least 10 of each", len(attack), len(everyday))
	}
}

// guardFixture is newFixture with more in .vibing: another chat file and an
// audit database, so that a name pattern can meet an entry that is not the
// chat file.
func guardFixture(t *testing.T) fixture {
	f := newFixture(t)
	for _, p := range []string{".vibing/chat/notes.md", ".vibing/audit.db", "src/x.pyc"} {
		if err := os.WriteFile(filepath.Join(f.proj, p), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// TestFindDeleteGuardBound: past maxGuardEntries (command) entries in a guarded folder
// a find -delete restricted to names is refused without looking further.
func TestFindDeleteGuardBound(t *testing.T) {
	t.Parallel()
	f := guardFixture(t)
	dir := filepath.Join(f.proj, ".vibing", "many")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2100; i++ {
		if err := os.WriteFile(filepath.Join(dir, "e"+itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tc := tcase{Mode: "bypassPermissions", Tool: "Bash", Input: bash("find . -name '*.pyc' -delete"), Want: session.Deny, Source: session.SourceGuard}
	tc.run(t, f)
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}
