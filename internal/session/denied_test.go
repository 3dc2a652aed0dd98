package session_test

import (
	"strings"
	"testing"
)

func TestDeniedTools(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		name string
		tc   tcase
		want string
	}{
		{"none", tcase{}, ""},
		{"bare rules, canonical and once", tcase{Deny: []string{"webfetch", "Bash(rm:*)", "WebFetch", "Task"}}, "WebFetch,Task"},
		{"patterns, prefixes and regexes are not outright", tcase{Deny: []string{"Read(.env)", "mcp__gh__*", "/tool:Bash:.*/"}}, ""},
		{"mcp server", tcase{Deny: []string{"mcp__github"}}, "mcp__github"},
		{"preset deny merged", tcase{Preset: "mine", Deny: []string{"Bash"}, Config: "presets: {mine: {deny: [WebSearch]}}\n"}, "WebSearch,Bash"},
		{"invalid rules are left out", tcase{Deny: []string{"Bash("}}, ""},
		{"a bare Edit deny covers every file-writing tool", tcase{Deny: []string{"Edit", "Write"}}, "Edit,Write,MultiEdit,NotebookEdit"},
		{"a bare Read deny covers the searches", tcase{Deny: []string{"Read"}}, "Read,NotebookRead,Grep,Glob,LS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, _ := tt.tc.engine(t, f)
			if got := strings.Join(e.DeniedTools(), ","); got != tt.want {
				t.Errorf("DeniedTools() = %q, want %q", got, tt.want)
			}
		})
	}
}
