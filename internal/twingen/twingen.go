// Package twingen draws the rules, paths and command lines that the tests of
// the slow twins hold every speed shortcut of the decision to. Its draws
// reach the corners a shortcut is likely to miss: a name at the top of the
// working folder (depth 0), dot files, "**" at either end and in the
// middle, character classes, braces, escapes, a trailing "/", upper case,
// non-ASCII names, "./", "..", "~" and absolute spellings, symlinks and
// very long paths. It is used by tests only.
package twingen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Budget bounds the time one twin test may take: past it the test fails
// rather than pass on fewer draws than Draws says.
const Budget = 4 * time.Minute

// Draws is how many draws a twin test makes: 100,000 (what make test runs),
// 5,000 with -short, or VIBING_TWIN_DRAWS.
func Draws(short bool) int {
	if short {
		return 5000
	}
	if s := os.Getenv("VIBING_TWIN_DRAWS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	return 100_000
}

// Names are the file and folder names the draws are made of; World makes
// them exist (some of them) so that symlinks and hard links are met too.
var Names = []string{
	".env", "env", ".envrc", "sub", "secrets", "key.pem", "a.go", "x.GO", "src", "docs", "README.md",
	"id_rsa", ".ssh", "build", "m.o", "café", "日本.txt", "link", "hard.txt", "node_modules", "pkg", "a b",
}

// World is a small tree for the draws to meet: the project (the working
// folder), a home folder and a folder outside both, with a secret at the
// top and deeper down, symlinks in and out, and a hard link to the top
// secret.
type World struct {
	Root, Proj, Home, Out string
}

// NewWorld makes the tree under dir (an empty, resolved folder).
func NewWorld(dir string) (World, error) {
	w := World{Root: dir, Proj: filepath.Join(dir, "proj"), Home: filepath.Join(dir, "home"), Out: filepath.Join(dir, "out")}
	files := []string{
		"proj/.env", "proj/sub/.env", "proj/secrets/key.pem", "proj/key.pem", "proj/src/a.go", "proj/src/pkg/a.go",
		"proj/docs/README.md", "proj/café/日本.txt", "proj/build/m.o", "proj/.envrc", "proj/a b/x.GO",
		"home/.ssh/id_rsa", "home/.env", "out/secrets/key.pem", "out/.env",
	}
	for _, f := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return w, err
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			return w, err
		}
	}
	links := map[string]string{
		"proj/link":        "secrets",
		"proj/envlink":     ".env",
		"proj/src/up":      "..",
		"proj/outside":     w.Out,
		"proj/homelink":    w.Home,
		"proj/sub/dotenv":  "../.env",
		"home/projlink":    w.Proj,
		"proj/dangling":    "nowhere/.env",
		"proj/docs/secret": "../secrets/key.pem",
	}
	for from, to := range links {
		if err := os.Symlink(to, filepath.Join(dir, from)); err != nil {
			return w, err
		}
	}
	if err := os.Link(filepath.Join(w.Proj, ".env"), filepath.Join(w.Proj, "docs/hard.txt")); err != nil {
		return w, err
	}
	return w, nil
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

// piece is one part of a drawn pattern.
func piece(rng *rand.Rand) string {
	switch rng.IntN(14) {
	case 0, 1:
		return "**"
	case 2:
		return "*"
	case 3:
		return "?"
	case 4:
		return pick(rng, []string{"[a-c]", "[!x]", "[.]", "[eE]", "[!.]"})
	case 5:
		return pick(rng, []string{"{a,b}", "{.env,key.pem}", "{src,docs}", "{,.}env", "{*.go,*.pem}"})
	case 6:
		return pick(rng, []string{`\*`, `\.env`, `\[x]`})
	case 7:
		return "*" + pick(rng, []string{".pem", ".go", ".GO", "env", ".md"})
	default:
		return pick(rng, Names)
	}
}

// Pattern draws a path pattern: up to five segments of pieces joined by
// '/', sometimes with "**" first or last, a trailing '/' or upper case.
func Pattern(rng *rand.Rand) string {
	n := 1 + rng.IntN(4)
	segs := make([]string, 0, n+2)
	if rng.IntN(3) == 0 {
		segs = append(segs, "**")
	}
	for range n {
		s := piece(rng)
		if rng.IntN(5) == 0 {
			s += piece(rng) // two pieces in one segment: *.env, a{b,c}
		}
		segs = append(segs, s)
	}
	if rng.IntN(5) == 0 {
		segs = append(segs, "**")
	}
	p := strings.Join(segs, "/")
	switch rng.IntN(12) {
	case 0:
		p += "/"
	case 1:
		p = strings.ToUpper(p)
	}
	return p
}

