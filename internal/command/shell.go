package command

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxScriptDepth bounds how deep sh -c / eval scripts are followed.
const maxScriptDepth = 4

var errTooDeep = errors.New("shell scripts nested too deeply (sh -c / eval) to be checked")

// shellWalker turns one command line into simple commands.
type shellWalker struct {
	c        *Call
	dir      dirState // where relative paths resolve (see cwd.go)
	succ     dirState // where the shell is when the statement just walked succeeded
	seen     []string // every folder the line may be in, for an unknown folder
	seenFull bool     // more folders than maxSeen were seen
	cdpath   bool     // the line speaks of CDPATH: relative cd targets may go anywhere
	pipes    int
	err      error
	folded   []*syntax.CallExpr // commands whose output was folded into a word (foldSubst)
	mode     argMode            // how the command being walked treats the words it names
	extracts []extractRecord    // archives and patches read for the names they write (extractwalk.go)

	modsBefore int // len(c.Modifies) before the command being walked added its own

	// what the redirections walked before a command hide, handed to the
	// next command added (redirections come before their command): a
	// file read or written under a name only known at run time
	pendUnseen   string
	pendComputed []string

	// the values of variables set on the line, tried as folders once the
	// shell's folder is lost (seeNamedDir, namedDirs)
	named []string

	// links made earlier on the line (ln -s TARGET NAME): a path through
	// NAME is also the path through TARGET (links.go)
	links []linkAlias

	slab  []string   // room for the words of the commands still to come (wordSlice)
	top   scriptWalk // the walk of the line itself (script)
	after dirState   // where the shell may be once the line ran (end; Call.shellAfter points here)

	// the program names looked up last in the program table and what it
	// said of them (progBits): a line names a few programs, and the steps
	// of the walk look each one up in turn
	progNames [4]progKey
	progVals  [4]progBits
	progNext  uint8
}

// wordSlice returns an empty slice with room for n words, cut from a slab
// the line's commands share (one allocation for a few commands). Its
// capacity is n: an append past it copies, never writing into another's.
func (w *shellWalker) wordSlice(n int) []string {
	if cap(w.slab)-len(w.slab) < n {
		w.slab = make([]string, 0, max(n, 8))
	}
	i := len(w.slab)
	w.slab = w.slab[:i+n]
	return w.slab[i : i : i+n]
}

// parseBash fills c.Commands, c.Writes, c.Modifies and c.ForkBomb.
func ParseBash(c *Call, line string) {
	var w *shellWalker
	if bc := c.bash; bc != nil && bc.walker.c == nil {
		// the line of a Bash call Prepare made: its walker and the first
		// words of its commands are kept with the call
		// (zero: a new call, or one reset gave back; see bashCall.reset)
		w = &bc.walker
		w.c, w.cdpath, w.slab = c, strings.Contains(line, "CDPATH"), bc.slab[:0]
	} else {
		w = &shellWalker{c: c, cdpath: strings.Contains(line, "CDPATH")}
	}
	start := w.begin()
	w.script(line, 0, -1)
	w.settlePending()
	w.settleExtracts()
	if w.err != nil && c.Err == nil {
		c.Err = w.err
	}
	w.end(start)
}

// script parses src, the line, and walks its statements; depth and parent
// are 0 and -1 (the scripts it runs have walks of their own: nested,
// runScript).
func (w *shellWalker) script(src string, depth, parent int) {
	if depth > maxScriptDepth {
		w.fail(errTooDeep)
		return
	}
	f, err := parse(src)
	if err != nil {
		w.fail(fmt.Errorf("the command line does not parse as shell: %v", err))
		return
	}
	sw := &w.top // the line's own walk, allocated with the walker
	*sw = scriptWalk{w: w, src: src, depth: depth, parent: parent, vars: newVarTable(src)}
	sw.scanSrc()
	sw.collectVars(f, sw.vars)
	for _, s := range f.Stmts {
		sw.stmt(s, -1, 0)
	}
	sw.evalText(f)
}

