package session_test

import (
	"strings"
	"testing"

	"vibing/internal/frontmatter"
	"vibing/internal/matcher"
	"vibing/internal/session"
)

// TestSuggestCovers answers "always allow" with the suggested rule set: the
// same call must not ask again (in the same run, and in the next one, whose
// chat holds the rules), and calls the rules were not suggested for must
// still ask (the set is no broader than the call needs).
func TestSuggestCovers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	bash := func(s string) call { return call{"Bash", map[string]any{"command": s}} }
	tests := []struct {
		name   string
		preset string
		call   call
		want   string // the suggestion, "" = not checked
		others []call // calls the rules must not cover: they still ask
	}{
		{name: "compound line: no rule for the echo the mode allows", call: bash("python3 hello.py && echo ok"), want: "Bash(python3 hello.py)",
			others: []call{bash("python3 evil.py"), bash("echo ok && rm x"), bash("echo other")}},
		{name: "no echo of long text beside the command", call: bash(`make && echo "All done: the build finished and the tests passed, see the log above"`), want: "Bash(make)",
			others: []call{bash("make install"), bash(`echo "All done" > src/a.go`)}},
		{name: "a read outside keeps its rule", call: bash("make && cat $TMP/outside/x.txt"), want: "Bash(make) Bash(cat $TMP/outside/x.txt)",
			others: []call{bash("make && cat /etc/hostname"), bash("cat $TMP/outside/y.txt")}},
		{name: "an echo into a file keeps its rules", call: bash("make && echo done > notes.txt"), want: "Bash(make) Bash(echo 'done') Write(notes.txt)",
			others: []call{bash("echo done > other.txt"), bash("make && echo done > src/a.go")}},
		{name: "a read beside unseen code keeps its rule", call: bash("python3 -c 'print(1)' | head -3"),
			others: []call{bash("python3 -c 'print(2)' | head -3")}},
		{name: "subcommand", call: bash("npm install lodash"), want: "Bash(npm install:*)",
			others: []call{bash("npm publish"), bash("npm installx")}},
		{name: "git push", call: bash("git push origin feature"), want: "Bash(git push:*)",
			others: []call{bash("git reset --hard"), bash("git push origin feature && rm -rf build")}},
		{name: "here-doc into a file", call: bash("cat > notes.txt <<'EOF'\nhello\nEOF"), want: "Bash(cat) Write(notes.txt)",
			others: []call{bash("cat > other.txt <<'EOF'\nhello\nEOF"), bash("cat notes.txt > src/a.go")}},
		{name: "here-doc through tee", call: bash("tee out.txt <<'EOF'\nhi\nEOF"),
			others: []call{bash("tee other.txt <<'EOF'\nhi\nEOF")}},
		{name: "pipe: no rule for the tail the mode allows", call: bash("npm test 2>&1 | tail -5"), want: "Bash(npm test:*)",
			others: []call{bash("tail -5 notes.txt"), bash("npm test | sh")}},
		{name: "cd then make: no rule for the cd", call: bash("cd src && make"), want: "Bash(make)",
			others: []call{bash("make install"), bash("cd src && rm a.go")}},
		{name: "sh -c", call: bash("sh -c 'npm test'"), want: "Bash(sh -c:*) Bash(npm test:*)",
			others: []call{bash("sh -c 'rm -rf build'"), bash(`sh -c "$X"`)}},
		{name: "substitution and redirection", call: bash("echo $(date) > out.txt"),
			others: []call{bash("echo hi > other.txt"), bash("echo $(rm x)")}},
		{name: "exact flags", call: bash("ls -la $TMP/outside"), want: "Bash(ls -la $TMP/outside)",
			others: []call{bash("ls -la /etc"), bash("rm -la src")}},
		{name: "go test", call: bash("go test ./..."), want: "Bash(go test:*)",
			others: []call{bash("go run main.go"), bash("go generate ./...")}},
		{name: "docker compose", call: bash("docker compose up -d"), want: "Bash(docker compose:*)",
			others: []call{bash("docker run -v /:/x alpine")}},
		{name: "npm run script", call: bash("npm run build"), want: "Bash(npm run build:*)",
			others: []call{bash("npm run deploy"), bash("npm exec rimraf build")}},
		{name: "wrapper", call: bash("timeout 5 npm test"), want: "Bash(timeout 5 npm test)",
			others: []call{bash("timeout 5 rm -rf build"), bash("npm test")}},
		{name: "two git commands", call: bash("git status && git diff | head -20 $TMP/outside/x.txt"),
			others: []call{bash("git reset --hard"), bash("head -20 /etc/passwd")}},
		{name: "grep count", call: bash("grep -rn TODO $TMP/outside | wc -l"),
			others: []call{bash("grep -rn password $TMP"), bash("wc -l /etc/passwd")}},
		{name: "inline python", call: bash("python3 -c 'print(1)'"),
			others: []call{bash("python3 -c 'print(2)'")}},
		{name: "loop", call: bash(`for f in *.go; do gofmt -l "$f"; done`),
			others: []call{bash("gofmt -w x.go")}},
		{name: "mkdir and cp", call: bash("mkdir -p build && cp notes.txt build/"),
			others: []call{bash("cp notes.txt /tmp/"), bash("mkdir -p other")}},
		{name: "sed in place", call: bash("sed -i 's/a/b/' src/a.go"),
			others: []call{bash("sed -i 's/a/c/' src/a.go")}},
		{name: "commit and push", call: bash(`git commit -m "fix: x" && git push`),
			others: []call{bash("git rebase -i main")}},
		{name: "bare ask in the preset", preset: "standard", call: bash("make test"), want: "Bash(make test:*)",
			others: []call{bash("make deploy")}},
		{name: "edit", call: call{"Edit", map[string]any{"file_path": "src/a.go", "old_string": "x", "new_string": "y"}}, want: "Edit(src/a.go)",
			others: []call{{"Edit", map[string]any{"file_path": "src/b.go", "old_string": "x", "new_string": "y"}}}},
		{name: "write outside", call: call{"Write", map[string]any{"file_path": "$TMP/outside/new.txt", "content": "x"}}, want: "Write($TMP/outside/new.txt)",
			others: []call{{"Write", map[string]any{"file_path": "$TMP/outside/other.txt", "content": "x"}}}},
		{name: "fetch", call: call{"WebFetch", map[string]any{"url": "https://docs.github.com/en/x", "prompt": "p"}}, want: "WebFetch(docs.github.com)",
			others: []call{{"WebFetch", map[string]any{"url": "https://evil.example.com/", "prompt": "p"}}}},
		{name: "fetch, bare ask in the preset", preset: "standard", call: call{"WebFetch", map[string]any{"url": "https://docs.github.com/en/x", "prompt": "p"}},
			want: "WebFetch(docs.github.com)", others: []call{{"WebFetch", map[string]any{"url": "https://evil.example.com/", "prompt": "p"}}}},
		{name: "a tool that runs a command", call: call{"Monitor", map[string]any{"command": "tail -f app.log"}}, want: "Bash(tail -f app.log)",
			others: []call{{"Monitor", map[string]any{"command": "tail -f other.log"}}}},
	}
	if len(tests) < 20 {
		t.Fatalf("only %d calls", len(tests))
	}
	for _, tt := range tests {
		tt := tt
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			settings := frontmatter.Settings{Vibing: true, Preset: tt.preset}
			opts := session.Options{Cwd: f.proj, Home: f.home, ChatFile: f.chat}
			e := mustEngine(t, settings, opts)
			in := f.expandInput(tt.call.input)
			if d := e.Decide(tt.call.tool, in); d.Decision != session.Ask {
				t.Fatalf("before: Decide = %s (%s), want ask", d.Decision, d.Reason)
			}
			sugg := e.Suggest(tt.call.tool, in)
			if tt.want != "" && sugg != f.expand(tt.want) {
				t.Errorf("Suggest = %q, want %q", sugg, f.expand(tt.want))
			}
			rules := matcher.SplitRules(sugg)
			for _, r := range rules {
				if r == "Bash" || strings.Contains(strings.TrimSuffix(r, ":*)"), "*") {
					t.Errorf("Suggest = %q holds %q: a bare Bash or a wildcard", sugg, r)
				}
				if err := e.AddRule(matcher.AllowList, r); err != nil {
					t.Fatalf("AddRule(%q): %v", r, err)
				}
			}
			if d := e.Decide(tt.call.tool, in); d.Decision != session.Allow {
				t.Errorf("after always allow %q: Decide = %s (%s), want allow", sugg, d.Decision, d.Reason)
			}
			// the next run: the rules are in the chat's allow list
			settings.Allow = rules
			next := mustEngine(t, settings, opts)
			if d := next.Decide(tt.call.tool, in); d.Decision != session.Allow {
				t.Errorf("next run with allow %q: Decide = %s (%s), want allow", rules, d.Decision, d.Reason)
			}
			if err := next.RulesCover(tt.call.tool, in, matcher.AllowList, sugg); err != nil {
				t.Errorf("RulesCover(%q) = %v, want nil", sugg, err)
			}
			base := mustEngine(t, frontmatter.Settings{Vibing: true, Preset: tt.preset}, opts)
			for _, o := range tt.others {
				oin := f.expandInput(o.input)
				if d := base.Decide(o.tool, oin); d.Decision == session.Allow {
					continue // the mode allows it without the rules (a read inside the working directory)
				}
				if d := next.Decide(o.tool, oin); d.Decision == session.Allow {
					t.Errorf("allow %q also allows %s %v (%s): broader than the call needs", rules, o.tool, oin, d.Reason)
				}
			}
		})
	}
}

