package session_test

import (
	"errors"
	"strings"
	"testing"

	"vibing/internal/frontmatter"
	"vibing/internal/matcher"
	"vibing/internal/session"
)

const teamConfig = `presets:
  team:
    mode: acceptEdits
    allow: ["Bash(make:*)"]
    ask: ["WebFetch"]
    deny: ["Bash(npm publish:*)"]
  standard:
    mode: plan
    allow: [Read]
`

// TestPresets: built-in and user presets, merged with the chat's lists, the
// chat's mode winning over the preset's.
func TestPresets(t *testing.T) {
	t.Parallel()
	cases := []tcase{
		{Name: "open allows bash", Preset: "open", Tool: "Bash", Input: bash("rm -rf build"), Want: session.Allow, Source: session.SourceMode},
		{Name: "open still default-denies", Preset: "open", Tool: "Bash", Input: bash("rm -rf /"), Want: session.Deny},
		{Name: "open still guards", Preset: "open", Tool: "Write", Input: file("$CHAT"), Want: session.Deny, Source: session.SourceGuard},
		{Name: "open with chat mode", Preset: "open", Mode: "plan", Tool: "Bash", Input: bash("make build"), Want: session.Deny, ReasonHas: []string{"plan mode"}},
		{Name: "standard edit", Preset: "standard", Tool: "Edit", Input: file("a.go"), Want: session.Allow, Source: session.SourcePreset, Rule: "Edit(**)"},
		{Name: "standard edit outside the project asks", Preset: "standard", Tool: "Edit", Input: file("/srv/other/a.go"), Want: session.Ask},
		{Name: "standard read outside the project asks", Preset: "standard", Tool: "Read", Input: file("~/.ssh/id_rsa"), Want: session.Ask},
		{Name: "locked read outside the project is refused", Preset: "locked", Tool: "Read", Input: file("~/.ssh/id_rsa"), Want: session.Deny},
		{Name: "standard read", Preset: "standard", Tool: "Read", Input: file("a.go"), Want: session.Allow, Source: session.SourcePreset},
		{Name: "standard git commit", Preset: "standard", Tool: "Bash", Input: bash("git commit -m x"), Want: session.Allow, Rule: "Bash(git commit:*)"},
		{Name: "standard git add and commit", Preset: "standard", Tool: "Bash", Input: bash("git add . && git commit -m 'x: y'"), Want: session.Allow},
		{Name: "standard git push asks", Preset: "standard", Tool: "Bash", Input: bash("git push origin main"), Want: session.Ask, Source: session.SourcePreset, Rule: "Bash(git push:*)"},
		{Name: "standard bash asks", Preset: "standard", Tool: "Bash", Input: bash("npm i"), Want: session.Ask, Rule: "Bash"},
		{Name: "standard git commit and rm asks", Preset: "standard", Tool: "Bash", Input: bash("git commit -m x; rm y"), Want: session.Ask},
		{Name: "standard webfetch asks", Preset: "standard", Tool: "WebFetch", Input: url("https://go.dev"), Want: session.Ask, Rule: "WebFetch"},
		{Name: "standard self-edit guarded", Preset: "standard", Tool: "Edit", Input: file(".vibing/chat/chat.md"), Want: session.Deny, Source: session.SourceGuard},
		{Name: "standard with chat allow", Preset: "standard", Allow: []string{"Bash(npm:*)"}, Tool: "Bash", Input: bash("npm test"), Want: session.Allow, Source: session.SourceAllowList},
		{Name: "standard with chat deny", Preset: "standard", Deny: []string{"Edit(*.lock)"}, Tool: "Edit", Input: file("go.lock"), Want: session.Deny, Source: session.SourceDenyList},
		{Name: "standard chat mode wins", Preset: "standard", Mode: "bypassPermissions", Tool: "mcp__x__y", Input: map[string]any{}, Want: session.Allow},
		{Name: "standard resumed", Preset: "standard", SessionID: "s", Tool: "Bash", Input: bash("npm i"), Want: session.Deny, Source: session.SourcePreset, ReasonHas: []string{"/new-session"}},
		{Name: "locked read", Preset: "locked", Tool: "Read", Input: file("a.go"), Want: session.Allow},
		{Name: "locked edit", Preset: "locked", Tool: "Edit", Input: file("a.go"), Want: session.Deny, Source: session.SourceMode},
		{Name: "locked bash", Preset: "locked", Tool: "Bash", Input: bash("git push"), Want: session.Deny},
		{Name: "locked webfetch", Preset: "locked", Tool: "WebFetch", Input: url("https://go.dev"), Want: session.Deny},
		{Name: "locked chat allow", Preset: "locked", Allow: []string{"Bash(go test:*)"}, Tool: "Bash", Input: bash("go test ./..."), Want: session.Allow},
		{Name: "user preset mode", Config: teamConfig, Preset: "team", Tool: "Edit", Input: file("a.go"), Want: session.Allow, Source: session.SourceMode},
		{Name: "user preset allow", Config: teamConfig, Preset: "team", Tool: "Bash", Input: bash("make test"), Want: session.Allow, Source: session.SourcePreset},
		{Name: "user preset ask", Config: teamConfig, Preset: "team", Tool: "WebFetch", Input: url("https://go.dev"), Want: session.Ask, Source: session.SourcePreset},
		{Name: "user preset deny", Config: teamConfig, Preset: "team", Tool: "Bash", Input: bash("npm publish --tag x"), Want: session.Deny, Source: session.SourcePreset},
		{Name: "user preset shadows builtin", Config: teamConfig, Preset: "standard", Tool: "Edit", Input: file("a.go"), Want: session.Deny, ReasonHas: []string{"plan mode"}},
		{Name: "chat allow overrides preset ask", Config: teamConfig, Preset: "team", Allow: []string{"WebFetch"}, Tool: "WebFetch", Input: url("https://go.dev"), Want: session.Allow},
		{Name: "unknown preset", Preset: "nope", Tool: "Read", Input: file("a.go"), Want: session.Deny, Source: session.SourceConfig, WantErr: true, ReasonHas: []string{`"nope"`, "locked, open, standard"}},
		{Name: "unknown preset bypass", Preset: "Standard", Mode: "bypassPermissions", Tool: "Glob", Input: pattern("*"), Want: session.Deny, Source: session.SourceConfig, WantErr: true},
		{Name: "unknown preset default deny irrelevant", Preset: "x", Config: "default_deny_rules: false\n", Tool: "TodoWrite", Input: map[string]any{}, Want: session.Deny, WantErr: true},
	}
	runCases(t, cases)
}

