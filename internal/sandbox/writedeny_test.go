package sandbox_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/config"
	"vibing/internal/policy"
	"vibing/internal/sandbox"
	"vibing/internal/session"
)

// Write and Edit deny rules are held by the kernel: what they name inside
// the writable folders is read-only to scripts too, and the one file a
// literal rule names cannot be made; everything else stays writable.
func TestSandboxWriteDenies(t *testing.T) {
	p := newProject(t, `"Edit(main.txt)", "Write(config/prod.yaml)", "Edit(migrations/**)", "Write(dist/release.sig)", "Edit(**/*.lock)", "Write(~/.cache/keep/**)"`)
	for _, f := range []string{"config/prod.yaml", "config/dev.yaml", "migrations/001.sql", "src/deps.lock", "src/app.py"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(p.dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(p.dir, f), "v1\n")
	}
	if err := os.MkdirAll(filepath.Join(p.dir, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(p.home, ".cache/keep"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(p.home, ".cache/keep/k"), "v1\n")
	v := p.view(t)
	tests := []struct {
		name   string
		line   string
		ok     bool
		out    string
		intact string // a file (relative to the project, ~/ for home) that keeps "v1\n"
	}{
		// attacks: a script writes what a Write/Edit deny rule names
		{name: "a denied file", line: "echo x > main.txt", out: "Read-only file system"},
		{name: "a denied file by python3", line: "python3 -c 'open(\"config/prod.yaml\",\"w\").write(\"x\")'", out: "Read-only file system", intact: "config/prod.yaml"},
		{name: "a file below a denied folder", line: "echo x > migrations/001.sql", out: "Read-only file system", intact: "migrations/001.sql"},
		{name: "a new file in a denied folder", line: "echo x > migrations/002.sql", out: "Read-only file system"},
		{name: "removing a denied file", line: "rm -f migrations/001.sql", intact: "migrations/001.sql"},
		{name: "a denied file that does not exist yet", line: "echo x > dist/release.sig", out: "Read-only file system"},
		{name: "a pattern at any depth", line: "echo x > src/deps.lock", out: "Read-only file system", intact: "src/deps.lock"},
		{name: "a denied folder in a writable cache", line: "echo x > ~/.cache/keep/k", out: "Read-only file system", intact: "~/.cache/keep/k"},
		// everyday: the rest stays writable
		{name: "a sibling of a denied file", line: "echo v2 > config/dev.yaml && cat config/dev.yaml", ok: true, out: "v2"},
		{name: "another file in the folder of a missing literal", line: "echo v2 > dist/app.js && cat dist/app.js", ok: true, out: "v2"},
		{name: "a source file", line: "echo v2 > src/app.py && cat src/app.py", ok: true, out: "v2"},
		{name: "reading a denied file", line: "cat config/prod.yaml", ok: true, out: "v1"},
		{name: "the rest of the cache", line: "mkdir -p ~/.cache/go && echo c > ~/.cache/go/c && echo ok", ok: true, out: "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, ok := p.sh(t, v, tt.line)
			if tt.ok && !ok {
				t.Errorf("failed: %s", out)
			}
			if tt.out != "" && !strings.Contains(out, tt.out) {
				t.Errorf("output lacks %q: %s", tt.out, out)
			}
			if tt.intact != "" {
				f := filepath.Join(p.dir, tt.intact)
				if strings.HasPrefix(tt.intact, "~/") {
					f = filepath.Join(p.home, tt.intact[2:])
				}
				if b, _ := os.ReadFile(f); string(b) != "v1\n" {
					t.Errorf("%s changed: %q", tt.intact, b)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(p.dir, "dist/release.sig")); err == nil {
		t.Errorf("the placeholder for dist/release.sig was left behind")
	}
	notes := strings.Join(v.Unexpanded, "\n")
	for _, want := range []string{"Edit(**/*.lock)", "a new file its pattern matches can still be made"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// TestSandboxWriteViewMatchesEngine: file by file, a file whose Write the
// engine refuses by a Write or Edit rule is read-only in the view, and a
// file no such rule names is not made read-only for one.
func TestSandboxWriteViewMatchesEngine(t *testing.T) {
	p := newProject(t, `"Edit(**/*.lock)", "Write(gen/**)", "Edit(src/api/*.json)"`)
	for _, f := range []string{"a.lock", "src/b.lock", "gen/x.go", "gen/sub/y.go", "src/api/v1.json", "src/api/deep/v2.json", "src/main.go", "lock", "gen.go"} {
		full := filepath.Join(p.dir, f)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, full, "x\n")
	}
	ch, err := policy.Open(policy.Request{Config: config.DefaultConfig(), ChatFile: p.chat, Dir: p.dir,
		Places: policy.Places{Home: p.home, Managed: filepath.Join(p.home, "etc-vibing"), ClaudeManaged: filepath.Join(p.home, "etc-cc"),
			TrustStore: filepath.Join(p.home, "state/trust.json"), Binary: "/usr/bin/true"}})
	if err != nil || ch.LoadErr != nil {
		t.Fatal(err, ch.LoadErr)
	}
	v := sandbox.Derive(sandbox.Input{Engine: ch.Engine, Root: ch.Root, Home: p.home})
	dir, _ := filepath.EvalSymlinks(p.dir)
	checked := 0
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == ".git" || d.Name() == ".vibing" || d.Name() == ".claude") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		checked++
		dec := ch.Engine.Decide("Write", map[string]any{"file_path": path, "content": ""})
		byRule := dec.Decision == session.Deny && (strings.HasPrefix(dec.Rule, "Write(") || strings.HasPrefix(dec.Rule, "Edit("))
		held := ""
		for _, e := range v.ReadOnly {
			if e.Bound && (path == e.Path || strings.HasPrefix(path, e.Path+"/")) {
				held = e.Why
			}
		}
		byWriteRule := strings.HasPrefix(held, "Write(") || strings.HasPrefix(held, "Edit(")
		if byRule != byWriteRule {
			t.Errorf("%s: the engine says %s (%s), read-only in the view for: %q", path, dec.Decision, dec.Rule, held)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 9 {
		t.Fatalf("only %d files compared", checked)
	}
}

// A Read deny rule is held whole only where no other name and no git
// history can read what it hides.
func TestSandboxHeldRules(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, p *project)
		held  bool
		note  string
	}{
		{"hidden, untracked", func(*testing.T, *project) {}, true, ""},
		{"a hard link elsewhere", func(t *testing.T, p *project) {
			if err := os.Link(filepath.Join(p.dir, "src/.env"), filepath.Join(p.dir, "copy-of-env")); err != nil {
				t.Fatal(err)
			}
		}, false, "hard links"},
		{"tracked by git", func(t *testing.T, p *project) {
			git(t, p.dir, "add", "-f", "src/.env")
		}, false, "git keeps it"},
		{"in git's history only", func(t *testing.T, p *project) {
			git(t, p.dir, "add", "-f", ".env")
			git(t, p.dir, "-c", "user.email=a@b", "-c", "user.name=t", "commit", "-qm", "oops")
			git(t, p.dir, "rm", "-q", "--cached", ".env")
			git(t, p.dir, "-c", "user.email=a@b", "-c", "user.name=t", "commit", "-qm", "fix")
		}, false, "git keeps it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, `"Read(.env)", "Edit(src/keep.txt)", "Edit(**/*.lock)"`)
			tt.setup(t, p)
			v := p.view(t)
			held := map[string]bool{}
			for _, h := range v.Held {
				held[h] = true
			}
			if held["Read(.env)"] != tt.held || !held["Edit(src/keep.txt)"] || held["Edit(**/*.lock)"] {
				t.Errorf("held %q, want Read(.env) %v, Edit(src/keep.txt), not Edit(**/*.lock)\nnotes: %s", v.Held, tt.held, strings.Join(v.Unexpanded, "\n"))
			}
			if tt.note != "" && !strings.Contains(strings.Join(v.Unexpanded, "\n"), tt.note) {
				t.Errorf("notes lack %q:\n%s", tt.note, strings.Join(v.Unexpanded, "\n"))
			}
		})
	}
}
