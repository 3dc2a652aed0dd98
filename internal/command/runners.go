package command

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxBraceWords bounds brace expansion: a command whose braces expand to
// more words than this is not expanded, and every deny and ask rule (and
// the default rules, for the commands they know) treats it as matching.
const maxBraceWords = 64

// braces returns the command's words after brace expansion (nil when no
// word has a brace expansion) and whether the expansion went past
// maxBraceWords. Words holding run-time expansions are kept as written.
func (s *scriptWalk) braces(args []*syntax.Word, words []string, dyns []bool) (expanded []string, overflow bool) {
	if s.text.known && s.text.noBrace {
		return nil, false // (no literal of the script holds a "{")
	}
	for i, wd := range args {
		// SplitBraces looks for "{" in literal parts only: a command
		// without one is not expanded (most are not)
		if (dyns == nil || !dyns[i]) && litHasBrace(wd) {
			return s.expandBraces(args, words, dyns)
		}
	}
	return nil, false
}

// expandBraces is braces for a command some word of which may hold a
// brace expansion.
func (s *scriptWalk) expandBraces(args []*syntax.Word, words []string, dyns []bool) (expanded []string, overflow bool) {
	extra := 0
	for i, wd := range args {
		if dyns != nil && dyns[i] {
			if expanded != nil {
				expanded = append(expanded, words[i])
			}
			continue
		}
		cp := *wd
		if !syntax.SplitBraces(&cp) {
			if expanded != nil {
				expanded = append(expanded, words[i])
			}
			continue
		}
		if expanded == nil {
			expanded = append(make([]string, 0, len(words)+4), words[:i]...)
		}
		n := 0
		for w, err := range expand.BracesSeq(nil, &cp) {
			n++
			if err != nil || extra+n > maxBraceWords {
				return nil, true
			}
			e := expansion{cands: []string{""}}
			s.lit(&e, w.Parts, false)
			if e.cands == nil {
				expanded = append(expanded, words[i])
				continue
			}
			expanded = append(expanded, e.cands[0])
		}
		extra += n
	}
	return expanded, false
}

// litHasBrace reports whether a literal part of wd holds a "{", without
// which syntax.SplitBraces finds no brace expansion.
func litHasBrace(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// findRunners are find's actions that run a command of their own, up to a
// ";" word or a "{} +" pair.
var findRunners = map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true}

// findExec records the commands find runs (-exec CMD ... ;) as simple
// commands of their own, below the find command: deny and ask rules fire on
// them, and an allow must cover them as well as find itself.
func (s *scriptWalk) findExec(me int, dyns []bool) {
	c := &s.w.c.Commands[me]
	lists := [][]string{c.Args}
	if exp := c.More().expandedArgs; exp != nil {
		lists = append(lists, exp)
	}
	off := len(c.Words) - len(c.Args)
	pipe, idx := c.Pipeline, c.Index
	for n, args := range lists {
		if len(args) == 0 || path.Base(args[0]) != "find" {
			continue
		}
		for i := 1; i < len(args); i++ {
			if !findRunners[args[i]] {
				continue
			}
			j := i + 1
			for j < len(args) && args[j] != ";" && !(args[j] == "+" && args[j-1] == "{}") {
				j++
			}
			if j > i+1 {
				sub := Command{Words: append([]string(nil), args[i+1:j]...)}
				if n == 0 && dyns != nil {
					for k := i + 1; k < j; k++ {
						if dyns[off+k] {
							sub.Dynamic = true
							sub.DynamicName = sub.DynamicName || k == i+1
						}
					}
				}
				passes := false
				for _, w := range sub.Words[1:] {
					passes = passes || strings.Contains(w, "{}")
				}
				if hasGlobChar(sub.Words[0]) {
					// -exec /usr/bin/c*l: the program is whatever the
					// pattern matches when find runs it
					sub.see(fmt.Sprintf("the command name is a file pattern (%s)", Short(sub.Words[0])))
				}
				k := s.add(&sub, pipe, idx)
				if passes {
					// {} is each file find finds: whatever lies below its
					// roots, as a command that reads whole folders sees them
					saved := s.w.mode
					s.w.mode = argMode{tree: true, mayWrite: argModeOf(s.w.c.Commands[k].Args).mayWrite}
					for _, root := range findRoots(args[1:]) {
						s.argWord(root)
					}
					s.w.mode = saved
				}
				s.w.c.Commands[k].parent = me
				s.modifies(k)
				s.nested(k, nil)
			}
			i = j
		}
	}
}

