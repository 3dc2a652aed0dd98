package matcher

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestLookupOncePerCall: a name is looked up once per call (the guard's
// Exists and a file rule's fastResolve read the same Lstat), never across
// calls, and past maxLookups names every look-up still asks the system.
func TestLookupOncePerCall(t *testing.T) {
	dir := t.TempDir()
	var names []string
	for i := 0; i < maxLookups+3; i++ {
		p := filepath.Join(dir, "f"+strconv.Itoa(i))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(names[0], link); err != nil {
		t.Fatal(err)
	}
	c := new(Call)
	for _, p := range names {
		if !c.Exists(p) {
			t.Fatalf("Exists(%s) = false", p)
		}
	}
	if l := c.lstat(link); l.errno != 0 || !l.link {
		t.Fatalf("lstat(link) = %+v, want a symlink", l)
	}
	for _, p := range names {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range names {
		kept := i < maxLookups
		if got := c.Exists(p); got != kept {
			t.Errorf("after removal, Exists(%s) on the same call = %v, want %v (kept: %v)", p, got, kept, kept)
		}
		if new(Call).Exists(p) {
			t.Errorf("after removal, Exists(%s) on a new call = true", p)
		}
	}
	if l := c.lstat(names[0]); !l.st.ok || l.st.nlink != 1 {
		t.Errorf("lstat(%s).st = %+v, want a regular file with one link", names[0], l.st)
	}
}
