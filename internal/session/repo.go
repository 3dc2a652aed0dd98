package session

import (
	"os"
	"path/filepath"

	"vibing/internal/matcher"
)

// repoReadable is the check a Bash line's git show, diff, log -p or blame
// needs to pass as a read (matcher.RepoCheck): no Read deny or ask rule of
// any layer (managed ask and session denials included) may name a file in
// the repository around the call's folder, since those commands print any
// file the repository holds, earlier versions included, where no path names
// it. A regex rule, a bare Read rule and a rule for a base name at any depth
// (Read(.env) names .env in every folder) name files everywhere. The caller
// holds e.mu (read); the check runs only when such a command is met.
func (e *Engine) repoReadable(c *matcher.Call) matcher.RepoCheck {
	return func() bool {
		root, ok := repoRoot(c.Env.Cwd)
		if !ok {
			return false
		}
		inRepo := func(dir string) bool {
			for _, d := range []string{dir, resolveLoose(dir)} {
				if matcher.Within(d, root) || matcher.Within(root, d) {
					return true
				}
			}
			return false
		}
		rs := e.rulesFor("Read")
		for _, list := range []struct {
			rules []*rule
			list  matcher.List
		}{{rs.deny, matcher.DenyList}, {rs.managedAsk, matcher.AskList}, {rs.ask, matcher.AskList}, {rs.sessDeny, matcher.DenyList}} {
			for _, r := range list.rules {
				if r.err != nil || r.Rule == nil || r.Rule.IsRegex() || !r.Rule.OnFiles() {
					return false // (a rule that did not parse, a regex, a bare Read: everywhere)
				}
				if !r.Rule.AppliesTo("Read", list.list) {
					continue
				}
				dir, any := r.Rule.FileRoot(c.Env.Cwd, c.Env.Home)
				if dir == "" || any || inRepo(dir) {
					return false
				}
			}
		}
		return true
	}
}

// repoRoot is the git repository around folder dir (resolved): the nearest
// folder holding a .git folder. A .git file (a worktree or submodule, whose
// objects live elsewhere) or no repository at all is no root: nothing is
// read whole there.
func repoRoot(dir string) (string, bool) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", false
	}
	for d := real; ; d = filepath.Dir(d) {
		if fi, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, fi.IsDir()
		}
		if d == filepath.Dir(d) {
			return "", false
		}
	}
}

// resolveLoose is path p with the symbolic links of its longest existing
// start resolved (the rest may not exist yet).
func resolveLoose(p string) string {
	rest := ""
	for d := p; ; d = filepath.Dir(d) {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(real, rest)
		}
		if d == filepath.Dir(d) {
			return p
		}
		rest = filepath.Join(filepath.Base(d), rest)
	}
}