func (w *shellWalker) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// scriptWalk walks one parsed script (the line, or an sh -c argument).
type scriptWalk struct {
	w      *shellWalker
	src    string
	depth  int
	parent int
	outer  *scriptWalk // the script that runs this one; its variables may reach in
	vars   varTable    // the variables this script sets (vars.go)
	fed    bool        // the script's input is a pipe from the command running it (awk's print | "sh")
	text   srcBytes    // which bytes src holds of those the walk's word scans look for (scanSrc)
}

// inputPiped reports whether a command of this script at the head of its
// pipeline reads a pipe all the same (the script is fed by its runner).
func (s *scriptWalk) inputPiped() bool {
	for w := s; w != nil; w = w.outer {
		if w.fed {
			return true
		}
	}
	return false
}

func (s *scriptWalk) newPipe() int {
	s.w.pipes++
	return s.w.pipes
}

// stmt walks one statement. pipe >= 0 means the statement stands inside a
// pipeline (at position idx), and everything in it inherits that place.
func (s *scriptWalk) stmt(st *syntax.Stmt, pipe, idx int) {
	if st == nil {
		return
	}
	if st.Background {
		// a background job is a subshell
		s.w.scoped(func() { s.stmtCmd(st, pipe, idx) })
		return
	}
	s.stmtCmd(st, pipe, idx)
	if st.Negated {
		s.w.succ = s.w.dir
	}
}

func (s *scriptWalk) stmtCmd(st *syntax.Stmt, pipe, idx int) {
	w := s.w
	for _, r := range st.Redirs {
		s.redirect(r)
	}
	switch c := st.Cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		s.call(c, st.Redirs, pipe, idx)
		return // call sets w.succ
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			s.pipeline(c, pipe, idx)
			break
		}
		s.stmt(c.X, pipe, idx)
		afterX := w.dir
		if c.Op == syntax.AndStmt {
			w.dir = w.succ // the right side runs only when the left succeeded
		}
		succX := w.succ
		s.stmt(c.Y, pipe, idx)
		w.dir = union(afterX, w.dir)
		if c.Op == syntax.OrStmt {
			w.succ = union(succX, w.succ)
		}
		return // && keeps the right side's success state
	case *syntax.Subshell:
		w.scoped(func() { s.stmts(c.Stmts, pipe, idx) })
	case *syntax.Block:
		w.succ = w.dir
		s.stmts(c.Stmts, pipe, idx)
		return // the last statement's success state
	case *syntax.IfClause:
		acc := w.dir
		for ic := c; ic != nil; ic = ic.Else {
			s.stmts(ic.Cond, pipe, idx)
			afterCond := w.dir
			s.stmts(ic.Then, pipe, idx)
			acc = union(acc, w.dir)
			w.dir = afterCond
		}
		w.dir = union(acc, w.dir)
	case *syntax.WhileClause:
		s.loop(c, func() {
			s.stmts(c.Cond, pipe, idx)
			s.stmts(c.Do, pipe, idx)
		})
	case *syntax.ForClause:
		s.generic(c.Loop)
		s.loop(c, func() { s.stmts(c.Do, pipe, idx) })
	case *syntax.CaseClause:
		s.words([]*syntax.Word{c.Word})
		before, acc := w.dir, w.dir
		for _, it := range c.Items {
			s.words(it.Patterns)
			s.stmts(it.Stmts, pipe, idx)
			acc = union(acc, w.dir)
			if it.Op == syntax.Break {
				w.dir = before
			}
		}
		w.dir = union(acc, w.dir)
	case *syntax.FuncDecl:
		if isForkBomb(c) {
			s.w.c.ForkBomb = true
		}
		before := w.dir
		s.stmt(c.Body, pipe, idx)
		if !sameState(before, w.dir) {
			// the function may be called anywhere after this point
			w.dir = w.lost(union(before, w.dir))
		}
	case *syntax.TimeClause:
		s.stmt(c.Stmt, pipe, idx)
	case *syntax.CoprocClause:
		w.scoped(func() { s.stmt(c.Stmt, pipe, idx) })
	case *syntax.DeclClause:
		// export/declare/local/readonly change the environment later
		// commands run in (PATH=...), so they are commands to cover.
		words := []string{c.Variant.Value}
		dyn := false
		for _, a := range c.Args {
			s.generic(a)
			txt, d := s.assignText(a)
			words = append(words, txt)
			dyn = dyn || d
		}
		s.add(&Command{Words: words, Dynamic: dyn}, pipe, idx)
	default:
		// [[ ]], (( )), let: no command of their own, but substitutions
		// inside them run.
		s.generic(c)
	}
	w.succ = w.dir
}

