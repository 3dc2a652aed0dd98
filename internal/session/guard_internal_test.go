package session

import (
	"os"
	"path/filepath"
	"testing"

	"vibing/internal/command"
)

// TestCleanAbs holds cleanAbs to what filepath.Clean leaves unchanged.
func TestCleanAbs(t *testing.T) {
	parts := []string{"", "/", "//", ".", "..", "a", "ab", ".a", "a.", "..a", "/.", "/..", "/a", "/.a", "/a/", "/./", "/../"}
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				dir := a + b + c
				want := filepath.IsAbs(dir) && filepath.Clean(dir) == dir
				if got := cleanAbs(dir); got != want {
					t.Errorf("cleanAbs(%q) = %v, want %v", dir, got, want)
				}
			}
		}
	}
}

// TestExists is the guard's look-up of a bare word (mayBePath, through
// Call.Exists): what an lstat of filepath.Join(dir, name) finds, a
// dangling symlink included.
func TestExists(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere", filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir, name string
		want      bool
	}{
		{dir, "file", true},
		{dir, "dangling", true},
		{dir, "missing", false},
		{dir, ".", true},
		{dir, "..", true},
		{dir + "/", "file", true},
		{dir + "/./", "file", true},
		{dir + "/x/..", "file", true},
		{"/", "tmp", true},
		{"relative-nowhere", "file", false},
	} {
		if got := new(command.Call).Exists(joinName(tc.dir, tc.name)); got != tc.want {
			t.Errorf("exists(%q, %q) = %v, want %v", tc.dir, tc.name, got, tc.want)
		}
	}
}

// TestJoinName holds joinName to filepath.Join.
func TestJoinName(t *testing.T) {
	for _, dir := range []string{"/", "/a", "/a/b", "/a/", "/a/./b", "/a/../b", "a", "", "//a"} {
		for _, name := range []string{"x", ".x", "..x", ".", "..", "", "x/y", "x/../..", "~"} {
			if got, want := joinName(dir, name), filepath.Join(dir, name); got != want {
				t.Errorf("joinName(%q, %q) = %q, want %q", dir, name, got, want)
			}
		}
	}
}
