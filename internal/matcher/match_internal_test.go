package matcher

import (
	"strings"
	"testing"
)

func TestJoinedHasPrefix(t *testing.T) {
	words := [][]string{{"git"}, {"git", "push"}, {"git", "push", "origin"}, {"a b", "c"}, {""}, {"", "x"}}
	prefixes := []string{"", "g", "git", "git ", "git p", "git push", "git push ", "git push origin", "git push origin ",
		"a", "a b", "a b ", "a b c", "a b c ", " ", " x", "x"}
	for _, w := range words {
		text := strings.Join(w, " ")
		for _, p := range prefixes {
			if got, want := joinedHasPrefix(w[0], w[1:], p), strings.HasPrefix(text, p); got != want {
				t.Errorf("joinedHasPrefix(%q, %q) = %v, want %v", w, p, got, want)
			}
		}
	}
}
