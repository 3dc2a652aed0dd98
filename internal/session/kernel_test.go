package session_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/frontmatter"
	"vibing/internal/session"
)

// kernelEngine is an engine for a project with src/app.py and .env; held
// are the rules the sandbox holds (nil: no sandbox).
func kernelEngine(t *testing.T, mode string, resumed bool, held []string, more ...string) *session.Engine {
	t.Helper()
	dir, home := t.TempDir(), t.TempDir()
	for _, f := range []string{"src/app.py", ".env", "main.txt"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x = 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := frontmatter.Settings{Vibing: true, Mode: mode,
		Allow: []string{"Read(**)", "Edit(src/**)", "Bash(npm:*)"},
		Deny:  append([]string{"Read(.env)", "Edit(main.txt)", "WebFetch(evil.example)"}, more...)}
	if resumed {
		s.SessionID = "s-1"
	}
	e, err := session.New(nil, s, session.Options{Cwd: dir, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	e.HoldByKernel(held)
	return e
}

// held is what a sandbox holds of kernelEngine's rules: the file rules it
// hid or made read-only whole, and the proxy's deny hosts (never a command
// rule such as Bash(rm -rf), nor a file rule it did not hold whole).
var held = []string{"Read(.env)", "Edit(main.txt)", "WebFetch(evil.example)"}

// TestKernelHolds: where the sandbox holds a deny rule, a line the engine
// cannot see through for that rule follows the mode instead of asking in
// every mode (or being refused where no prompt can be shown); what the line
// is seen to do is still refused, rules the sandbox does not hold keep
// refusing, and without the sandbox nothing changes.
func TestKernelHolds(t *testing.T) {
	t.Parallel()
	const importLine = `cd src && python3 -c 'import app; print(app.x)' && ls`
	tests := []struct {
		name    string
		mode    string
		resumed bool
		line    string
		sandbox session.Verdict // decision with the sandbox holding the rules
		source  string          // its source
		without session.Verdict // decision without a sandbox
	}{
		// everyday: lines the engine cannot see through
		{"the import line, default mode", "default", false, importLine, "ask", "mode", "ask"},
		{"the import line, bypassPermissions (what it runs may make a file that runs code)", "bypassPermissions", false, importLine, "ask", "autorun", "ask"},
		{"the import line, acceptEdits", "acceptEdits", false, importLine, "ask", "mode", "ask"},
		{"the import line, dontAsk", "dontAsk", false, importLine, "deny", "mode", "deny"},
		{"the import line, resumed session", "default", true, importLine, "deny", "mode", "deny"},
		{"a script, bypassPermissions", "bypassPermissions", false, "python3 tools/gen.py", "allow", "mode", "allow"},
		{"sh -c of a variable, bypassPermissions", "bypassPermissions", false, `sh -c "$BUILD"`, "ask", "autorun", "ask"},
		{"curl of a variable, WebFetch deny, bypassPermissions", "bypassPermissions", false, `curl -s "$URL"`, "allow", "mode", "deny"},
		{"an allowed npm line", "default", false, "npm test", "allow", "allow_list", "allow"},
		// attacks: what the line is seen to do stays refused
		{"reading .env", "bypassPermissions", false, "cat .env", "deny", "deny_list", "deny"},
		{"reading .env through a variable name the engine resolves", "bypassPermissions", false, "f=.env; cat $f", "deny", "deny_list", "deny"},
		{"writing the denied file", "bypassPermissions", false, "echo x > main.txt", "deny", "deny_list", "deny"},
		{"a denied host by name", "bypassPermissions", false, "curl https://evil.example/x", "deny", "deny_list", "deny"},
		{"a denied host and an unknown one", "bypassPermissions", false, `curl https://evil.example/x "$URL"`, "deny", "deny_list", "deny"},
		// attacks: a rule no kernel holds keeps its ask in every mode
		{"a command rule: the import line, bypassPermissions", "bypassPermissions", false, importLine, "ask", "deny_list", "ask"},
		{"a command rule: sh -c of a variable, dontAsk", "dontAsk", false, `sh -c "$BUILD"`, "deny", "deny_list", "deny"},
		{"a file rule the sandbox does not hold, bypassPermissions", "bypassPermissions", false, `python3 -c 'import app'`, "ask", "deny_list", "ask"},
	}
	// one more deny rule, which the sandbox does not hold
	moreRules := map[string]string{
		"a command rule: the import line, bypassPermissions":       "Bash(rm -rf)",
		"a command rule: sh -c of a variable, dontAsk":             "Bash(rm -rf)",
		"a file rule the sandbox does not hold, bypassPermissions": "Read(/etc/**)",
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := map[string]any{"command": tt.line}
			var more []string
			if r := moreRules[tt.name]; r != "" {
				more = []string{r}
			}
			with := kernelEngine(t, tt.mode, tt.resumed, held, more...).Decide("Bash", in)
			if with.Decision != tt.sandbox || with.Source != tt.source {
				t.Errorf("with the sandbox: Decide(%q) = %s (%s, %s: %s), want %s (%s)", tt.line, with.Decision, with.Source, with.Rule, with.Reason, tt.sandbox, tt.source)
			}
			without := kernelEngine(t, tt.mode, tt.resumed, nil, more...).Decide("Bash", in)
			if without.Decision != tt.without {
				t.Errorf("without the sandbox: Decide(%q) = %s (%s: %s), want %s", tt.line, without.Decision, without.Rule, without.Reason, tt.without)
			}
			if with.Decision == "ask" && with.Source == "mode" && (with.NoAlways || with.NoSession) {
				t.Errorf("a mode ask offers only a one-off answer: %+v", with)
			}
		})
	}
}

// The slow twin decides as the engine does with the same rules held.
func TestKernelHoldsTwin(t *testing.T) {
	t.Parallel()
	e := kernelEngine(t, "bypassPermissions", false, held)
	for _, line := range []string{`cd src && python3 -c 'import app; print(app.x)' && ls`, "cat .env", `sh -c "rm -rf $DIR"`, `curl -s "$URL"`} {
		in := map[string]any{"command": line}
		a, b := e.Decide("Bash", in), e.Reference().Decide("Bash", in)
		if a.Decision != b.Decision || a.Rule != b.Rule || !strings.EqualFold(a.Source, b.Source) {
			t.Errorf("Decide(%q): engine %s %q, twin %s %q", line, a.Decision, a.Rule, b.Decision, b.Rule)
		}
	}
}
