package matcher

import "path/filepath"

// Path rules through hard links: a deny or ask rule naming a literal path
// fires on a hard link to that file made earlier (hardlink.go).

// hardLinked reports whether p is a hard link to a file the literal path
// rule r names (deny and ask lists only; see above).
func (r *Rule) hardLinked(p *Path, c *Call) bool {
	if !r.literal || p.Inside() || p.Real == "" {
		return false
	}
	cand := c.statOf(p)
	if !cand.ok || cand.nlink < 2 {
		return false
	}
	for _, t := range r.linkTargets(p, c) {
		if t == p.Real || t == p.Abs {
			continue
		}
		if ts := c.statFile(t); ts.ok && ts.dev == cand.dev && ts.inode == cand.inode {
			return true
		}
	}
	return false
}

// linkTargets are the files a literal path rule names, for the comparison
// with a hard-linked candidate p.
func (r *Rule) linkTargets(p *Path, c *Call) []string {
	switch {
	case r.anyBase:
		out := []string{joinDir(c.Env.Cwd, r.lit), joinDir(filepath.Dir(p.Abs), r.lit)}
		if d := filepath.Dir(p.Real); d != filepath.Dir(p.Abs) {
			out = append(out, joinDir(d, r.lit))
		}
		return out
	case r.anchor == anchorCwd:
		return []string{joinDir(c.Env.Cwd, r.lit)}
	case r.anchor == anchorHome:
		if c.Env.Home == "" {
			return nil
		}
		return []string{joinDir(c.Env.Home, r.lit)}
	}
	return []string{r.lit}
}
