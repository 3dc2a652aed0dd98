package tools_test

import (
	"testing"

	"vibing/internal/tools"
)

func TestLookupAndCanonical(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		canon string
		known bool
		level tools.Level
	}{
		{"Bash", "Bash", true, tools.Mutating},
		{"bash", "Bash", true, tools.Mutating},
		{"WEBFETCH", "WebFetch", true, tools.Network},
		{"read", "Read", true, tools.ReadOnly},
		{"notebookedit", "NotebookEdit", true, tools.Mutating},
		{"MCP__github__create_issue", "mcp__github__create_issue", true, tools.Mutating},
		{"Frobnicate", "Frobnicate", false, tools.Mutating},
		{"", "", false, tools.Mutating},
	}
	for _, tt := range tests {
		got, ok := tools.Canonical(tt.in)
		if got != tt.canon || ok != tt.known {
			t.Errorf("Canonical(%q) = %q, %v, want %q, %v", tt.in, got, ok, tt.canon, tt.known)
		}
		if lv := tools.LevelOf(tt.in); lv != tt.level {
			t.Errorf("LevelOf(%q) = %s, want %s", tt.in, lv, tt.level)
		}
		if _, ok := tools.Lookup(tt.in); ok != (tt.known && !tools.IsMCP(tt.in)) {
			t.Errorf("Lookup(%q) ok = %v", tt.in, ok)
		}
	}
}

func TestSame(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want bool
	}{
		{"Task", "agent", true},
		{"Bash", "bash", true},
		{"Edit", "MultiEdit", false},
		{"Read", "Write", false},
	}
	for _, tt := range tests {
		if got := tools.Same(tt.a, tt.b); got != tt.want {
			t.Errorf("Same(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestEveryToolHasAValidExample(t *testing.T) {
	t.Parallel()
	for _, n := range tools.Names() {
		in, ok := tools.Lookup(n)
		if !ok || in.Example == "" || in.Level == "" {
			t.Errorf("tool %s: %+v", n, in)
		}
		if in.Arg == tools.ArgPath && in.PathKey == "" {
			t.Errorf("tool %s takes a path rule but names no path key", n)
		}
	}
}

func TestCommandOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool  string
		input map[string]any
		cmd   string
		ok    bool
	}{
		{"Monitor", map[string]any{"command": "npm test"}, "npm test", true},
		{"monitor", map[string]any{"command": "ls"}, "ls", true},
		{"mcp__shell__run", map[string]any{"command": "rm x"}, "rm x", true},
		{"Frobnicate", map[string]any{"command": "make"}, "make", true},
		{"Frobnicate", map[string]any{"command": []any{"rm", "x"}}, "", true}, // present but unreadable
		{"Bash", map[string]any{"command": "ls"}, "", false},                  // Bash is Bash itself
		{"SlashCommand", map[string]any{"command": "/review"}, "", false},     // not shell text
		{"Read", map[string]any{"command": "x"}, "", false},
		{"mcp__db__query", map[string]any{"sql": "select 1"}, "", false},
	}
	for _, tt := range tests {
		cmd, ok := tools.CommandOf(tt.tool, tt.input)
		if cmd != tt.cmd || ok != tt.ok {
			t.Errorf("CommandOf(%s, %v) = %q, %v; want %q, %v", tt.tool, tt.input, cmd, ok, tt.cmd, tt.ok)
		}
	}
}

// A tool whose argument is a path names the input key that holds it:
// command.Prepare keeps the path of such a call in the memory it gives the
// calls of tools with a PathKey.
func TestPathToolsNameTheirKey(t *testing.T) {
	for _, name := range tools.Names() {
		if in, _ := tools.Lookup(name); in.Arg == tools.ArgPath && in.PathKey == "" {
			t.Errorf("%s takes a path but names no PathKey", name)
		}
	}
}
