package command

import (
	"errors"
	"fmt"
	"strconv"

	"mvdan.cc/sh/v3/syntax"
)

// Redirections: the files a line's redirections read and write, and what
// they hide from the command they stand before (a name only known at run
// time, a pattern, a relative name after a cd to a folder only known at run
// time).

// redirect records output redirections and walks substitutions in targets
// and here-documents.
func (s *scriptWalk) redirect(r *syntax.Redirect) {
	if r.Word != nil && !noStmts(r.Word) {
		s.generic(r.Word)
	}
	if r.Hdoc != nil && !noStmts(r.Hdoc) {
		s.generic(r.Hdoc)
	}
	if r.Op == syntax.RdrIn && r.Word != nil {
		wi := s.wordInfo(r.Word)
		switch {
		case !wi.dyn && wi.glob:
			s.globWord(wi.text) // < .?nv: the file bash's expansion finds
		case !wi.dyn:
			s.argWord(wi.text)
			s.lostRedirect(wi.text)
		case wi.values != nil:
			for _, v := range wi.values {
				s.argWord(v)
			}
		default:
			// < $(...), < .$(true)env: file rules fire on what it may read
			s.w.pendComputed = append(s.w.pendComputed, Short(s.srcOf(r.Word)))
		}
		return
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.DplOut:
	default:
		return
	}
	if r.Word == nil {
		return
	}
	wi := s.wordInfo(r.Word)
	v, dyn := wi.text, wi.dyn
	if r.Op == syntax.DplOut && !dyn {
		if _, err := strconv.Atoi(v); err == nil || v == "-" {
			return // 2>&1, >&-
		}
	}
	if dyn && wi.values != nil {
		// f=a || f=b; … > "$f": each value the line gives it
		for _, val := range wi.values {
			s.w.c.Writes = s.appendPaths(s.w.c.Writes, val, false)
		}
		return
	}
	s.w.c.Writes = s.appendPaths(s.w.c.writesRoom(), v, dyn)
	if !dyn {
		s.lostRedirect(v)
	}
	if dyn && s.w.pendUnseen == "" {
		// > $(...), >> ${X:-name}: no rule, guard or file that runs code
		// can be ruled out
		s.w.pendUnseen = fmt.Sprintf("it writes a file whose name is only known at run time (%s)", Short(s.srcOf(r.Word)))
	}
}

// settlePending hands what redirections with no command after them hide
// (`{ …; } > $(x)` at the end of a line) to the line's last command, or
// fails the line when it has none.
func (w *shellWalker) settlePending() {
	if w.pendUnseen == "" && len(w.pendComputed) == 0 {
		return
	}
	if n := len(w.c.Commands); n > 0 {
		c := &w.c.Commands[n-1]
		c.see(w.pendUnseen)
		if len(w.pendComputed) > 0 {
			r := c.setMore()
			r.computed = append(r.computed, w.pendComputed...)
		}
	} else {
		why := w.pendUnseen
		if why == "" {
			why = "it reads a file whose name is only known at run time (" + w.pendComputed[0] + ")"
		}
		w.fail(errors.New(why))
	}
	w.pendUnseen, w.pendComputed = "", nil
}
