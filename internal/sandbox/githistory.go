package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// A file the view hides may still be readable from a git repository's
// object store (git show HEAD:.env): when git knows it, the kernel does not
// hold the rule that hides it, and the engine keeps refusing what it cannot
// see through for that rule.

// maxGitChecks bounds the git look-ups one view makes; past it the rules
// are not held.
const maxGitChecks = 32

// gitKnows reports whether the repository path lies in has path in its
// index or its history (any ref); a failing git counts as knowing it.
func gitKnows(path string) bool {
	repo := repoOf(path)
	if repo == "" {
		return false
	}
	rel, err := filepath.Rel(repo, path)
	if err != nil {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, args := range [][]string{{"ls-files", "--cached", "--", rel}, {"log", "--all", "-1", "--format=%H", "--", rel}} {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", repo, "--literal-pathspecs"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_OPTIONAL_LOCKS=0")
		out, err := cmd.Output()
		if err != nil || strings.TrimSpace(string(out)) != "" {
			return true
		}
	}
	return false
}

// repoOf is the working tree of the git repository path lies in, or "".
func repoOf(path string) string {
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		if parent := filepath.Dir(dir); parent == dir {
			return ""
		}
	}
}
