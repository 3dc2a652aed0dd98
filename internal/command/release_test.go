package command

import "testing"

// TestReleaseReusesOnce prepares file calls into released memory: what a
// decision took from a released call stays as it was, the next call is
// prepared in full (nothing of the last one left over), and a call
// released twice is handed out once.
func TestReleaseReusesOnce(t *testing.T) {
	env := Env{Cwd: t.TempDir(), Home: t.TempDir()}
	a := Prepare("Edit", map[string]any{"file_path": "a/x.go"}, env)
	action, abs := a.Action(), a.Path.Abs
	a.stats.Store("k", fileStat{Regular: true}) // what a match may leave on a call
	Release(a)
	Release(a) // a second release does nothing
	if action != "tool:Edit:"+env.Cwd+"/a/x.go" || abs != env.Cwd+"/a/x.go" {
		t.Fatalf("a released call's strings changed: %q %q", action, abs)
	}
	b := Prepare("Read", map[string]any{"file_path": "b.txt"}, env)
	c := Prepare("Write", map[string]any{"file_path": "c.txt"}, env)
	if b == c || b.Path == c.Path {
		t.Fatal("two live calls share memory: a call released twice was handed out twice")
	}
	if _, ok := b.stats.Load("k"); ok {
		t.Error("a reused call kept what the released one held")
	}
	for _, x := range []struct {
		c          *Call
		tool, path string
	}{{b, "Read", env.Cwd + "/b.txt"}, {c, "Write", env.Cwd + "/c.txt"}} {
		if x.c.Tool != x.tool || x.c.Path.Abs != x.path || x.c.Action() != "tool:"+x.tool+":"+x.path || x.c.Err != nil {
			t.Errorf("reused call = %s %s %q %v, want %s %s", x.c.Tool, x.c.Path.Abs, x.c.Action(), x.c.Err, x.tool, x.path)
		}
	}
	Release(b)
	Release(c)
	Release(Prepare("Bash", map[string]any{"command": "ls"}, env)) // not a file call: left to the collector
}
