package matcher

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/command"
)

// TestFileRejectsKeepMatches matches path rules of every shape against
// file calls (plain, through symlinks, hard-linked, outside the working
// folder, in the home folder) with the cheap reject of cannotMatchFile and
// without it, in every list, and wants the same answer every time.
func TestFileRejectsKeepMatches(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj, home, out := filepath.Join(tmp, "proj"), filepath.Join(tmp, "home"), filepath.Join(tmp, "out")
	for _, d := range []string{"proj/src/pkg", "proj/docs", "proj/build/a", "home/.ssh", "out/data"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"proj/src/pkg/a.go", "proj/.env", "proj/docs/x.md", "out/data/y.lock", "home/.ssh/id_rsa", "proj/build/a/m.o"} {
		if err := os.WriteFile(filepath.Join(tmp, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"proj/link.go":    "src/pkg/a.go",
		"proj/outside":    "../out/data",
		"proj/keys":       "../home/.ssh",
		"proj/src/secret": "../.env",
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(tmp, l)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(proj, ".env"), filepath.Join(proj, "docs/env.txt")); err != nil {
		t.Fatal(err)
	}
	rules := []string{
		"Edit(**/*.lock)", "Edit(**/*.lock3)", "Read(.env)", "Read(.env5)", "Read(**/.env)", "Read(docs/**)",
		"Edit(src/**/*.go)", "Edit(src/pkg/a.go)", "Write(build/{a,b}/*.o)", "Read(//" + out[1:] + "/**)",
		"Read(" + out + "/data/*.lock)", "Read(~/.ssh/**)", "Edit(~/.ssh/id_rsa)", "Read(id_rsa)", "Edit(*.go)",
		"Read(**)", "Edit(.)", "Read(src)", "Edit(docs/env.txt)", "Read(secret)", "Edit(lin?.go)", "Read([.]env)",
		"Write(out*)", "Read(outside/**)", "Edit(keys/*)", "Read(/)", "Write(//tmp/**)", "Read(data/y.lock)",
		"Edit(**/*.generated.ts)", "Edit(**/*xgenerated.ts)", "Edit(**/a.go)", "Edit(**/*a.go)", "Edit(**/*.o)",
	}
	paths := []string{
		"src/pkg/a.go", "link.go", ".env", "docs/x.md", "docs/env.txt", "outside/y.lock", "outside/new.lock",
		"keys/id_rsa", "~/.ssh/id_rsa", out + "/data/y.lock", "build/a/m.o", "build/b/new.o", "src/secret",
		"new/dir/f.go", ".", "/", "src", "../out/data/y.lock", "src/pkg/new.lock3", "src/x.generated.ts", "a.go", "o",
	}
	env := command.Env{Cwd: proj, Home: home}
	for _, text := range rules {
		r, err := ParseRule(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		for _, tool := range []string{"Read", "Edit", "Write", "NotebookEdit", "LS", "Grep"} {
			for _, p := range paths {
				input := map[string]any{"file_path": p, "notebook_path": p, "path": p, "pattern": "x"}
				c := command.Prepare(tool, input, env)
				for _, list := range []List{AllowList, AskList, DenyList} {
					command.FileRejects = false
					want := r.Match(c, list)
					command.FileRejects = true
					if got := r.Match(c, list); got != want {
						t.Errorf("%s on %s %s in %s: %v with the cheap reject, %v without", text, tool, p, list, got, want)
					}
					if w, ok := c.EndWord(); ok && list == AllowList && want && r.EndTest().Rejects(w) {
						t.Errorf("%s on %s %s: EndTest passes over a rule that allows it", text, tool, p)
					}
					if list != AllowList && r.NameTest().Rejects(c) != r.Skips(c, list) {
						t.Errorf("%s on %s %s in %s: the name test says %v, Skips %v", text, tool, p, list, r.NameTest().Rejects(c), r.Skips(c, list))
					}
				}
			}
		}
	}
}

// TestEndWord: a string that ends with t has t's last bytes where
// endWord and endMask put them, whatever the lengths.
func TestEndWord(t *testing.T) {
	tests := []struct {
		s, t string
		ends bool
	}{
		{"/p/src/handler.go", ".go", true},
		{"/p/src/handler.go", ".lock3", false},
		{"/p/x.generated.ts", ".generated.ts", true},
		{"/p/x.generated.ts", "xgenerated.ts", false}, // the same last eight bytes
		{"a.go", "xa.go", false},                      // longer than the string
		{"o", "o", true},
		{"", "", true},
		{"/p/y.lock", "", true},
	}
	for _, tc := range tests {
		if got := strings.HasSuffix(tc.s, tc.t); got != tc.ends {
			t.Fatalf("HasSuffix(%q, %q) = %v: the table is wrong", tc.s, tc.t, got)
		}
		same := command.EndWord(tc.s)&endMask(len(tc.t)) == command.EndWord(tc.t)
		if tc.ends && !same {
			t.Errorf("%q ends with %q, but the words differ", tc.s, tc.t)
		}
	}
}
