package matcher

import (
	"os"
	"path/filepath"
	"strings"

	"vibing/internal/command"
)

// Path rules on the searches Grep, Glob and LS make (search.go works out
// what a search reads).

// matchSearch matches a Read path rule (or an Edit/Write allow) against a
// search.
func (r *Rule) matchSearch(c *command.Call, list List) bool {
	s := c.Scope()
	if list == AllowList {
		if s.Root.Unsure {
			return false
		}
		if s.File {
			return r.pat.Matches(&s.Root, c, list == AllowList)
		}
		// the rule must cover whatever lies below the root
		for _, p := range command.Probes(s.Root) {
			if !r.pat.Matches(&p, c, list == AllowList) {
				return false
			}
		}
		return true
	}
	if r.pat.Matches(&s.Root, c, list == AllowList) {
		return true
	}
	if s.File {
		return false
	}
	// a rule on what the folder holds (secrets/**, secrets/*) fires on a
	// search that lists or reads that folder
	if p := command.Probes(s.Root)[0]; r.pat.Matches(&p, c, list == AllowList) {
		return true
	}
	if !s.Content {
		return false
	}
	return r.reachesBelow(c, s, list)
}

// reachesBelow reports whether a deny/ask Read rule names something below
// a Grep's root.
func (r *Rule) reachesBelow(c *command.Call, s *command.SearchScope, list List) bool {
	if !r.pat.AnyBase {
		base := r.literalBase(c)
		if base == "" {
			return false
		}
		below, above := false, false
		for _, root := range []string{s.Root.Abs, s.Root.Real} {
			if base != root && command.Inside(base, root) {
				below = true
			}
			if root != "" && command.Inside(root, base) {
				above = true
			}
		}
		if !above {
			// the rule's folder lies below the root: read if it is there
			_, err := os.Lstat(base)
			return below && err == nil
		}
	}
	s.Walk()
	for i := range s.Entries {
		if r.pat.Matches(&s.Entries[i], c, list == AllowList) {
			return true
		}
	}
	return s.Truncated
}

// literalBase is the absolute folder (or file) a path rule's pattern starts
// with: "secrets/**" → <cwd>/secrets, "~/.ssh/*" → <home>/.ssh,
// "/**/.env" → "/", "**/*.pem" → <cwd>.
func (r *Rule) literalBase(c *command.Call) string {
	var dir string
	switch r.pat.Anchor {
	case command.AnchorCwd:
		dir = c.Env.Cwd
	case command.AnchorHome:
		dir = c.Env.Home
	}
	if r.pat.Anchor != command.AnchorRoot && dir == "" {
		return ""
	}
	lit := r.pat.Lit
	if len(r.pat.Globs) == 0 || lit != r.pat.Globs[0].Text {
		// a wildcard follows: keep the complete folders before it
		if i := strings.LastIndexByte(lit, '/'); i >= 0 {
			lit = lit[:i]
		} else {
			lit = ""
		}
	}
	switch {
	case r.pat.Anchor == command.AnchorRoot && lit == "":
		return "/"
	case r.pat.Anchor == command.AnchorRoot:
		return filepath.Clean(lit)
	case lit == "":
		return dir
	}
	return filepath.Clean(dir + "/" + lit)
}
