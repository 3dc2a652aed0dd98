package command

import (
	"os"
	"path"
	"strings"

	"vibing/internal/patch"
	"vibing/internal/safefile"
)

// extractRecord is an extraction whose file was read: the member paths it
// added to Call.Modifies, and what they rely on.
type extractRecord struct {
	cmd      int    // the command in Call.Commands
	archives []Path // the archive and patch files read
	checked  []Path // files GNU patch must find, or it would ask which file to patch
	lo, hi   int    // the member paths in Call.Modifies
	fallback []Path // "something inside" its folders, for when the read cannot be trusted
	done     bool   // the fallback was added
}

// extractWrites records what an extraction writes: the names its archive
// or patch holds when it can be read, else unknown names inside its
// folders.
func (s *scriptWalk) extractWrites(me int, ex *Extraction, dynamic bool) {
	var fallback []Path
	for _, d := range ex.fallback {
		fallback = s.appendInside(fallback, d, dynamic)
	}
	rec, ok := s.readExtraction(me, ex, dynamic)
	if !ok {
		s.w.c.Modifies = append(s.w.c.Modifies, fallback...)
		return
	}
	rec.fallback = fallback
	if rec.done {
		s.w.c.Modifies = append(s.w.c.Modifies, fallback...)
	}
	s.w.extracts = append(s.w.extracts, rec)
}

// appendInside adds "something inside" the folder d.
func (s *scriptWalk) appendInside(dst []Path, d string, dynamic bool) []Path {
	n := len(dst)
	dst = s.appendPaths(dst, d, dynamic && strings.ContainsAny(d, "$`"))
	for i := n; i < len(dst); i++ {
		dst[i].inside = true
	}
	return dst
}

