package matcher

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"vibing/internal/command"
	"vibing/internal/pathglob"
	"vibing/internal/twingen"
)

// The slow twins of the matcher's shortcuts: every test here draws from
// twingen and wants the fast answer to be the twin's.

func twinDraws(*testing.T) int { return twingen.Draws(testing.Short()) }

const twinBudget = twingen.Budget

// TestGlobTwin holds a compiled pattern's Match (its tests of the literal
// end and run first) to matchFull (the whole translation, no test first),
// and that translation to the glob library the syntax comes from, on
// drawn patterns and paths that match them or nearly do.
func TestGlobTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 1))
	n, matched, lib := twinDraws(t), 0, 0
	deadline := time.Now().Add(twinBudget)
	for i := range n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d draws in %v", i, n, twinBudget)
		}
		p := twingen.Pattern(rng)
		g, err := pathglob.Compile(p)
		if err != nil {
			continue
		}
		s := twingen.Subject(rng, p)
		fast, full := g.Match(s), g.MatchFull(s)
		if fast != full {
			t.Fatalf("pattern %q on %q: Match says %v, the whole pattern %v (tail %q, run %q)", p, s, fast, full, g.Tail, g.Need)
		}
		if full {
			matched++
		}
		if len(s) <= pathglob.MaxFallback {
			lib++
			if want := g.Lib.Match(s); want != full {
				t.Fatalf("pattern %q on %q: the translation says %v, the glob library %v", p, s, full, want)
			}
		}
	}
	if matched < n/10 {
		t.Fatalf("only %d of %d draws matched: the draws miss what the shortcuts are for", matched, n)
	}
	t.Logf("%d draws, %d matches, %d also against the glob library", n, matched, lib)
}

// TestRuleTwin holds a path rule's Match on a prepared call, with the
// cheap tests a rule set makes first (Skips, EndTest, NameTest), to the
// reference rule on the reference call (ParseReferenceRule,
// PrepareReference), in every list, for every file tool and for the
// words of Bash lines, on a world with secrets at the top, symlinks and a
// hard link.
func TestRuleTwin(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w, err := twingen.NewWorld(dir)
	if err != nil {
		t.Fatal(err)
	}
	// the working folder as it is, and reached through a symlink
	envs := []command.Env{command.NewEnv(w.Proj, w.Home), command.NewEnv(filepath.Join(w.Home, "projlink"), w.Home)}
	rng := rand.New(rand.NewPCG(23, 2))
	fileTools := []string{"Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "LS", "Grep", "Glob", "NotebookRead"}
	n, hits := twinDraws(t), 0
	// check holds the fast answers for one call to the reference's
	check := func(text, tool string, input map[string]any, env command.Env) {
		r, err := ParseRule(text)
		if err != nil {
			return
		}
		ref, err := ParseReferenceRule(text)
		if err != nil {
			t.Fatalf("%s parses, but not as a reference rule: %v", text, err)
		}
		p := input[pathKey(tool)]
		c, rc := command.Prepare(tool, input, env), command.PrepareReference(tool, input, env)
		defer command.Release(c)
		for _, list := range []List{AllowList, AskList, DenyList} {
			want := ref.Match(rc, list)
			got := !r.Skips(c, list) && r.Match(c, list)
			if got != want {
				t.Fatalf("%s on %s %v in %s (working folder %s): %v, the reference says %v", text, tool, p, list, env.Cwd, got, want)
			}
			if want {
				hits++
			}
			if w, ok := c.EndWord(); ok && want && list == AllowList && r.EndTest().Rejects(w) {
				t.Fatalf("%s on %s %q: the end test passes over a rule that allows it", text, tool, p)
			}
			if want && list != AllowList && r.NameTest().Rejects(c) {
				t.Fatalf("%s on %s %q in %s: the name test passes over a rule that matches", text, tool, p, list)
			}
			if d := r.CwdDir(); want && d != "" && !cwdDirsHold(c, d) {
				t.Fatalf("%s on %s %q in %s (working folder %s): the cut by folders (%q) drops a rule that matches", text, tool, p, list, env.Cwd, d)
			}
		}
	}
	fileInput := func(p string) map[string]any {
		return map[string]any{"file_path": p, "notebook_path": p, "path": p, "pattern": "K"}
	}
	// a grid first: folders of the world with a wildcard after them, and
	// the secrets, on paths that reach them directly and through links
	var grid []string
	for _, d := range []string{"secrets", "sub", "src", "docs", "link", "outside", "homelink/.ssh"} {
		for _, g := range []string{"*", "*.pem", "**", ".e*", "{a,key}.*"} {
			grid = append(grid, "Read("+d+"/"+g+")", "Edit("+d+"/"+g+")")
		}
	}
	grid = append(grid, "Read(**/.env)", "Read(.env)", "Read(**/secrets/**)", "Read(**/*.pem)", "Edit(**/.env)", "Read(~/.ssh/**)", "Read(//"+w.Root[1:]+"/**/.env)")
	paths := []string{".env", "./.env", "envlink", "sub/dotenv", "sub/.env", "link/key.pem", "secrets/key.pem", "docs/secret", "docs/hard.txt",
		"src/up/.env", "src/up/secrets/key.pem", "outside/.env", "outside/secrets/key.pem", "homelink/.ssh/id_rsa", "homelink/../proj/.env",
		"~/projlink/.env", "~/.ssh/id_rsa", w.Proj + "/.env", "key.pem", "src/a.go", "src/pkg/a.go", "dangling", "."}
	for _, env := range envs {
		for _, text := range grid {
			for _, p := range paths {
				for _, tool := range []string{"Read", "Edit", "Write", "Grep"} {
					check(text, tool, fileInput(p), env)
				}
				check(text, "Bash", map[string]any{"command": "cat " + p}, env)
			}
		}
	}
	deadline := time.Now().Add(twinBudget)
	for i := range n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d draws in %v", i, n, twinBudget)
		}
		text := twingen.Rule(rng, w)
		p := twingen.Path(rng, w)
		env := envs[rng.IntN(len(envs))]
		if rng.IntN(4) == 0 {
			check(text, "Bash", map[string]any{"command": twingen.Line(rng, p)}, env)
		} else {
			check(text, fileTools[rng.IntN(len(fileTools))], fileInput(p), env)
		}
	}
	if hits < n/20 {
		t.Fatalf("only %d matches in %d draws: the draws miss what the shortcuts are for", hits, n)
	}
	t.Logf("%d draws, %d matches", n, hits)
}

