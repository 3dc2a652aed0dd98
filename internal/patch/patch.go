// Package patch reads which files a patch changes (unified, context,
// normal and ed diffs, git's extended headers, the mails git am reads),
// from its header lines only, for the analysis of a line that applies one
// (command's extract step: patch, git apply, git am).
package patch

import (
	"path"
	"slices"
	"strconv"
	"strings"
)

// MaxNames is the most file names of a patch read (a patch naming more is
// not read: the caller keeps "some file inside the folder").
const MaxNames = 10000

// The files a patch changes, read from its header lines only: `--- a/x`,
// `+++ b/x`, `*** x` (context diffs), `Index: x`, `diff --git a/x b/x`,
// `rename from/to x` and `copy from/to x`. Hunks are counted only to tell
// a header from a changed line that looks like one and to see a hunk no
// header names (GNU patch would ask which file to patch). Every line that
// looks like a header adds its names, wherever it stands: a name too many
// is harmless, one too few is not.

// group is one file's diff: the names its header gives.
type group struct {
	names   []string // from ---/+++, ***/---, Index: and diff --git lines
	renames []string // from rename/copy from/to lines (git strips one component less)
	create  bool     // the diff creates the file
	pair    bool     // its ---/+++ (or ***/---) pair was seen
	hunks   bool     // a hunk followed the header
}

// Text is what a patch says about the files it changes.
type Text struct {
	groups       []group
	loose        []string // names on header-like lines inside hunks or leading text
	looseRenames []string // the same, from rename/copy lines
	asks         bool     // GNU patch may ask which file to patch (a hunk without a header, a context, normal or ed diff)
}

// Parse reads the header lines of a patch (or of the mails git am
// reads). ok is false when a name does not parse or there are too many.
func Parse(text string) (pt Text, ok bool) {
	lines := strings.Split(text, "\n")
	cur := -1
	newGroup := func() *group {
		pt.groups = append(pt.groups, group{})
		cur = len(pt.groups) - 1
		return &pt.groups[cur]
	}
	group := func() *group {
		if cur < 0 {
			return newGroup()
		}
		return &pt.groups[cur]
	}
	inHunk, named := false, false
	oldLeft, newLeft := 0, 0
	count := 0
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSuffix(lines[i], "\r")
		t := strings.TrimLeft(l, " \t")
		names, rename, ok := headerLike(t)
		if !ok {
			return pt, false
		}
		if count += len(names); count > MaxNames {
			return pt, false
		}
		next := ""
		if i+1 < len(lines) {
			next = lines[i+1]
		}
		if inHunk || !startsHeader(t, next) {
			// a changed line, or leading text, that looks like a header:
			// another reader may take it for one
			if rename {
				pt.looseRenames = append(pt.looseRenames, names...)
			} else {
				pt.loose = append(pt.loose, names...)
			}
		}
		if inHunk {
			switch {
			case l == "" || l[0] == ' ':
				oldLeft, newLeft = oldLeft-1, newLeft-1
			case l[0] == '-':
				oldLeft--
			case l[0] == '+':
				newLeft--
			case l[0] == '\\':
			default:
				inHunk = false // a malformed hunk: patch stops reading it here
			}
			if oldLeft <= 0 && newLeft <= 0 {
				inHunk = false
			}
			if !inHunk && (i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "@@ ")) {
				named = false // the next hunk needs a header of its own
			}
			continue
		}
		switch {
		case strings.HasPrefix(l, "@@ -"):
			o, n, good := hunkCounts(l)
			if !good || !named {
				pt.asks = true
			}
			g := group()
			g.hunks = true
			if strings.HasPrefix(l, "@@ -0,0 ") {
				g.create = true
			}
			inHunk, oldLeft, newLeft = o > 0 || n > 0, o, n
			if !inHunk && (i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "@@ ")) {
				named = false
			}
		case strings.HasPrefix(t, "diff --git "):
			g := newGroup()
			names, _ := GitHeaderNames(t[len("diff --git "):])
			g.names = fileOnly(names)
			named = true
		case strings.HasPrefix(t, "Index: "):
			if g := group(); g.pair || g.hunks {
				newGroup()
			}
			names, _ := fileNames(t[len("Index: "):])
			group().names = append(group().names, fileOnly(names)...)
		case startsHeader(t, next) && (strings.HasPrefix(t, "--- ") || strings.HasPrefix(t, "*** ")):
			next = strings.TrimLeft(strings.TrimSuffix(next, "\r"), " \t")
			g := group()
			if g.pair || g.hunks {
				g = newGroup()
			}
			old, _ := fileNames(t[4:])
			neu, _ := fileNames(next[4:])
			g.names = append(append(g.names, fileOnly(old)...), fileOnly(neu)...)
			g.pair, g.create = true, g.create || slices.Contains(old, "/dev/null")
			if t[0] == '*' {
				pt.asks = true // a context diff: its hunks are not counted here
			}
			named = true
			i++
		case strings.HasPrefix(t, "rename from "), strings.HasPrefix(t, "rename to "),
			strings.HasPrefix(t, "copy from "), strings.HasPrefix(t, "copy to "):
			names, _, _ := headerLike(t)
			g := group()
			g.renames = append(g.renames, names...)
		case strings.HasPrefix(t, "new file mode "):
			group().create = true
		case t == "***************" || NormalDiffCmd(t):
			pt.asks = true
		}
	}
	return pt, true
}