// readExtraction reads the files of an extraction and adds the paths its
// members name. ok is false (and nothing is added) when a file cannot be
// read, the folder the command runs in is not known, or the line or the
// environment may change what the program does.
func (s *scriptWalk) readExtraction(me int, ex *Extraction, dynamic bool) (rec extractRecord, ok bool) {
	w := s.w
	dir, sure := w.dir.sure()
	if !sure || dynamic || !plainWord(ex.Dir) || (ex.prefix != "" && !plainWord(ex.prefix)) || !extractEnvClear(ex.Kind, w.c.Command) {
		return rec, false
	}
	env := Env{Cwd: dir, Home: w.c.Env.Home}
	var names, links []string // written names and folders links may lead into, relative to where the command runs
	for _, f := range ex.files {
		var data []byte
		if doc := w.c.Commands[me].More().stdinDoc; f == "-" && doc != nil {
			if ex.Kind == ExtractTar || ex.Kind == ExtractZip || len(*doc) > MaxArchiveBytes {
				return rec, false
			}
			data = []byte(*doc) // a here-document: the line holds the patch
		} else {
			if f == "-" {
				f = w.c.Commands[me].More().stdin
			}
			if !plainWord(f) {
				return rec, false
			}
			p := ResolvePath(f, env)
			var ok bool
			if data, ok = readBounded(p); !ok {
				return rec, false
			}
			rec.archives = append(rec.archives, p)
		}
		switch ex.Kind {
		case ExtractTar, ExtractZip:
			n, l, linked, ok := archiveNames(ex, data)
			if !ok {
				return rec, false
			}
			names, links = append(names, n...), append(links, l...)
			rec.done = rec.done || linked
		default:
			n, checked, ok := s.patchNames(ex, data, env)
			if !ok {
				return rec, false
			}
			names = append(names, n...)
			for _, c := range checked {
				rec.checked = append(rec.checked, ResolvePath(c, env))
			}
		}
		if len(names) > 3*MaxMembers {
			return rec, false
		}
	}
	for _, e := range ex.extra {
		names = append(names, e, under(ex.Dir, e)) // patch -r FILE, from where it runs or after -d
	}
	rec.cmd, rec.lo = me, len(w.c.Modifies)
	seen := make(map[string]bool, len(names))
	for i, n := range append(names, links...) {
		key := n
		if !hasDotDot(n) {
			key = path.Clean(n) // ./src/a.go and src/a.go are one file; a/../b may not be b
		}
		if i >= len(names) {
			key = "\x00" + key
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		if i < len(names) {
			w.c.Modifies = s.appendPaths(w.c.Modifies, n, false)
		} else {
			w.c.Modifies = s.appendInside(w.c.Modifies, n, false)
		}
	}
	rec.hi = len(w.c.Modifies)
	return rec, true
}

// under joins a member name to the folder it is written in, as written
// (an absolute name stays as it is).
func under(dir, name string) string {
	switch {
	case strings.HasPrefix(name, "/"):
		return name
	case dir == "." || dir == "":
		if strings.HasPrefix(name, "~") {
			return "./" + name // a name, not the home folder
		}
		return name
	}
	return strings.TrimSuffix(dir, "/") + "/" + name
}

// splitClean splits a member name into its parts, dropping empty ones
// (a leading or doubled slash) and, when clean, "." and "..".
func splitClean(name string, clean bool) []string {
	var out []string
	for _, p := range strings.Split(name, "/") {
		if p == "" || clean && (p == "." || p == "..") {
			continue
		}
		out = append(out, p)
	}
	return out
}

// memberNames are the names one member may be written under: as the
// program writes it (a leading "/" dropped, after --strip-components), as
// tar -P would (the absolute name), and with its "." and ".." parts dropped
// (as unzip does); for zip, with "\" read as a folder separator too, its
// base name (-j) and lower-cased (-L).
func MemberNames(ex *Extraction, name string) []string {
	forms := []string{name}
	if ex.Kind == ExtractZip && strings.Contains(name, `\`) {
		forms = append(forms, strings.ReplaceAll(name, `\`, "/"))
	}
	var out []string
	for _, f := range forms {
		for _, clean := range []bool{false, true} {
			parts := splitClean(f, false)
			if ex.Strip > 0 {
				if len(parts) <= ex.Strip {
					continue // tar skips a member with no name left
				}
				parts = parts[ex.Strip:]
			}
			if clean {
				parts = splitClean(strings.Join(parts, "/"), true)
			}
			rel := strings.Join(parts, "/")
			if rel == "" || rel == "." {
				continue // the folder itself
			}
			out = append(out, under(ex.Dir, rel))
			if strings.HasPrefix(f, "/") {
				out = append(out, "/"+rel)
			}
			if ex.Junk {
				out = append(out, under(ex.Dir, path.Base(rel)))
			}
		}
	}
	if ex.Lower {
		for _, n := range out {
			out = append(out, strings.ToLower(n))
		}
	}
	return out
}

// archiveNames lists what a tar or zip archive writes. A link member
// (linked) may make a later member write through it: the folder it is
// unpacked in and the link's target count as written with unknown names.
func archiveNames(ex *Extraction, data []byte) (names, links []string, linked, ok bool) {
	var ms []member
	if ex.Kind == ExtractTar {
		ms, ok = TarMembers(data)
	} else {
		ms, ok = ZipMembers(data)
	}
	if !ok || len(ms) > MaxMembers {
		return nil, nil, false, false
	}
	dotdot := false
	for _, m := range ms {
		ns := MemberNames(ex, m.name)
		names = append(names, ns...)
		dotdot = dotdot || hasDotDot("/"+strings.ReplaceAll(m.name, `\`, "/"))
		if !m.link {
			continue
		}
		linked = true
		if m.target == "" || hasDotDot("/"+m.target) {
			// a link whose target is not known, or climbs out of where
			// it stands (through another link, the system and the clean
			// reading part ways)
			return nil, nil, false, false
		}
		// a symlink's target is relative to its folder, a hard link's to
		// where the archive is unpacked
		links = append(links, MemberNames(ex, m.target)...)
		for _, n := range ns {
			links = append(links, under(path.Dir(n), m.target))
		}
	}
	if linked && dotdot {
		return nil, nil, false, false // a name climbing out through a link the archive makes
	}
	return names, links, linked, true
}

// patchNames lists what a patch writes, relative to where the command
// runs, and the files GNU patch relies on finding. ok is false when GNU
// patch may ask which file to patch, or git may apply it elsewhere.
func (s *scriptWalk) patchNames(ex *Extraction, data []byte, env Env) (names, checked []string, ok bool) {
	text := string(data)
	if ex.Kind == extractGitAm && mailEncoded(text) {
		return nil, nil, false // a mail whose body git am decodes first
	}
	if strings.Contains(text, "120000") {
		return nil, nil, false // a symlink diff (mode 120000): a later diff may write through the link
	}
	pt, ok := patch.Parse(text)
	if !ok {
		return nil, nil, false
	}
	targets := pt.PatchTargets(ex.Strip, ex.stripSet)
	if ex.Kind == extractPatch {
		if !ex.batch {
			dirAbs := ResolvePath(ex.Dir, env).Abs
			asks, found := pt.MayAsk(ex.Strip, ex.stripSet, func(n string) bool {
				_, err := os.Lstat(ResolvePath(n, Env{Cwd: dirAbs, Home: env.Home}).Abs)
				return err == nil
			})
			if asks {
				return nil, nil, false
			}
			for _, f := range found {
				checked = append(checked, under(ex.Dir, f))
			}
		}
		for _, t := range targets {
			for _, suf := range append([]string{""}, ex.suffixes...) {
				names = append(names, under(ex.Dir, t+suf))
			}
		}
		return names, checked, true
	}
	// git: names are relative to the top of the work tree (outside a
	// repository, to where it runs); --directory comes before them
	bases := []string{"."}
	top, good := gitTop(env.Cwd)
	if !good {
		return nil, nil, false
	}
	if top != "" && top != env.Cwd {
		bases = append(bases, top)
	}
	for _, b := range bases {
		for _, t := range targets {
			if ex.prefix != "" && !strings.HasPrefix(t, "/") {
				t = ex.prefix + "/" + t
			}
			for _, suf := range append([]string{""}, ex.suffixes...) {
				names = append(names, under(b, t+suf))
			}
		}
	}
	return names, nil, true
}

// mailEncoded reports whether git am would decode or rewrap the text
// before reading the patch in it (base64, quoted-printable, format=flowed,
// or a character set that does not keep ASCII as it is).
func mailEncoded(text string) bool {
	l := strings.ToLower(text)
	for _, s := range []string{"base64", "quoted-printable", "format=flowed", "utf-7", "utf7", "utf-16", "utf16",
		"utf-32", "utf32", "ucs-2", "ucs2", "ucs-4", "ebcdic", "ibm037", "cp037", "iso-2022", "hz-gb"} {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// gitTop finds the top of the git work tree holding dir ("" outside one).
// ok is false when the repository's settings may move the work tree
// (core.worktree, or an include that may set it).
func gitTop(dir string) (top string, ok bool) {
	for d := dir; ; d = path.Dir(d) {
		gitdir := d + "/.git"
		fi, err := os.Stat(gitdir)
		if err == nil {
			if !fi.IsDir() {
				// a linked work tree or submodule: "gitdir: PATH"
				b, ok := readSmall(gitdir)
				v, found := strings.CutPrefix(strings.TrimSpace(b), "gitdir: ")
				if !ok || !found {
					return "", false
				}
				if !strings.HasPrefix(v, "/") {
					v = d + "/" + v
				}
				gitdir = path.Clean(v)
			}
			configs := []string{gitdir + "/config", gitdir + "/config.worktree"}
			if c, ok := readSmall(gitdir + "/commondir"); ok && strings.TrimSpace(c) != "" {
				common := strings.TrimSpace(c)
				if !strings.HasPrefix(common, "/") {
					common = gitdir + "/" + common
				}
				configs = append(configs, common+"/config", common+"/config.worktree")
			}
			for _, f := range configs {
				b, ok := readSmall(f)
				if !ok && !os.IsNotExist(statErr(f)) {
					return "", false
				}
				if l := strings.ToLower(b); strings.Contains(l, "worktree") || strings.Contains(l, "include") {
					return "", false
				}
			}
			return d, true
		}
		if d == "/" || d == "." || d == "" {
			return "", true
		}
	}
}

func statErr(f string) error {
	_, err := os.Stat(f)
	return err
}

// readSmall reads a small settings file (at most 1 MiB). A FIFO or a device
// (".git" is the agent's to make) is not read and never blocks.
func readSmall(f string) (string, bool) {
	b, err := safefile.ReadFile(f, 1<<20)
	return string(b), err == nil
}

// extractEnvClear reports whether neither the line nor the engine's
// environment names a variable that changes what the program writes.
func extractEnvClear(kind extractKind, line string) bool {
	if kind == extractGitAm {
		kind = extractGitApply
	}
	e := extractEnv[kind]
	for _, s := range e.line {
		if strings.Contains(line, s) {
			return false
		}
	}
	for _, v := range e.env {
		if os.Getenv(v) != "" {
			return false
		}
	}
	return true
}

// settleExtracts drops the names read from a file that the line itself
// may change before the extraction runs, or when the line may change
// what the program does (a command the engine cannot see through, an
// alias, a variable set under a name only known at run time): the
// extraction then writes unknown names inside its folders, as when the
// file cannot be read.
func (w *shellWalker) settleExtracts() {
	if len(w.extracts) == 0 {
		return
	}
	all := false
	for i := range w.c.Commands {
		c := &w.c.Commands[i]
		name := ""
		if len(c.Args) > 0 {
			name = c.Args[0]
		}
		if c.unseen != "" || name == "alias" || (c.Dynamic && (isVarWord(name) || name == "set")) {
			all = true
		}
	}
	for changed := true; changed; {
		changed = false
		for i := range w.extracts {
			r := &w.extracts[i]
			if r.done {
				continue
			}
			cmd := &w.c.Commands[r.cmd]
			if all || cmd.Dynamic || len(cmd.More().computed) > 0 || w.rewrites(r) {
				w.c.Modifies = append(w.c.Modifies, r.fallback...)
				r.done, changed = true, true
			}
		}
	}
}

// rewrites reports whether another write of the line may change a file
// the record was read from or relies on.
func (w *shellWalker) rewrites(r *extractRecord) bool {
	deps := append(append([]Path(nil), r.archives...), r.checked...)
	budget := 1 << 21
	for li, list := range [][]Path{w.c.Writes, w.c.Modifies} {
		for i := range list {
			if li == 1 && i >= r.lo && i < r.hi {
				continue
			}
			q := &list[i]
			for k := range deps {
				if budget--; budget < 0 {
					return true
				}
				a := &deps[k]
				if within(a.Abs, q.Abs) || within(a.Real, q.Real) || within(a.Abs, q.Real) || within(a.Real, q.Abs) {
					return true
				}
				if q.Unsure && k < len(r.archives) && path.Base(q.Abs) == path.Base(a.Abs) {
					return true // the same name written from a folder only known at run time
				}
			}
		}
	}
	return false
}