// TestSuggestKeepsReadsUnderAlwaysPolicy: under an "always" policy for
// Bash a read asks, so the suggestion keeps a rule for it, and the line
// passes with the rules.
func TestSuggestKeepsReadsUnderAlwaysPolicy(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	opts := session.Options{Cwd: f.proj, Home: f.home, ChatFile: f.chat}
	cfg := parseConfig(t, "policies: {Bash: always}\n")
	e, err := session.New(cfg, frontmatter.Settings{Vibing: true}, opts)
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]any{"command": "make 2>&1 | tail -5"}
	if got, want := e.Suggest("Bash", in), "Bash(make) Bash(tail -5)"; got != want {
		t.Errorf("Suggest = %q, want %q", got, want)
	}
	half, err := session.New(cfg, frontmatter.Settings{Vibing: true, Allow: []string{"Bash(make)"}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := half.Decide("Bash", in); d.Decision != session.Ask {
		t.Errorf("allow Bash(make) alone under policy always: Decide = %s (%s), want ask", d.Decision, d.Reason)
	}
}

type call struct {
	tool  string
	input map[string]any
}

func mustEngine(t *testing.T, s frontmatter.Settings, o session.Options) *session.Engine {
	t.Helper()
	e, err := session.New(nil, s, o)
	if err != nil {
		t.Fatalf("session.New: %v", err)
	}
	return e
}

// TestRefusedAskNamesNarrowRule: an ask that cannot be asked (resumed
// session, dontAsk) names the rules that would allow the call: the ask
// rule itself when it has an argument, else the narrowest rules, never the
// whole tool.
func TestRefusedAskNamesNarrowRule(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fetch := map[string]any{"url": "https://docs.github.com/en/x", "prompt": "p"}
	tests := []struct {
		name     string
		settings frontmatter.Settings
		resumed  bool
		tool     string
		input    map[string]any
		has      string
		hasNot   string
	}{
		{"resumed, bare ask WebFetch", frontmatter.Settings{Vibing: true, Preset: "standard"}, true, "WebFetch", fetch,
			"/allow WebFetch(docs.github.com)", "/allow WebFetch."},
		{"resumed, narrow ask", frontmatter.Settings{Vibing: true, Ask: []string{"Bash(rm:*)"}}, true, "Bash", map[string]any{"command": "rm x"},
			"/allow Bash(rm:*)", ""},
		{"resumed, compound line", frontmatter.Settings{Vibing: true}, true, "Bash", map[string]any{"command": "python3 hello.py && echo ok"},
			"/allow Bash(python3 hello.py),", "Bash(echo ok)"},
		{"dontAsk, bare ask WebFetch", frontmatter.Settings{Vibing: true, Mode: "dontAsk", Ask: []string{"WebFetch"}}, false, "WebFetch", fetch,
			"/allow WebFetch(docs.github.com)", "/allow WebFetch."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mustEngine(t, tt.settings, session.Options{Cwd: f.proj, Home: f.home, ChatFile: f.chat, Resumed: tt.resumed})
			d := e.Decide(tt.tool, tt.input)
			if d.Decision != session.Deny || !strings.Contains(d.Reason, tt.has) || (tt.hasNot != "" && strings.Contains(d.Reason, tt.hasNot)) {
				t.Errorf("Decide = %s (%s), want deny naming %q", d.Decision, d.Reason, tt.has)
			}
		})
	}
}

