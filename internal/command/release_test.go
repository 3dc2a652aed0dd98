package command

import (
	"reflect"
	"testing"
)

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

// TestReleaseBashCall prepares Bash calls into released memory: the strings
// taken from a released call stay as they were, the next call holds
// nothing of the last one (its commands, writes, look-ups, argument
// words), and a call released twice is handed out once.
func TestReleaseBashCall(t *testing.T) {
	env := Env{Cwd: t.TempDir(), Home: t.TempDir()}
	line := "cd sub && cat < in.txt > out.txt | tee t.txt; npm test x y z"
	a := Prepare("Bash", map[string]any{"command": line}, env)
	a.Exists(env.Cwd + "/x") // what the guard leaves on a call
	action, text := a.Action(), a.Commands[0].Text
	if len(a.Writes) == 0 || len(a.Modifies) == 0 || a.args == nil || a.looks.Load() == nil {
		t.Fatalf("the line's call has no writes, modifications, words or look-ups: %+v", a)
	}
	Release(a)
	Release(a) // a second release does nothing
	if action != "tool:Bash:"+line || text != "cd sub" {
		t.Fatalf("a released call's strings changed: %q %q", action, text)
	}
	b := Prepare("Bash", map[string]any{"command": "ls -l"}, env)
	c := Prepare("Bash", map[string]any{"command": "echo hi > o.txt"}, env)
	if b == c || &b.Commands[0] == &c.Commands[0] {
		t.Fatal("two live calls share memory: a call released twice was handed out twice")
	}
	if len(b.Commands) != 1 || b.Commands[0].Text != "ls -l" || len(b.Writes) != 0 || len(b.Modifies) != 0 ||
		b.looks.Load() != nil || b.Err != nil || b.Action() != "tool:Bash:ls -l" {
		t.Errorf("a reused call kept what the released one held: %d commands, %d writes, %d modifies, looks %v, err %v",
			len(b.Commands), len(b.Writes), len(b.Modifies), b.looks.Load() != nil, b.Err)
	}
	if len(c.Writes) != 1 || c.Writes[0].Abs != env.Cwd+"/o.txt" || len(c.Modifies) != 1 || c.Modifies[0].Abs != env.Cwd+"/o.txt" {
		t.Errorf("reused call: writes %+v, modifies %+v, want %s/o.txt once each", c.Writes, c.Modifies, env.Cwd)
	}
	if a2 := PrepareReference("Bash", map[string]any{"command": line}, env); len(a2.Commands) != 4 || a2.Commands[0].Text != "cd sub" {
		t.Errorf("the line prepared again: %d commands", len(a2.Commands))
	}
	Release(b)
	Release(c)
}

// TestReleaseBashCallZeroes holds the reset of a released Bash call to the
// zero value: lines that fill every part of the room a Bash call keeps
// (more commands than it has room for, redirections, look-ups, argument
// words, a write and modifications) leave nothing behind.
func TestReleaseBashCallZeroes(t *testing.T) {
	env := Env{Cwd: t.TempDir(), Home: t.TempDir()}
	for _, line := range []string{
		"npm test && git status | grep -v foo > /dev/null",
		"cd sub && cat < in.txt > out.txt | tee t.txt; npm test x y z; ls a b c d e f g h i j; rm -f k l; echo done",
		"a; b; c; d; e; f; g > o1; h > o2; i >> o3",
		"",
		"echo ${",
	} {
		c := Prepare("Bash", map[string]any{"command": line}, env)
		for i := 0; i < 10; i++ {
			c.Exists(env.Cwd + "/w" + string(rune('a'+i)))
		}
		bc := c.bash
		if bc == nil {
			t.Fatalf("%q: no pooled Bash call", line)
		}
		bc.reset()
		// (but the program table's answers, which hold no string: TestProgBitsKeptAcrossCalls)
		bc.walker.progNames, bc.walker.progVals, bc.walker.progNext = [4]progKey{}, [4]progBits{}, 0
		if !reflect.ValueOf(bc).Elem().IsZero() {
			t.Errorf("%q: a reset Bash call is not zero", line)
		}
	}
}

// TestProgBitsKeptAcrossCalls holds the program table's answers a walker keeps, across
// the calls its pooled Bash call is reused for, to the table: names of the
// table and others, short and long (more than progKey holds), asked in
// turn on one walker reset between lines, each answer the table's.
func TestProgBitsKeptAcrossCalls(t *testing.T) {
	names := []string{"git", "npm", "grep", "sh", "bash", "sudo", "env", "xargs", "cat", "rm",
		"python3", "nope", "a", "docker-compose", "golangci-lint", "git-lfs", "a-name-longer-than-15", "x\x00y", "/bin/rm"}
	for n := range progs.Get() {
		if len(names) > 400 {
			break
		}
		names = append(names, n, n+"x")
	}
	bc := new(bashCall)
	w := &bc.walker
	for round := 0; round < 3; round++ {
		for i, n := range names {
			for _, m := range []string{n, names[(i*7+round)%len(names)], names[i/2]} {
				if got, want := w.progBits(m), progs.Get()[m]; got != want {
					t.Fatalf("round %d: progBits(%q) = %b, the table says %b", round, m, got, want)
				}
			}
			if i%5 == 0 {
				bc.reset() // a line ends: the answers stay
			}
		}
	}
}
