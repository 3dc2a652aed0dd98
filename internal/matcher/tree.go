package matcher

import (
	"io/fs"
	"path/filepath"
)

// maxTreeEntries bounds the files looked at when a command reads a whole
// folder (tar czf x.tgz ., grep -r KEY .) and a deny or ask rule names a
// file at any depth (Read(.env)): past it the rule fires.
const maxTreeEntries = 20000

// holds reports whether the folder p, which a command reads whole, holds a
// file or folder the any-depth rule r names. The folders .git and
// node_modules are not looked into (a limit the README states); a folder
// too large to look through counts as holding one.
func (r *Rule) holds(p *Path, c *Call) bool {
	n := 0
	found := false
	for _, root := range []string{p.Abs, p.Real} {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			n++
			if n > maxTreeEntries {
				found = true
				return filepath.SkipAll
			}
			name := d.Name()
			for _, g := range r.globs {
				if r.globMatch(g, name) {
					found = true
					return filepath.SkipAll
				}
			}
			if d.IsDir() && path != root && (name == ".git" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		})
		if found || p.Real == p.Abs {
			break
		}
	}
	return found
}
