package matcher

import (
	"path/filepath"
	"strings"

	"vibing/internal/command"
)

// NamesFile reports whether a path rule (Read(...), Edit(...)) names the
// absolute path abs the way a deny rule matches: the file, what lies below
// a folder it names, and, for a pattern without "/", that name at any depth.
// cwd and home anchor relative and ~ patterns. Other rules name no file.
// The sandbox uses it to find the files a Read deny rule hides.
func (r *Rule) NamesFile(abs, cwd, home string) bool {
	return r != nil && r.kind == kindPath && r.pat.Names(abs, cwd, home)
}

// FileRoot is the folder below which every file a path rule names lies
// (its anchor joined with the pattern's literal start up to the last "/"),
// and whether the rule also names its base name at any depth, anywhere
// (a pattern without "/"). "" when the rule names no file or its anchor is
// unknown.
func (r *Rule) FileRoot(cwd, home string) (root string, anyDepth bool) {
	if r == nil || r.kind != kindPath {
		return "", false
	}
	var base string
	switch r.pat.Anchor {
	case command.AnchorCwd:
		base = cwd
	case command.AnchorHome:
		base = home
	default:
		base = "/"
	}
	if base == "" {
		return "", false
	}
	lit := r.pat.Lit
	if i := strings.LastIndexByte(lit, '/'); i >= 0 {
		lit = lit[:i]
	} else {
		lit = ""
	}
	return filepath.Join(base, lit), r.pat.AnyBase
}
