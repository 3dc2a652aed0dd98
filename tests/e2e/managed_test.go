package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The managed layer as it runs in production: root-owned files under the
// real /etc/vibing and /etc/claude-code, seen through a private mount
// namespace (an overlay over /etc that only this test's processes see), so
// the machine's own /etc is never touched.
func TestManagedLayerInMountNamespace(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Fatal("this test needs root for a private mount namespace (unshare -m); CI runs as root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Fatalf("unshare (util-linux) is missing: %v", err)
	}
	tmp := t.TempDir()
	project := filepath.Join(tmp, "project")
	home := filepath.Join(tmp, "home")
	for _, d := range []string{filepath.Join(project, ".vibing", "chat"), home, filepath.Join(tmp, "upper"), filepath.Join(tmp, "work")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	chat := filepath.Join(project, ".vibing", "chat", "c.md")
	if err := os.WriteFile(chat, []byte("---\nvibing.nvim: true\npermissions_mode: bypassPermissions\npermissions_allow: [\"Bash(git push:*)\", WebFetch, \"Bash(curl:*)\"]\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `set -e
mount -t overlay overlay -o lowerdir=/etc,upperdir=` + tmp + `/upper,workdir=` + tmp + `/work /etc
mkdir -p /etc/vibing/policy.d /etc/claude-code
printf 'ask: ["Bash(git push:*)"]\ndisable_bypass: true\n' > /etc/vibing/policy.yaml
printf 'deny: ["Bash(curl:*)"]\n' > /etc/vibing/policy.d/10-net.yaml
printf '{"permissions":{"deny":["WebFetch"]}}' > /etc/claude-code/managed-settings.json
chown -R root:root /etc/vibing /etc/claude-code
chmod -R go-w /etc/vibing /etc/claude-code
check() { "$AGENT" check --chat "$CHAT" --tool "$1" --input "$2"; echo; }
check Bash '{"command":"git push origin main"}'
check Bash '{"command":"curl https://example.com"}'
check WebFetch '{"url":"https://example.com"}'
check Bash '{"command":"make"}'
check Write '{"file_path":"/etc/vibing/policy.yaml","content":"x"}'
`
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script)
	cmd.Dir = project
	cmd.Env = append(os.Environ(), "AGENT="+agentBin, "CHAT="+chat, "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("unshare: %v\n%s", err, out)
	}
	var got []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var d map[string]any
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("not a decision: %q (%v)\n%s", line, err, out)
		}
		got = append(got, d)
	}
	want := []struct{ decision, source string }{
		{"ask", "managed:/etc/vibing/policy.yaml"},                 // a managed ask beats the chat's allow and bypass mode
		{"deny", "managed:/etc/vibing/policy.d/10-net.yaml"},       // policy.d is read
		{"deny", "managed:/etc/claude-code/managed-settings.json"}, // Claude's managed settings too
		{"ask", "mode"},   // disable_bypass: the chat's bypassPermissions falls back to default
		{"deny", "guard"}, // the managed files are guarded
	}
	if len(got) != len(want) {
		t.Fatalf("got %d decisions, want %d:\n%s", len(got), len(want), out)
	}
	for i, w := range want {
		if got[i]["decision"] != w.decision || got[i]["source"] != w.source {
			t.Errorf("call %d = %v from %v (%v), want %s from %s", i+1, got[i]["decision"], got[i]["source"], got[i]["reason"], w.decision, w.source)
		}
	}
	if _, err := os.Stat("/etc/vibing"); err == nil {
		t.Error("/etc/vibing exists outside the namespace: the test touched the real /etc")
	}
}
