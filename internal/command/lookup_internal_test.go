package command

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
	if l := c.lstat(names[0]); !l.st.Regular || l.st.Nlink != 1 {
		t.Errorf("lstat(%s).st = %+v, want a regular file with one link", names[0], l.st)
	}
}

// TestResolveWord holds Call.ResolveWord (the guard's resolution of a word
// it looked up) to ResolvePath: the same Abs and Real for plain names,
// symlinks (followed), dangling ones, missing names, names with a "/" or
// "~", and from other or unclean folders.
func TestResolveWord(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cwd := filepath.Join(tmp, "proj")
	for _, d := range []string{"proj/sub", "outside"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(cwd, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{"link": filepath.Join(tmp, "outside"), "dangling": "nowhere", "rel": "sub"} {
		if err := os.Symlink(to, filepath.Join(cwd, from)); err != nil {
			t.Fatal(err)
		}
	}
	words := []string{"file", "sub", "link", "dangling", "rel", "missing", ".", "..", "~", "~x", "sub/x", "link/x", "/etc", "a b"}
	for _, envCwd := range []string{cwd, cwd + "/", cwd + "/sub/.."} { // a call's Cwd is clean; an unclean one takes the full way
		env := Env{Cwd: envCwd, Home: filepath.Join(tmp, "home")}
		for _, dir := range []string{envCwd, cwd, cwd + "/", filepath.Join(cwd, "sub"), "/"} {
			for _, w := range words {
				c := Prepare("Bash", map[string]any{"command": "make " + w}, env)
				c.Exists(joinDir(dir, w)) // the guard's look-up first, as in a decision
				in := Env{Cwd: dir, Home: env.Home}
				got, want := c.ResolveWord(w, in), ResolvePath(w, in)
				if got.Abs != want.Abs || got.Real != want.Real || got.Raw != want.Raw {
					t.Errorf("in %s from %s, ResolveWord(%q) = %q, %q, want %q, %q", envCwd, dir, w, got.Abs, got.Real, want.Abs, want.Real)
				}
			}
		}
	}
}
