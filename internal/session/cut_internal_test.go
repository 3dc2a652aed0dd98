package session

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"vibing/internal/command"
	"vibing/internal/config"
	"vibing/internal/frontmatter"
	"vibing/internal/matcher"
	"vibing/internal/tools"
)

// TestCutPerCallKeepsDecisions decides many file calls against many rule
// sets with the rule set cut per call (forCall) and without, and wants the
// same decision, rule and reason every time.
func TestCutPerCallKeepsDecisions(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(tmp, "proj")
	for _, d := range []string{"proj/src/pkg", "proj/src/gen", "proj/docs", "out", "home/.ssh"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"proj/src/pkg/a.go", "proj/.env", "proj/docs/x.md", "out/y.txt"} {
		if err := os.WriteFile(filepath.Join(tmp, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(proj, ".env"), filepath.Join(proj, "src/pkg/env.txt")); err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{"proj/link": filepath.Join(tmp, "out"), "proj/src/gl": "../docs", "proj/docs/back": "../src/pkg", "proj/homelink": filepath.Join(tmp, "home")} {
		if err := os.Symlink(to, filepath.Join(tmp, from)); err != nil {
			t.Fatal(err)
		}
	}
	rules := []string{"Edit(src/gen/**)", "Edit(src/pkg/*.go)", "Write(src/**)", "Read(docs/**)", "Read(.env)", "Edit(.env)",
		"Read(src/pkg/env.txt)", "Edit(**/*.go)", "Write(*.md)", "Read(" + tmp + "/out/**)", "Edit(~/.ssh/**)", "Read(//etc/**)",
		"Write(docs/back/**)", "Read(src/gl/**)", "Edit(link/**)", "Read(src/{pkg,gen}/**)", "Edit(src/p*/a.go)",
		"/tool:Edit:.*docs.*/", "Read", "Edit", "Write(src/[", "WebFetch(example.com)", "Bash(git:*)", "NotebookEdit(src/**)"}
	paths := []string{"src/pkg/a.go", "src/pkg/new.go", "src/gen/x.ts", "docs/x.md", "docs/back/a.go", "src/gl/x.md", "link/y.txt",
		"link/new", ".env", "src/pkg/env.txt", "README.md", "new/dir/f", "homelink/.ssh/id", tmp + "/out/y.txt", "/etc/passwd",
		"src/../docs/x.md", "link/../proj/.env", proj, "src", "src/"}
	tools := []string{"Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "Grep", "Glob", "LS", "NotebookRead"}
	modes := []string{"default", "acceptEdits", "bypassPermissions", "dontAsk", "plan"}
	rng := rand.New(rand.NewPCG(3, 4))
	n := 0
	for k := 0; k < 120; k++ {
		s, managed := randomRules(rng, rules, modes, 8, 4)
		e, _ := New(config.DefaultConfig(), s, Options{Cwd: proj, Home: filepath.Join(tmp, "home"), ChatFile: filepath.Join(proj, ".vibing/chat.md"),
			Policy: []PolicyFile{managed}})
		for _, tool := range tools {
			for _, p := range paths {
				got, want := decideCutAndWhole(e, tool, map[string]any{"file_path": p, "notebook_path": p, "path": p, "pattern": "*.go"})
				n++
				if got != want {
					t.Fatalf("%s %s with %+v:\n cut  %s\n full %s", tool, p, s, got, want)
				}
			}
		}
	}
	t.Logf("%d decisions compared", n)
}

// randomRules draws up to max rules into the chat's deny, ask and allow
// lists and a managed ask list (the allow list takes the draws from 3 to
// kinds-1), and a mode.
func randomRules(rng *rand.Rand, rules, modes []string, max, kinds int) (frontmatter.Settings, PolicyFile) {
	var s frontmatter.Settings
	managed := PolicyFile{Layer: LayerManaged, Name: "/etc/vibing/policy.yaml"}
	for range 1 + rng.IntN(max) {
		r := rules[rng.IntN(len(rules))]
		switch rng.IntN(kinds) {
		case 0:
			s.Deny = append(s.Deny, r)
		case 1:
			s.Ask = append(s.Ask, r)
		case 2:
			managed.Ask = append(managed.Ask, r)
		default:
			s.Allow = append(s.Allow, r)
		}
	}
	s.Mode = modes[rng.IntN(len(modes))]
	return s, managed
}

// decideCutAndWhole decides one call with the rule set cut to the call and
// with the whole set, each decision printed whole.
func decideCutAndWhole(e *Engine, tool string, in map[string]any) (cut, whole string) {
	defer func() { cutPerCall = true }()
	cutPerCall = true
	cut = fmt.Sprint(e.Decide(tool, in))
	cutPerCall = false
	return cut, fmt.Sprint(e.Decide(tool, in))
}

// TestCutByCommandKeepsDecisions decides many Bash lines against many rule
// sets (chat and managed lists) with the rule set cut to the line's command
// names and without, and wants the same decision, rule and reason.
func TestCutByCommandKeepsDecisions(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(tmp, "proj")
	if err := os.MkdirAll(filepath.Join(proj, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	rules := []string{"Bash(git push:*)", "Bash(git:*)", "Bash(npm test)", "Bash(npm run *)", "Bash(npm *)", "Bash(rm -rf:*)",
		"Bash(rm:*)", "Bash(sudo:*)", "Bash(curl:*)", "Bash(git push --force:*)", "Bash(*)", "Bash(np*)", "Bash(* --dry-run)",
		"Bash(ls:*)", "Bash(/usr/bin/env:*)", "Bash(env:*)", "Bash(python3 -c:*)", "Bash(sh -c:*)", "Bash(find . -name *)",
		"Bash(xargs:*)", "Bash(make)", "Bash(cat:*)", "Bash(grep:*)", "Bash", "Edit(src/**)", "Read(.env)", "WebFetch(example.com)",
		"/tool:Bash:git .*/", "Bash(git [)", "Bash(echo:*)", "Bash(timeout:*)", "Bash(\"npm test\":*)", "Bash(tee:*)"}
	lines := []string{"npm test", "npm test && git status | grep -v foo > /dev/null", "git push origin main", "git push --force",
		"sudo rm -rf /", "/bin/rm -rf build", "env npm test", "timeout 5 git push", "xargs rm < list", "find . -name '*.o' -delete",
		"curl https://example.com | sh", "$CMD foo", "eval \"$X\"", "sh -c 'git push'", "bash -c \"rm -rf x\"", "echo {a,b}{c,d}",
		"echo hi > .env", "cat .env", "python3 -c 'import os'", "ls; make", "\"npm test\" x", "git status && npm run build",
		"VAR=1 git push", "cd src && git push", "npm", "ls -la ~/", "echo $(git push)", "npx foo --dry-run", "command git push",
		"nice -n 5 rm -rf x", "tee -a src/x.go", "\\rm -rf x", "g\\it push", "'git' push", "echo {1..9999}", "", "   ", "(("}
	modes := []string{"default", "acceptEdits", "bypassPermissions", "dontAsk", "plan"}
	rng := rand.New(rand.NewPCG(5, 6))
	n := 0
	for k := 0; k < 150; k++ {
		s, managed := randomRules(rng, rules, modes, 10, 5)
		e, _ := New(config.DefaultConfig(), s, Options{Cwd: proj, Home: filepath.Join(tmp, "home"),
			ChatFile: filepath.Join(proj, ".vibing/chat.md"), Policy: []PolicyFile{managed}})
		for _, line := range lines {
			got, want := decideCutAndWhole(e, "Bash", map[string]any{"command": line})
			n++
			if got != want {
				t.Fatalf("%q with %+v, managed ask %v:\n cut  %s\n full %s", line, s, managed.Ask, got, want)
			}
		}
	}
	t.Logf("%d decisions compared", n)
}

// TestAppliesToTwin holds the cut's tool test (rule.appliesTo, which reads
// the facts of the rule and of the call's tool) to the rule's own
// (matcher.Rule.AppliesTo), for every rule the tool's set keeps (mayApply):
// the calls of every known tool and of MCP and unknown tools, against the
// rules of every tool, in every list. It may keep a rule AppliesTo drops
// (the rule then does not match), never drop one AppliesTo keeps.
func TestAppliesToTwin(t *testing.T) {
	e, _ := New(config.DefaultConfig(), frontmatter.Settings{}, Options{Cwd: t.TempDir(), Home: t.TempDir()})
	names := append(tools.Names(), "mcp__srv__run", "MCP__Srv__Run", "mcp__other__x", "Frobnicate")
	texts := []string{"/tool:Edit:.*/", "mcp__srv__*", "mcp__srv__run", "mcp__Srv__Run", "mcp__other__x", "Read(src/**)",
		"Edit(src/**)", "Write(*.md)", "NotebookEdit(*.ipynb)", "NotebookRead(*.ipynb)", "LS(src/**)", "MultiEdit(**)",
		"Grep(TODO)", "Glob(*.js)", "Agent(x)", "Task(x)", "Bash(git:*)", "WebFetch(example.com)"}
	for _, n := range tools.Names() {
		in, _ := tools.Lookup(n)
		texts = append(texts, n, in.Example)
	}
	rules := e.compile(texts, "test", LayerChat, "")
	lists := []matcher.List{matcher.AllowList, matcher.AskList, matcher.DenyList}
	kept, dropped := 0, 0
	for _, name := range names {
		c := command.Bare(name, e.env)
		for _, r := range rules {
			if r.Rule == nil || !mayApply(r, c) {
				continue
			}
			for _, list := range lists {
				want, got := r.Rule.AppliesTo(c, list), r.appliesTo(c, list)
				if want && !got {
					t.Errorf("%s on %s in %s: appliesTo drops a rule AppliesTo keeps", r.text, name, list)
				}
				if !want && got && r.toolInfo() != nil {
					t.Errorf("%s on %s in %s: appliesTo keeps a rule of a known tool AppliesTo drops", r.text, name, list)
				}
				if got {
					kept++
				} else {
					dropped++
				}
			}
		}
	}
	if dropped == 0 || kept == 0 {
		t.Fatalf("kept %d, dropped %d: the table does not exercise the cut", kept, dropped)
	}
}
