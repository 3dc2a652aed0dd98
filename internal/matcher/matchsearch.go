package matcher

import (
	"os"
	"path/filepath"
	"strings"
)

// Path rules on the searches Grep, Glob and LS make (search.go works out
// what a search reads).

// matchSearch matches a Read path rule (or an Edit/Write allow) against a
// search.
func (r *Rule) matchSearch(c *Call, list List) bool {
	s := c.scope()
	if list == AllowList {
		if s.root.unsure {
			return false
		}
		if s.file {
			return r.matchPath(&s.root, c, list)
		}
		// the rule must cover whatever lies below the root
		for _, p := range probes(s.root) {
			if !r.matchPath(&p, c, list) {
				return false
			}
		}
		return true
	}
	if r.matchPath(&s.root, c, list) {
		return true
	}
	if s.file {
		return false
	}
	// a rule on what the folder holds (secrets/**, secrets/*) fires on a
	// search that lists or reads that folder
	if p := probes(s.root)[0]; r.matchPath(&p, c, list) {
		return true
	}
	if !s.content {
		return false
	}
	return r.reachesBelow(c, s, list)
}

// reachesBelow reports whether a deny/ask Read rule names something below
// a Grep's root.
func (r *Rule) reachesBelow(c *Call, s *searchScope, list List) bool {
	if !r.anyBase {
		base := r.literalBase(c)
		if base == "" {
			return false
		}
		below, above := false, false
		for _, root := range []string{s.root.Abs, s.root.Real} {
			if base != root && inside(base, root) {
				below = true
			}
			if root != "" && inside(root, base) {
				above = true
			}
		}
		if !above {
			// the rule's folder lies below the root: read if it is there
			_, err := os.Lstat(base)
			return below && err == nil
		}
	}
	s.walk()
	for i := range s.entries {
		if r.matchPath(&s.entries[i], c, list) {
			return true
		}
	}
	return s.truncated
}

// literalBase is the absolute folder (or file) a path rule's pattern starts
// with: "secrets/**" → <cwd>/secrets, "~/.ssh/*" → <home>/.ssh,
// "/**/.env" → "/", "**/*.pem" → <cwd>.
func (r *Rule) literalBase(c *Call) string {
	var dir string
	switch r.anchor {
	case anchorCwd:
		dir = c.Env.Cwd
	case anchorHome:
		dir = c.Env.Home
	}
	if r.anchor != anchorRoot && dir == "" {
		return ""
	}
	lit := r.lit
	if len(r.globs) == 0 || lit != r.globs[0].text {
		// a wildcard follows: keep the complete folders before it
		if i := strings.LastIndexByte(lit, '/'); i >= 0 {
			lit = lit[:i]
		} else {
			lit = ""
		}
	}
	switch {
	case r.anchor == anchorRoot && lit == "":
		return "/"
	case r.anchor == anchorRoot:
		return filepath.Clean(lit)
	case lit == "":
		return dir
	}
	return filepath.Clean(dir + "/" + lit)
}
