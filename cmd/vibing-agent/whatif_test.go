package main

import (
	"context"
	"os"
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

// audit --what-if replays each row as it was decided: in a resumed session
// or a fresh one, whatever the chat holds now, and from the working
// directory of its chat, whatever folder audit runs in. Rows of an older
// vibing-agent, which noted neither, are replayed as the chat is now, from
// its project folder, and the output says so.
func TestAuditWhatIfReplaysAsDecided(t *testing.T) {
	bin := sharedAgent(t)
	yes, no := true, false
	now := time.Now()
	at := func(i int) time.Time { return now.Add(time.Duration(i-10) * time.Minute) }
	tests := []struct {
		name string
		// rows builds the chats under dir and returns the rows to record
		rows          func(t *testing.T, dir string) []audit.Entry
		rule, as      string
		want, notWant []string
	}{
		{
			name: "a resumed and a fresh row against a new deny",
			rows: func(t *testing.T, dir string) []audit.Entry {
				proj := filepath.Join(dir, "proj")
				// the chat has a session id now; its first call was decided before it had one
				chat := writeChat(t, proj, "---\nvibing.nvim: true\nsession_id: abc\n---\n")
				return []audit.Entry{
					{Time: at(1), Chat: chat, Tool: "Bash", Action: "tool:Bash:npm install", Decision: "ask_approved", Source: "mode", Resumed: &no, Cwd: proj},
					{Time: at(2), Chat: chat, Tool: "Bash", Action: "tool:Bash:npm publish", Decision: "deny", Source: "mode", Resumed: &yes, Cwd: proj},
				}
			},
			rule: "Bash(npm:*)", as: "deny",
			want:    []string{"tool:Bash:npm install ask_approved ask deny", "would change 1 of 2 replayed calls"},
			notWant: []string{"npm publish", "older vibing-agent"},
		},
		{
			name: "a fresh row in a chat that was resumed since, against a new allow",
			rows: func(t *testing.T, dir string) []audit.Entry {
				proj := filepath.Join(dir, "proj")
				chat := writeChat(t, proj, "---\nvibing.nvim: true\nfork_of: abc\n---\n")
				return []audit.Entry{
					{Time: at(1), Chat: chat, Tool: "Bash", Action: "tool:Bash:make", Decision: "ask_denied", Source: "mode", Resumed: &no, Cwd: proj},
					{Time: at(2), Chat: chat, Tool: "Bash", Action: "tool:Bash:make lint", Decision: "deny", Source: "mode", Resumed: &yes, Cwd: proj},
				}
			},
			rule: "Bash(make)", as: "allow",
			want:    []string{"tool:Bash:make ask_denied ask allow", "would change 1 of 2 replayed calls"},
			notWant: []string{"make lint"},
		},
		{
			name: "a relative rule resolves in each chat's own project",
			rows: func(t *testing.T, dir string) []audit.Entry {
				a, b := filepath.Join(dir, "projA"), filepath.Join(dir, "projB")
				chatA := writeChat(t, a, "---\nvibing.nvim: true\n---\n")
				// a chat outside its project's .vibing/: run started in projB
				chatB := filepath.Join(b, "notes", "chat-b.md")
				writeFile(t, chatB, "---\nvibing.nvim: true\n---\n")
				return []audit.Entry{
					{Time: at(1), Chat: chatA, Tool: "Read", Action: "tool:Read:" + filepath.Join(a, "secrets", "a.key"), Decision: "allow", Source: "mode", Resumed: &no, Cwd: a},
					{Time: at(2), Chat: chatB, Tool: "Read", Action: "tool:Read:" + filepath.Join(b, "secrets", "b.key"), Decision: "allow", Source: "mode", Resumed: &no, Cwd: b},
					{Time: at(3), Chat: chatA, Tool: "Read", Action: "tool:Read:" + filepath.Join(a, "src", "main.go"), Decision: "allow", Source: "mode", Resumed: &no, Cwd: a},
				}
			},
			rule: "Read(secrets/**)", as: "deny",
			want: []string{filepath.Join("projA", "secrets", "a.key") + " allow allow deny", filepath.Join("projB", "secrets", "b.key") + " allow allow deny",
				"would change 2 of 3 replayed calls"},
			notWant: []string{"main.go", "older vibing-agent"},
		},
		{
			name: "rows of an older vibing-agent: the chat as it is now, from its project",
			rows: func(t *testing.T, dir string) []audit.Entry {
				a := filepath.Join(dir, "projA")
				chat := writeChat(t, a, "---\nvibing.nvim: true\n---\n")
				return []audit.Entry{
					{Time: at(1), Chat: chat, Tool: "Read", Action: "tool:Read:" + filepath.Join(a, "secrets", "a.key"), Decision: "allow", Source: "mode"},
				}
			},
			rule: "Read(secrets/**)", as: "deny",
			want: []string{"a.key allow allow deny", "would change 1 of 1 replayed calls", "1 of them were recorded by an older vibing-agent"},
		},
		{
			name: "a working directory that is gone",
			rows: func(t *testing.T, dir string) []audit.Entry {
				a := filepath.Join(dir, "projA")
				chat := writeChat(t, a, "---\nvibing.nvim: true\n---\n")
				return []audit.Entry{
					{Time: at(1), Chat: chat, Tool: "Bash", Action: "tool:Bash:ls", Decision: "allow", Source: "mode", Resumed: &no, Cwd: filepath.Join(dir, "gone")},
				}
			},
			rule: "Bash(ls)", as: "deny",
			want: []string{"would change 0 of 0 replayed calls", "(that folder is gone)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// a short folder: the ACTION column shows 60 characters
			dir, err := os.MkdirTemp("", "wi")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			dbPath := filepath.Join(dir, "state", "audit.sqlite")
			cfg := filepath.Join(dir, "vibing.json")
			writeFile(t, cfg, `{"audit_path": "`+dbPath+`"}`)
			rows := tt.rows(t, dir)
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
			third := filepath.Join(dir, "elsewhere") // audit runs in a folder of neither chat
			writeFile(t, filepath.Join(third, "secrets", "x.key"), "x")
			out, errOut, code := runAgent(t, bin, third, nil, "audit", "--config", cfg, "--limit", "0", "--what-if", tt.rule, "--as", tt.as)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var lines []string // each line with its columns one space apart
			for _, l := range strings.Split(out, "\n") {
				lines = append(lines, strings.Join(strings.Fields(l), " "))
			}
			flat := strings.Join(lines, "\n")
			for _, s := range tt.want {
				if !strings.Contains(flat, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tt.notWant {
				if strings.Contains(flat, s) {
					t.Errorf("output has %q:\n%s", s, out)
				}
			}
		})
	}
}
