package command

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// What the default rules need to know of each simple command besides its
// words, recorded by the walker: the folders it may run in (for relative
// rm, chmod and chown targets) and the files its redirections write and
// read (for a download run as a script).

// How well a command's folders are known (Command.dirsFrom).
const (
	DirsKnown   uint8 = iota
	dirsUnknown       // a cd went somewhere only known at run time
	DirsFull          // and the line named more folders than are kept
)

// runDirs lists the folders a command with these words may run in: where
// the shell is, or when a cd went somewhere unknown, also every folder the
// line named; and the folders of its -C/--chdir options (env -C / rm -rf *).
func (s *scriptWalk) runDirs(words []string) ([]string, uint8) {
	w := s.w
	dirs, from := w.dir.dirs, DirsKnown
	if w.dir.unknown {
		dirs, from = AddDirs(append([]string(nil), dirs...), w.seen), dirsUnknown
		if w.seenFull {
			from = DirsFull
		}
	}
	if cds := s.chdirTargets(words, nil); len(cds) > 0 {
		dirs = AddDirs(append([]string(nil), dirs...), cds)
	}
	return dirs, from
}

// redirTargets returns the files a command's redirections write and read.
func (s *scriptWalk) redirTargets(redirs []*syntax.Redirect) (outs, ins []string) {
	var n [3]int
	for _, r := range redirs {
		n[redirUse(r)]++
	}
	// room cut from the words' slab: no allocation of their own for the
	// few redirections a command has
	if n[redirWrites] > 0 {
		outs = s.w.wordSlice(n[redirWrites])
	}
	if n[redirReads] > 0 {
		ins = s.w.wordSlice(n[redirReads])
	}
	for _, r := range redirs {
		switch redirUse(r) {
		case redirWrites:
			v, _ := s.word(r.Word)
			outs = append(outs, v)
		case redirReads:
			v, _ := s.word(r.Word)
			ins = append(ins, v)
		}
	}
	return outs, ins
}

// How a redirection uses the file its word names (redirUse).
const (
	redirOther  = iota // no word, or not a file it writes or reads (>&2, <<EOF)
	redirWrites        // > x, >> x, <> x, >| x, &> x ...
	redirReads         // < x
)

// redirUse tells whether r writes or reads the file its word names.
func redirUse(r *syntax.Redirect) int {
	if r.Word == nil {
		return redirOther
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		return redirWrites
	case syntax.RdrIn:
		return redirReads
	}
	return redirOther
}

// stdinFrom returns what a command's standard input is read from when
// exactly one redirection touches it: the file it names (< x, 0< x), or
// the text of a here-document whose delimiter is quoted (<<'EOF': the
// shell expands nothing in it) or of a literal here-string. Both are empty
// (and doc false) when another redirection does (<&3, <>x, <<EOF), or the
// name is only known at run time.
func (s *scriptWalk) stdinFrom(redirs []*syntax.Redirect) (file, text string, doc bool) {
	n := 0
	for _, r := range redirs {
		fd := ""
		if r.N != nil {
			fd = r.N.Value
		}
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			if fd != "" && fd != "0" {
				continue
			}
		default:
			if fd != "0" {
				continue // an output redirection of another descriptor (> x, 2>&1)
			}
		}
		n++
		file, text, doc = "", "", false
		switch {
		case r.Op == syntax.RdrIn && r.Word != nil:
			if v, dyn := s.word(r.Word); !dyn {
				file = v
			}
		case r.Op == syntax.WordHdoc && r.Word != nil:
			if v, dyn := s.word(r.Word); !dyn {
				text, doc = v+"\n", true
			}
		case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && quotedDelim(r.Word):
			text, doc = "", true
			if r.Hdoc != nil {
				lit, ok := "", len(r.Hdoc.Parts) <= 1
				if ok && len(r.Hdoc.Parts) == 1 {
					l, isLit := r.Hdoc.Parts[0].(*syntax.Lit)
					ok = isLit
					if isLit {
						lit = l.Value
					}
				}
				text, doc = lit, ok
			}
			if doc && r.Op == syntax.DashHdoc {
				lines := strings.Split(text, "\n")
				for i := range lines {
					lines[i] = strings.TrimLeft(lines[i], "\t")
				}
				text = strings.Join(lines, "\n")
			}
		}
	}
	if n != 1 {
		return "", "", false
	}
	return file, text, doc
}

// quotedDelim reports whether a here-document's delimiter is quoted
// (<<'EOF', <<"EOF", <<\EOF): its body is then taken as it is.
func quotedDelim(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.ContainsRune(p.Value, '\\') {
				return true
			}
		}
	}
	return false
}
