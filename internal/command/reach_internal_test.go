package command

import (
	"os"
	"path/filepath"
	"testing"
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
		if got := new(Call).Exists(joinName(tc.dir, tc.name)); got != tc.want {
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

// TestGuardedLazy: the guarded paths are listed the first time a call may
// change something, never for a line that only reads.
func TestGuardedLazy(t *testing.T) {
	dir := t.TempDir()
	env := Env{Cwd: dir, Home: dir}
	for _, tc := range []struct {
		line   string
		listed bool
	}{
		{"git status", false},
		{"cat README.md | grep -v foo", false},
		{"git status > /dev/null", true}, // a write, if only to /dev/null
		{"ls -la .vibing && cat .vibing/chat.md", false},
		{"rm -rf build", true},
		{"npm test", true},
		{"git status && touch x", true},
	} {
		n := 0
		g := NewGuarded(func() []string { n++; return []string{filepath.Join(dir, ".vibing")} }, []string{".vibing"}, env)
		c := Prepare("Bash", map[string]any{"command": tc.line}, env)
		if _, ok := c.Reaches(g); ok {
			t.Errorf("%q reaches a guarded path", tc.line)
		}
		if got := n > 0; got != tc.listed {
			t.Errorf("%q: listed the guarded paths = %v, want %v", tc.line, got, tc.listed)
		}
	}
}

// TestCdUnknown: the walk notes a cd, pushd or popd to a folder only known
// at run time, wherever it is on the line (the guard and the autorun step
// read it), and no other line.
func TestCdUnknown(t *testing.T) {
	dir := t.TempDir()
	env := Env{Cwd: dir, Home: dir}
	for _, tc := range []struct {
		line string
		want bool
	}{
		{`cd "$D" && rm x`, true},
		{`(cd "$(mktemp -d)"); ls`, true}, // a subshell's cd does not last, but it ran somewhere
		{"cd", true},
		{"pushd src && popd", true},
		{"sudo popd", true},
		{`sh -c 'cd "$1" && rm -rf build' _ x`, true},
		{"cd src && rm x", false},
		{"cd /tmp; pushd ../a", false},
		{"git status && npm test", false},
		{"echo cd", false},
	} {
		c := Prepare("Bash", map[string]any{"command": tc.line}, env)
		if c.CdUnknown != tc.want {
			t.Errorf("%q: CdUnknown = %v, want %v", tc.line, c.CdUnknown, tc.want)
		}
	}
}

// TestReachesBareWord: a bare word of a command that may change files is
// looked up (one lstat) even when its name is unlike every guarded name: a
// symlink of any name may lead into a guarded folder. Everyday words that
// name plain files, or nothing, do not reach it.
func TestReachesBareWord(t *testing.T) {
	dir := t.TempDir()
	vib := filepath.Join(dir, ".vibing")
	if err := os.MkdirAll(filepath.Join(vib, "chat"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"notes": ".vibing/chat", "test": ".vibing", "plain": ""} {
		var err error
		if target == "" {
			err = os.WriteFile(filepath.Join(dir, name), nil, 0o644)
		} else {
			err = os.Symlink(target, filepath.Join(dir, name))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	env := Env{Cwd: dir, Home: dir}
	g := NewGuarded(func() []string { return []string{vib} }, []string{".vibing"}, env)
	for _, tc := range []struct {
		line  string
		reach bool
	}{
		// attacks: a program the engine cannot read, given a symlink
		{"python3 tidy.py notes", true},
		{"npm test", true},
		{"mytool --out=notes", true},
		// everyday
		{"python3 tidy.py plain", false},
		{"mytool missing", false},
		{"npm run build", false},
		{"git status", false},
	} {
		c := Prepare("Bash", map[string]any{"command": tc.line}, env)
		if _, ok := c.Reaches(g); ok != tc.reach {
			t.Errorf("%q: reaches = %v, want %v", tc.line, ok, tc.reach)
		}
	}
}

// TestReachIsTheAnswerOfPrepare: a call prepared against a guarded set
// carries what Reaches answers for it and for its Bash view; one prepared
// without a set carries no answer (Of is nil), which the guard refuses.
func TestReachIsTheAnswerOfPrepare(t *testing.T) {
	env := Env{Cwd: t.TempDir(), Home: t.TempDir()}
	vib := filepath.Join(env.Cwd, ".vibing")
	if err := os.MkdirAll(vib, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(vib, filepath.Join(env.Cwd, "innocent")); err != nil {
		t.Fatal(err)
	}
	g := NewGuarded(func() []string { return []string{vib} }, []string{".vibing"}, env)
	for _, tc := range []struct {
		tool  string
		input map[string]any
		hit   bool
	}{
		// attacks
		{"Bash", map[string]any{"command": "rm -rf .vibing"}, true},
		{"Bash", map[string]any{"command": "npm test > innocent/x"}, true},
		{"Bash", map[string]any{"command": "cd innocent && touch rules"}, true},
		{"Edit", map[string]any{"file_path": "innocent/chat.md"}, true},
		{"Monitor", map[string]any{"command": "rm -rf .vibing"}, true}, // through the Bash view
		{"Bash", map[string]any{"command": "echo ${ .vibing"}, true},   // does not parse, names .vibing
		// everyday
		{"Bash", map[string]any{"command": "npm test && git status"}, false},
		{"Bash", map[string]any{"command": "cat .vibing/chat.md"}, false},
		{"Edit", map[string]any{"file_path": "src/x.go"}, false},
		{"Read", map[string]any{"file_path": "innocent/chat.md"}, false},
		{"Monitor", map[string]any{"command": "tail -f log"}, false},
	} {
		c := PrepareHow(tc.tool, tc.input, env, How{Guard: g})
		view := c
		if c.BashView != nil {
			view = c.BashView
			if c.Reach.Of != g {
				t.Errorf("%s %v: the call's Reach is not worked out against the set", tc.tool, tc.input)
			}
		}
		p, ok := view.Reaches(g)
		if view.Reach.Of != g || view.Reach.Path != p || view.Reach.Hit != ok {
			t.Errorf("%s %v: Reach %+v, Reaches (%q, %v)", tc.tool, tc.input, view.Reach, p, ok)
		}
		if ok != tc.hit {
			t.Errorf("%s %v: reaches %v (%q), want %v", tc.tool, tc.input, ok, p, tc.hit)
		}
		Release(c)
		if r := Prepare(tc.tool, tc.input, env); r.Reach != (Reach{}) {
			t.Errorf("%s %v: a call prepared without a guarded set has Reach %+v", tc.tool, tc.input, r.Reach)
		}
	}
}