// pipeline walks the elements of a pipeline. Each runs in a subshell,
// except that zsh (and bash with lastpipe) runs the last one in the shell
// itself: after the pipeline the shell may be where it was or where the
// last element went.
func (s *scriptWalk) pipeline(c *syntax.BinaryCmd, pipe, idx int) {
	w := s.w
	leaves := pipeLeaves(c, make([]*syntax.Stmt, 0, 4))
	p := pipe
	if p < 0 {
		p = s.newPipe()
	}
	before := w.dir
	for i, l := range leaves {
		if i < len(leaves)-1 {
			w.scoped(func() { s.stmt(l, p, idx+i) })
			continue
		}
		s.stmt(l, p, idx+i)
	}
	w.dir = union(before, w.dir)
}

// loop walks a loop body once. A body that may change the folder runs
// from an unknown one, as its second round starts where the first ended,
// and the folders its cd commands name are tried from the start.
func (s *scriptWalk) loop(n syntax.Node, body func()) {
	w := s.w
	before := w.dir
	if changes, targets := mayChangeDir(n); changes {
		for _, t := range targets {
			w.resolveDirs(t, before, false)
		}
		w.dir = w.lost(before)
	}
	body()
	w.dir = union(before, w.dir)
}

// mayChangeDir reports whether n holds a command that may be cd, pushd,
// popd, source or eval, or whose name is only known at run time, and the
// literal words that follow cd and pushd.
func mayChangeDir(n syntax.Node) (found bool, targets []string) {
	syntax.Walk(n, func(x syntax.Node) bool {
		ce, ok := x.(*syntax.CallExpr)
		if !ok || len(ce.Args) == 0 {
			return true
		}
		if first := ce.Args[0].Lit(); first == "" || strings.ContainsRune(first, '\\') {
			found = true
		}
		for i, a := range ce.Args {
			switch a.Lit() {
			case "cd", "pushd":
				found = true
				for _, t := range ce.Args[i+1:] {
					if lit := t.Lit(); lit != "" && !strings.HasPrefix(lit, "-") && len(targets) < MaxSeen {
						targets = append(targets, lit)
					}
				}
			case "popd", "source", ".", "eval":
				found = true
			}
		}
		return true
	})
	return found, targets
}

func sameState(a, b dirState) bool {
	return sameDirs(a.dirs, b.dirs) && a.unknown == b.unknown && a.stack == b.stack
}

func pipeLeaves(b *syntax.BinaryCmd, out []*syntax.Stmt) []*syntax.Stmt {
	for _, side := range [2]*syntax.Stmt{b.X, b.Y} {
		if bc, ok := side.Cmd.(*syntax.BinaryCmd); ok && (bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) && len(side.Redirs) == 0 {
			out = pipeLeaves(bc, out)
			continue
		}
		out = append(out, side)
	}
	return out
}

func (s *scriptWalk) stmts(list []*syntax.Stmt, pipe, idx int) {
	for _, st := range list {
		s.stmt(st, pipe, idx)
	}
}

// generic finds the statements nested anywhere below n (command and process
// substitutions) and walks them as lines of their own.
func (s *scriptWalk) generic(n syntax.Node) {
	if n == nil {
		return
	}
	// substitutions run in subshells: a cd inside them moves nothing after
	s.w.scoped(func() {
		syntax.Walk(n, func(x syntax.Node) bool {
			if st, ok := x.(*syntax.Stmt); ok {
				s.stmt(st, -1, 0)
				return false
			}
			return true
		})
	})
}

func (s *scriptWalk) words(ws []*syntax.Word) {
	for _, w := range ws {
		if w != nil && !noStmts(w) {
			s.generic(w)
		}
	}
}