// startsHeader reports whether parsePatch reads the line t (outside a
// hunk; next is the line after it) as a header of the diff that follows.
func startsHeader(t, next string) bool {
	switch {
	case strings.HasPrefix(t, "diff --git "), strings.HasPrefix(t, "Index: "), strings.HasPrefix(t, "rename "),
		strings.HasPrefix(t, "copy "):
		return true
	case rangeLine(t):
		return false
	}
	next = strings.TrimLeft(strings.TrimSuffix(next, "\r"), " \t")
	return strings.HasPrefix(t, "--- ") && strings.HasPrefix(next, "+++ ") ||
		strings.HasPrefix(t, "*** ") && strings.HasPrefix(next, "--- ")
}

// headerLike returns the names a line that looks like a patch header
// holds (names are "" and /dev/null-free), and whether they are renames.
// ok is false when a quoted name does not unquote.
func headerLike(t string) (names []string, rename, ok bool) {
	var rest string
	switch {
	case strings.HasPrefix(t, "--- "), strings.HasPrefix(t, "+++ "), strings.HasPrefix(t, "*** "):
		if rangeLine(t) {
			return nil, false, true
		}
		names, ok = fileNames(t[4:])
	case strings.HasPrefix(t, "Index: "):
		names, ok = fileNames(t[len("Index: "):])
	case strings.HasPrefix(t, "diff --git "):
		names, ok = GitHeaderNames(t[len("diff --git "):])
	case strings.HasPrefix(t, "rename from "), strings.HasPrefix(t, "copy from "):
		rest, rename = t[strings.Index(t, "from ")+5:], true
	case strings.HasPrefix(t, "rename to "), strings.HasPrefix(t, "copy to "):
		rest, rename = t[strings.Index(t, "to ")+3:], true
	default:
		return nil, false, true
	}
	if rename {
		if strings.HasPrefix(rest, `"`) {
			v, _, good := UnquoteC(rest)
			if !good {
				return nil, true, false
			}
			rest = v
		}
		names, ok = []string{rest}, true
	}
	return fileOnly(names), rename, ok
}

// fileOnly drops the empty names and /dev/null (no file) from names.
func fileOnly(names []string) []string {
	var out []string
	for _, n := range names {
		if n != "" && n != "/dev/null" {
			out = append(out, n)
		}
	}
	return out
}

// fileNames reads the name of a ---/+++/***/Index: line: quoted, or up to
// a tab (a date follows), or up to the first blank, or (git reads names
// with blanks) to the end of the line.
func fileNames(rest string) ([]string, bool) {
	rest = strings.TrimLeft(rest, " \t")
	if strings.HasPrefix(rest, `"`) {
		v, _, ok := UnquoteC(rest)
		return []string{v}, ok
	}
	var out []string
	if i := strings.IndexByte(rest, '\t'); i >= 0 {
		out = append(out, strings.TrimRight(rest[:i], " "))
	} else {
		out = append(out, strings.TrimRight(rest, " "))
	}
	if i := strings.IndexAny(rest, " \t"); i >= 0 && rest[:i] != out[0] {
		out = append(out, rest[:i])
	}
	return out, true
}

// gitHeaderNames reads the two names of a diff --git line: quoted, or
// split where both halves name the same file once their first folder is
// dropped (as git splits them).
func GitHeaderNames(rest string) ([]string, bool) {
	rest = strings.TrimRight(rest, " \t")
	if strings.HasPrefix(rest, `"`) {
		a, after, ok := UnquoteC(rest)
		if !ok {
			return nil, false
		}
		after = strings.TrimLeft(after, " ")
		if strings.HasPrefix(after, `"`) {
			b, _, ok := UnquoteC(after)
			return []string{a, b}, ok
		}
		return []string{a, after}, true
	}
	if i := strings.Index(rest, ` "`); i >= 0 && strings.HasSuffix(rest, `"`) {
		if b, _, ok := UnquoteC(rest[i+1:]); ok {
			return []string{rest[:i], b}, true
		}
	}
	var out []string
	for i := 0; i < len(rest); i++ {
		if rest[i] != ' ' {
			continue
		}
		a, b := rest[:i], rest[i+1:]
		sa, oka := StripPath(a, 1)
		sb, okb := StripPath(b, 1)
		if oka && okb && sa == sb {
			out = append(out, a, b)
		}
	}
	return out, true
}