func pathKey(tool string) string {
	switch tool {
	case "Bash":
		return "command"
	case "NotebookEdit", "NotebookRead":
		return "notebook_path"
	case "LS", "Grep", "Glob":
		return "path"
	}
	return "file_path"
}

// cwdDirsHold reports whether the cut by folders keeps a rule anchored in
// d for c (as session's forCall cuts): always when the call gives no
// folders.
func cwdDirsHold(c *command.Call, d string) bool {
	dirs, n, ok := c.CwdDirs()
	if !ok {
		return true
	}
	for _, dir := range dirs[:n] {
		if len(dir) >= len(d) && dir[:len(d)] == d {
			return true
		}
	}
	return false
}

// TestReferenceGlobsTakeNoShortcut holds the slow twin of a path rule to
// its promise: every glob of its pattern (and of what lies below it) is
// Full, so that Match tries the whole translation on every subject, and a
// subject the cheap tests would pass over is still matched.
func TestReferenceGlobsTakeNoShortcut(t *testing.T) {
	for _, text := range []string{"Read(**/.env)", "Edit(src/**/*.ts)", "Read(/etc/passwd)", "Read(~/.ssh/**)", "Write(*.{pem,key})", "Read(//tmp/x*)"} {
		fast, err := ParseRule(text)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := ParseReferenceRule(text)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, globs := range [][]*pathglob.Glob{ref.pat.Globs, ref.pat.Below} {
			for _, g := range globs {
				n++
				if !g.Full {
					t.Errorf("%s: the reference rule's glob %q takes the cheap tests", text, g.Text)
				}
			}
		}
		if n == 0 {
			t.Fatalf("%s: no globs", text)
		}
		for _, g := range append(append([]*pathglob.Glob{}, fast.pat.Globs...), fast.pat.Below...) {
			if g.Full {
				t.Errorf("%s: the fast rule's glob %q is the slow twin", text, g.Text)
			}
		}
	}
}