// noStmts reports whether a word is made of literal text and quotes
// alone, so that no statement stands below it (generic would find none).
func noStmts(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

func (s *scriptWalk) assignText(a *syntax.Assign) (string, bool) {
	var b strings.Builder
	dyn := false
	if a.Name != nil {
		b.WriteString(a.Name.Value)
		if !a.Naked {
			if a.Append {
				b.WriteString("+")
			}
			b.WriteString("=")
		}
	}
	if a.Value != nil {
		v, d := s.word(a.Value)
		b.WriteString(v)
		dyn = d
	}
	if a.Array != nil || a.Index != nil {
		dyn = true
	}
	return b.String(), dyn
}

var errTooMany = fmt.Errorf("the command line holds more than %d simple commands, more than are checked", maxCommands)

// joined is words joined by single spaces: the very text of the script
// when the command stands there so spelled (no quotes, one space between
// words), which spares building it.
func (s *scriptWalk) joined(words []string, ce *syntax.CallExpr) string {
	if ce == nil || len(ce.Args) != len(words) || len(words) == 0 {
		return strings.Join(words, " ")
	}
	start, end := int(ce.Args[0].Pos().Offset()), int(ce.Args[len(ce.Args)-1].End().Offset())
	if start < 0 || end > len(s.src) || start > end {
		return strings.Join(words, " ")
	}
	text := s.src[start:end]
	rest := text
	for i, w := range words {
		if i > 0 {
			if rest == "" || rest[0] != ' ' {
				return strings.Join(words, " ")
			}
			rest = rest[1:]
		}
		if !strings.HasPrefix(rest, w) {
			return strings.Join(words, " ")
		}
		rest = rest[len(w):]
	}
	if rest != "" {
		return strings.Join(words, " ")
	}
	return text
}

// add records a simple command (a copy of *cmd, which it fills in).
func (s *scriptWalk) add(cmd *Command, pipe, idx int) int {
	if len(s.w.c.Commands) >= maxCommands {
		s.w.fail(errTooMany)
	}
	if pipe < 0 {
		pipe = s.newPipe()
		idx = 0
	}
	cmd.Pipeline, cmd.Index = pipe, idx
	cmd.Text = s.joined(cmd.Words, cmd.node)
	cmd.parent = s.parent
	args, met, alts := stripWrappersBy(cmd.Words, s.w)
	cmd.Args = args
	if len(met) > 0 || len(alts) > 0 {
		r := cmd.setMore()
		r.Wrappers, r.Alts = met, alts
	}
	cmd.Dirs, cmd.DirsFrom = s.runDirs(cmd.Words)
	if r := cmd.More(); r.expanded != nil {
		// the words the shell really runs after brace expansion: deny
		// and ask rules (and the default rules) see them as well
		args, met, alts := stripWrappers(r.expanded)
		r.Alts = append(r.Alts, r.expanded, args)
		r.Alts = append(r.Alts, alts...)
		r.Wrappers = append(r.Wrappers, met...)
		r.expandedArgs = args // r is cmd.rare: expanded is set through setMore
	}
	if s.w.c.Commands == nil {
		if bc := s.w.c.bash; bc != nil {
			s.w.c.Commands = bc.cmds[:0]
		} else {
			s.w.c.Commands = make([]Command, 0, 4) // most lines hold a few commands
		}
	}
	if s.w.pendUnseen != "" || len(s.w.pendComputed) > 0 {
		cmd.see(s.w.pendUnseen)
		if len(s.w.pendComputed) > 0 {
			r := cmd.setMore()
			r.computed = append(r.computed, s.w.pendComputed...)
		}
		s.w.pendUnseen, s.w.pendComputed = "", nil
	}
	s.w.c.Commands = append(s.w.c.Commands, *cmd)
	return len(s.w.c.Commands) - 1
}

func (s *scriptWalk) call(ce *syntax.CallExpr, redirs []*syntax.Redirect, pipe, idx int) {
	for _, a := range ce.Assigns {
		s.generic(a)
	}
	if len(ce.Args) == 0 {
		return
	}
	// Substitutions inside the words run before the command: walk them
	// first, remembering where they start so they can point at their parent.
	first := len(s.w.c.Commands)
	if !s.text.known || !s.text.noSubst {
		s.words(ce.Args)
	}
	modsBefore := len(s.w.c.Modifies)
	cmd := Command{Words: s.w.wordSlice(len(ce.Args))}
	var dyns []bool
	var infos []wordInfo // kept only when some word is more than a literal
	for i, wd := range ce.Args {
		wi := s.wordInfo(wd)
		if infos == nil && (wi.dyn || wi.glob) {
			infos = make([]wordInfo, len(ce.Args))
			for k := 0; k < i; k++ {
				infos[k] = wordInfo{text: cmd.Words[k]}
			}
		}
		if infos != nil {
			infos[i] = wi
		}
		cmd.Words = append(cmd.Words, wi.text)
		if wi.dyn {
			cmd.Dynamic = true
			if i == 0 {
				cmd.DynamicName = true
			}
			if dyns == nil {
				dyns = make([]bool, len(ce.Args))
			}
			dyns[i] = true
		}
	}
	if dyns != nil {
		cmd.setMore().Dyn = dyns
	}
	cmd.node = ce
	for _, f := range s.w.folded {
		for i := first; i < len(s.w.c.Commands); i++ {
			if s.w.c.Commands[i].node == f {
				s.w.c.Commands[i].denyOnly = true
			}
		}
	}
	s.assignments(&cmd, ce.Assigns)
	expanded, overflow := s.braces(ce.Args, cmd.Words, dyns)
	if expanded != nil {
		cmd.setMore().expanded = expanded
	}
	cmd.BraceOverflow = overflow
	if cmd.BraceOverflow {
		s.w.c.BraceOverflow = true
	}
	me := s.add(&cmd, pipe, idx)
	for i := first; i < me; i++ {
		if s.w.c.Commands[i].parent == s.parent {
			s.w.c.Commands[i].parent = me
		}
	}
	c := &s.w.c.Commands[me]
	saved := s.w.mode
	s.w.mode = argModeBy(c.Args, s.w)
	if infos != nil {
		s.wordEffects(c, infos)
	}
	if len(redirs) > 0 {
		r := s.w.setMore(c)
		r.Outs, r.Ins = s.redirTargets(redirs)
		if file, text, doc := s.stdinFrom(redirs); doc {
			t := text // (on the heap only for a here-document)
			r.stdinDoc = &t
		} else {
			r.stdin = file
		}
	}
	s.argWords(c.Words, dyns)
	s.lostRelative(me, dyns)
	s.argWords(c.More().expanded, nil)
	s.w.mode = saved
	s.modifies(me)
	s.noteLink(me)
	s.trackCd(c)
	s.nested(me, redirs)
	s.findExec(me, dyns)
	savedMods := s.w.modsBefore
	s.w.modsBefore = modsBefore
	s.opaque(me, redirs)
	s.w.modsBefore = savedMods
}

// nested follows the scripts a command runs: sh -c SCRIPT, eval ARGS,
// a shell fed a here-document or here-string, su/runuser -c SCRIPT,
// env -S STRING. Every level of a wrapper chain is looked at, so
// `sudo su root -c ..` and `sudo env -S ..` are followed too.
func (s *scriptWalk) nested(me int, redirs []*syntax.Redirect) {
	// (what the loop reads of the command, not a copy of it all)
	c := &s.w.c.Commands[me]
	words, dynamic, wrapped := c.Words, c.Dynamic, len(c.More().Wrappers) > 0
	script, name, ok, dyn := "", "", false, false
	for level := words; len(level) > 0 && !ok; {
		name = path.Base(level[0])
		switch {
		case name == "eval":
			script, ok = strings.Join(level[1:], " "), len(level) > 1
			dyn = dynamic
		case IsShell(name):
			script, ok, dyn = s.shellScript(level[1:], redirs)
		case name == "su" || name == "runuser":
			script, ok = suScript(level[1:])
		case name == "env":
			script, ok = envScript(level[1:])
		}
		if ok || !wrapped {
			break // no wrapper was seen through at the first word (add), so none to skip
		}
		wr, isWrapper := wrappers.Get()[name]
		if !isWrapper {
			break
		}
		rest, good := skipWrapper(name, wr, level[1:])
		if !good {
			break
		}
		level = rest
	}
	if !ok {
		return
	}
	if dyn && strings.ContainsAny(script, "$`") {
		// The script is only known at run time; the command stays as it is
		// (dynamic), so no allow pattern covers it.
		s.w.c.Commands[me].Dynamic = true
	}
	if s.depth+1 > maxScriptDepth {
		s.w.fail(errTooDeep)
		return
	}
	sub := &scriptWalk{w: s.w, src: script, depth: s.depth + 1, parent: me, outer: s, vars: newVarTable(script)}
	sub.scanSrc()
	f, err := parse(script)
	if err != nil {
		s.w.fail(fmt.Errorf("the script given to %s does not parse as shell: %v", name, err))
		return
	}
	sub.collectVars(f, sub.vars)
	walk := func() {
		for _, st := range f.Stmts {
			sub.stmt(st, -1, 0)
		}
	}
	if name == "eval" {
		walk() // eval runs in the shell itself
		sub.evalText(f)
		return
	}
	s.w.scoped(func() { walk(); sub.evalText(f) }) // sh -c, su -c, env -S: another process
}

// shellScript finds the script a shell runs: with -c (alone or in a
// cluster such as -ec, or --command) the first operand after all options
// (`bash -c -- "rm x"`, `sh -c -e "rm x"`); else the here-document or
// here-string it reads when it is given no script file (or /dev/stdin).
func (s *scriptWalk) shellScript(args []string, redirs []*syntax.Redirect) (script string, ok, dyn bool) {
	cmdMode := false
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" {
			i++
			break
		}
		if a == "--command" {
			cmdMode = true
			continue
		}
		if a == "-o" || a == "+o" || a == "-O" || a == "+O" || a == "--rcfile" || a == "--init-file" {
			i++
			continue
		}
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			break
		}
		if a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], 'c') {
			cmdMode = true
		}
	}
	if cmdMode {
		if i < len(args) {
			return args[i], true, false
		}
		return "", false, false
	}
	if i < len(args) && !isStdinPath(args[i]) {
		return "", false, false // a script file
	}
	for _, r := range redirs {
		if (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil {
			script, dyn = s.word(r.Hdoc)
			ok = true
		}
		if r.Op == syntax.WordHdoc && r.Word != nil {
			script, dyn = s.word(r.Word)
			ok = true
		}
	}
	return script, ok, dyn
}

