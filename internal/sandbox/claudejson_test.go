package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sync carries back only the keys that neither run code nor grant
// permissions, for the session's own project, onto the file as it is now.
func TestClaudeStateSync(t *testing.T) {
	const start = `{"numStartups":1,"projects":{"/p":{"lastCost":1},"/q":{"lastCost":1}}}`
	tests := []struct {
		name        string
		inside      string // the copy when the CLI ended
		outside     string // ~/.claude.json meanwhile ("" = as at start)
		interactive bool
		want        string // ~/.claude.json afterwards
		dropped     string
	}{
		{name: "counters come back", inside: `{"numStartups":2,"userID":"u","projects":{"/p":{"lastCost":1},"/q":{"lastCost":1}}}`,
			want: `{"numStartups":2,"projects":{"/p":{"lastCost":1},"/q":{"lastCost":1}},"userID":"u"}`},
		{name: "an MCP server does not", inside: `{"numStartups":1,"mcpServers":{"x":{"command":"sh"}},"projects":{"/p":{"lastCost":1},"/q":{"lastCost":1}}}`,
			want: start, dropped: "mcpServers"},
		{name: "the session's project stats, not its permissions or another project",
			inside:  `{"numStartups":1,"projects":{"/p":{"lastCost":2,"allowedTools":["Bash"],"mcpServers":{}},"/q":{"lastCost":9}}}`,
			want:    `{"numStartups":1,"projects":{"/p":{"lastCost":2},"/q":{"lastCost":1}}}`,
			dropped: "projects[/p].allowedTools, projects[/p].mcpServers, projects[/q].lastCost"},
		{name: "trust only from an interactive session", inside: `{"numStartups":1,"projects":{"/p":{"lastCost":1,"hasTrustDialogAccepted":true},"/q":{"lastCost":1}}}`,
			want: start, dropped: "projects[/p].hasTrustDialogAccepted"},
		{name: "trust from the person's answer", interactive: true, inside: `{"numStartups":1,"projects":{"/p":{"lastCost":1,"hasTrustDialogAccepted":true},"/q":{"lastCost":1}}}`,
			want: `{"numStartups":1,"projects":{"/p":{"hasTrustDialogAccepted":true,"lastCost":1},"/q":{"lastCost":1}}}`},
		{name: "changes made outside meanwhile stay", inside: `{"numStartups":2,"projects":{"/p":{"lastCost":1},"/q":{"lastCost":1}}}`,
			outside: `{"numStartups":5,"theme":"light","projects":{"/p":{"lastCost":1},"/q":{"lastCost":1}}}`,
			want:    `{"numStartups":2,"projects":{"/p":{"lastCost":1},"/q":{"lastCost":1}},"theme":"light"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := &claudeState{real: filepath.Join(dir, ".claude.json"), copy: filepath.Join(dir, "copy.json"), start: []byte(start), cwd: "/p", inter: tt.interactive}
			outside := tt.outside
			if outside == "" {
				outside = start
			}
			must := func(err error) {
				if err != nil {
					t.Fatal(err)
				}
			}
			must(os.WriteFile(s.real, []byte(outside), 0o640))
			must(os.WriteFile(s.copy, []byte(tt.inside), 0o600))
			dropped, err := s.sync()
			must(err)
			if got := strings.Join(dropped, ", "); got != tt.dropped {
				t.Errorf("dropped = %q, want %q", got, tt.dropped)
			}
			data, _ := os.ReadFile(s.real)
			var got, want any
			must(json.Unmarshal(data, &got))
			must(json.Unmarshal([]byte(tt.want), &want))
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			if string(g) != string(w) {
				t.Errorf("~/.claude.json = %s, want %s", g, w)
			}
			if fi, _ := os.Stat(s.real); fi.Mode().Perm() != 0o640 {
				t.Errorf("mode = %v, want 0640 kept", fi.Mode().Perm())
			}
			if _, err := os.Stat(s.real + ".lock"); err == nil {
				t.Errorf("the lock folder is left")
			}
		})
	}
}

// The exit notice names the dropped keys that run code or grant
// permissions, and none of the CLI's own bookkeeping.
func TestExitNoticeNamesOnlyGrants(t *testing.T) {
	tests := []struct {
		name    string
		dropped []string
		want    string // "" = no notice
	}{
		{"an MCP server", []string{"mcpServers"}, "can run code or grant permissions are not kept: mcpServers ("},
		{"bookkeeping only", []string{"projects[/q].lastCost", "toolUsage", "autoUpdaterStatus", "skillUsage"}, ""},
		{"both", []string{"autoUpdaterStatus", "projects[/p].allowedTools", "projects[/q].lastCost", "hooks", "env"},
			"are not kept: projects[/p].allowedTools, hooks, env ("},
		{"a project's trust, its MCP servers", []string{"projects[/p].hasTrustDialogAccepted", "projects[/p].enabledMcpjsonServers"},
			"projects[/p].hasTrustDialogAccepted, projects[/p].enabledMcpjsonServers"},
		{"helpers and plugins", []string{"apiKeyHelper", "enabledPlugins", "statusLine", "customApiKeyResponses"},
			"apiKeyHelper, enabledPlugins, statusLine, customApiKeyResponses"},
		{"the whole file", []string{"(the whole file: it is not a JSON object any more)"}, "the whole file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			p := &Prepared{opts: Options{Warn: func(s string) { got = append(got, s) }}}
			p.warn(tt.dropped, nil)
			if tt.want == "" {
				if len(got) != 0 {
					t.Errorf("notices %q, want none", got)
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0], tt.want) {
				t.Errorf("notices %q, want one with %q", got, tt.want)
			}
			for _, k := range []string{"lastCost", "toolUsage", "autoUpdaterStatus"} {
				if len(got) == 1 && strings.Contains(got[0], k) {
					t.Errorf("notice %q names %s, which neither runs code nor grants permissions", got[0], k)
				}
			}
		})
	}
}

// A file written in the private /tmp vanishes; the project (even below
// /tmp), what the view shows there and anything outside /tmp do not.
func TestViewVanishes(t *testing.T) {
	v := &View{Writable: []Entry{{Path: "/tmp/work/proj"}}, Visible: []string{"/tmp/tools"}}
	tests := []struct {
		path string
		want bool
	}{
		{"/tmp/report.txt", true},
		{"/tmp/work/other/x", true},
		{"/tmp/work/proj/out.txt", false},
		{"/tmp/tools/bin/x", false},
		{"/home/me/x", false},
		{"/tmpfile", false},
	}
	for _, tt := range tests {
		if got := v.Vanishes(tt.path); got != tt.want {
			t.Errorf("Vanishes(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
	if (*View)(nil).Vanishes("/tmp/x") {
		t.Error("no view (no sandbox): nothing vanishes")
	}
}