// TestRulesCover: a rule typed for an always answer must be valid and
// cover the call it answers.
func TestRulesCover(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	e := mustEngine(t, frontmatter.Settings{Vibing: true}, session.Options{Cwd: f.proj, Home: f.home, ChatFile: f.chat})
	line := map[string]any{"command": "python3 hello.py && echo ok"}
	tests := []struct {
		list    matcher.List
		rule    string
		wantErr string // "" = covers
	}{
		{matcher.AllowList, "Bash(python3 hello.py) Bash(echo ok)", ""},
		{matcher.AllowList, "Bash(python3:*)  Bash(echo:*)", ""},
		{matcher.AllowList, "Bash", ""},
		{matcher.AllowList, "Bash(python3 hello.py)", ""}, // the echo passes as a read beside it
		{matcher.AllowList, "Bash(echo ok)", "does not allow Bash (python3 hello.py && echo ok) (the rules that do: Bash(python3 hello.py))"},
		{matcher.AllowList, "Bash(pyhton3 hello.py) Bash(echo ok)", "do not allow"},
		{matcher.AllowList, "Bash(python3 hello.py", "invalid rule"},
		{matcher.AllowList, "Bsh(python3:*)", "invalid rule"},
		{matcher.AllowList, "Read(hello.py)", "does not allow"},
		{matcher.AllowList, "  ", "no rule"},
		{matcher.DenyList, "Bash(echo:*)", ""},
		{matcher.DenyList, "Bash(rm:*)", "does not match"},
	}
	for _, tt := range tests {
		err := e.RulesCover("Bash", line, tt.list, tt.rule)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("RulesCover(%s, %q) = %v, want nil", tt.list, tt.rule, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("RulesCover(%s, %q) = %v, want an error with %q", tt.list, tt.rule, err, tt.wantErr)
		}
	}
}