// isStdinPath reports whether a script file argument is the shell's input.
func isStdinPath(a string) bool {
	switch a {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-":
		return true
	}
	return false
}

// isForkBomb reports whether a function's body calls the function itself in
// a pipeline or in the background.
func isForkBomb(fd *syntax.FuncDecl) bool {
	if fd.Name == nil {
		return false
	}
	name := fd.Name.Value
	bomb := false
	var visit func(st *syntax.Stmt, risky bool)
	callsSelf := func(st *syntax.Stmt) bool {
		ce, ok := st.Cmd.(*syntax.CallExpr)
		return ok && len(ce.Args) > 0 && ce.Args[0].Lit() == name
	}
	visit = func(st *syntax.Stmt, risky bool) {
		if st == nil || bomb {
			return
		}
		risky = risky || st.Background
		if callsSelf(st) && risky {
			bomb = true
			return
		}
		walk := func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.BinaryCmd:
				pipe := n.Op == syntax.Pipe || n.Op == syntax.PipeAll
				visit(n.X, risky || pipe)
				visit(n.Y, risky || pipe)
				return false
			case *syntax.Stmt:
				visit(n, risky)
				return false
			}
			return true
		}
		// a statement may be redirections alone (`{ >x& }`); their words
		// may hold substitutions
		if st.Cmd != nil {
			syntax.Walk(st.Cmd, walk)
		}
		for _, r := range st.Redirs {
			syntax.Walk(r, walk)
		}
	}
	visit(fd.Body, false)
	return bomb
}
