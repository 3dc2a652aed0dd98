package sandbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"vibing/internal/sandbox"
	"vibing/internal/testdeps"
)

// started is a sandboxed shell line that waits for its stop file.
type started struct {
	cmd  *exec.Cmd
	pr   *sandbox.Prepared
	out  strings.Builder
	stop string
}

// start runs line inside the sandbox of p once the file stop-NAME exists
// in the project; the placeholders are in place when it returns.
func (p *project) start(t *testing.T, name, line string) *started {
	t.Helper()
	bwrap, err := sandbox.Find()
	if err != nil {
		testdeps.Missing(t, "these tests need bubblewrap and user namespaces: %v", err)
	}
	s := &started{stop: filepath.Join(p.dir, "stop-"+name)}
	s.pr, err = p.view(t).Prepare(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ready := filepath.Join(p.dir, "ready-"+name)
	s.cmd = exec.Command("/bin/sh", "-c", "touch "+ready+"; while [ ! -e "+s.stop+" ]; do sleep 0.02; done; "+line)
	s.cmd.Dir = p.dir
	s.cmd.Env = append(os.Environ(), "HOME="+p.home)
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.out
	s.pr.Wrap(s.cmd, bwrap)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 500; i++ {
		if _, err := os.Stat(ready); err == nil {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("sandbox %s did not start: %s", name, s.out.String())
	return nil
}

// finish lets the line run, waits for it and cleans up after it.
func (s *started) finish(t *testing.T) string {
	t.Helper()
	write(t, s.stop, "")
	_ = s.cmd.Wait()
	s.pr.Cleanup()
	return s.out.String()
}

// entries lists what is in the project but the test's own files.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if n := e.Name(); !strings.HasPrefix(n, "stop-") && !strings.HasPrefix(n, "ready-") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Two sandboxes on one project overlap, each holding the missing CLAUDE.md
// (and .mcp.json, .claude/ ...) with placeholders: whichever ends first, the
// other stays protected until it ends, and afterwards nothing is left in
// the project. A sandbox killed before its cleanup leaves its placeholders
// to the next one's.
func TestOverlappingSandboxesLeaveNothing(t *testing.T) {
	tests := []struct {
		name        string
		firstEnding string // "A" or "B"
		killA       bool   // A ends without its cleanup
	}{
		{"first started ends first", "A", false},
		{"last started ends first", "B", false},
		{"the last one running is killed", "B", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, `"Read(.env)"`)
			if err := os.RemoveAll(filepath.Join(p.dir, ".claude")); err != nil {
				t.Fatal(err)
			}
			before := entries(t, p.dir)
			attempt := "for f in CLAUDE.md .mcp.json .claude/settings.json; do echo x > $f && echo created $f; done; true"
			a := p.start(t, "A", attempt)
			b := p.start(t, "B", attempt)
			if got := entries(t, p.dir); len(got) == len(before) {
				t.Fatalf("no placeholders while the sandboxes run: %v", got)
			}
			first, second := a, b
			if tt.firstEnding == "B" {
				first, second = b, a
			}
			if out := first.finish(t); strings.Contains(out, "created") {
				t.Errorf("the first sandbox to end could create a held file: %s", out)
			}
			if tt.killA {
				write(t, a.stop, "")
				_ = a.cmd.Wait()
				a.pr.Abandon() // no Cleanup: its locks go with its process
				if got := entries(t, p.dir); len(got) == len(before) {
					t.Fatalf("the killed sandbox's placeholders went although no one could remove them")
				}
				p.start(t, "C", "true").finish(t)
			} else if out := second.finish(t); strings.Contains(out, "created") {
				t.Errorf("the sandbox still running after the other ended could create a held file: %s", out)
			}
			if got := entries(t, p.dir); strings.Join(got, " ") != strings.Join(before, " ") {
				t.Errorf("project after the sandboxes = %v, want %v (placeholders left behind)", got, before)
			}
		})
	}
}
