// Package testdeps says what a test does when a component it needs (the
// claude CLI, Neovim, bubblewrap) is missing: on a developer's fresh clone
// (plain go test ./...) it is skipped with the command that installs it;
// under CI=true it fails, so that a missing install step cannot pass as
// green. It is used by tests only.
package testdeps

import (
	"fmt"
	"os"
	"testing"
)

// Missing ends the test t for want of a dependency, described by format
// and args: a skip that says "run make deps", or under CI=true a failure.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if CI() {
		t.Fatalf("%s (CI=true: a missing dependency fails)", msg)
	}
	t.Skipf("%s: run make deps (make test installs what the tests need)", msg)
}

// CI reports whether the tests run under CI=true, where a missing
// dependency fails: a test that would quietly cover less without one (a
// table that drops its sandboxed rows) calls Missing there.
func CI() bool { return os.Getenv("CI") == "true" }
