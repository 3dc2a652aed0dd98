package oracle

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vibing/internal/testdeps"
)

// newTestRunner makes a world in a test folder and a runner for it.
func newTestRunner(t *testing.T) *Runner {
	t.Helper()
	dir, err := os.MkdirTemp("", "vibing-oracle-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// the sandbox's user must reach the template (a test folder is 0700)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := NewWorld(filepath.Join(dir, "w"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRunner(w)
	if err != nil {
		testdeps.Missing(t, "%v", err)
	}
	return r
}

// TestRunSeesEffects: the trace reports reads, writes, deletes, links and
// programs run, resolved through cd, symlinks and /proc.
func TestRunSeesEffects(t *testing.T) {
	r := newTestRunner(t)
	w := r.World
	p := func(rel string) string { return filepath.Join(w.Project, rel) }
	cases := []struct {
		line   string
		reads  []string
		writes []string
		links  []string
		exec   string
		secret bool
	}{
		{line: "cat .env", reads: []string{p(".env")}, exec: "cat", secret: true},
		{line: "cd src && cat secret/key.txt", reads: []string{p("src/secret/key.txt")}, exec: "cat", secret: true},
		{line: "d=src; cd $d/secret; head -1 key.txt", reads: []string{p("src/secret/key.txt")}, exec: "head"},
		{line: "ln -s .env x && cat x", reads: []string{p(".env")}, writes: []string{p("x")}},
		{line: "cat /proc/self/cwd/.e?v", reads: []string{p(".env")}},
		{line: "echo hi > notes.txt", writes: []string{p("notes.txt")}},
		{line: "rm hello.py", writes: []string{p("hello.py")}, exec: "rm"},
		{line: "mv README.md R.md", writes: []string{p("README.md"), p("R.md")}, exec: "mv"},
		{line: "ln .env h && true", links: []string{p(".env")}, writes: []string{p("h")}, exec: "ln"},
		{line: "mkdir -p a/b && rmdir a/b", writes: []string{p("a"), p("a/b")}},
		{line: "git show HEAD:.env", secret: true, exec: "git"},
		{line: "bash -c 'exec 3<.env; cat <&3'", reads: []string{p(".env")}, secret: true},
		{line: "echo x >> ~/.bashrc", writes: []string{filepath.Join(w.Home, ".bashrc")}},
	}
	for _, c := range cases {
		eff, err := r.Run(context.Background(), c.line)
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		for _, want := range c.reads {
			if !slices.Contains(eff.Reads, want) {
				t.Errorf("%s: reads %v, want %s", c.line, eff.Reads, want)
			}
		}
		for _, want := range c.writes {
			if !slices.Contains(eff.Writes, want) {
				t.Errorf("%s: writes %v, want %s", c.line, eff.Writes, want)
			}
		}
		for _, want := range c.links {
			if !slices.Contains(eff.Links, want) {
				t.Errorf("%s: links %v, want %s", c.line, eff.Links, want)
			}
		}
		if c.exec != "" && !slices.ContainsFunc(eff.Execs, func(a []string) bool { return len(a) > 0 && filepath.Base(a[0]) == c.exec }) {
			t.Errorf("%s: execs %q, want %s", c.line, eff.Execs, c.exec)
		}
		if c.secret && len(w.Secret(eff.Output)) == 0 {
			t.Errorf("%s: no secret in the output %q", c.line, eff.Output)
		}
	}
}

// TestRunBatch: lines of one batch each start on a fresh world, their
// effects are told apart, and a line that kills every process of the
// sandbox (the driver too) does not take the lines after it down.
func TestRunBatch(t *testing.T) {
	r := newTestRunner(t)
	w := r.World
	lines := []string{
		"cat .env",
		"rm CLAUDE.md; echo x > new.txt",
		"cat CLAUDE.md new.txt 2>&1; true", // the world is whole again: CLAUDE.md is back, new.txt gone
		"(sleep 0.2; cat src/secret/key.txt) & wait",
		"kill -9 -1",
		"head -1 hello.py",
	}
	effs, err := r.RunBatch(context.Background(), lines)
	if err != nil {
		t.Fatal(err)
	}
	p := func(rel string) string { return filepath.Join(w.Project, rel) }
	if got := effs[0].Reads; !slices.Contains(got, p(".env")) {
		t.Errorf("line 0 reads %v", got)
	}
	if got := effs[1].Writes; !slices.Contains(got, p("CLAUDE.md")) || !slices.Contains(got, p("new.txt")) {
		t.Errorf("line 1 writes %v", got)
	}
	if slices.Contains(effs[2].Reads, p(".env")) || slices.Contains(effs[1].Reads, p(".env")) {
		t.Errorf("line 0's read leaked into later lines: %v / %v", effs[1].Reads, effs[2].Reads)
	}
	if !slices.Contains(effs[2].Reads, p("CLAUDE.md")) || !strings.Contains(effs[2].Output, "Be careful") || !strings.Contains(effs[2].Output, "No such file") {
		t.Errorf("line 2 did not run on a fresh world: reads %v, output %q", effs[2].Reads, effs[2].Output)
	}
	if !slices.Contains(effs[3].Reads, p("src/secret/key.txt")) {
		t.Errorf("a background child's read was not the line's: %v", effs[3].Reads)
	}
	if got := effs[5].Reads; !slices.Contains(got, p("hello.py")) || !strings.Contains(effs[5].Output, "hello") {
		t.Errorf("the line after kill -9 -1: reads %v, output %q", got, effs[5].Output)
	}
}
