package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// trust, test and explain on a project with a committed team policy.
func TestTrustTestExplainCommands(t *testing.T) {
	bin := sharedAgent(t)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	proj := filepath.Join(dir, "proj")
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CONFIG_HOME=" + filepath.Join(home, "config")}
	writeFile(t, filepath.Join(proj, ".vibing", "policy.yaml"), "deny: [\"Bash(git push --force:*)\"]\nallow: [\"Bash(npm test)\"]\n")
	writeFile(t, filepath.Join(proj, ".claude", "settings.json"), `{"permissions":{"allow":["Write(src/**)","Bash(make *)"]}}`)
	cases := filepath.Join(proj, "policy-test.yaml")
	writeFile(t, cases, `cases:
  - {name: no force push, tool: Bash, input: {command: "git push --force origin main"}, expect: deny, source: "project:.vibing/policy.yaml"}
  - {name: npm test runs, tool: Bash, input: {command: npm test}, expect: allow}
  - {name: make runs, tool: Bash, input: {command: make all}, expect: allow}
`)

	out, _, code := runAgent(t, bin, proj, env, "test", cases)
	if code != exitFail || !strings.Contains(out, "FAIL  npm test runs: got ask from mode, want allow") || !strings.Contains(out, "1 of 3 cases pass") {
		t.Fatalf("test before trust: exit %d\n%s", code, out)
	}
	out, _, code = runAgent(t, bin, proj, env, "trust", "--list")
	if code != exitOK || !strings.Contains(out, ".vibing/policy.yaml") || !strings.Contains(out, "untrusted  (waiting: Bash(npm test))") {
		t.Fatalf("trust --list: exit %d\n%s", code, out)
	}
	out, _, code = runAgent(t, bin, proj, env, "trust")
	if code != exitOK || !strings.Contains(out, ".vibing/policy.yaml opens: Bash(npm test)") || !strings.Contains(out, "Trusted .claude/settings.json") {
		t.Fatalf("trust: exit %d\n%s", code, out)
	}
	out, _, code = runAgent(t, bin, proj, env, "test", cases)
	if code != exitOK || !strings.Contains(out, "3 of 3 cases pass") {
		t.Fatalf("test after trust: exit %d\n%s", code, out)
	}
	// a changed file needs trusting again
	writeFile(t, filepath.Join(proj, ".vibing", "policy.yaml"), "allow: [\"Bash(npm test)\", Bash]\n")
	out, _, _ = runAgent(t, bin, proj, env, "trust", "--list")
	if !strings.Contains(out, ".vibing/policy.yaml") || !strings.Contains(out, "changed") {
		t.Fatalf("trust --list after a change:\n%s", out)
	}
	chat := writeChat(t, proj, "---\nvibing.nvim: true\npermissions_allow: [Read, \"Bash(git push --force:*)\"]\n---\n")
	out, _, code = runAgent(t, bin, proj, env, "explain", "--chat", chat)
	for _, want := range []string{
		"Rules by layer (highest first):",
		"project:.claude/settings.json",
		"WARNING: a bare Read allow lets the agent read any file",
		"Policy files:",
		"project  .vibing/policy.yaml (changed)",
		"waiting for trust (vibing-agent trust .vibing/policy.yaml): Bash(npm test), Bash",
		"the allow rule Write(src/**) is dropped",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	if code != exitOK {
		t.Errorf("explain: exit %d", code)
	}
	if _, errOut, code := runAgent(t, bin, proj, env, "trust", "README.md"); code != exitUsage || !strings.Contains(errOut, "is not a policy file") {
		t.Errorf("trust of a non-policy file: exit %d, %s", code, errOut)
	}
	if _, errOut, code := runAgent(t, bin, proj, env, "test", filepath.Join(proj, "nope.yaml")); code != exitUsage || !strings.Contains(errOut, "nope.yaml") {
		t.Errorf("test of a missing table: exit %d, %s", code, errOut)
	}
	writeFile(t, filepath.Join(proj, "bad.yaml"), "cases:\n  - {tool: Bash, input: {command: ls}, expect: maybe}\n")
	if _, errOut, code := runAgent(t, bin, proj, env, "test", filepath.Join(proj, "bad.yaml")); code != exitUsage || !strings.Contains(errOut, "line 2") {
		t.Errorf("test of a bad table: exit %d, %s", code, errOut)
	}
}

// A misspelled permission key refuses the chat: with permissions_allow: [Bash]
// and permission_deny, rm -rf build must not run.
func TestMisspelledKeyRefusesChat(t *testing.T) {
	bin := sharedAgent(t)
	dir := t.TempDir()
	chat := writeChat(t, dir, "---\nvibing.nvim: true\npermissions_allow: [Bash]\npermission_deny: [\"Bash(rm:*)\"]\n---\n")
	out, errOut, code := runAgent(t, bin, dir, nil, "check", "--chat", chat, "--tool", "Bash", "--input", `{"command":"rm -rf build"}`)
	if code != exitFail || strings.Contains(out, `"allow"`) || !strings.Contains(errOut, "did you mean permissions_deny?") {
		t.Fatalf("check with permission_deny: exit %d, out %s, err %s", code, out, errOut)
	}
}
