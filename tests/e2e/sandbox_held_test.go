package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/fakeapi"
	"vibing/internal/run"
)

// The everyday line the engine cannot see through (python3 -c importing
// the project's code) under a Read(.env) deny rule: with the sandbox
// holding the rule it follows the mode (bypassPermissions: it runs, no
// approval), and the kernel keeps .env from the script; with the sandbox
// off it asks the person in every mode, as before.
func TestSandboxHeldRuleFollowsMode(t *testing.T) {
	needSandbox(t)
	const line = `cd src && python3 -c 'import app; print("app says", app.x)' && ls`
	for _, tc := range []struct {
		name    string
		sandbox string
		asks    bool
	}{
		{"sandbox on", "on", false},
		{"sandbox off", "off", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, "permissions_mode: bypassPermissions\npermissions_deny: [\"Read(.env)\"]\n", "sandbox: \""+tc.sandbox+"\"\n",
				bash(line), fakeapi.Turn{Text: "done"})
			must(t, os.MkdirAll(filepath.Join(w.dir, "src"), 0o755))
			w.write(filepath.Join(w.dir, ".env"), "TOKEN="+sandboxSecret+"\n")
			w.write(filepath.Join(w.dir, "src", "app.py"), "x = open('../.env').read() or 'nothing'\n")
			var asked []string
			res := w.run(func(o run.Output, send func(run.Input)) {
				if o.Type == "approval_request" {
					asked = append(asked, o.Reason)
					send(run.Input{Type: "approval_response", ID: o.ID, Decision: "deny_once"})
				}
			})
			if res.code != 0 {
				t.Fatalf("run: exit %d, events %v, stderr %s", res.code, res.types(), res.stderr)
			}
			if got := len(asked) > 0; got != tc.asks {
				t.Errorf("asked = %v (%q), want %v", got, asked, tc.asks)
			}
			results := toolResults(w.api)
			if strings.Contains(results, sandboxSecret) {
				t.Errorf("the Read-denied secret reached the API:\n%s", results)
			}
			if !tc.asks && !strings.Contains(results, "app says nothing") {
				t.Errorf("the line did not run inside the sandbox:\n%s", results)
			}
		})
	}
}