// findRoots returns the folders find searches (its words before the
// first test or action; "." when none).
func findRoots(args []string) []string {
	roots, _, _ := findParts(args)
	return roots
}

// findParts splits find's arguments into the folders it searches ("."
// when none), its expression, and whether it follows symbolic links (-L).
// The options before the folders (-H, -L, -P, -D LIST, -O LEVEL) are
// skipped.
func findParts(args []string) (roots, expr []string, follow bool) {
	k := 0
	for ; k < len(args); k++ {
		a := args[k]
		if a == "-D" {
			k++
			continue
		}
		if a != "-H" && a != "-L" && a != "-P" && !strings.HasPrefix(a, "-O") {
			break
		}
		follow = follow || a == "-L"
	}
	if k > len(args) {
		k = len(args)
	}
	args = args[k:]
	for _, a := range args {
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
			break
		}
		roots = append(roots, a)
	}
	expr = args[len(roots):]
	if len(roots) == 0 {
		roots = []string{"."}
	}
	return roots, expr, follow
}

// suScript finds the script su or runuser hands to the shell: -c SCRIPT,
// -cSCRIPT, a cluster ending in c (-lc SCRIPT), --command[=]SCRIPT,
// --session-command[=]SCRIPT, anywhere among the arguments (su passes the
// words after the user name to the shell, which reads -c itself).
func suScript(args []string) (string, bool) {
	for i, a := range args {
		for _, long := range []string{"--command", "--session-command"} {
			if a == long && i+1 < len(args) {
				return args[i+1], true
			}
			if v, ok := cutOpt(a, long); ok {
				return v, true
			}
		}
		if len(a) < 2 || a[0] != '-' || a[1] == '-' {
			continue
		}
		if k := strings.IndexByte(a, 'c'); k > 0 {
			if k+1 < len(a) {
				return a[k+1:], true
			}
			if i+1 < len(args) {
				return args[i+1], true
			}
		}
	}
	return "", false
}

// envScript finds the command env -S (--split-string) runs: the string,
// split by env much as the shell splits words, followed by the remaining
// arguments.
func envScript(args []string) (string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		var str string
		switch {
		case a == "--":
			return "", false
		case a == "--split-string":
			if i+1 >= len(args) {
				return "", false
			}
			str, i = args[i+1], i+1
		case strings.HasPrefix(a, "--split-string="):
			str = strings.TrimPrefix(a, "--split-string=")
		case strings.HasPrefix(a, "--"):
			for _, l := range wrappers.Get()["env"].valueLong {
				if a == l {
					i++ // its value is the next word
				}
			}
			continue
		case len(a) > 1 && a[0] == '-':
			k := strings.IndexAny(a[1:], "SuCP")
			if k < 0 {
				continue
			}
			k++
			if a[k] != 'S' {
				if k == len(a)-1 {
					i++ // the value of -u/-C/-P is the next word
				}
				continue
			}
			if k+1 < len(a) {
				str = a[k+1:]
			} else if i+1 < len(args) {
				str, i = args[i+1], i+1
			} else {
				return "", false
			}
		default:
			if isAssignment(a) {
				continue
			}
			return "", false // the command itself: no -S
		}
		var b strings.Builder
		b.WriteString(str)
		for _, rest := range args[i+1:] {
			b.WriteByte(' ')
			b.WriteString(QuoteWord(rest))
		}
		return b.String(), true
	}
	return "", false
}

// argWords records a command's words as paths deny and ask file rules are
// tried on: every word after the command name (the name too when it is a
// path), the value of --opt=VALUE and NAME=VALUE words; words only known
// at run time cannot be checked and are left out.
func (s *scriptWalk) argWords(words []string, dyns []bool) {
	chdirs := s.chdirTargets(words, dyns)
	for i, w := range words {
		if len(chdirs) > 0 && !(dyns != nil && dyns[i]) && isRelative(w) && !IsFlagWord(w) {
			// `env -C /etc cat passwd`, `git -C /etc ...`, `sudo -D /etc ...`:
			// the words may be relative to that folder instead.
			for _, d := range chdirs {
				s.argRef(argRef{word: w, cwd: d})
			}
		}
		if dyns != nil && dyns[i] {
			continue
		}
		if i == 0 && strings.IndexByte(w, '/') < 0 {
			continue
		}
		if IsFlagWord(w) {
			if _, v, ok := strings.Cut(w, "="); ok {
				s.argWord(v)
			}
			continue
		}
		s.argWord(w)
		if _, v, ok := strings.Cut(w, "="); ok {
			s.argWord(v)
		}
		s.hiddenPaths(w)
	}
}

