package matcher_test

import (
	"strings"
	"testing"

	"vibing/internal/command"
	"vibing/internal/matcher"
)

// TestCdGrowthBounded checks that lines whose cd commands leave the shell
// in ever more possible folders stay cheap and fail closed: deny file
// rules fire, and a relative write is tried from a bounded set of folders
// (up to maxDirs once the folder is unknown and too many were seen).
func TestCdGrowthBounded(t *testing.T) {
	t.Parallel()
	env := command.Env{Cwd: "/w/p", Home: "/w/h"}
	deny := mustRule(t, "Read(secrets/**)")
	tests := []struct {
		name, line string
		maxWrites  int
	}{
		{"relative cd after cd", strings.Repeat("cd a; cat x y z > o; ", 4000), 9 * 4000},
		{"unknown cd", strings.Repeat(`cd "$D"; cd /x$RANDOM; cd q; cat x y z > o; `, 1500), 9 * 1500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := command.Prepare("Bash", map[string]any{"command": tt.line}, env)
			if c.Err != nil {
				t.Fatalf("Prepare: %v", c.Err)
			}
			if !deny.Match(c, matcher.DenyList) {
				t.Errorf("deny rule %q .Match(%.40q...) = false, want true", deny.Text, tt.line)
			}
			if len(c.Writes) > tt.maxWrites {
				t.Errorf("Prepare(%.40q...) has %d writes, want at most %d", tt.line, len(c.Writes), tt.maxWrites)
			}
		})
	}
}
