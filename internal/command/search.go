package command

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"vibing/internal/pathglob"
)

// Searches: Grep, Glob and LS read below a root folder (their "path", else
// the working directory). Read rules speak about them (SPEC §3):
//
//   - a search whose root lies in or below a path a deny/ask rule names
//     fires that rule (LS of secrets/, Glob in secrets/, Grep of .env);
//   - Grep reads the contents of every file below its root, so a deny/ask
//     Read rule also fires when a file it names lies below the root: a
//     named folder that exists there (Read(secrets/**), Read(~/.ssh/**)
//     when the search is in ~), or — for a name that may stand at any depth
//     (Read(.env), Read(**/*.pem)) — a file found by walking the root, as the
//     search itself would, up to maxSearchEntries entries. A walk that does
//     not finish fires the rule: what cannot be seen is not allowed. The
//     walk keeps to the files Grep's "glob" argument selects, does not
//     follow symbolic links below the root (ripgrep's default) but checks
//     where each one points, and ignores nothing else: hidden files and
//     .gitignore'd files count, since the engine cannot know how the tool
//     was built;
//   - Glob and LS list names only: a denied file's name is not its content,
//     so they fire on their root only (Glob's root includes the folder part
//     of its pattern: Glob "secrets/*" lists secrets/);
//   - in the allow list a Read rule covers a search whose whole root it
//     covers (everything below the root, or the one file a Grep names).

// maxSearchEntries bounds the walk below a Grep's root (a variable for
// tests).
var MaxSearchEntries = 5000

// IsSearch reports whether tool reads below a root folder (Grep, Glob, LS).
func IsSearch(tool string) bool {
	return tool == "Grep" || tool == "Glob" || tool == "LS"
}

// searchScope is what a search reads, worked out once per call.
type SearchScope struct {
	Root    Path
	File    bool     // the root is a file: only it is read
	Content bool     // Grep: file contents; Glob and LS: names only
	filter  []string // base-name globs a file must match to be read (Grep's glob); nil: every file

	walkOnce  sync.Once
	Entries   []Path // files and symbolic links below the root that the search would read
	Truncated bool   // the walk stopped at maxSearchEntries (or failed): anything may be below
}

// SearchRoot returns the folder (or file) a search reads, resolved; ok is
// false for calls that are not searches.
func (c *Call) SearchRoot() (Path, bool) {
	if !IsSearch(c.Tool) {
		return Path{}, false
	}
	return c.Scope().Root, true
}

// SearchInsideCwd reports whether a search stays inside the working
// directory (its root, Glob's pattern folder included); true for calls
// that are not searches.
func (c *Call) SearchInsideCwd() bool {
	if !IsSearch(c.Tool) || c.Err != nil {
		return true
	}
	root := c.Scope().Root
	realCwd := c.RealCwd
	if realCwd == "" {
		realCwd = RealDir(c.Env.Cwd)
	}
	return Inside(root.Abs, c.Env.Cwd) && Inside(root.Real, realCwd)
}

func (c *Call) Scope() *SearchScope {
	c.scopeOnce.Do(func() {
		s := &SearchScope{Content: c.Tool == "Grep"}
		if c.Path != nil {
			s.Root = *c.Path
		} else {
			s.Root = ResolvePath(".", c.Env)
		}
		if c.Tool == "Glob" {
			switch dir := GlobDir(c.Pattern); {
			case dir == "":
			case filepath.IsAbs(dir) || dir == "~" || strings.HasPrefix(dir, "~/"):
				s.Root = ResolvePath(dir, c.Env)
			default:
				s.Root = ResolvePath(joinDir(s.Root.Abs, dir), c.Env)
			}
		}
		if s.Content {
			if fi, err := os.Stat(s.Root.Real); err == nil && !fi.IsDir() {
				s.File = true
			}
			s.filter = GrepFilter(c.Input)
		}
		c.search = s
	})
	return c.search
}

// globDir is the literal folder part of a Glob pattern ("secrets/*.key" →
// "secrets", "/etc/**" → "/etc", "../x/*" → "../x"), "" when the pattern
// starts with a wildcard.
func GlobDir(pattern string) string {
	lit := pattern
	if i := strings.IndexAny(lit, `*?[{\`); i >= 0 {
		lit = lit[:i]
	}
	i := strings.LastIndexByte(lit, '/')
	switch {
	case i < 0:
		return ""
	case i == 0:
		return "/"
	}
	return lit[:i]
}

// grepFilter reads Grep's "glob" argument as base-name globs; nil (no
// filtering) when it is absent or not understood: a negation ("!x"), a
// glob with a folder part, or one that does not compile.
func GrepFilter(input map[string]any) []string {
	g, ok := input["glob"].(string)
	if !ok || strings.TrimSpace(g) == "" {
		return nil
	}
	var out []string
	for _, piece := range splitGlobs(g) {
		if strings.HasPrefix(piece, "!") || strings.Contains(piece, "/") {
			return nil
		}
		if _, err := pathglob.Compile(piece); err != nil {
			return nil
		}
		out = append(out, piece)
	}
	return out
}

// splitGlobs splits a glob argument at whitespace and at commas outside
// braces ("*.ts, *.tsx" and "*.{ts,tsx}" both select .ts and .tsx).
func splitGlobs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '{':
				depth++
				continue
			case '}':
				depth--
				continue
			case ',':
				if depth > 0 {
					continue
				}
			case ' ', '\t', '\n':
			default:
				continue
			}
		}
		if p := strings.TrimSpace(s[start:i]); p != "" {
			out = append(out, p)
		}
		start = i + 1
	}
	return out
}

// selected reports whether a file of that base name passes the filter.
func (s *SearchScope) selected(base string) bool {
	if s.filter == nil {
		return true
	}
	for _, f := range s.filter {
		if g, err := pathglob.Compile(f); err == nil && g.Match(base) {
			return true
		}
	}
	return false
}

// walk lists what the search would read below its root, breadth first,
// up to maxSearchEntries entries.
func (s *SearchScope) Walk() {
	s.walkOnce.Do(func() {
		type dir struct{ abs, real string }
		queue := []dir{{s.Root.Abs, s.Root.Real}}
		seen := 0
		for len(queue) > 0 {
			d := queue[0]
			queue = queue[1:]
			ents, err := os.ReadDir(d.real)
			if err != nil {
				if d.abs != s.Root.Abs {
					s.Truncated = true // a folder it cannot list: cannot tell what is there
				}
				continue
			}
			for _, ent := range ents {
				if seen++; seen > MaxSearchEntries {
					s.Truncated = true
					return
				}
				abs, real := d.abs+"/"+ent.Name(), d.real+"/"+ent.Name()
				switch {
				case ent.Type()&os.ModeSymlink != 0:
					if !s.selected(ent.Name()) {
						continue
					}
					if target, err := filepath.EvalSymlinks(real); err == nil {
						real = target
					}
					s.Entries = append(s.Entries, Path{Raw: abs, Abs: abs, Real: real})
				case ent.IsDir():
					queue = append(queue, dir{abs, real})
				case s.selected(ent.Name()):
					s.Entries = append(s.Entries, Path{Raw: abs, Abs: abs, Real: real})
				}
			}
		}
	})
}

// probes are stand-ins for any file in a folder and any file deeper down.
func Probes(root Path) [2]Path {
	var out [2]Path
	for i, probe := range []string{"/\x01vibing", "/\x01vibing/\x01probe"} {
		out[i] = Path{Abs: strings.TrimSuffix(root.Abs, "/") + probe, Real: strings.TrimSuffix(root.Real, "/") + probe}
	}
	return out
}
