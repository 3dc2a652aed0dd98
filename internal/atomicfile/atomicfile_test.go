package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		path string
		ok   bool
	}{
		{"new file", filepath.Join(dir, "a.txt"), true},
		{"over an old file", filepath.Join(dir, "a.txt"), true},
		{"missing folder", filepath.Join(dir, "no", "b.txt"), false},
	} {
		err := Write(tc.path, []byte(tc.name), 0o600)
		if (err == nil) != tc.ok {
			t.Fatalf("%s: err %v", tc.name, err)
		}
		if !tc.ok {
			continue
		}
		got, _ := os.ReadFile(tc.path)
		fi, _ := os.Stat(tc.path)
		if string(got) != tc.name || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %q %v", tc.name, got, fi.Mode())
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
