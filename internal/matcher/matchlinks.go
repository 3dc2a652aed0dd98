package matcher

import (
	"path/filepath"

	"vibing/internal/command"
)

// Path rules through hard links: a deny or ask rule naming a literal path
// fires on a hard link to that file made earlier (hardlink.go).

// hardLinked reports whether p is a hard link to a file the literal path
// rule r names (deny and ask lists only; see above).
func (r *Rule) hardLinked(p *command.Path, c *command.Call) bool {
	if !r.literal || p.Inside() || p.Real == "" {
		return false
	}
	cand := c.StatOf(p)
	if !cand.Regular || cand.Nlink < 2 {
		return false
	}
	for _, t := range r.linkTargets(p, c) {
		if t == p.Real || t == p.Abs {
			continue
		}
		if ts := c.StatFile(t); ts.Regular && ts.Dev == cand.Dev && ts.Inode == cand.Inode {
			return true
		}
	}
	return false
}

// linkTargets are the files a literal path rule names, for the comparison
// with a hard-linked candidate p.
func (r *Rule) linkTargets(p *command.Path, c *command.Call) []string {
	switch {
	case r.anyBase:
		out := []string{command.JoinDir(c.Env.Cwd, r.lit), command.JoinDir(filepath.Dir(p.Abs), r.lit)}
		if d := filepath.Dir(p.Real); d != filepath.Dir(p.Abs) {
			out = append(out, command.JoinDir(d, r.lit))
		}
		return out
	case r.anchor == anchorCwd:
		return []string{command.JoinDir(c.Env.Cwd, r.lit)}
	case r.anchor == anchorHome:
		if c.Env.Home == "" {
			return nil
		}
		return []string{command.JoinDir(c.Env.Home, r.lit)}
	}
	return []string{r.lit}
}