// TestResumed is step 8.
func TestResumed(t *testing.T) {
	t.Parallel()
	guidance := []string{"approval prompts are off for resumed sessions", "/allow Bash(rm:*)", "/new-session", "ask: Bash(rm:*)"}
	cases := []tcase{
		{Name: "session id ask list", SessionID: "3f2a", Ask: []string{"Bash(rm:*)"}, Tool: "Bash", Input: bash("rm a"), Want: session.Deny, Source: session.SourceAskList, Rule: "Bash(rm:*)", ReasonHas: guidance},
		{Name: "option ask list", Resumed: true, Ask: []string{"Bash(rm:*)"}, Tool: "Bash", Input: bash("rm -f a"), Want: session.Deny, Rule: "Bash(rm:*)", ReasonHas: guidance},
		{Name: "mode ask becomes deny", SessionID: "3f2a", Tool: "Bash", Input: bash("npm install"), Want: session.Deny, Source: session.SourceMode, ReasonHas: []string{"/allow Bash(npm install:*)", "/new-session", "approval needed"}},
		{Name: "read outside becomes deny", Resumed: true, Tool: "Read", Input: file("/etc/hosts"), Want: session.Deny},
		{Name: "once policy becomes deny", Resumed: true, Config: "policies: {Bash: once}\n", Tool: "Bash", Input: bash("make"), Want: session.Deny},
		{Name: "allow list still allows", SessionID: "3f2a", Allow: []string{"Bash(rm:*)"}, Tool: "Bash", Input: bash("rm a"), Want: session.Allow},
		{Name: "allow overrides ask in resume", SessionID: "3f2a", Ask: []string{"Bash"}, Allow: []string{"Bash"}, Tool: "Bash", Input: bash("ls"), Want: session.Allow},
		{Name: "read inside allowed", SessionID: "3f2a", Tool: "Read", Input: file("a.go"), Want: session.Allow},
		{Name: "bypass still allows", SessionID: "3f2a", Mode: "bypassPermissions", Tool: "Bash", Input: bash("make"), Want: session.Allow},
		{Name: "deny stays deny with its own reason", SessionID: "3f2a", Deny: []string{"Bash(rm:*)"}, Tool: "Bash", Input: bash("rm a"), Want: session.Deny, Source: session.SourceDenyList, ReasonHas: []string{"denied by the rule Bash(rm:*)"}},
		{Name: "explicit deny config", SessionID: "3f2a", Config: "resume_ask: deny\n", Ask: []string{"Bash"}, Tool: "Bash", Input: bash("ls"), Want: session.Deny},
		{Name: "prompt stays ask", SessionID: "3f2a", Config: "resume_ask: prompt\n", Ask: []string{"Bash(rm:*)"}, Tool: "Bash", Input: bash("rm a"), Want: session.Ask, Source: session.SourceAskList, Rule: "Bash(rm:*)"},
		{Name: "prompt option stays ask", Resumed: true, Config: "resume_ask: prompt\n", Tool: "Edit", Input: file("a.go"), Want: session.Ask},
		{Name: "prompt keeps once", Resumed: true, Config: "resume_ask: prompt\npolicies: {Bash: once}\n", Tool: "Bash", Input: bash("make"), Want: session.Ask, Once: true},
		{Name: "prompt dontAsk still denies", Resumed: true, Mode: "dontAsk", Config: "resume_ask: prompt\n", Ask: []string{"Bash"}, Tool: "Bash", Input: bash("ls"), Want: session.Deny, ReasonHas: []string{"dontAsk"}},
		{Name: "fresh session asks", Ask: []string{"Bash(rm:*)"}, Tool: "Bash", Input: bash("rm a"), Want: session.Ask},
	}
	runCases(t, cases)

	f := newFixture(t)
	for _, tc := range []struct {
		sid     string
		resumed bool
		want    bool
		forkOf  string
	}{{"", false, false, ""}, {"x", false, true, ""}, {"", true, true, ""}, {"x", true, true, ""}, {"", false, true, "old"}} {
		e, err := session.New(nil, frontmatter.Settings{SessionID: tc.sid, ForkOf: tc.forkOf}, session.Options{Cwd: f.proj, Home: f.home, Resumed: tc.resumed})
		if err != nil {
			t.Fatal(err)
		}
		if e.Resumed() != tc.want {
			t.Errorf("Resumed() with session_id %q, fork_of %q, Options.Resumed %v = %v, want %v", tc.sid, tc.forkOf, tc.resumed, e.Resumed(), tc.want)
		}
	}
}

