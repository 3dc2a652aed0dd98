package session_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vibing/internal/config"
	"vibing/internal/frontmatter"
	"vibing/internal/session"
	"vibing/internal/twingen"
)

// TestDecideTwin holds the engine to its slow twin (Options.Reference:
// reference rules and calls, rule sets not cut per call, paths always
// resolved): drawn rule sets in the chat's lists and the managed layer,
// every mode, and drawn calls of every file tool and Bash lines that name
// the world's files, each decided by both; decision, reason, rule and
// source must be the same. At least 100,000 calls (fewer with -short).
func TestDecideTwin(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w, err := twingen.NewWorld(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := twingen.Draws(testing.Short())
	const perSet = 50
	budget := twingen.Budget
	deadline := time.Now().Add(budget)
	rng := rand.New(rand.NewPCG(23, 3))
	others := []string{"Bash(git:*)", "Bash(cat:*)", "Bash(rm:*)", "Bash(npm test)", "Bash(grep:*)", "Bash(cp:*)", "Bash(echo:*)",
		"Bash", "Read", "Edit", "Write", "WebFetch(example.com)", "/tool:Read:.*secrets.*/", "Bash(sed -i:*)", "Bash(ls:*)", "Grep", "Glob"}
	modes := []string{"default", "acceptEdits", "bypassPermissions", "dontAsk", "plan"}
	fileTools := []string{"Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "LS", "Grep", "Glob", "NotebookRead"}
	draw := func() string {
		if rng.IntN(4) == 0 {
			return others[rng.IntN(len(others))]
		}
		return twingen.Rule(rng, w)
	}
	decided, denied, asked := 0, 0, 0
	for decided < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d calls in %v", decided, n, budget)
		}
		var s frontmatter.Settings
		managed := session.PolicyFile{Layer: session.LayerManaged, Name: "/etc/vibing/policy.yaml"}
		for range 1 + rng.IntN(8) {
			switch r := draw(); rng.IntN(5) {
			case 0:
				s.Deny = append(s.Deny, r)
			case 1:
				s.Ask = append(s.Ask, r)
			case 2:
				managed.Deny = append(managed.Deny, r)
			default:
				s.Allow = append(s.Allow, r)
			}
		}
		s.Mode = modes[rng.IntN(len(modes))]
		opts := session.Options{Cwd: w.Proj, Home: w.Home, ChatFile: filepath.Join(w.Proj, ".vibing/chat/chat.md"), Policy: []session.PolicyFile{managed}}
		if rng.IntN(3) == 0 {
			opts.Cwd = filepath.Join(w.Home, "projlink") // the working folder through a symlink
		}
		fast, _ := session.New(config.DefaultConfig(), s, opts)
		opts.Reference = true
		slow, _ := session.New(config.DefaultConfig(), s, opts)
		for range perSet {
			p := twingen.Path(rng, w)
			var tool string
			var in map[string]any
			if rng.IntN(3) == 0 {
				tool, in = "Bash", map[string]any{"command": twingen.Line(rng, p)}
			} else {
				tool = fileTools[rng.IntN(len(fileTools))]
				in = map[string]any{"file_path": p, "notebook_path": p, "path": p, "pattern": "K", "old_string": "a", "new_string": "b", "content": "x"}
			}
			got, want := fast.Decide(tool, in), slow.Decide(tool, in)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				what := in["file_path"]
				if tool == "Bash" {
					what = in["command"]
				}
				t.Fatalf("%s %v in %s with deny %q ask %q allow %q managed deny %q (working folder %s):\n fast %+v\n twin %+v",
					tool, what, s.Mode, s.Deny, s.Ask, s.Allow, managed.Deny, opts.Cwd, got, want)
			}
			switch want.Decision {
			case session.Deny:
				denied++
			case session.Ask:
				asked++
			}
			decided++
		}
	}
	if denied < n/20 || asked < n/20 {
		t.Fatalf("%d denied and %d asked of %d: the draws miss what the shortcuts are for", denied, asked, n)
	}
	t.Logf("%d calls: %d denied, %d asked, the rest allowed", decided, denied, asked)
}

// FuzzDecideTwin holds the engine to its slow twin for any deny, ask and
// allow rule and any path, in every mode, for the file tools and a Bash
// line naming the path (make test runs it for 100,000 inputs).
func FuzzDecideTwin(f *testing.F) {
	rng := rand.New(rand.NewPCG(23, 6))
	w := twingen.World{Root: "/w", Proj: "/w/proj", Home: "/w/home", Out: "/w/out"}
	for range 64 {
		f.Add(twingen.Rule(rng, w), twingen.Rule(rng, w), twingen.Rule(rng, w), twingen.Path(rng, w), uint8(rng.IntN(256)))
	}
	f.Add("Read(**/.env)", "Edit(src/**)", "Bash(cat:*)", ".env", uint8(9))
	dir := f.TempDir()
	var world twingen.World
	var worldErr error
	made := false
	modes := []string{"default", "acceptEdits", "bypassPermissions", "dontAsk", "plan"}
	tools := []string{"Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "LS", "Grep", "Glob", "NotebookRead", "Bash"}
	f.Fuzz(func(t *testing.T, deny, ask, allow, p string, k uint8) {
		if !made {
			made = true
			if dir, worldErr = filepath.EvalSymlinks(dir); worldErr == nil {
				world, worldErr = twingen.NewWorld(dir)
			}
		}
		if worldErr != nil {
			t.Fatal(worldErr)
		}
		fix := func(s string) string { return strings.ReplaceAll(s, "/w/", world.Root+"/") }
		s := frontmatter.Settings{Deny: []string{fix(deny)}, Ask: []string{fix(ask)}, Allow: []string{fix(allow)}, Mode: modes[int(k)%len(modes)]}
		opts := session.Options{Cwd: world.Proj, Home: world.Home, ChatFile: filepath.Join(world.Proj, ".vibing/chat/chat.md")}
		fast, _ := session.New(config.DefaultConfig(), s, opts)
		opts.Reference = true
		slow, _ := session.New(config.DefaultConfig(), s, opts)
		p = fix(p)
		tool := tools[int(k/5)%len(tools)]
		in := map[string]any{"file_path": p, "notebook_path": p, "path": p, "pattern": "K", "old_string": "a", "new_string": "b", "content": "x"}
		if tool == "Bash" {
			in = map[string]any{"command": "cat " + p}
		}
		if got, want := fast.Decide(tool, in), slow.Decide(tool, in); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s %q in %s with deny %q ask %q allow %q:\n fast %+v\n twin %+v", tool, p, s.Mode, s.Deny, s.Ask, s.Allow, got, want)
		}
	})
}
