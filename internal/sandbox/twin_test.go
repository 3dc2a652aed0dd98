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

// TestSandboxViewMatchesEngine derives the view for rules at every depth
// (the chat's **/ rules and Claude settings' bare Read(.env), which the
// loader reads as **/.env) and compares it, file by file, with the engine:
// a file whose Read the engine denies by a Read rule is hidden, and no
// other file is. The view is made by the engine's slow twin, so the two
// agreeing holds the engine's shortcuts to the twin here as well.
func TestSandboxViewMatchesEngine(t *testing.T) {
	p := newProject(t, `"Read(**/*.pem)", "Read(**/secrets/**)"`)
	for _, f := range []string{"key.pem", "src/deep/x.pem", "secrets/token", "src/secrets/b", "src/keep.go", ".envrc", "docs/.env.example"} {
		full := filepath.Join(p.dir, f)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, full, "x\n")
	}
	write(t, filepath.Join(p.dir, ".claude/settings.json"), `{"permissions": {"deny": ["Read(.env)"]}}`+"\n")
	ch, err := policy.Open(policy.Request{Config: config.DefaultConfig(), ChatFile: p.chat, Dir: p.dir,
		Places: policy.Places{Home: p.home, Managed: filepath.Join(p.home, "etc-vibing"), ClaudeManaged: filepath.Join(p.home, "etc-cc"),
			TrustStore: filepath.Join(p.home, "state/trust.json"), Binary: "/usr/bin/true"}})
	if err != nil || ch.LoadErr != nil {
		t.Fatal(err, ch.LoadErr)
	}
	v := sandbox.Derive(sandbox.Input{Engine: ch.Engine, Root: ch.Root, Home: p.home})
	hidden := map[string]bool{}
	for _, e := range v.Hidden {
		hidden[e.Path] = true
	}
	dir, _ := filepath.EvalSymlinks(p.dir)
	checked := 0
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		checked++
		dec := ch.Engine.Decide("Read", map[string]any{"file_path": path})
		byRule := dec.Decision == session.Deny && strings.HasPrefix(dec.Rule, "Read(")
		under := false // hidden itself or below a hidden folder
		for h := range hidden {
			if path == h || strings.HasPrefix(path, h+"/") {
				under = true
			}
		}
		if byRule != under {
			t.Errorf("%s: the engine says %s (%s), hidden in the view: %v", path, dec.Decision, dec.Rule, under)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".env", "key.pem", "secrets/token", "src/.env", "src/deep/x.pem", "src/secrets/b"} {
		if !hidden[filepath.Join(dir, want)] {
			t.Errorf("the view does not hide %s: %+v", want, v.Hidden)
		}
	}
	if checked < 10 {
		t.Fatalf("only %d files compared", checked)
	}
	// and the kernel holds it: the top-level .env cannot be read inside
	// (a hidden file reads as empty, or cannot be opened)
	if out, _ := p.sh(t, v, "cat .env; cat ./.env; cat key.pem; cat secrets/token; head -c 99 .en?"); strings.Contains(out, "SECRET") || strings.Contains(out, "x") {
		t.Errorf("a script inside the sandbox read a hidden file: %q", out)
	}
	if out, ok := p.sh(t, v, "cat src/keep.go .envrc"); !ok || !strings.Contains(out, "x") {
		t.Errorf("a script inside the sandbox cannot read what no rule names: ok=%v %q", ok, out)
	}
}
