package patch

import (
	"strings"
	"testing"
)

// TestPatchNameParts: the pieces a patch's header names are read with.
func TestPatchNameParts(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a/src/a.go", "src/a.go"}, {"a//src/a.go", "src/a.go"}, {"/u/src", "u/src"}, {"x", ""},
	} {
		if got, _ := StripPath(tc.in, 1); got != tc.want {
			t.Errorf("stripPath(%q, 1) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if v, rest, ok := UnquoteC(`"a/\303\251 \"q\"\t" b`); !ok || v != "a/é \"q\"\t" || rest != " b" {
		t.Errorf("unquoteC = %q, %q, %v", v, rest, ok)
	}
	if names, _ := GitHeaderNames("a/my file.go b/my file.go"); strings.Join(names, "|") != "a/my file.go|b/my file.go" {
		t.Errorf("gitHeaderNames = %q", names)
	}
	for in, want := range map[string]bool{"5a": true, "3,4c7,8": true, "12d11": true, "a5": false, "5x": false, "5,c": false} {
		if NormalDiffCmd(in) != want {
			t.Errorf("normalDiffCmd(%q) = %v", in, !want)
		}
	}
}
