package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vibing/internal/fakeapi"
	"vibing/internal/run"
)

// With the real CLI in a chat under a Read(.env) deny (default mode, sandbox
// off): a line that only reads inside the project runs without a prompt; a
// search of the project that holds .env and inline code the engine cannot
// see through ask, once only (no "always" or "for session" answer); a line
// that names .env is refused; the secret never reaches the API.
func TestUnseenAsksAndReadsRunInChat(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "permissions_deny: [\"Read(.env)\"]\n", "sandbox: \"off\"\n")
	w.api.Close()
	w.api = fakeapi.New(bash("ls && cat notes.txt"), bash("grep -rn TODO ."),
		bash("python3 -c 'import os; print(1)'"), bash("cat .env"), fakeapi.Turn{Text: "done"})
	t.Cleanup(w.api.Close)
	const secret = "UNSEEN-SECRET-41b7"
	for name, body := range map[string]string{".env": "KEY=" + secret + "\n", "notes.txt": "notes: TODO tidy\n"} {
		if err := os.WriteFile(filepath.Join(w.dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var asked []run.Output
	res := w.run(func(o run.Output, send func(run.Input)) {
		if o.Type == "approval_request" {
			asked = append(asked, o)
			send(run.Input{Type: "approval_response", ID: o.ID, Decision: "deny_once"})
		}
	})
	if res.code != 0 {
		t.Fatalf("run: exit %d, events %v, stderr %s", res.code, res.types(), res.stderr)
	}
	want := map[string]string{
		"ls && cat notes.txt":              "allow",
		"grep -rn TODO .":                  "ask",
		"python3 -c 'import os; print(1)'": "ask",
		"cat .env":                         "deny",
	}
	seen := 0
	for _, d := range res.all("decision") {
		w, ok := want[d.Detail]
		if !ok {
			continue
		}
		seen++
		if d.Decision != w {
			t.Errorf("%s: %s (%s), want %s", d.Detail, d.Decision, d.Reason, w)
		}
		if w != "allow" && d.Rule != "Read(.env)" {
			t.Errorf("%s: rule %q, want Read(.env)", d.Detail, d.Rule)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d lines were decided: %v", seen, len(want), res.types())
	}
	if len(asked) != 2 {
		t.Fatalf("%d approval requests, want 2 (the search and the inline code): %+v", len(asked), asked)
	}
	for _, a := range asked {
		if slices.Contains(a.Options, "always_allow") || slices.Contains(a.Options, "allow_for_session") || a.Limit == "" {
			t.Errorf("%s: options %v, limit %q: a held-back deny must be answered once only", a.Detail, a.Options, a.Limit)
		}
		if !strings.Contains(a.Reason, "Read(.env)") {
			t.Errorf("%s: the reason %q does not name the rule", a.Detail, a.Reason)
		}
	}
	if !w.api.Received("notes: TODO tidy") {
		t.Errorf("the read-only line did not run; tool results:\n%s", toolResults(w.api))
	}
	if w.api.Received(secret) {
		t.Errorf("the secret reached the API")
	}
}

// In a terminal `claude -p` session (no prompt can be shown) with the hook
// and a project's Read(.env): the search of the project that holds .env is
// handed to the CLI as an ask, which in -p mode it refuses; the secret
// never reaches the API; a line that only reads inside the project runs.
func TestUnseenAskRefusedInPrintSession(t *testing.T) {
	t.Parallel()
	w := newHookWorld(t)
	w.api.Close()
	w.api = fakeapi.New(bash("grep -rn KEY ."), bash("ls && cat notes.txt"), fakeapi.Turn{Text: "done"})
	t.Cleanup(w.api.Close)
	const secret = "UNSEEN-PRINT-SECRET-9c2d"
	for name, body := range map[string]string{".env": "KEY=" + secret + "\n", "notes.txt": "notes: read me\n",
		".claude/settings.json": `{"permissions":{"deny":["Read(.env)"]}}`} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(w.dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(w.dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.claude("look for keys")
	if w.api.Received(secret) {
		t.Errorf("the secret reached the API; tool results:\n%s", toolResults(w.api))
	}
	if !w.api.Received("notes: read me") {
		t.Errorf("the read-only line did not run; tool results:\n%s", toolResults(w.api))
	}
	var decisions []string
	for _, r := range w.hookRows() {
		decisions = append(decisions, r["decision"]+" "+r["action"])
	}
	if !slices.ContainsFunc(decisions, func(s string) bool { return strings.HasPrefix(s, "ask") && strings.Contains(s, "grep -rn KEY .") }) {
		t.Errorf("hook rows %q: want an ask for the search", decisions)
	}
}
