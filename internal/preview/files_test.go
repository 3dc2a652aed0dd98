package preview_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vibing/internal/command"
	"vibing/internal/preview"
)

func TestFilePreviews(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	write("a.go", "package a\n\nfunc A() {\n\tprintln(\"a\")\n}\n")
	write("twice.txt", "x = 1\ny = 2\nx = 1\n")
	write("crlf.txt", "one\r\ntwo\r\nthree\r\n")
	write("img.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	write("real/target.txt", "alpha\nbeta\n")
	must(t, os.Symlink(filepath.Join(dir, "real/target.txt"), filepath.Join(dir, "link.txt")))
	write("nb.ipynb", `{"cells":[{"id":"c1","cell_type":"code","source":["print(1)\n","print(2)"]}]}`)
	env := command.Env{Cwd: dir, Home: "/home/me"}

	tests := []struct {
		name  string
		tool  string
		input map[string]any
		check func(t *testing.T, p preview.Preview)
	}{
		{"edit", "Edit", map[string]any{"file_path": "a.go", "old_string": "println(\"a\")", "new_string": "println(\"b\")"},
			func(t *testing.T, p preview.Preview) {
				want := "--- a/a.go\n+++ b/a.go\n@@ -1,5 +1,5 @@\n package a\n \n func A() {\n-\tprintln(\"a\")\n+\tprintln(\"b\")\n }\n"
				eq(t, "kind", p.Kind, preview.KindDiff)
				eq(t, "unified", p.Unified, want)
				eq(t, "added/removed", fmt.Sprint(p.Added, p.Removed), "1 1")
				eq(t, "proposed", p.Proposed, "package a\n\nfunc A() {\n\tprintln(\"b\")\n}\n")
			}},
		{"edit not found", "Edit", map[string]any{"file_path": "a.go", "old_string": "nope", "new_string": "x"},
			func(t *testing.T, p preview.Preview) {
				eq(t, "problem", p.Problem, `the old_string is not in the file ("nope"), so the edit will fail`)
				eq(t, "unified", p.Unified, "")
			}},
		{"edit not unique", "Edit", map[string]any{"file_path": "twice.txt", "old_string": "x = 1", "new_string": "x = 3"},
			func(t *testing.T, p preview.Preview) {
				eq(t, "problem", p.Problem, "the old_string occurs 2 times in the file and replace_all is not set, so the edit will fail")
			}},
		{"replace_all", "Edit", map[string]any{"file_path": "twice.txt", "old_string": "x = 1", "new_string": "x = 3", "replace_all": true},
			func(t *testing.T, p preview.Preview) {
				eq(t, "problem", p.Problem, "")
				eq(t, "added/removed", fmt.Sprint(p.Added, p.Removed), "2 2")
				eq(t, "proposed", p.Proposed, "x = 3\ny = 2\nx = 3\n")
			}},
		{"multiedit", "MultiEdit", map[string]any{"file_path": "twice.txt", "edits": []any{
			map[string]any{"old_string": "y = 2", "new_string": "y = 20"},
			map[string]any{"old_string": "x = 1\ny", "new_string": "x = 10\ny"}}},
			func(t *testing.T, p preview.Preview) {
				eq(t, "proposed", p.Proposed, "x = 10\ny = 20\nx = 1\n")
			}},
		{"multiedit second fails", "MultiEdit", map[string]any{"file_path": "twice.txt", "edits": []any{
			map[string]any{"old_string": "y = 2", "new_string": "y = 20"},
			map[string]any{"old_string": "z", "new_string": "w"}}},
			func(t *testing.T, p preview.Preview) {
				eq(t, "problem", p.Problem, `the old_string of edit 2 is not in the file ("z"), so the edit will fail`)
			}},
		{"new file", "Write", map[string]any{"file_path": filepath.Join(dir, "new/hello.py"), "content": "print('hi')\nprint('bye')\n"},
			func(t *testing.T, p preview.Preview) {
				eq(t, "kind", p.Kind, preview.KindNewFile)
				eq(t, "path", p.Path, "new/hello.py")
				eq(t, "lines/bytes", fmt.Sprint(p.Lines, p.Bytes), "2 25")
				eq(t, "head", p.Head, "print('hi')\nprint('bye')")
			}},
		{"write over a file", "Write", map[string]any{"file_path": "a.go", "content": "package a\n"},
			func(t *testing.T, p preview.Preview) {
				eq(t, "kind", p.Kind, preview.KindDiff)
				eq(t, "added/removed", fmt.Sprint(p.Added, p.Removed), "0 4")
			}},
		{"binary content", "Write", map[string]any{"file_path": "new.bin", "content": "ab\x00cd"},
			func(t *testing.T, p preview.Preview) {
				eq(t, "kind", p.Kind, preview.KindBinary)
				eq(t, "bytes", fmt.Sprint(p.Bytes), "5")
				eq(t, "head", p.Head, "")
			}},
		{"binary file", "Write", map[string]any{"file_path": "img.png", "content": "text\n"},
			func(t *testing.T, p preview.Preview) {
				eq(t, "kind", p.Kind, preview.KindBinary)
				eq(t, "unified", p.Unified, "")
				eq(t, "notes", strings.Join(p.Notes, "; "), "the file is binary (16 bytes); its content is not shown; it would be replaced by 1 lines of text")
			}},
		{"crlf", "Edit", map[string]any{"file_path": "crlf.txt", "old_string": "two\n", "new_string": "TWO\n"},
			func(t *testing.T, p preview.Preview) {
				eq(t, "unified", p.Unified, "--- a/crlf.txt\n+++ b/crlf.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n")
				eq(t, "notes", strings.Join(p.Notes, "; "), "the file has CRLF line endings (shown here as LF; they are kept)")
			}},
		{"crlf old_string", "Edit", map[string]any{"file_path": "crlf.txt", "old_string": "two\r\nthree", "new_string": "2\r\n3"},
			func(t *testing.T, p preview.Preview) {
				eq(t, "problem", p.Problem, "")
				eq(t, "added/removed", fmt.Sprint(p.Added, p.Removed), "2 2")
			}},
		{"symlink", "Edit", map[string]any{"file_path": "link.txt", "old_string": "beta", "new_string": "gamma"},
			func(t *testing.T, p preview.Preview) {
				eq(t, "path", p.Path, "link.txt")
				eq(t, "target", p.Target, filepath.Join(dir, "real/target.txt"))
				eq(t, "unified", p.Unified, "--- a/link.txt\n+++ b/link.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n")
			}},
		{"missing file", "Edit", map[string]any{"file_path": "gone.txt", "old_string": "a", "new_string": "b"},
			func(t *testing.T, p preview.Preview) {
				eq(t, "problem", p.Problem, "the file does not exist, so the edit will fail")
			}},
		{"edit creates", "Edit", map[string]any{"file_path": "made.txt", "old_string": "", "new_string": "hi\n"},
			func(t *testing.T, p preview.Preview) {
				eq(t, "kind", p.Kind, preview.KindNewFile)
			}},
		{"notebook", "NotebookEdit", map[string]any{"notebook_path": "nb.ipynb", "cell_id": "c1", "new_source": "print(1)\nprint(3)"},
			func(t *testing.T, p preview.Preview) {
				eq(t, "path", p.Path, "nb.ipynb (cell c1)")
				eq(t, "unified", p.Unified, "--- a/nb.ipynb (cell c1)\n+++ b/nb.ipynb (cell c1)\n@@ -1,2 +1,2 @@\n print(1)\n-print(2)\n\\ No newline at end of file\n+print(3)\n\\ No newline at end of file\n")
			}},
		{"fetch", "WebFetch", map[string]any{"url": "https://User@Docs.Example.COM./a?b=1", "prompt": "x"},
			func(t *testing.T, p preview.Preview) {
				eq(t, "kind/host", p.Kind+" "+p.Host, "fetch docs.example.com")
				eq(t, "url", p.URL, "https://User@Docs.Example.COM./a?b=1")
			}},
		{"other", "TodoWrite", map[string]any{"todos": []any{"a"}},
			func(t *testing.T, p preview.Preview) {
				eq(t, "json", p.JSON, "{\n  \"todos\": [\n    \"a\"\n  ]\n}")
			}},
		{"bash", "Bash", map[string]any{"command": "rm -rf build", "description": "Clean the build"},
			func(t *testing.T, p preview.Preview) {
				eq(t, "kind", p.Kind, preview.KindCommand)
				eq(t, "description", p.Description, "Clean the build")
				eq(t, "effects", strings.Join(p.Effects, "; "), "deletes build (recursive, forced)")
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, preview.Build(tc.tool, tc.input, env))
		})
	}
}

