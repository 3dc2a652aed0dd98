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
