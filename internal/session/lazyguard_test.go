package session_test

import (
	"testing"

	"vibing/internal/command"
	"vibing/internal/config"
	"vibing/internal/session"
)

// The guarded paths are resolved at the first command of a line that may
// change something (a read-only line never resolves them): in
// bypassPermissions mode, where nothing else refuses, a changing command
// anywhere on a line still meets the guard, and read-only lines and
// everyday commands run.
func TestGuardAfterReadOnlyCommands(t *testing.T) {
	cases := []struct {
		line  string
		guard bool
	}{
		// attacks: the changing command comes after read-only ones
		{"git status && rm -rf .vibing", true},
		{"cat README.md; cd .vibing && touch x", true},
		{"ls && cd .vibing && mytool --fix", true},                 // an unknown program inside a guarded folder
		{"git status; python3 -c 'open(\"chat.md\",\"w\")'", true}, // a script naming the chat file
		{"ls -la; mv vlink/chat/chat.md /tmp/x", true},
		{"cat README.md && cp /tmp/evil chatlink", true},
		{"wc -l src/a.go | tee .vibing/chat/chat.md", true},
		// everyday
		{"npm test", false},
		{"git status", false},
		{"cat README.md", false},
		{"ls -la .vibing && cat .vibing/chat/chat.md", false},
		{"git status && npm test && go build ./...", false},
	}
	f := newFixture(t)
	e, err := session.New(config.DefaultConfig(), tcase{Mode: "bypassPermissions"}.settings(f), tcase{}.options(f))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		d := e.Decide("Bash", bash(tc.line))
		if tc.guard && (d.Decision != session.Deny || d.Source != session.SourceGuard) {
			t.Errorf("%q: %s from %s (%s), want a deny from the guard", tc.line, d.Decision, d.Source, d.Reason)
		}
		if !tc.guard && d.Decision != session.Allow {
			t.Errorf("%q: %s from %s (%s), want allow", tc.line, d.Decision, d.Source, d.Reason)
		}
	}
}

// TestGuardReadsPrepare: the guard reads what Prepare worked out against
// the engine's guarded set (command.Call.Reach); a call prepared any other
// way (without the set, or by another engine) is refused, never let
// through unchecked.
func TestGuardReadsPrepare(t *testing.T) {
	f := newFixture(t)
	e, err := session.New(config.DefaultConfig(), tcase{Mode: "bypassPermissions"}.settings(f), tcase{}.options(f))
	if err != nil {
		t.Fatal(err)
	}
	other, err := session.New(config.DefaultConfig(), tcase{Mode: "bypassPermissions"}.settings(f), tcase{}.options(f))
	if err != nil {
		t.Fatal(err)
	}
	env := command.Env{Cwd: f.proj, Home: f.home}
	for _, tc := range []struct {
		line string
		want session.Verdict
	}{
		{"rm -rf .vibing", session.Deny}, // attack
		{"git status", session.Allow},    // everyday
		{"npm test", session.Allow},
	} {
		if d := e.DecideCall(e.Prepare("Bash", bash(tc.line))); d.Decision != tc.want {
			t.Errorf("%q prepared by the engine: %s (%s), want %s", tc.line, d.Decision, d.Reason, tc.want)
		}
		for name, c := range map[string]*command.Call{
			"without the guarded set": command.Prepare("Bash", bash(tc.line), env),
			"by another engine":       other.Prepare("Bash", bash(tc.line)),
		} {
			if d := e.DecideCall(c); d.Decision != session.Deny || d.Source != session.SourceGuard {
				t.Errorf("%q prepared %s: %s from %s (%s), want a deny from the guard", tc.line, name, d.Decision, d.Source, d.Reason)
			}
		}
	}
}