// TestSeedScenarios are the four manual test scenarios of seed 003, as the
// pipeline sees them.
func TestSeedScenarios(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	newEngine := func(s frontmatter.Settings) *session.Engine {
		t.Helper()
		e, err := session.New(nil, s, tcase{}.options(f))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}

	// 1. Basic ask functionality: /ask Bash -> every Bash call asks; the
	// answer is the runner's business, the pipeline only says ask.
	e := newEngine(frontmatter.Settings{Ask: []string{"Bash"}})
	for _, cmd := range []string{"npm install", "ls", "git status"} {
		if d := e.Decide("Bash", bash(cmd)); d.Decision != session.Ask || d.Rule != "Bash" || d.Source != session.SourceAskList {
			t.Errorf("scenario 1: Decide(Bash %q) = %s/%s/%s, want ask/Bash/ask_list", cmd, d.Decision, d.Rule, d.Source)
		}
	}

	// 2. Granular pattern: /ask Bash(git:*) -> git asks, npm does not
	// (it falls to the mode, and there is no prompt from the ask list).
	e = newEngine(frontmatter.Settings{Ask: []string{"Bash(git:*)"}, Mode: "bypassPermissions"})
	if d := e.Decide("Bash", bash("git push")); d.Decision != session.Ask || d.Rule != "Bash(git:*)" {
		t.Errorf("scenario 2: git push = %s/%s, want ask/Bash(git:*)", d.Decision, d.Rule)
	}
	if d := e.Decide("Bash", bash("npm test")); d.Decision != session.Allow || d.Source != session.SourceMode {
		t.Errorf("scenario 2: npm test = %s/%s, want allow/mode", d.Decision, d.Source)
	}

	// 3. Allow override: /ask Bash then /allow Bash -> auto-approved.
	e = newEngine(frontmatter.Settings{Ask: []string{"Bash"}, Allow: []string{"Bash"}})
	if d := e.Decide("Bash", bash("make")); d.Decision != session.Allow || d.Source != session.SourceAllowList {
		t.Errorf("scenario 3: make = %s/%s, want allow/allow_list", d.Decision, d.Source)
	}

	// 4. Resume session: /ask Bash, reopen -> denied with a helpful message.
	e = newEngine(frontmatter.Settings{Ask: []string{"Bash"}, SessionID: "3f2a"})
	d := e.Decide("Bash", bash("make"))
	if d.Decision != session.Deny || !strings.Contains(d.Reason, "/allow Bash") || !strings.Contains(d.Reason, "/new-session") {
		t.Errorf("scenario 4: make = %s %q, want deny with /allow and /new-session guidance", d.Decision, d.Reason)
	}
	// the spec's own wording
	e = newEngine(frontmatter.Settings{Ask: []string{"Bash(rm:*)"}, SessionID: "3f2a"})
	want := "Bash needs approval (ask: Bash(rm:*)), but approval prompts are off for resumed sessions. Add it to the allow list with /allow Bash(rm:*), or start a fresh session with /new-session."
	if d := e.Decide("Bash", bash("rm x")); d.Reason != want {
		t.Errorf("scenario 4: reason = %q, want %q", d.Reason, want)
	}
}

