package session

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"vibing/internal/config"
	"vibing/internal/frontmatter"
)

// TestCutPerCallKeepsDecisions decides many file calls against many rule
// sets with the rule set cut per call (forCall) and without, and wants the
// same decision, rule and reason every time.
func TestCutPerCallKeepsDecisions(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(tmp, "proj")
	for _, d := range []string{"proj/src/pkg", "proj/src/gen", "proj/docs", "out", "home/.ssh"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"proj/src/pkg/a.go", "proj/.env", "proj/docs/x.md", "out/y.txt"} {
		if err := os.WriteFile(filepath.Join(tmp, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(proj, ".env"), filepath.Join(proj, "src/pkg/env.txt")); err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{"proj/link": filepath.Join(tmp, "out"), "proj/src/gl": "../docs", "proj/docs/back": "../src/pkg", "proj/homelink": filepath.Join(tmp, "home")} {
		if err := os.Symlink(to, filepath.Join(tmp, from)); err != nil {
			t.Fatal(err)
		}
	}
	rules := []string{"Edit(src/gen/**)", "Edit(src/pkg/*.go)", "Write(src/**)", "Read(docs/**)", "Read(.env)", "Edit(.env)",
		"Read(src/pkg/env.txt)", "Edit(**/*.go)", "Write(*.md)", "Read(" + tmp + "/out/**)", "Edit(~/.ssh/**)", "Read(//etc/**)",
		"Write(docs/back/**)", "Read(src/gl/**)", "Edit(link/**)", "Read(src/{pkg,gen}/**)", "Edit(src/p*/a.go)",
		"/tool:Edit:.*docs.*/", "Read", "Edit", "Write(src/[", "WebFetch(example.com)", "Bash(git:*)", "NotebookEdit(src/**)"}
	paths := []string{"src/pkg/a.go", "src/pkg/new.go", "src/gen/x.ts", "docs/x.md", "docs/back/a.go", "src/gl/x.md", "link/y.txt",
		"link/new", ".env", "src/pkg/env.txt", "README.md", "new/dir/f", "homelink/.ssh/id", tmp + "/out/y.txt", "/etc/passwd",
		"src/../docs/x.md", "link/../proj/.env", proj, "src", "src/"}
	tools := []string{"Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "Grep", "Glob", "LS", "NotebookRead"}
	modes := []string{"default", "acceptEdits", "bypassPermissions", "dontAsk", "plan"}
	rng := rand.New(rand.NewPCG(3, 4))
	n := 0
	for k := 0; k < 120; k++ {
		var s frontmatter.Settings
		for range 1 + rng.IntN(8) {
			r := rules[rng.IntN(len(rules))]
			switch rng.IntN(3) {
			case 0:
				s.Deny = append(s.Deny, r)
			case 1:
				s.Ask = append(s.Ask, r)
			default:
				s.Allow = append(s.Allow, r)
			}
		}
		s.Mode = modes[rng.IntN(len(modes))]
		e, _ := New(config.DefaultConfig(), s, Options{Cwd: proj, Home: filepath.Join(tmp, "home"), ChatFile: filepath.Join(proj, ".vibing/chat.md")})
		for _, tool := range tools {
			for _, p := range paths {
				in := map[string]any{"file_path": p, "notebook_path": p, "path": p, "pattern": "*.go"}
				cutPerCall = true
				got := e.Decide(tool, in)
				cutPerCall = false
				want := e.Decide(tool, in)
				cutPerCall = true
				n++
				if got != want {
					t.Fatalf("%s %s with %+v:\n cut  %s\n full %s", tool, p, s, fmt.Sprint(got), fmt.Sprint(want))
				}
			}
		}
	}
	t.Logf("%d decisions compared", n)
}
