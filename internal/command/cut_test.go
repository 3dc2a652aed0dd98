package command

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCutIsTheAnswersOfPrepare: the keys and folders a rule set is cut by
// are worked out in Prepare and equal what commandKeys and CwdDirs answer
// on the call; the slow twin's calls have none (a zero Cut cuts nothing).
func TestCutIsTheAnswersOfPrepare(t *testing.T) {
	env := Env{Cwd: t.TempDir(), Home: t.TempDir()}
	if err := os.MkdirAll(filepath.Join(env.Cwd, "src/pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool  string
		input map[string]any
	}{
		{"Bash", map[string]any{"command": "npm test && git status | grep -v foo > /dev/null"}},
		{"Bash", map[string]any{"command": "./scripts/build.sh x; /usr/bin/env python3 -c 'print(1)'"}},
		{"Bash", map[string]any{"command": "a; b; c; d; e; f; g; h; i; j"}}, // more keys than the call keeps room for
		{"Bash", map[string]any{"command": "eval \"$X\""}},                  // unseen: no cut
		{"Bash", map[string]any{"command": "echo ${"}},                      // does not parse: no cut
		{"Edit", map[string]any{"file_path": "src/pkg/x.go"}},
		{"Read", map[string]any{"file_path": "/etc/hosts"}},
		{"Grep", map[string]any{"pattern": "x", "path": "src"}}, // a search: no cut
		{"WebFetch", map[string]any{"url": "https://example.org/"}},
	} {
		c := Prepare(tc.tool, tc.input, env)
		keys, keysOK := c.commandKeys(nil)
		dirs, n, dirsOK := c.CwdDirs()
		got := slices.Clone(c.Cut.Keys)
		slices.Sort(got)
		slices.Sort(keys)
		if c.Cut.KeysOK != keysOK || !slices.Equal(got, keys) {
			t.Errorf("%s %v: Cut.Keys %q (%v), commandKeys %q (%v)", tc.tool, tc.input, got, c.Cut.KeysOK, keys, keysOK)
		}
		if c.Cut.DirsOK != dirsOK || c.Cut.N != n || c.Cut.Dirs != dirs {
			t.Errorf("%s %v: Cut.Dirs %q[:%d] (%v), CwdDirs %q[:%d] (%v)", tc.tool, tc.input, c.Cut.Dirs, c.Cut.N, c.Cut.DirsOK, dirs, n, dirsOK)
		}
		Release(c)
		if r := PrepareReference(tc.tool, tc.input, env); r.Cut.KeysOK || r.Cut.DirsOK || r.Cut.Keys != nil {
			t.Errorf("%s %v: the slow twin's call has a cut %+v", tc.tool, tc.input, r.Cut)
		}
	}
}

// TestPrepareHow: each How prepares a call through a symlink as the entry
// it names does (resolved or not, with or without the shortcuts).
func TestPrepareHow(t *testing.T) {
	env := Env{Cwd: t.TempDir(), Home: t.TempDir()}
	target := filepath.Join(env.Home, "real.txt")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(env.Cwd, "link.txt")); err != nil {
		t.Fatal(err)
	}
	in := map[string]any{"file_path": "link.txt"}
	for _, tc := range []struct {
		how      How
		real     string
		ref      bool
		hasViews bool
	}{
		{How{}, target, false, true},
		{How{Unresolved: true}, filepath.Join(env.Cwd, "link.txt"), false, true},
		{How{Reference: true}, target, true, false},
		{How{Reference: true, Unresolved: true}, target, true, false},
	} {
		c := PrepareHow("Read", in, env, tc.how)
		if c.Path == nil || c.Path.Real != tc.real || c.ref != tc.ref || (c.Views != nil) != tc.hasViews {
			t.Errorf("%+v: Real %v, reference %v, views %v; want %s, %v, %v", tc.how, c.Path, c.ref, c.Views != nil, tc.real, tc.ref, tc.hasViews)
		}
	}
}

// TestCommandKeysLeadTwin holds commandKeys' pass for a command with one
// first word (Command.Lead) to the keys read from every word list.
func TestCommandKeysLeadTwin(t *testing.T) {
	env := Env{Cwd: t.TempDir(), Home: t.TempDir()}
	for _, line := range []string{
		"npm test && git status | grep -v foo > /dev/null",
		"npm  test", "'npm test' x", "npm\ttest", "./run.sh a; /bin/rm -rf x",
		"sudo rm -rf /", "env A=1 npm publish", "timeout 5 git push", "echo {a,b}", "xargs rm < list",
		"npm run build -- --watch", "git -C sub status", "A=1 make", "cd /tmp && ls", "\"rm\" -rf x",
		"bash -c 'npm test'", "'a b'", "'npm test' x", "find . -exec rm {} +", "command git push", "nice -n 5 cargo build",
	} {
		c := Prepare("Bash", map[string]any{"command": line}, env)
		fast, fastOK := c.commandKeys(nil)
		leads := make([]string, len(c.Commands))
		for i := range c.Commands {
			leads[i], c.Commands[i].lead = c.Commands[i].lead, ""
		}
		slow, slowOK := c.commandKeys(nil)
		if fastOK != slowOK || !slices.Equal(fast, slow) {
			t.Errorf("%q: keys %q (%v) with the leads %q, %q (%v) without", line, fast, fastOK, leads, slow, slowOK)
		}
	}
}
