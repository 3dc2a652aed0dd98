package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vibing/internal/audit"
)

// audit --what-if replays the history against the chat's policy with and
// without a rule and lists exactly the calls whose outcome would change.
func TestAuditWhatIf(t *testing.T) {
	bin := sharedAgent(t)
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "audit.sqlite")
	cfg := filepath.Join(dir, "vibing.json")
	writeFile(t, cfg, `{"audit_path": "`+dbPath+`"}`)
	chat := writeChat(t, dir, "---\nvibing.nvim: true\npermissions_allow: [\"Bash(curl:*)\", \"Bash(npm test)\"]\n---\n")
	gone := filepath.Join(dir, "gone.md")
	now := time.Now()
	rows := []audit.Entry{
		{Time: now.Add(-5 * time.Minute), Chat: chat, Tool: "Bash", Action: "tool:Bash:curl https://example.com", Decision: "allow", Source: "allow_list"},
		{Time: now.Add(-4 * time.Minute), Chat: chat, Tool: "Bash", Action: "tool:Bash:npm test", Decision: "allow", Source: "allow_list"},
		{Time: now.Add(-3 * time.Minute), Chat: chat, Tool: "Bash", Action: "tool:Bash:npm install", Decision: "ask_approved", Source: "mode"},
		{Time: now.Add(-2 * time.Minute), Chat: chat, Tool: "Read", Action: "tool:Read:" + filepath.Join(dir, "a.go"), Decision: "allow", Source: "mode"},
		{Time: now.Add(-time.Minute), Chat: gone, Tool: "Bash", Action: "tool:Bash:curl x", Decision: "allow", Source: "allow_list"},
	}
	db, err := audit.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rows {
		if err := db.Record(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	out, errOut, code := runAgent(t, bin, dir, nil, "audit", "--config", cfg, "--limit", "0", "--what-if", "Bash(curl:*)")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "curl https://example.com") || strings.Contains(out, "npm test") || !strings.Contains(out, "would change 1 of 4 replayed calls") || !strings.Contains(out, "Not replayed: the calls of "+gone) {
		t.Errorf("what-if deny curl:\n%s", out)
	}
	out, _, _ = runAgent(t, bin, dir, nil, "audit", "--config", cfg, "--limit", "0", "--what-if", "Bash(npm:*)", "--as", "allow")
	if !strings.Contains(out, "npm install") || !strings.Contains(out, "ask_approved  ask  allow") || !strings.Contains(out, "would change 1 of 4") {
		t.Errorf("what-if allow npm:\n%s", out)
	}
	if _, errOut, code := runAgent(t, bin, dir, nil, "audit", "--config", cfg, "--what-if", "Bash(", "--as", "deny"); code != exitUsage || !strings.Contains(errOut, "--what-if") {
		t.Errorf("an invalid rule: exit %d, %s", code, errOut)
	}
	if _, errOut, code := runAgent(t, bin, dir, nil, "audit", "--config", cfg, "--what-if", "Bash", "--as", "maybe"); code != exitUsage || !strings.Contains(errOut, "--as must be") {
		t.Errorf("a bad list: exit %d, %s", code, errOut)
	}
}
