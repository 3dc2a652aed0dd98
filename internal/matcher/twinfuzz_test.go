package matcher

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"vibing/internal/command"
	"vibing/internal/pathglob"
	"vibing/internal/twingen"
)

// FuzzGlobTwin holds a compiled pattern's Match to matchFull, and that to
// the glob library, on any pattern and path (make test runs it for 100,000
// inputs).
func FuzzGlobTwin(f *testing.F) {
	rng := rand.New(rand.NewPCG(23, 4))
	for range 64 {
		p := twingen.Pattern(rng)
		f.Add(p, twingen.Subject(rng, p))
	}
	f.Add("**/.env", ".env")
	f.Add(`**\/.env`, ".env")
	f.Add("{**/,}.env", ".env")
	f.Fuzz(func(t *testing.T, p, s string) {
		g, err := pathglob.Compile(p)
		if err != nil {
			return
		}
		full := g.MatchFull(s)
		if fast := g.Match(s); fast != full {
			t.Fatalf("pattern %q on %q: Match says %v, the whole pattern %v (tail %q, run %q)", p, s, fast, full, g.Tail, g.Need)
		}
		if len(s) <= 64 && len(p) <= 64 && strings.Count(p, "*") <= 4 {
			if want := g.Lib.Match(s); want != full {
				t.Fatalf("pattern %q on %q: the translation says %v, the glob library %v", p, s, full, want)
			}
		}
	})
}

var (
	fuzzWorldOnce sync.Once
	fuzzWorld     twingen.World
	fuzzWorldErr  error
)

// FuzzRuleTwin holds a path rule's Match, with the cheap tests first, to
// the reference rule on the reference call, for any rule text and path,
// on the twin tests' world (make test runs it for 100,000 inputs).
func FuzzRuleTwin(f *testing.F) {
	rng := rand.New(rand.NewPCG(23, 5))
	w := twingen.World{Root: "/w", Proj: "/w/proj", Home: "/w/home", Out: "/w/out"}
	for range 64 {
		f.Add(twingen.Rule(rng, w), twingen.Path(rng, w), uint8(rng.IntN(10)))
	}
	f.Add("Read(**/.env)", ".env", uint8(0))
	f.Add("Read(**/secrets/**)", "link/key.pem", uint8(1))
	worldDir := f.TempDir()
	f.Fuzz(func(t *testing.T, text, p string, k uint8) {
		fuzzWorldOnce.Do(func() {
			dir, err := filepath.EvalSymlinks(worldDir)
			if err == nil {
				fuzzWorld, err = twingen.NewWorld(dir)
			}
			fuzzWorldErr = err
		})
		if fuzzWorldErr != nil {
			t.Fatal(fuzzWorldErr)
		}
		text = strings.ReplaceAll(text, "/w/", fuzzWorld.Root+"/")
		p = strings.ReplaceAll(p, "/w/", fuzzWorld.Root+"/")
		r, err := ParseRule(text)
		if err != nil || strings.ContainsRune(p, 0) {
			return
		}
		ref, _ := ParseReferenceRule(text)
		tools := []string{"Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "LS", "Grep", "Glob", "NotebookRead", "Bash"}
		tool := tools[int(k)%len(tools)]
		in := map[string]any{"file_path": p, "notebook_path": p, "path": p, "pattern": "K"}
		if tool == "Bash" {
			in = map[string]any{"command": "cat " + p}
		}
		env := command.NewEnv(fuzzWorld.Proj, fuzzWorld.Home)
		if k >= 128 {
			env = command.NewEnv(filepath.Join(fuzzWorld.Home, "projlink"), fuzzWorld.Home)
		}
		c, rc := command.Prepare(tool, in, env), command.PrepareReference(tool, in, env)
		defer command.Release(c)
		for _, list := range []List{AllowList, AskList, DenyList} {
			want := ref.Match(rc, list)
			if got := !r.Skips(c, list) && r.Match(c, list); got != want {
				t.Fatalf("%s on %s %q in %s: %v, the reference says %v", text, tool, p, list, got, want)
			}
			if d := r.CwdDir(); want && d != "" && !cwdDirsHold(c, d) {
				t.Fatalf("%s on %s %q in %s: the cut by folders (%q) drops a rule that matches", text, tool, p, list, d)
			}
		}
	})
}
