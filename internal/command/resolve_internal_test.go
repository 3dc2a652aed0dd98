package command

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// resolveFixture is a tree of links of every kind the system resolves:
// relative and absolute, chains, loops, dangling links to files and
// folders, links whose target climbs with "..", a link to the root.
func resolveFixture(t *testing.T) (tmp, cwd string) {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cwd = filepath.Join(tmp, "proj")
	for _, d := range []string{"proj/src/pkg", "proj/lk", "outside/deep"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"proj/.env", "proj/src/a.go", "proj/src/pkg/b.go", "outside/x", "outside/deep/y"} {
		if err := os.WriteFile(filepath.Join(tmp, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"proj/link":        filepath.Join(tmp, "outside"),
		"proj/lk/relsrc":   "../src",
		"proj/lk/chain":    "../link",
		"proj/lk/envlink":  "../.env",
		"proj/lk/envchain": "envlink",
		"proj/lk/keylink":  "relsrc/../.env",
		"proj/lk/dangle":   "../../outside/new.txt",
		"proj/lk/dangdir":  "../../outside/newdir",
		"proj/lk/dangrel":  "relsrc/../later",
		"proj/lk/dangabs":  filepath.Join(tmp, "outside/deep/newer"),
		"proj/lk/dangdeep": "missing/x/y",
		"proj/lk/loop1":    "loop2",
		"proj/lk/loop2":    "loop1",
		"proj/lk/selfloop": "selfloop",
		"proj/lk/uplink":   "../..",
		"proj/lk/root":     "/",
		"proj/lk/filedir":  "../src/a.go/x",
		"proj/lk/outloop":  "../../outside/outloop",
		"outside/outloop":  "../proj/lk/outloop",
	}
	for from, to := range links {
		if err := os.Symlink(to, filepath.Join(tmp, from)); err != nil {
			t.Fatal(err)
		}
	}
	return tmp, cwd
}

// TestSysRealPathAgreesWithWalk checks the system's resolution (open with
// O_PATH, readlink of /proc/self/fd/N) against the portable walk on every
// link of the fixture followed by every kind of rest.
func TestSysRealPathAgreesWithWalk(t *testing.T) {
	tmp, cwd := resolveFixture(t)
	if _, ok := sysRealPath(cwd); !ok {
		t.Skip("no /proc here: only the portable walk resolves")
	}
	none := func(string) (string, bool) { return "", false }
	names := []string{"src", "src/a.go", "src/pkg", "link", ".env", "missing", "src/a.go/x",
		"lk/relsrc", "lk/chain", "lk/envlink", "lk/envchain", "lk/keylink", "lk/dangle", "lk/dangdir",
		"lk/dangrel", "lk/dangabs", "lk/dangdeep", "lk/loop1", "lk/selfloop", "lk/uplink", "lk/root",
		"lk/filedir", "lk/outloop", "lk/missing"}
	rests := []string{"", "/", "/x", "/new/f", "/..", "/../x", "/../src/a.go", "/../../outside/x", "/./x", "//x"}
	n := 0
	for _, name := range names {
		for _, rest := range rests {
			for _, base := range []string{cwd, "/proc/self/root" + cwd} {
				raw := base + "/" + name + rest
				clean := filepath.Clean(raw)
				abs := clean
				if hasDotDot(raw) {
					abs = raw
				}
				got := resolveRealBy(sysRealPath, abs, clean, cwd)
				want := resolveRealBy(none, abs, clean, cwd)
				n++
				if got != want {
					t.Errorf("%s: system %q, walk %q", strings.TrimPrefix(raw, tmp), strings.TrimPrefix(got, tmp), strings.TrimPrefix(want, tmp))
				}
				// and the two without the shortcut below the working directory
				if sys, ok := sysRealPath(abs); ok {
					if walk := walkRealPath(abs); sys != walk {
						t.Errorf("%s: sysRealPath %q, walkRealPath %q", strings.TrimPrefix(raw, tmp), strings.TrimPrefix(sys, tmp), strings.TrimPrefix(walk, tmp))
					}
				}
			}
		}
	}
	if n < 400 {
		t.Errorf("%d cases, want at least 400", n)
	}
}

// TestResolvePathLinks pins where the links of the fixture lead.
func TestResolvePathLinks(t *testing.T) {
	tmp, cwd := resolveFixture(t)
	env := Env{Cwd: cwd, Home: filepath.Join(tmp, "home")}
	long := strings.Repeat("d/", maxPathLen/2+10) + "f"
	cases := []struct{ raw, real string }{
		{"src/a.go", "$P/src/a.go"},
		{"src/new.go", "$P/src/new.go"},
		{"new/dir/f", "$P/new/dir/f"},
		{"link/x", "$T/outside/x"},
		{"link/../x", "$T/x"},
		{"link/../proj/.env", "$P/.env"},
		{"lk/relsrc/../.env", "$P/.env"},
		{"lk/chain/deep/y", "$T/outside/deep/y"},
		{"lk/envchain", "$P/.env"},
		{"lk/keylink", "$P/.env"},
		{"lk/dangle", "$T/outside/new.txt"},
		{"lk/dangdir/f", "$T/outside/newdir/f"},
		{"lk/dangrel", "$P/later"},
		{"lk/dangabs", "$T/outside/deep/newer"},
		{"lk/dangdeep", "$P/lk/missing/x/y"},
		{"lk/uplink/outside/x", "$T/outside/x"},
		{"lk/root/etc", "/etc"},
		{"lk/filedir", "$P/src/a.go/x"},
		{"missing/../src/a.go", "$P/src/a.go"},
		{"missing/../link/x", "$T/outside/x"},
		{"lk/dangdir/../x", "$T/outside/x"},
		{"/proc/self/cwd/lk/envlink", "$P/.env"},
		{"/proc/thread-self/cwd/lk/relsrc/../.env", "$P/.env"},
		{"/proc/self/root" + cwd + "/lk/keylink", "$P/.env"},
		{"/proc/self/fd/0", "/proc/self/fd/0"},
		{"/dev/fd/3/x", "/dev/fd/3/x"},
		{"/dev/stdin", "/dev/stdin"},
		{"/dev/null", "/dev/null"},
		{long, "$P/" + strings.TrimSuffix(long, "/")},
	}
	for _, c := range cases {
		got := ResolvePath(c.raw, env)
		want := strings.NewReplacer("$P", cwd, "$T", tmp).Replace(c.real)
		if got.Real != want {
			t.Errorf("ResolvePath(%q).Real = %q, want %q", c.raw, strings.TrimPrefix(got.Real, tmp), strings.TrimPrefix(want, tmp))
		}
	}
	// loops resolve to some path of the loop, in bounded time
	for _, raw := range []string{"lk/loop1", "lk/selfloop/x", "lk/outloop/x"} {
		got := ResolvePath(raw, env)
		if !strings.HasPrefix(got.Real, tmp+"/") {
			t.Errorf("ResolvePath(%q).Real = %q, want a path of the loop", raw, got.Real)
		}
	}
}

// TestLazyREsCompile compiles every regular expression that is compiled
// on first use, so a typo fails here rather than on some call.
func TestLazyREsCompile(t *testing.T) {
	for _, l := range []*lazyRE{awkLoad, awkLiteral, awkCallLiteral, pyOpenLiteral, jsRequireArg, jsIndex,
		jsEscape, jsAttr, perlSymbolic, perlModName, rubyX, rubyRequire, phpDynamic, phpInterp} {
		if _, err := regexp.Compile(l.expr); err != nil {
			t.Errorf("%q: %v", l.expr, err)
		}
	}
}
