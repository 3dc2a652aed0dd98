package session_test

import (
	"testing"

	"vibing/internal/session"
)

// TestPrecedence covers class 15: a preset's allow never overrides the
// person's own ask rule (only the person's allow of the same text does), and
// a "once" policy grant stands in for the policy step only, never for an
// ask rule.
func TestPrecedence(t *testing.T) {
	t.Parallel()
	const once = "policies: {Bash: once, Edit: once, WebFetch: once}\n"
	const mine = "presets: {mine: {allow: [\"Bash(npm:*)\", WebFetch, \"Edit(src/**)\", \"Bash(make)\"], ask: [\"Bash(make)\"]}}\n"
	tests := []struct {
		tc    tcase
		grant string // GrantOnce(grant) before deciding
	}{
		// attacks: the person's ask must ask
		{tc: tcase{Name: "attack: preset allow Edit vs own ask Edit", Preset: "standard", Ask: []string{"Edit"}, Tool: "Edit", Input: file("src/a.go"), Want: session.Ask, Source: session.SourceAskList, Rule: "Edit"}},
		{tc: tcase{Name: "attack: preset allow Read vs own ask Read", Preset: "standard", Ask: []string{"Read"}, Tool: "Read", Input: file("src/a.go"), Want: session.Ask}},
		{tc: tcase{Name: "attack: preset allow git status vs own ask of it", Preset: "standard", Ask: []string{"Bash(git status:*)"}, Tool: "Bash", Input: bash("git status"), Want: session.Ask}},
		{tc: tcase{Name: "attack: user preset allow npm vs own ask npm", Preset: "mine", Config: mine, Ask: []string{"Bash(npm:*)"}, Tool: "Bash", Input: bash("npm test"), Want: session.Ask}},
		{tc: tcase{Name: "attack: user preset allow WebFetch vs own ask", Preset: "mine", Config: mine, Ask: []string{"WebFetch"}, Tool: "WebFetch", Input: url("https://example.com"), Want: session.Ask}},
		{tc: tcase{Name: "attack: a preset's narrower allow vs own bare ask", Preset: "mine", Config: mine, Ask: []string{"Edit"}, Tool: "Edit", Input: file("src/a.go"), Want: session.Ask, Rule: "Edit"}},
		{tc: tcase{Name: "attack: preset allow in bypass vs own ask", Preset: "standard", Mode: "bypassPermissions", Ask: []string{"Write"}, Tool: "Write", Input: file("src/a.go"), Want: session.Ask}},
		{tc: tcase{Name: "attack: once grant vs ask rm", Config: once, Ask: []string{"Bash(rm:*)"}, Tool: "Bash", Input: bash("rm x"), Want: session.Ask, Source: session.SourceAskList}, grant: "Bash"},
		{tc: tcase{Name: "attack: once grant vs ask of an Edit path", Config: once, Ask: []string{"Edit(secrets/**)"}, Tool: "Edit", Input: file("secrets/k"), Want: session.Ask}, grant: "Edit"},
		{tc: tcase{Name: "attack: once grant vs ask of a host", Config: once, Ask: []string{"WebFetch(evil.example)"}, Tool: "WebFetch", Input: url("https://evil.example/x"), Want: session.Ask}, grant: "WebFetch"},
		{tc: tcase{Name: "attack: once grant vs the preset's ask of git push", Config: once, Preset: "standard", Tool: "Bash", Input: bash("git push"), Want: session.Ask, Rule: "Bash(git push:*)"}, grant: "Bash"},
		{tc: tcase{Name: "attack: once grant vs a deny", Config: once, Deny: []string{"Bash(rm:*)"}, Tool: "Bash", Input: bash("rm x"), Want: session.Deny}, grant: "Bash"},
		{tc: tcase{Name: "attack: once grant vs ask in a resumed session", Config: once, SessionID: "s1", Ask: []string{"Bash(curl:*)"}, Tool: "Bash", Input: bash("curl x.example"), Want: session.Deny}, grant: "Bash"},
		{tc: tcase{Name: "attack: once grant vs a bare ask", Config: once, Ask: []string{"Bash"}, Tool: "Bash", Input: bash("ls"), Want: session.Ask}, grant: "Bash"},

		// everyday: what still runs
		{tc: tcase{Name: "everyday: own allow overrides own ask", Ask: []string{"Edit"}, Allow: []string{"Edit"}, Tool: "Edit", Input: file("src/a.go"), Want: session.Allow, Source: session.SourceAllowList}},
		{tc: tcase{Name: "everyday: own allow overrides the preset's ask", Preset: "standard", Allow: []string{"Bash"}, Tool: "Bash", Input: bash("npm test"), Want: session.Allow}},
		{tc: tcase{Name: "everyday: own allow overrides the preset's ask of WebFetch", Preset: "standard", Allow: []string{"WebFetch"}, Tool: "WebFetch", Input: url("https://example.com"), Want: session.Allow}},
		{tc: tcase{Name: "everyday: own narrower allow beats own bare ask", Ask: []string{"Bash"}, Allow: []string{"Bash(npm:*)"}, Tool: "Bash", Input: bash("npm test"), Want: session.Allow}},
		{tc: tcase{Name: "everyday: the preset's narrower allow beats its own bare ask", Preset: "standard", Tool: "Bash", Input: bash("git status"), Want: session.Allow, Source: session.SourcePreset}},
		{tc: tcase{Name: "everyday: a preset's allow overrides its own ask", Preset: "mine", Config: mine, Tool: "Bash", Input: bash("make"), Want: session.Allow}},
		{tc: tcase{Name: "everyday: own allow overrides own ask of git push", Ask: []string{"Bash(git push:*)"}, Allow: []string{"Bash(git push:*)"}, Tool: "Bash", Input: bash("git push"), Want: session.Allow}},
		{tc: tcase{Name: "everyday: once grant allows Bash", Config: once, Tool: "Bash", Input: bash("npm test"), Want: session.Allow, Source: session.SourceSession}, grant: "Bash"},
		{tc: tcase{Name: "everyday: once grant allows Edit", Config: once, Tool: "Edit", Input: file("src/a.go"), Want: session.Allow}, grant: "Edit"},
		{tc: tcase{Name: "everyday: once grant allows WebFetch", Config: once, Tool: "WebFetch", Input: url("https://example.com"), Want: session.Allow}, grant: "WebFetch"},
		{tc: tcase{Name: "everyday: once grant with an unrelated ask rule", Config: once, Ask: []string{"Bash(rm:*)"}, Tool: "Bash", Input: bash("npm test"), Want: session.Allow}, grant: "Bash"},
		{tc: tcase{Name: "attack: own ask of Write covers Edit despite the preset's Edit allow", Preset: "standard", Ask: []string{"Write"}, Tool: "Edit", Input: file("src/a.go"), Want: session.Ask}},
	}
	for _, tt := range tests {
		t.Run(tt.tc.Name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			e, err := tt.tc.engine(t, f)
			if err != nil {
				t.Fatal(err)
			}
			if tt.grant != "" {
				e.GrantOnce(tt.grant)
			}
			tt.tc.check(t, f, e.Decide(tt.tc.Tool, f.expandInput(tt.tc.Input)))
		})
	}
}

// TestAlwaysAllowAnswerOverridesOwnAsk: an "always allow" answer is the
// person's own allow rule.
func TestAlwaysAllowAnswerOverridesOwnAsk(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	e, err := tcase{Preset: "standard", Ask: []string{"Edit"}}.engine(t, f)
	if err != nil {
		t.Fatal(err)
	}
	if d := e.Decide("Edit", file("src/a.go")); d.Decision != session.Ask {
		t.Fatalf("before the answer: %s (%s), want ask", d.Decision, d.Reason)
	}
	if err := e.AddRule(allowList, "Edit"); err != nil {
		t.Fatal(err)
	}
	if d := e.Decide("Edit", file("src/a.go")); d.Decision != session.Allow {
		t.Fatalf("after always_allow Edit: %s (%s), want allow", d.Decision, d.Reason)
	}
}