func eq(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

// A huge file: an edit far into an 8,000-line file is shown as one small
// hunk, quickly; a file past the read bound is named, not read.
func TestHugeFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	for i := range 8000 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	must(t, os.WriteFile(filepath.Join(dir, "big.txt"), []byte(b.String()), 0o644))
	big := make([]byte, preview.MaxFileBytes+10)
	must(t, os.WriteFile(filepath.Join(dir, "huge.txt"), big, 0o644))
	env := command.Env{Cwd: dir}

	start := time.Now()
	p := preview.Build("Edit", map[string]any{"file_path": "big.txt", "old_string": "line 7000\n", "new_string": "LINE 7000\n"}, env)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("preview of an edit in an 8,000-line file took %v", d)
	}
	eq(t, "hunk", strings.SplitN(p.Unified, "\n", 4)[2], "@@ -6998,7 +6998,7 @@")

	p = preview.Build("Write", map[string]any{"file_path": "big.txt", "content": strings.Repeat("new\n", 9000)}, env)
	if !p.Truncated || strings.Count(p.Unified, "\n") != preview.MaxDiffLines {
		t.Errorf("a 17,000-line diff: truncated=%v, %d lines; want cut at %d", p.Truncated, strings.Count(p.Unified, "\n"), preview.MaxDiffLines)
	}
	eq(t, "added/removed", fmt.Sprint(p.Added, p.Removed), "9000 8000")

	p = preview.Build("Edit", map[string]any{"file_path": "huge.txt", "old_string": "a", "new_string": "b"}, env)
	eq(t, "problem", p.Problem, "the file is larger than 8 MiB, too large to preview; review it outside the editor")

	p = preview.Build("Write", map[string]any{"file_path": "new.txt", "content": strings.Repeat("x", 1000) + "\n" + strings.Repeat("y\n", 100)}, env)
	if !p.Truncated || strings.Count(p.Head, "\n") != preview.HeadLines-1 || p.Lines != 101 {
		t.Errorf("head of a long new file: truncated=%v lines=%d head lines=%d", p.Truncated, p.Lines, strings.Count(p.Head, "\n")+1)
	}
}

