package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/fakeapi"
)

// agent runs a vibing-agent command with the world's home and state.
func (w *world) agent(args ...string) (string, error) {
	cmd := exec.Command(agentBin, args...)
	cmd.Dir = w.dir
	cmd.Env = append(os.Environ(), "HOME="+w.home, "XDG_STATE_HOME="+filepath.Join(w.home, "state"), "XDG_CONFIG_HOME="+filepath.Join(w.home, "config"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// A deny in the person's own ~/.claude/settings.json is a user-layer rule:
// the CLI enforces it underneath, and vibing's decision and audit row say
// deny with that file as the source, even though the chat allows the call.
func TestRealClaudeUserSettingsDeny(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "permissions_allow: [\"Bash(touch:*)\"]\n", "", bash("touch denied.txt"))
	if err := os.MkdirAll(filepath.Join(w.home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.write(filepath.Join(w.home, ".claude", "settings.json"), `{"permissions":{"deny":["Bash(touch:*)"]}}`)
	res := w.run(nil)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0; stderr %s", res.code, res.stderr)
	}
	if w.exists("denied.txt") {
		t.Error("denied command ran: denied.txt exists")
	}
	d := res.all("decision")
	if len(d) != 1 || d[0].Decision != "deny" || d[0].Source != "user:~/.claude/settings.json" || d[0].Rule != "Bash(touch:*)" {
		t.Fatalf("decisions = %+v, want one deny by Bash(touch:*) from user:~/.claude/settings.json", d)
	}
	if !w.api.Received(d[0].Reason) {
		t.Errorf("the model never got the denial reason %q", d[0].Reason)
	}
	rows := auditRows(t, w)
	if len(rows) != 1 || rows[0].Decision != "deny" || rows[0].Source != "user:~/.claude/settings.json" {
		t.Errorf("audit rows = %+v, want one deny with source user:~/.claude/settings.json", rows)
	}
}

// A project's .vibing/policy.yaml deny applies at once; its allow rule only
// after trust.
func TestRealProjectPolicyTrust(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", "", bash("touch made.txt"))
	if err := os.MkdirAll(filepath.Join(w.dir, ".vibing"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.write(filepath.Join(w.dir, ".vibing", "policy.yaml"), "allow: [\"Bash(touch:*)\"]\n")
	res := w.run(answer("deny_once"))
	if w.exists("made.txt") {
		t.Fatalf("an untrusted project allow ran the command; events %v", res.types())
	}
	if len(res.all("approval_request")) != 1 {
		t.Fatalf("untrusted allow: events %v, want one approval_request", res.types())
	}
	if out, err := w.agent("trust", "--dir", w.dir); err != nil || !strings.Contains(out, "Trusted .vibing/policy.yaml") {
		t.Fatalf("vibing-agent trust: %v\n%s", err, out)
	}
	w.api = fakeapi.New(bash("touch made.txt"))
	t.Cleanup(w.api.Close)
	res = w.run(nil)
	d := res.all("decision")
	if !w.exists("made.txt") || len(d) != 1 || d[0].Decision != "allow" || !strings.HasPrefix(d[0].Source, "project:.vibing/policy.yaml") {
		t.Fatalf("after trust: made.txt %v, decisions %+v, want an allow from project:.vibing/policy.yaml", w.exists("made.txt"), d)
	}
}
