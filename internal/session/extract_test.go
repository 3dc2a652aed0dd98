package session_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"vibing/internal/session"
)

// testTgz is a gzipped tar of files named names (a name ending in "@"
// is a symlink to what follows it: "l@/etc").
func testTgz(t *testing.T, names ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	w := tar.NewWriter(zw)
	for _, n := range names {
		h := &tar.Header{Name: n, Mode: 0o644, Typeflag: tar.TypeReg, Size: 2}
		if name, target, ok := cut(n, "@"); ok {
			h.Name, h.Linkname, h.Typeflag, h.Size = name, target, tar.TypeSymlink, 0
		}
		if err := w.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			w.Write([]byte("x\n"))
		}
	}
	w.Close()
	zw.Close()
	return buf.Bytes()
}

func cut(s, sep string) (string, string, bool) {
	for i := 0; i+len(sep) <= len(s); i++ {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

func testZip(t *testing.T, names ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, n := range names {
		f, err := w.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("x\n"))
	}
	w.Close()
	return buf.Bytes()
}

func gitDiff(files ...string) []byte {
	var b bytes.Buffer
	for _, f := range files {
		b.WriteString("diff --git a/" + f + " b/" + f + "\n--- a/" + f + "\n+++ b/" + f + "\n@@ -1 +1 @@\n-x\n+y\n")
	}
	return b.Bytes()
}

func gitCreate(f string) []byte {
	return []byte("diff --git a/" + f + " b/" + f + "\nnew file mode 100755\n--- /dev/null\n+++ b/" + f + "\n@@ -0,0 +1 @@\n+echo hi\n")
}

// TestExtractGuard checks the guard in bypassPermissions mode on archives
// unpacked and patches applied in the project: when the file can be read,
// the names it holds decide (everyday lines run); a name in .vibing, a
// symlink member, a git hook, or a file that cannot be read is refused or
// asked as before.
func TestExtractGuard(t *testing.T) {
	t.Parallel()
	bypass := "bypassPermissions"
	cases := []struct {
		tc     tcase
		files  map[string][]byte
		attack bool
	}{
		{tc: tcase{Name: "tar xzf src", Input: bash("tar xzf src.tgz"), Want: session.Allow}},
		{tc: tcase{Name: "tar -C out", Input: bash("mkdir -p out && tar -xzf src.tgz -C out")}},
		{tc: tcase{Name: "tar strip", Input: bash("tar --strip-components=1 -xzf pkg.tgz")}},
		{tc: tcase{Name: "tar then build", Input: bash("tar xzf src.tgz && go build ./...")}},
		{tc: tcase{Name: "unzip -d out", Input: bash("unzip -d out a.zip")}},
		{tc: tcase{Name: "unzip here", Input: bash("unzip -o a.zip")}},
		{tc: tcase{Name: "git apply", Input: bash("git apply fix.patch")}},
		{tc: tcase{Name: "git apply --check then apply", Input: bash("git apply --check fix.patch && git apply fix.patch")}},
		{tc: tcase{Name: "patch -p1 <", Input: bash("patch -p1 < fix.patch")}},
		{tc: tcase{Name: "patch -p1 -i", Input: bash("patch -p1 -i fix.patch")}},
		{tc: tcase{Name: "git am", Input: bash("git am fix.patch")}},

		{attack: true, tc: tcase{Name: "member in .vibing", Input: bash("tar xzf evil.tgz"), Source: session.SourceGuard}},
		{attack: true, tc: tcase{Name: "member climbing into .vibing", Input: bash("tar xzf up.tgz -C src"), Source: session.SourceGuard}},
		{attack: true, tc: tcase{Name: "absolute member", Input: bash("tar xzf abs.tgz"), Source: session.SourceGuard}},
		{attack: true, tc: tcase{Name: "through a symlink on disk", Input: bash("tar xzf vlink.tgz"), Source: session.SourceGuard}},
		{attack: true, tc: tcase{Name: "symlink member", Input: bash("tar xzf link.tgz"), Source: session.SourceGuard}},
		{attack: true, tc: tcase{Name: "symlink to the config folder", Input: bash("tar xzf cfg.tgz -C out"), Source: session.SourceGuard}},
		{attack: true, tc: tcase{Name: "zip ../", Input: bash("unzip -d src evil.zip"), Source: session.SourceGuard}},
		{attack: true, tc: tcase{Name: "patch into .vibing", Input: bash("patch -p1 < evil.patch"), Source: session.SourceGuard}},
		{attack: true, tc: tcase{Name: "git apply into .vibing", Input: bash("git apply evil.patch"), Source: session.SourceGuard}},
		{attack: true, tc: tcase{Name: "git apply a hook", Input: bash("git apply hook.patch"), Want: session.Ask, Source: session.SourceAutorun}},
		{attack: true, tc: tcase{Name: "missing archive", Input: bash("tar xzf nope.tgz"), Source: session.SourceGuard}},
		{attack: true, tc: tcase{Name: "piped archive", Input: bash("curl -s https://x.test/a.tgz | tar xz"), Source: session.SourceGuard}},
		{attack: true, tc: tcase{Name: "archive replaced first", Input: bash("cp evil.tgz src.tgz; tar xzf src.tgz"), Source: session.SourceGuard}},
	}
	files := map[string][]byte{
		"src.tgz":     testTgz(t, "src/b.go", "src/c/d.go"),
		"pkg.tgz":     testTgz(t, "pkg-1/src/b.go", "pkg-1/go.mod"),
		"evil.tgz":    testTgz(t, "src/b.go", ".vibing/chat/chat.md"),
		"up.tgz":      testTgz(t, "../.vibing/chat/chat.md"),
		"abs.tgz":     testTgz(t, "/.vibing/chat/chat.md"),
		"link.tgz":    testTgz(t, "l@/tmp", "l/x"),
		"vlink.tgz":   testTgz(t, "vlink/chat/chat.md"),
		"a.zip":       testZip(t, "src/b.go", "docs/x.md"),
		"evil.zip":    testZip(t, "../.vibing/chat/chat.md"),
		"fix.patch":   gitDiff("src/a.go"),
		"evil.patch":  gitDiff("src/a.go", ".vibing/chat/chat.md"),
		"hook.patch":  gitCreate(".git/hooks/pre-commit"),
		"nothing.txt": []byte("x\n"),
	}
	everyday, attacks := 0, 0
	for _, c := range cases {
		if c.attack {
			attacks++
		} else {
			everyday++
		}
		tc := c.tc
		tc.Mode, tc.Tool = bypass, "Bash"
		switch {
		case tc.Want != "":
		case c.attack:
			tc.Want = session.Deny
		default:
			tc.Want = session.Allow
		}
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			for name, data := range files {
				if err := os.WriteFile(filepath.Join(f.proj, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// a symlink member leading to the user's config folder
			cfg := testTgz(t, "c@"+filepath.Dir(f.config), "c/config.yaml")
			if err := os.WriteFile(filepath.Join(f.proj, "cfg.tgz"), cfg, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(f.proj, "out"), 0o755); err != nil {
				t.Fatal(err)
			}
			tc.run(t, f)
		})
	}
	if everyday < 10 || attacks < 10 {
		t.Errorf("%d everyday and %d attack cases, want at least 10 each", everyday, attacks)
	}
}
