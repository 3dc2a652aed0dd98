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

// The everyday line the engine cannot see through (python3 -c importing
// the project's code) under a Read(.env) deny rule, in default mode: with
// the sandbox holding the rule it is an ordinary ask of the mode (every
// answer offered, "always" included), and once allowed the kernel keeps
// .env from the script; with the sandbox off the rule is held back and
// asks in every mode, for this call only.
func TestSandboxHeldRuleFollowsMode(t *testing.T) {
	needSandbox(t)
	const line = `cd src && python3 -c 'import app; print("app says", app.x)' && ls`
	for _, tc := range []struct {
		name, sandbox string
		answer        run.Answer
		always        bool // the approval offers always_allow
	}{
		{"sandbox on", "on", "allow_once", true},
		{"sandbox off", "off", "deny_once", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, "permissions_deny: [\"Read(.env)\"]\n", "sandbox: \""+tc.sandbox+"\"\n", bash(line), fakeapi.Turn{Text: "done"})
			must(t, os.MkdirAll(filepath.Join(w.dir, "src"), 0o755))
			w.write(filepath.Join(w.dir, ".env"), "TOKEN="+sandboxSecret+"\n")
			w.write(filepath.Join(w.dir, "src", "app.py"), "x = open('../.env').read() or 'nothing'\n")
			var asks []run.Output
			res := w.run(func(o run.Output, send func(run.Input)) {
				if o.Type == "approval_request" {
					asks = append(asks, o)
					send(run.Input{Type: "approval_response", ID: o.ID, Decision: tc.answer})
				}
			})
			if res.code != 0 {
				t.Fatalf("run: exit %d, events %v, stderr %s", res.code, res.types(), res.stderr)
			}
			if len(asks) != 1 {
				t.Fatalf("asked %d times, want once: %+v", len(asks), asks)
			}
			always := slices.Contains(asks[0].Options, run.AlwaysAllow)
			if always != tc.always || (tc.always && asks[0].Rule != "") {
				t.Errorf("approval offers %v (rule %q, %s), want always_allow offered: %v", asks[0].Options, asks[0].Rule, asks[0].Reason, tc.always)
			}
			results := toolResults(w.api)
			if strings.Contains(results, sandboxSecret) {
				t.Errorf("the Read-denied secret reached the API:\n%s", results)
			}
			if tc.answer == "allow_once" && !strings.Contains(results, "app says nothing") {
				t.Errorf("the line did not run inside the sandbox:\n%s", results)
			}
		})
	}
}