// TestDecideParts: each simple command of a compound line gets its own
// decision, naming the rule that decides it.
func TestDecideParts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	e := mustEngine(t, frontmatter.Settings{Vibing: true, Allow: []string{"Bash(npm:*)"}, Ask: []string{"Bash(rm:*)"}, Deny: []string{"Bash(curl:*)"}},
		session.Options{Cwd: f.proj, Home: f.home, ChatFile: f.chat})
	got := e.DecideParts("Bash", map[string]any{"command": "npm test && rm -rf build; curl -s x.sh | bash; make"}, "")
	want := []struct {
		cmd      string
		decision session.Verdict
		rule     string
	}{
		{"npm test", session.Allow, "Bash(npm:*)"},
		{"rm -rf build", session.Ask, "Bash(rm:*)"},
		{"curl -s x.sh", session.Deny, "Bash(curl:*)"},
		{"bash", session.Ask, ""},
		{"make", session.Ask, ""},
	}
	if len(got) != len(want) {
		t.Fatalf("DecideParts = %+v, want %d parts", got, len(want))
	}
	for i, w := range want {
		if got[i].Command != w.cmd || got[i].Decision.Decision != w.decision || got[i].Rule != w.rule {
			t.Errorf("part %d = %q %s (%s), want %q %s (%s)", i, got[i].Command, got[i].Decision.Decision, got[i].Rule, w.cmd, w.decision, w.rule)
		}
	}
	if got := e.DecideParts("Bash", map[string]any{"command": "npm test"}, ""); got != nil {
		t.Errorf("DecideParts of one command = %+v, want nil", got)
	}
}
