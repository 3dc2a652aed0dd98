package command

import (
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// find ROOT ... -delete deletes what its expression matches below ROOT.
// When the tests that lead to -delete are ANDed (no -o, !, or a group of
// them in the way) and one of them is -name or -iname, the delete can only
// reach entries whose base name matches that pattern: `find . -name '*.pyc'
// -delete` cannot touch .vibing/chat/c.md. Such a write is recorded as an
// inside path with name patterns (Path.names); the guard and deny/ask
// file rules then look only at existing entries with a matching name.
// Anything else (find . -delete, ! -name x, -o before an empty operand,
// -L, an unknown primary, -delete inside parentheses) is a write to
// anything below ROOT, as before.

// namePat is one -name (or -iname, fold) pattern.
type namePat struct {
	glob string
	fold bool
}

// Named reports whether p stands only for entries whose base name matches
// its find -name patterns (find . -name '*.pyc' -delete).
func (p *Path) Named() bool { return len(p.Names) > 0 }

// MayName reports whether an entry named base may be one p stands for:
// always when p is not Named; else when base matches, for each AND-ed
// test, one of its patterns. A pattern Go cannot read counts as matching.
func (p *Path) MayName(base string) bool {
	for _, alt := range p.Names {
		ok := false
		for _, n := range alt {
			g, b := n.glob, base
			if n.fold {
				g, b = strings.ToLower(g), strings.ToLower(b)
			}
			if m, err := path.Match(fnmatchToGo(g), b); m || err != nil {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// fnmatchToGo turns fnmatch's [!...] into Go's [^...].
func fnmatchToGo(g string) string {
	return strings.ReplaceAll(g, "[!", "[^")
}

// findTests are find's tests and options that only narrow what an AND
// chain matches (value: how many arguments they take).
var findTests = Table[map[string]int]{Make: func() map[string]int {
	return map[string]int{
		"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1, "-regex": 1, "-iregex": 1,
		"-type": 1, "-xtype": 1, "-maxdepth": 1, "-mindepth": 1, "-newer": 1, "-anewer": 1, "-cnewer": 1, "-mtime": 1,
		"-atime": 1, "-ctime": 1, "-mmin": 1, "-amin": 1, "-cmin": 1, "-size": 1, "-user": 1, "-group": 1, "-uid": 1,
		"-gid": 1, "-perm": 1, "-links": 1, "-inum": 1, "-samefile": 1, "-regextype": 1, "-fstype": 1, "-used": 1,
		"-lname": 1, "-ilname": 1, "-context": 1, "-printf": 1,
		"-true": 0, "-false": 0, "-empty": 0, "-readable": 0, "-writable": 0, "-executable": 0, "-nouser": 0,
		"-nogroup": 0, "-print": 0, "-print0": 0, "-ls": 0, "-prune": 0, "-quit": 0, "-depth": 0, "-d": 0, "-xdev": 0,
		"-mount": 0, "-noleaf": 0, "-daystart": 0, "-ignore_readdir_race": 0, "-noignore_readdir_race": 0,
		"-warn": 0, "-nowarn": 0, "-a": 0, "-and": 0,
	}
}}

// findDeleteNames returns the name patterns the -delete at expr[at] is
// bound by, and false when it is not bound by one (see above).
func findDeleteNames(expr []string, at int) ([][]namePat, bool) {
	start, depth, empty := 0, 0, true
	for i := 0; i < at; i++ {
		switch a := expr[i]; a {
		case "(":
			depth++
		case ")":
			depth--
		case "-o", "-or", ",":
			if depth == 0 {
				if empty {
					return nil, false // an operator with nothing before it
				}
				start, empty = i+1, true
				continue
			}
		case "-follow":
			return nil, false // symbolic links followed: entries elsewhere
		}
		empty = false
	}
	if depth != 0 {
		return nil, false // -delete inside parentheses
	}
	var names [][]namePat
	chain := expr[start:at]
	for i := 0; i < len(chain); i++ {
		a := chain[i]
		switch {
		case a == "!" || a == "-not":
			// a negated test narrows too, but names nothing: skip it
			i = skipFindTerm(chain, i+1)
			if i < 0 {
				return nil, false
			}
		case a == "(":
			alt, end, ok := findGroupNames(chain, i)
			if !ok {
				return nil, false
			}
			if alt != nil {
				names = append(names, alt)
			}
			i = end
		case a == "-name" || a == "-iname":
			if i+1 >= len(chain) {
				return nil, false
			}
			names = append(names, []namePat{{glob: chain[i+1], fold: a == "-iname"}})
			i++
		default:
			n, ok := findTests.Get()[a]
			if !ok && strings.HasPrefix(a, "-newer") {
				n, ok = 1, true
			}
			if !ok || i+n > len(chain)-1 {
				return nil, false
			}
			i += n
		}
	}
	return names, len(names) > 0
}

// skipFindTerm returns the index of the last word of the test or group
// starting at i (-1 when there is none).
func skipFindTerm(chain []string, i int) int {
	if i >= len(chain) {
		return -1
	}
	if chain[i] == "(" {
		depth := 0
		for j := i; j < len(chain); j++ {
			switch chain[j] {
			case "(":
				depth++
			case ")":
				depth--
				if depth == 0 {
					return j
				}
			}
		}
		return -1
	}
	n, ok := findTests.Get()[chain[i]]
	if !ok || i+n >= len(chain) {
		return -1
	}
	return i + n
}

// findGroupNames reads a group ( ... ) of an AND chain: when it holds only
// -name/-iname tests joined by -o, those are alternatives (one must match);
// any other group only narrows (nil). end is the index of its ")".
func findGroupNames(chain []string, i int) (alt []namePat, end int, ok bool) {
	end = skipFindTerm(chain, i)
	if end < 0 {
		return nil, 0, false
	}
	inner := chain[i+1 : end]
	for k := 0; k < len(inner); k += 3 {
		if inner[k] != "-name" && inner[k] != "-iname" || k+1 >= len(inner) {
			return nil, end, true
		}
		alt = append(alt, namePat{glob: inner[k+1], fold: inner[k] == "-iname"})
		if k+2 < len(inner) && inner[k+2] != "-o" && inner[k+2] != "-or" {
			return nil, end, true
		}
	}
	return alt, end, true
}

// maxNamedEntries bounds the entries looked at below a find -delete root
// for deny and ask file rules: past it the rules fire as for any write
// below the root.
const maxNamedEntries = 20000

// namedEntries returns the existing entries below p (p itself included)
// whose name p may stand for, as paths relative to p, once per call; over
// is set when the folder holds more entries than are looked at.
func (c *Call) namedEntries(p *Path) (rels []string, over bool) {
	type result struct {
		rels []string
		over bool
	}
	key := "\x00names\x00" + p.Real + "\x00" + p.Abs
	if v, ok := c.stats.Load(key); ok {
		r := v.(result)
		return r.rels, r.over
	}
	var r result
	n := 0
	_ = filepath.WalkDir(p.Real, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > maxNamedEntries {
			r.over = true
			return filepath.SkipAll
		}
		if p.MayName(d.Name()) {
			rel, _ := filepath.Rel(p.Real, name)
			r.rels = append(r.rels, rel)
		}
		return nil
	})
	c.stats.Store(key, r)
	return r.rels, r.over
}
