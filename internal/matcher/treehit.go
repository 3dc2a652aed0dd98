package matcher

import "vibing/internal/command"

// A Read deny rule may fire on a Bash line only because one of its
// commands reads a folder whole (grep -r x ., tar c .) that holds a file
// the rule names. Unlike a file the line names, the person can judge that
// read (the engine asks rather than refuses: session.softens), unless the
// rule names every file of the folder (Read(secrets/**) and grep -r x
// secrets), which reads nothing else.

// TreeHit reports, for a path rule that fires on the Bash call c in list
// (deny or ask), the folder (as the line names it) one of its commands reads whole and
// that holds a file the rule names, when that is the only way it fires;
// "" when it fires on a file the line names or writes, on a folder all of
// whose files it names, or not at all.
func (r *Rule) TreeHit(c *command.Call, list List) string {
	if r == nil || c == nil || r.kind != kindPath || c.Tool != "Bash" || list == AllowList ||
		c.Err != nil || c.BraceOverflow || c.DirOverflow || (r.Tool != "Read" && r.Tool != "NotebookRead") {
		return ""
	}
	if list == DenyList {
		for i := range c.Modifies {
			m := &c.Modifies[i]
			if m.Inside() && !m.Removes && m.Names == nil {
				continue // (as bashFileHit: writing new names into a folder reads nothing)
			}
			if r.pat.Matches(m, c, list == AllowList) {
				return ""
			}
		}
	}
	dir := ""
	paths := c.ArgPaths()
	for i := range paths {
		p := &paths[i]
		if p.Meta {
			continue
		}
		var hit bool
		if p.Tree && r.pat.AnyBase {
			hit = r.pat.NamedInTree(p)
		} else {
			hit = r.pat.Matches(p, c, list == AllowList)
		}
		if !hit {
			continue
		}
		if !p.Tree || r.pat.NamesAllBelow(p, c) {
			return ""
		}
		if dir == "" {
			dir = p.Raw
			if dir == "" {
				dir = p.Abs
			}
		}
	}
	return dir
}

// NamesAllBelow reports whether the path rule names every file below the
// folder p of call c (a name no rule spells, placed there, matches it in
// the deny list), as written or resolved.
func (r *Rule) NamesAllBelow(p *command.Path, c *command.Call) bool {
	if r == nil || r.kind != kindPath || p == nil {
		return false
	}
	return r.pat.NamesAllBelow(p, c)
}