// unquoteC reads a C-quoted name as git and GNU patch write it; rest is
// what follows the closing quote.
func UnquoteC(s string) (val, rest string, ok bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return b.String(), s[i+1:], true
		case '\\':
			i++
			if i >= len(s) {
				return "", "", false
			}
			switch e := s[i]; e {
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'v':
				b.WriteByte('\v')
			case '\\', '"':
				b.WriteByte(e)
			default:
				if i+3 > len(s) {
					return "", "", false
				}
				n, err := strconv.ParseUint(s[i:i+3], 8, 8)
				if err != nil {
					return "", "", false
				}
				b.WriteByte(byte(n))
				i += 2
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false
}

// rangeLine reports a context diff's hunk range line (*** 1,5 ****).
func rangeLine(t string) bool {
	return strings.HasSuffix(t, " ****") || strings.HasSuffix(t, " ----")
}

// normalDiffCmd reports a normal or ed diff command line (5a, 3,4c7).
func NormalDiffCmd(t string) bool {
	i := 0
	digits := func() bool {
		j := i
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		return i > j
	}
	lines := func() bool { // N or N,M
		if !digits() {
			return false
		}
		if i < len(t) && t[i] == ',' {
			i++
			return digits()
		}
		return true
	}
	if !lines() {
		return false
	}
	if i >= len(t) || (t[i] != 'a' && t[i] != 'c' && t[i] != 'd') {
		return false
	}
	i++
	if i == len(t) {
		return true
	}
	return lines() && i == len(t)
}

// hunkCounts reads the line counts of a unified hunk (@@ -1,5 +1,6 @@).
func hunkCounts(l string) (old, neu int, ok bool) {
	f := strings.Fields(l)
	if len(f) < 4 || f[3] != "@@" {
		return 0, 0, false
	}
	num := func(s string) (int, bool) {
		if _, c, found := strings.Cut(s, ","); found {
			s = c
		} else {
			return 1, true
		}
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= 0
	}
	o, ok1 := num(f[1][1:])
	n, ok2 := num(f[2][1:])
	return o, n, ok1 && ok2 && f[1][0] == '-' && f[2][0] == '+'
}

// stripPath drops the smallest prefix holding n slashes (a run of slashes
// counts once), as patch -pN does; ok is false when there are fewer.
func StripPath(name string, n int) (string, bool) {
	i := 0
	for k := 0; k < n; k++ {
		j := strings.IndexByte(name[i:], '/')
		if j < 0 {
			return "", false
		}
		i += j
		for i < len(name) && name[i] == '/' {
			i++
		}
	}
	return name[i:], name[i:] != ""
}

// stripLevels returns name stripped of every number of leading folders,
// the whole name first.
func stripLevels(name string) []string {
	out := []string{name}
	for k := 1; ; k++ {
		s, ok := StripPath(name, k)
		if !ok {
			return out
		}
		out = append(out, s)
	}
}

// patchTargets lists the names a patch writes, stripped as the program
// strips them: -pN (rename and copy lines one folder less, as git does),
// or every level when GNU patch is given no -p (it keeps the base name).
func (pt Text) PatchTargets(strip int, given bool) []string {
	var out []string
	add := func(n string, levels []int) {
		if !given {
			out = append(out, stripLevels(n)...)
			return
		}
		for _, k := range levels {
			if k < 0 {
				continue
			}
			if s, ok := StripPath(n, k); ok {
				out = append(out, s)
			}
		}
	}
	for _, g := range pt.groups {
		for _, n := range g.names {
			add(n, []int{strip})
		}
		for _, n := range g.renames {
			add(n, []int{strip - 1, strip})
		}
	}
	for _, n := range pt.loose {
		add(n, []int{strip})
	}
	for _, n := range pt.looseRenames {
		add(n, []int{strip - 1, strip})
	}
	return out
}

// mayAsk reports whether GNU patch (not in batch mode) may ask which file
// to patch: for some diff none of the names its header gives exists and
// it does not create the file. found lists the files it relies on.
func (pt Text) MayAsk(strip int, given bool, exists func(string) bool) (asks bool, found []string) {
	if pt.asks {
		return true, nil
	}
	for _, g := range pt.groups {
		if g.create || (len(g.names)+len(g.renames) == 0 && !g.hunks) {
			continue
		}
		hit := ""
		for _, n := range append(append([]string(nil), g.names...), g.renames...) {
			c, ok := n, true
			if !given {
				c = path.Base(n)
			} else {
				c, ok = StripPath(n, strip)
			}
			if ok && exists(c) {
				hit = c
				break
			}
		}
		if hit == "" {
			return true, nil
		}
		found = append(found, hit)
	}
	return false, found
}