// Subject draws a path that pattern p may match: each piece spelt by
// something it matches, and then, one time in three, changed a little.
func Subject(rng *rand.Rand, p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*':
			if i+1 < len(p) && p[i+1] == '*' {
				i++
				for range rng.IntN(3) {
					b.WriteString(pick(rng, Names) + "/")
				}
				if i+1 < len(p) && p[i+1] == '/' && rng.IntN(2) == 0 {
					i++ // "**/" standing for no folder at all
				}
				continue
			}
			b.WriteString(pick(rng, []string{"", "a", ".", "key", "é"}))
		case '?':
			b.WriteString(pick(rng, []string{"a", ".", "é", "Z"}))
		case '[':
			j := strings.IndexByte(p[i:], ']')
			if j < 0 {
				b.WriteByte(c)
				continue
			}
			b.WriteString(pick(rng, []string{"a", "b", ".", "e", "E", "x"}))
			i += j
		case '{':
			j := strings.IndexByte(p[i:], '}')
			if j < 0 {
				b.WriteByte(c)
				continue
			}
			alts := strings.Split(p[i+1:i+j], ",")
			b.WriteString(strings.ReplaceAll(pick(rng, alts), "*", "x"))
			i += j
		case '\\':
			if i+1 < len(p) {
				i++
				b.WriteByte(p[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	s := b.String()
	if rng.IntN(3) == 0 {
		s = mutate(rng, s)
	}
	return s
}

func mutate(rng *rand.Rand, s string) string {
	switch rng.IntN(8) {
	case 0:
		return pick(rng, Names) + "/" + s
	case 1:
		return s + "/" + pick(rng, Names)
	case 2:
		return strings.TrimPrefix(s, ".")
	case 3:
		return strings.ToUpper(s)
	case 4:
		return s + "/"
	case 5:
		if i := strings.LastIndexByte(s, '/'); i >= 0 {
			return s[i+1:]
		}
		return "x/" + s
	case 6:
		return strings.Repeat("deep/", 100+rng.IntN(300)) + s
	}
	return s[:len(s)/2]
}

// Rule draws a path rule for one of Read, Edit and Write, anchored at the
// working folder (as written, or with "./"), the home folder, or an
// absolute folder of the world.
func Rule(rng *rand.Rand, w World) string {
	tool := pick(rng, []string{"Read", "Read", "Edit", "Write"})
	p := Pattern(rng)
	switch rng.IntN(8) {
	case 0:
		p = "./" + p
	case 1:
		p = "~/" + p
	case 2:
		p = w.Proj + "/" + p
	case 3:
		p = "/" + w.Root + "/" + p // "//" + absolute
	case 4:
		p = pick(rng, Names) // a bare name: at any depth in deny and ask
	case 5, 6:
		// a folder of the world, then a wildcard: the rule sets' cut by
		// folders keeps it for the paths in (or resolving into) that folder
		p = pick(rng, []string{"secrets", "sub", "src", "src/pkg", "docs", "link", "outside"}) + "/" + pick(rng, []string{"*", "*.pem", "**", "?.go", "{a,key}.*", "**/*.go", ".e*"})
	}
	return fmt.Sprintf("%s(%s)", tool, p)
}

// Path draws a path a file tool may be called with: a name of the world at
// some depth, spelt relative, with "./", through "..", a symlink, "~" or
// absolute, or a path a pattern matches.
func Path(rng *rand.Rand, w World) string {
	var p string
	if rng.IntN(3) == 0 {
		p = Subject(rng, Pattern(rng))
	} else {
		n := rng.IntN(3)
		segs := make([]string, 0, n+1)
		for range n {
			segs = append(segs, pick(rng, []string{"sub", "secrets", "src", "docs", "link", "src/up", "outside", "homelink", "café", "build"}))
		}
		segs = append(segs, pick(rng, Names))
		p = strings.Join(segs, "/")
	}
	switch rng.IntN(10) {
	case 0:
		p = "./" + p
	case 1:
		p = w.Proj + "/" + p
	case 2:
		p = "~/" + p
	case 3:
		p = "src/../" + p
	case 4:
		p = "homelink/../proj/" + p
	case 5:
		p = pick(rng, []string{"envlink", "sub/dotenv", "docs/secret", "docs/hard.txt", "dangling", "link/key.pem", ".", "~", "/"})
	case 6:
		p += "/"
	}
	if p == "" {
		p = "."
	}
	return p
}

// Line draws a Bash line whose words name path p: read, written, removed,
// copied or searched.
func Line(rng *rand.Rand, p string) string {
	q := p
	if strings.ContainsAny(q, " *?[]{}'\"$`\\!#&;|<>()~") && !strings.HasPrefix(q, "~/") {
		q = "'" + strings.ReplaceAll(q, "'", `'\''`) + "'"
	}
	return pick(rng, []string{
		"cat " + q, "head -c 99 " + q, "grep -n KEY " + q, "cp " + q + " /tmp/x", "echo x > " + q, "sed -i s/a/b/ " + q,
		"rm -f " + q, "wc -l < " + q, "tee " + q + " < /dev/null", "ls -la " + q, "git diff -- " + q, "mv " + q + " /tmp/y",
		"cd src && cat ../" + q, "cat " + q + " | base64",
	})
}