func TestDetail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool  string
		input map[string]any
		want  string
	}{
		{"Bash", map[string]any{"command": "npm test"}, "npm test"},
		{"Edit", map[string]any{"file_path": "/p/src/a.go"}, "src/a.go"},
		{"Edit", map[string]any{"file_path": "/elsewhere/a.go"}, "/elsewhere/a.go"},
		{"WebFetch", map[string]any{"url": "https://x.org", "prompt": "p"}, "https://x.org"},
		{"WebSearch", map[string]any{"query": "neovim"}, "neovim"},
		{"Grep", map[string]any{"pattern": "TODO"}, "TODO"},
		{"Monitor", map[string]any{"command": "tail -f log"}, "tail -f log"},
		{"TodoWrite", map[string]any{"todos": []any{}}, `{"todos":[]}`},
		{"Task", map[string]any{}, ""},
	}
	for _, tc := range tests {
		if got := preview.Detail(tc.tool, tc.input, "/p"); got != tc.want {
			t.Errorf("Detail(%s, %v) = %q, want %q", tc.tool, tc.input, got, tc.want)
		}
	}
	if got := preview.Describe("Bash", map[string]any{"command": "ls"}, "/p"); got != "Bash (ls)" {
		t.Errorf("Describe = %q", got)
	}
}