// hiddenPaths records the paths an argument names inside its own syntax:
// curl's @FILE (-d @.env, -F f=@.env, --data-binary @x), git's REV:PATH
// (git show HEAD:.env), scp's HOST:PATH, and KEY=VALUE or --opt=VALUE forms
// of them.
func (s *scriptWalk) hiddenPaths(w string) {
	if !bytesHidden.In(w) {
		return // (one pass over the word: each form below needs one of these)
	}
	if i := strings.LastIndexByte(w, '@'); i >= 0 && i+1 < len(w) {
		v := w[i+1:]
		if j := strings.IndexByte(v, ';'); j >= 0 {
			v = v[:j] // -F "f=@file;type=text/plain"
		}
		s.argWord(v)
		if i > 0 && w[i-1] == '<' {
			s.argWord(v) // -F f=<file
		}
	}
	if i := strings.IndexByte(w, '<'); i >= 0 && i+1 < len(w) {
		s.argWord(w[i+1:]) // curl -F f=<file reads the file as the field's text
	}
	if strings.Contains(w, "://") {
		return
	}
	if i := strings.IndexByte(w, ':'); i >= 0 && i+1 < len(w) {
		s.argWord(w[i+1:])
		if j := strings.LastIndexByte(w, ':'); j != i && j+1 < len(w) {
			s.argWord(w[j+1:])
		}
	}
}

// isChdirOption reports the options that run a command in another folder
// (env -C/--chdir, git/make/tar -C, --directory, sudo -D/--chdir, --cwd).
func isChdirOption(w string) bool {
	switch w {
	case "-C", "--chdir", "--directory", "-D", "--cwd", "--work-tree":
		return true
	}
	return false
}

// chdirTargets returns the folders a command's options say it runs in,
// resolved from where the command is written.
func (s *scriptWalk) chdirTargets(words []string, dyns []bool) []string {
	var out []string
	base := ""
	for i, w := range words {
		if len(w) < 2 || w[0] != '-' {
			continue // only an option changes the folder
		}
		v := ""
		if name, val, ok := strings.Cut(w, "="); ok && isChdirOption(name) && strings.HasPrefix(name, "--") {
			v = val
		} else if isChdirOption(w) && i+1 < len(words) && !(dyns != nil && dyns[i+1]) {
			v = words[i+1]
		}
		if v == "" {
			continue
		}
		if base == "" {
			base = s.w.c.Env.Cwd
			if d, ok := s.w.dir.sure(); ok {
				base = d
			}
		}
		out = append(out, ResolvePath(v, Env{Cwd: base, Home: s.w.c.Env.Home}).Abs)
		if len(out) >= 8 {
			break
		}
	}
	return out
}

// argWord records one word as a path, resolved later (and only when a
// deny or ask file rule needs it) from the folder it was written in.
func (s *scriptWalk) argWord(w string) {
	if w == "" || w == "-" || w == "--" || strings.IndexByte(w, 0) >= 0 {
		return
	}
	if dir, ok := s.w.dir.sure(); ok || !isRelative(w) {
		if !ok {
			dir = s.w.c.Env.Cwd
		}
		s.argRef(argRef{word: w, cwd: dir})
		return
	}
	for _, dir := range s.w.bases(s.w.dir) {
		s.argRef(argRef{word: w, cwd: dir})
	}
}

func (s *scriptWalk) argRef(ref argRef) {
	ref.mayWrite, ref.tree, ref.meta = s.w.mode.mayWrite, s.w.mode.tree, s.w.mode.meta
	c := s.w.c
	if c.args == nil {
		if c.bash != nil {
			c.args = &c.bash.args
		} else {
			c.args = &bashArgs{}
		}
		c.args.refs = c.args.first[:0]
	}
	a := c.args
	if a.seen != nil {
		if _, dup := a.seen[ref]; dup {
			return
		}
		a.seen[ref] = struct{}{}
	} else {
		for _, r := range a.refs {
			if r == ref {
				return
			}
		}
		if len(a.refs) >= 16 {
			a.seen = make(map[argRef]struct{}, 64)
			for _, r := range a.refs {
				a.seen[r] = struct{}{}
			}
			a.seen[ref] = struct{}{}
		}
	}
	a.refs = append(a.refs, ref)
}