// TestInvalidRules: New reports invalid rules, and the engine fails closed on
// them: an invalid deny or ask rule fires for its tool, an invalid allow rule
// never fires.
func TestInvalidRules(t *testing.T) {
	t.Parallel()
	cases := []tcase{
		{Name: "invalid deny fires for its tool", Deny: []string{"Bash(npm"}, Mode: "bypassPermissions", Tool: "Bash", Input: bash("ls"), Want: session.Deny, Source: session.SourceDenyList, Rule: "Bash(npm", WantErr: true, ReasonHas: []string{"invalid"}},
		{Name: "invalid deny not for other tools", Deny: []string{"Bash(npm"}, Mode: "bypassPermissions", Tool: "Edit", Input: file("a.go"), Want: session.Allow, WantErr: true},
		{Name: "invalid deny regex fires for all", Deny: []string{"/tool:Bash:(/"}, Mode: "bypassPermissions", Tool: "Read", Input: file("a.go"), Want: session.Deny, WantErr: true},
		{Name: "invalid deny unknown tool", Deny: []string{"Bsh"}, Mode: "bypassPermissions", Tool: "Read", Input: file("a.go"), NotAllow: true, WantErr: true},
		{Name: "invalid ask fires for its tool", Ask: []string{"WebFetch(http://[::1)"}, Allow: []string{"WebFetch"}, Tool: "WebFetch", Input: url("https://go.dev"), NotAllow: true, WantErr: true},
		{Name: "invalid ask resumed is deny", SessionID: "s", Ask: []string{"Edit(src/[)"}, Mode: "acceptEdits", Tool: "Edit", Input: file("a.go"), Want: session.Deny, WantErr: true},
		{Name: "invalid allow never allows", Allow: []string{"Bash(npm"}, Tool: "Bash", Input: bash("npm"), Want: session.Ask, Source: session.SourceMode, WantErr: true},
		{Name: "invalid allow file", Allow: []string{"Edit(src/[)"}, Tool: "Edit", Input: file("src/[)"), Want: session.Ask, WantErr: true},
		{Name: "invalid allow regex", Allow: []string{"/(/"}, Tool: "Bash", Input: bash("("), NotAllow: true, WantErr: true},
		{Name: "arg for tool without args", Allow: []string{"Skill(x)"}, Tool: "Skill", Input: map[string]any{"skill": "x"}, Want: session.Ask, WantErr: true},
		{Name: "empty rule", Allow: []string{""}, Tool: "Bash", Input: bash("make build"), Want: session.Ask, WantErr: true},
		{Name: "invalid session deny fails closed", SessionDeny: []string{"Bash(x"}, Mode: "bypassPermissions", Tool: "Bash", Input: bash("ls"), Want: session.Deny, Source: session.SourceSession, WantErr: true},
		{Name: "invalid session allow never allows", SessionAllow: []string{"Bash(x"}, Tool: "Bash", Input: bash("x"), Want: session.Ask, WantErr: true},
		{Name: "invalid preset rule", Config: "presets:\n  p:\n    deny: [\"Bash(rm\"]\n", Preset: "p", Mode: "bypassPermissions", Tool: "Bash", Input: bash("ls"), Want: session.Deny, Source: session.SourcePreset, WantErr: true},
		{Name: "valid rules no error", Allow: []string{"Bash(npm:*)", "Read(src/**)", "WebFetch(*.go.dev)", "/tool:Bash:ls.*/"}, Deny: []string{"mcp__x"}, Tool: "Bash", Input: bash("npm t"), Want: session.Allow},
	}
	runCases(t, cases)

	// the error names the rule and wraps matcher.ErrInvalidRule
	f := newFixture(t)
	_, err := session.New(nil, frontmatter.Settings{Allow: []string{"Bash(npm"}, Deny: []string{"Skill(x)"}}, tcase{}.options(f))
	if err == nil || !errors.Is(err, matcher.ErrInvalidRule) {
		t.Fatalf("New(invalid rules) error = %v, want it to wrap ErrInvalidRule", err)
	}
	for _, r := range []string{"Bash(npm", "Skill(x)"} {
		if !strings.Contains(err.Error(), r) {
			t.Errorf("New error %q does not name the rule %q", err, r)
		}
	}
}
