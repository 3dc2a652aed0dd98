package session

import (
	"os"
	"path/filepath"

	"vibing/internal/command"
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
func (e *Engine) repoReadable(c *command.Call) command.RepoCheck {
	return func() bool { return e.repoBlocker(c) == "" }
}

// repoBlocker is why the repository around c's folder may not be read
// whole: the first Read deny or ask rule that may name a file in it, or
// that there is no repository folder; "" when it may be read.
func (e *Engine) repoBlocker(c *command.Call) string {
	{
		root, ok := repoRoot(c.Env.Cwd)
		if !ok {
			return "no .git folder"
		}
		inRepo := func(dir string) bool {
			for _, d := range []string{dir, resolveLoose(dir)} {
				if command.Within(d, root) || command.Within(root, d) {
					return true
				}
			}
			return false
		}
		read := command.Bare("Read", c.Env) // (what a Read rule says)
		rs := e.rulesFor(read)
		for _, list := range []struct {
			rules []*rule
			list  matcher.List
		}{{rs.deny, matcher.DenyList}, {rs.managedAsk, matcher.AskList}, {rs.ask, matcher.AskList}, {rs.sessDeny, matcher.DenyList}} {
			for _, r := range list.rules {
				if r.err != nil || r.Rule == nil || r.Rule.IsRegex() || !r.Rule.OnFiles() {
					return ruleNamed(r, list.list) // (a rule that did not parse, a regex, a bare Read: everywhere)
				}
				if !r.Rule.AppliesTo(read, list.list) {
					continue
				}
				dir, any := r.Rule.FileRoot(c.Env.Cwd, c.Env.Home)
				if dir == "" || any || inRepo(dir) {
					return ruleNamed(r, list.list)
				}
			}
		}
		return ""
	}
}

// repoWhy is the clause of an ask's reason that says why git may not print
// what the repository around c's folder holds.
func (e *Engine) repoWhy(c *command.Call) string {
	b := e.repoBlocker(c)
	if b == "no .git folder" {
		return "no .git folder of a repository lies around the folder"
	}
	return b + " may name a file in it"
}

// ruleNamed is rule r of list as a reason names it: "the deny rule Read(.env)".
func ruleNamed(r *rule, list matcher.List) string {
	if list == matcher.DenyList {
		return "the deny rule " + r.String()
	}
	return "the ask rule " + r.String()
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
