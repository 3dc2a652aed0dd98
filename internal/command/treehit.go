package command

// TreeHit reports, for a Read path pattern that fires on the Bash call c
// (deny: in the deny list), the folder (as the line names it) one of its
// commands reads whole and that holds a file the pattern names, when that
// is the only way it fires; "" when it fires on a file the line names or
// writes, on a folder all of whose files it names, or not at all. A line
// the analysis could not see through in full has none (the rule fires on
// it as a whole).
func (pt *PathPattern) TreeHit(c *Call, deny bool) string {
	if c.Err != nil || c.BraceOverflow || c.DirOverflow {
		return ""
	}
	if deny {
		for i := range c.Modifies {
			m := &c.Modifies[i]
			if m.Inside() && !m.Removes && m.Names == nil {
				continue // (as a file rule's look at the line: writing new names into a folder reads nothing)
			}
			if pt.Matches(m, c, false) {
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
		if p.Tree && pt.AnyBase {
			hit = pt.NamedInTree(p)
		} else {
			hit = pt.Matches(p, c, false)
		}
		if !hit {
			continue
		}
		if !p.Tree || pt.NamesAllBelow(p, c) {
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
