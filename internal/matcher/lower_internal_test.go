package matcher

import (
	"strings"
	"testing"
)

// TestLowerName holds lowerName's table to strings.ToLower.
func TestLowerName(t *testing.T) {
	for _, name := range []string{"Bash", "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "NotebookRead",
		"LS", "Glob", "Grep", "WebFetch", "WebSearch", "Task", "mcp__Server__Tool", ""} {
		if got, want := lowerName(name), strings.ToLower(name); got != want {
			t.Errorf("lowerName(%q) = %q, want %q", name, got, want)
		}
	}
}
