package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"vibing/internal/audit"
)

// The audit database is removed or replaced between two messages of a live
// `vibing-agent run` (one agent process per chat): the second message's
// rows must be in the database at audit_path, not in the file that left.
func TestRunAuditFileReplacedBetweenTurns(t *testing.T) {
	bin := madeAgent(t)
	tests := []struct {
		name    string
		replace func(t *testing.T, db string)
		other   bool // the database renamed there keeps its own row
	}{
		{"removed", func(t *testing.T, db string) {
			if err := os.Remove(db); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"removed with its log and index", func(t *testing.T, db string) {
			for _, sfx := range []string{"", "-wal", "-shm"} {
				if err := os.Remove(db + sfx); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
		}, false},
		{"another database renamed over it", func(t *testing.T, db string) {
			other := db + ".restored"
			o, err := audit.Open(other)
			if err != nil {
				t.Fatal(err)
			}
			if err := o.Record(context.Background(), audit.Entry{Action: "restored", Decision: audit.DecisionDeny}); err != nil {
				t.Fatal(err)
			}
			o.Close()
			if err := os.Rename(other, db); err != nil {
				t.Fatal(err)
			}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			home := filepath.Join(dir, "home")
			db := filepath.Join(dir, "state", "audit.sqlite")
			cfg := filepath.Join(dir, "options.json")
			writeFile(t, cfg, `{"audit_path":"`+db+`"}`)
			writeFile(t, filepath.Join(dir, "README.md"), "# demo\n")
			writeFile(t, filepath.Join(dir, "hello.py"), "def greet(name):\n    return \"Hello, \" + name\n\ngreet(\"world\")\n")
			chat := filepath.Join(dir, ".vibing", "chat", "chat.md")
			writeFile(t, chat, "---\nvibing.nvim: true\npermissions_mode: default\npermissions_allow: [\"Read(**)\"]\n---\n## User\n\nhello\n")
			cmd := exec.Command(bin, "run", "--chat", chat, "--backend", "demo", "--config", cfg)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"))
			cmd.Stderr = os.Stderr
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			events := make(chan map[string]any)
			go func() {
				defer close(events)
				sc := bufio.NewScanner(stdout)
				sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
				for sc.Scan() {
					var ev map[string]any
					if json.Unmarshal(sc.Bytes(), &ev) == nil {
						events <- ev
					}
				}
			}()
			send := func(m map[string]any) {
				b, _ := json.Marshal(m)
				if _, err := stdin.Write(append(b, '\n')); err != nil {
					t.Fatal(err)
				}
			}
			// turn sends a message, refuses every approval once, and
			// returns the tools decided in it
			turn := func(text string) []string {
				send(map[string]any{"type": "prompt", "text": text})
				var decided []string
				timeout := time.After(30 * time.Second)
				for {
					select {
					case ev, ok := <-events:
						if !ok {
							t.Fatalf("run ended during %q", text)
						}
						switch ev["type"] {
						case "decision":
							decided = append(decided, ev["tool"].(string))
						case "approval_request":
							send(map[string]any{"type": "approval_response", "id": ev["id"], "decision": "deny_once"})
						case "error":
							t.Fatalf("run error during %q: %v", text, ev["message"])
						case "result":
							return decided
						}
					case <-timeout:
						t.Fatalf("no result for %q within 30 s", text)
					}
				}
			}
			if first := turn("hello"); len(first) == 0 {
				t.Fatal("the first message decided no call")
			}
			tt.replace(t, db)
			second := turn("again")
			if len(second) == 0 {
				t.Fatal("the second message decided no call")
			}
			stdin.Close()
			go io.Copy(io.Discard, stdout)
			for range events {
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("run: %v", err)
			}
			d, err := audit.Open(db)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			rows, err := d.Query(context.Background(), audit.Query{})
			if err != nil {
				t.Fatal(err)
			}
			var tools []string
			restored := false
			for i := len(rows) - 1; i >= 0; i-- {
				if rows[i].Action == "restored" {
					restored = true
					continue
				}
				tools = append(tools, rows[i].Tool)
			}
			if !slices.Equal(tools, second) {
				t.Errorf("rows at audit_path after the second message are of %q, want its calls %q", tools, second)
			}
			if restored != tt.other {
				t.Errorf("the restored database's own row kept = %v, want %v", restored, tt.other)
			}
		})
	}
}

// `vibing-agent run` records with each row whether its engine is a resumed
// session (the chat had a session_id when the run started) and the
// engine's working directory (--cwd, else the folder it runs in), which
// audit --what-if replays the row with.
func TestRunRowsRecordResumedAndCwd(t *testing.T) {
	bin := madeAgent(t)
	tests := []struct {
		name    string
		front   string
		cwd     string // --cwd, under the project
		resumed bool
	}{
		{"fresh", "", "", false},
		{"resumed", "session_id: abc\n", "", true},
		{"fresh with --cwd", "", "sub", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			home := filepath.Join(dir, "home")
			db := filepath.Join(dir, "state", "audit.sqlite")
			cfg := filepath.Join(dir, "options.json")
			writeFile(t, cfg, `{"audit_path":"`+db+`"}`)
			writeFile(t, filepath.Join(dir, "README.md"), "# demo\n")
			writeFile(t, filepath.Join(dir, "sub", "README.md"), "# demo\n")
			chat := filepath.Join(dir, ".vibing", "chat", "chat.md")
			writeFile(t, chat, "---\nvibing.nvim: true\n"+tt.front+"permissions_mode: default\npermissions_allow: [\"Read(**)\"]\n---\n## User\n\nhello\n")
			args := []string{"run", "--chat", chat, "--backend", "demo", "--config", cfg}
			want := dir
			if tt.cwd != "" {
				want = filepath.Join(dir, tt.cwd)
				args = append(args, "--cwd", want)
			}
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"))
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			stdin.Write([]byte(`{"type":"prompt","text":"hello"}` + "\n"))
			sc := bufio.NewScanner(stdout)
			sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
			for sc.Scan() {
				var ev map[string]any
				if json.Unmarshal(sc.Bytes(), &ev) != nil {
					continue
				}
				if ev["type"] == "approval_request" {
					b, _ := json.Marshal(map[string]any{"type": "approval_response", "id": ev["id"], "decision": "deny_once"})
					stdin.Write(append(b, '\n'))
				}
				if ev["type"] == "result" || ev["type"] == "error" {
					break
				}
			}
			stdin.Close()
			io.Copy(io.Discard, stdout)
			cmd.Wait()
			d, err := audit.Open(db)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			rows, err := d.Query(context.Background(), audit.Query{})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) == 0 {
				t.Fatal("the run recorded no row")
			}
			for _, r := range rows {
				if r.Resumed == nil || *r.Resumed != tt.resumed || r.Cwd != want {
					t.Errorf("row %s %s: resumed %v cwd %q, want resumed %v cwd %q", r.Tool, r.Decision, r.Resumed != nil && *r.Resumed, r.Cwd, tt.resumed, want)
				}
			}
		})
	}
}
