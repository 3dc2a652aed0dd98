package hook_test

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"vibing/internal/frontmatter"
	"vibing/internal/hook"
)

func TestMentions(t *testing.T) {
	tests := []struct {
		prompt string
		want   [][]string // each mention's paths
	}{
		{"hello", nil},
		{"what is in @secret.txt ?", [][]string{{"secret.txt"}}},
		{`see @"my secret.txt" now`, [][]string{{"my secret.txt"}}},
		{"see @secret.txt, then", [][]string{{"secret.txt", "secret.txt,"}}},
		{"see @a.go#L1-2", [][]string{{"a.go#L1-2", "a.go"}}},
		{"see @a.go:10", [][]string{{"a.go:10", "a.go"}}},
		{"(@x.txt)", [][]string{{"x.txt", "x.txt)"}}},
		{"mail bob@example.com", [][]string{{"example.com"}}},
		{"@a @b", [][]string{{"a"}, {"b"}}},
		{"just @ alone", nil},
	}
	for _, tt := range tests {
		var got [][]string
		for _, m := range hook.Mentions(tt.prompt) {
			got = append(got, m.Paths)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Mentions(%q) = %q, want %q", tt.prompt, got, tt.want)
		}
	}
}

// A prompt that mentions a file a Read deny covers is blocked, naming the
// rule; every other prompt goes through, its mentions recorded.
func TestPromptMentions(t *testing.T) {
	deny := frontmatter.Settings{Deny: []string{"Read(secret.txt)", "Read(~/.ssh/**)"}}
	tests := []struct {
		prompt  string
		blocked bool
		rows    int // audit rows
	}{
		{"what is in @secret.txt ?", true, 1},
		{`what is in @"secret.txt"`, true, 1},
		{"see @secret.txt, and tell me", true, 1},
		{"see @secret.txt#L1-2", true, 1},
		{"see @./secret.txt", true, 1},
		{"see @sub/../secret.txt", true, 1},
		{"see @$PROJ/secret.txt", true, 1},
		{"see @~/.ssh/id_ed25519", true, 1},
		{"see x@secret.txt", true, 1},
		{"hello there", false, 0},
		{"look at @README.md please", false, 1},
		{"compare @README.md and @sub/a.go", false, 2},
		{"write to bob@example.com", false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			p := newProject(t)
			h := p.hook(deny)
			prompt := strings.ReplaceAll(tt.prompt, "$PROJ", p.dir)
			in, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": p.dir, "hook_event_name": "UserPromptSubmit", "permission_mode": "default", "prompt": prompt})
			out := h.Handle(in)
			var o struct {
				Decision string `json:"decision"`
				Reason   string `json:"reason"`
			}
			if err := json.Unmarshal(out, &o); err != nil {
				t.Fatalf("answer %s: %v", out, err)
			}
			if blocked := o.Decision == "block"; blocked != tt.blocked {
				t.Fatalf("Handle(%q) = %s, want blocked %v", prompt, out, tt.blocked)
			}
			if tt.blocked && !strings.Contains(o.Reason, "Read(") {
				t.Errorf("block reason %q does not name the rule", o.Reason)
			}
			if !tt.blocked && string(out) != "{}" {
				t.Errorf("Handle(%q) = %s, want {} (anything else would be added to the prompt)", prompt, out)
			}
			if len(p.rows) != tt.rows {
				t.Errorf("audit rows = %+v, want %d", p.rows, tt.rows)
			}
			for _, r := range p.rows {
				if r.Via != "hook" || r.Source == "" || r.Tool != "Read" || (r.Decision != "deny" && r.Decision != "allow") {
					t.Errorf("audit row %+v, want a hook Read row", r)
				}
				if r.Resumed == nil || *r.Resumed || r.Cwd != p.dir { // for audit --what-if
					t.Errorf("audit row %+v, want resumed false and cwd %s", r, p.dir)
				}
			}
		})
	}
}

func TestInsideRun(t *testing.T) {
	// run 100 -> claude 200 -> shell 250 -> nested 300; run 110 -> keeper
	// 120 -> claude 210 (first child) and orphan 310 (adopted later)
	const run, claude, nested, shell = 100, 200, 300, 250
	parents := map[int]int{claude: run, nested: shell, shell: claude, 120: 110, 210: 120, 310: 120,
		2: 1, 7: 2, 9: 1} // in the sandbox: run's claude (2) under bwrap (1), a shell (7), an orphaned claude (9)
	first := map[int]int{120: 210}
	proc := func(env map[string]string, ppid int) hook.Process {
		return hook.Process{
			Getenv:  func(k string) string { return env[k] },
			Getppid: func() int { return ppid },
			ParentOf: func(pid int) (int, error) {
				if p, ok := parents[pid]; ok {
					return p, nil
				}
				return 0, filepath.ErrBadPattern
			},
			FirstChildOf: func(pid int) (int, error) {
				if c, ok := first[pid]; ok {
					return c, nil
				}
				return 0, filepath.ErrBadPattern
			},
		}
	}
	tests := []struct {
		name string
		env  map[string]string
		ppid int
		want bool
	}{
		{"run's own claude", map[string]string{hook.RunEnv: "100", "CLAUDE_PID": "200"}, claude, true},
		{"nested claude inherits the token", map[string]string{hook.RunEnv: "100", "CLAUDE_PID": "300"}, nested, false},
		{"a command claiming to be run's claude", map[string]string{hook.RunEnv: "100", "CLAUDE_PID": "200"}, shell, false},
		{"no token (a terminal session)", map[string]string{"CLAUDE_PID": "200"}, claude, false},
		{"no CLAUDE_PID", map[string]string{hook.RunEnv: "100"}, claude, false},
		{"token naming another process", map[string]string{hook.RunEnv: "101", "CLAUDE_PID": "200"}, claude, false},
		{"garbage token", map[string]string{hook.RunEnv: "x", "CLAUDE_PID": "200"}, claude, false},
		{"claude already gone", map[string]string{hook.RunEnv: "100", "CLAUDE_PID": "999"}, 999, false},
		{"run's claude under its keeper", map[string]string{hook.RunEnv: "110", "CLAUDE_PID": "210"}, 210, true},
		{"an orphaned nested claude adopted by the keeper", map[string]string{hook.RunEnv: "110", "CLAUDE_PID": "310"}, 310, false},
		{"keeper of another run", map[string]string{hook.RunEnv: "100", "CLAUDE_PID": "210"}, 210, false},
		{"run's own claude in the sandbox", map[string]string{hook.RunEnv: hook.SandboxRun, "CLAUDE_PID": "2"}, 2, true},
		{"an orphaned nested claude in the sandbox", map[string]string{hook.RunEnv: hook.SandboxRun, "CLAUDE_PID": "9"}, 9, false},
		{"a shell in the sandbox claiming to be run's claude", map[string]string{hook.RunEnv: hook.SandboxRun, "CLAUDE_PID": "2"}, 7, false},
	}
	for _, tt := range tests {
		if got := hook.InsideRun(proc(tt.env, tt.ppid)); got != tt.want {
			t.Errorf("%s: InsideRun = %v, want %v", tt.name, got, tt.want)
		}
	}
}
