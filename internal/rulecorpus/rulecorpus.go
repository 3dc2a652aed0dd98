// Package rulecorpus holds what the rule tests of internal/matcher and
// internal/defaults share: reading a corpus file of tab-separated rows, and
// a project with links of every kind to decide them in, and a rule parsed
// or the test ended. Tests only.
package rulecorpus

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/command"
	"vibing/internal/matcher"
)

// LinkFixture builds the folder tree the corpus's $TMP stands for.
func LinkFixture(t *testing.T) (string, command.Env) {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"proj/src", "proj/secrets", "outside", "home/.ssh"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"proj/.env", "proj/README.md", "proj/src/a.go", "proj/secrets/key.pem"} {
		if err := os.WriteFile(filepath.Join(tmp, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"proj/dangle":    filepath.Join(tmp, "proj/secrets/new.txt"), // dangling: the file does not exist yet
		"proj/dangleout": filepath.Join(tmp, "outside/new.txt"),
		"proj/link":      filepath.Join(tmp, "outside"),
		"proj/homelink":  filepath.Join(tmp, "home"),
		"proj/etclink":   "/etc",
	}
	for from, to := range links {
		if err := os.Symlink(to, filepath.Join(tmp, from)); err != nil {
			t.Fatal(err)
		}
	}
	// relative links, chains and loops (class 20), in a folder of their own
	// so that a line reading the working directory's names does not meet them
	if err := os.Mkdir(filepath.Join(tmp, "proj/lk"), 0o755); err != nil {
		t.Fatal(err)
	}
	rel := map[string]string{
		"proj/lk/relsrc":    "../src",
		"proj/lk/chain":     "../link",
		"proj/lk/envlink":   "../.env",
		"proj/lk/envchain":  "envlink",
		"proj/lk/keylink":   "relsrc/../secrets/key.pem",
		"proj/lk/dangledir": "../../outside/newdir",
		"proj/lk/danglerel": "../secrets/../secrets/later.pem",
		"proj/lk/loop1":     "loop2",
		"proj/lk/loop2":     "loop1",
		"proj/lk/selfloop":  "selfloop",
		"proj/lk/uplink":    "../..",
		"proj/lk/outloop":   "../../outside/outloop",
		"outside/outloop":   "../proj/lk/outloop",
	}
	for from, to := range rel {
		if err := os.Symlink(to, filepath.Join(tmp, from)); err != nil {
			t.Fatal(err)
		}
	}
	return tmp, command.Env{Cwd: filepath.Join(tmp, "proj"), Home: filepath.Join(tmp, "home")}
}

func UnescapeField(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			case 't':
				b.WriteByte('\t')
				i++
				continue
			case '\\':
				b.WriteByte('\\')
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Rows calls row for every line of a corpus file that is neither
// blank nor a # comment, split at tabs.
func Rows(t *testing.T, file string, row func(line int, fields []string)) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		row(line, strings.Split(text, "\t"))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// MustRule parses a rule text or ends the test.
func MustRule(t testing.TB, text string) *matcher.Rule {
	t.Helper()
	r, err := matcher.ParseRule(text)
	if err != nil {
		t.Fatalf("ParseRule(%q) error: %v", text, err)
	}
	return r
}
