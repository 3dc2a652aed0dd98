package command

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// What the engine cannot see through, a deny or ask rule catches. This file
// finds, for one simple command, what it runs that the line does not spell
// out: a command name, script or argument computed at run time, a script a
// shell reads from its input, code given inline to an interpreter, a
// variable that changes what runs. Such a command gets an unseen reason:
// every deny and ask rule that could apply to it fires, and the decision
// names the reason. Commands a runner may run are added as commands of
// their own (denyOnly when the engine only supposes they run).

// runEnv are variables that change which program runs or what it loads
// before its own code: a command behind them cannot be seen through.
var runEnv = Table[map[string]bool]{Make: func() map[string]bool {
	return map[string]bool{
		"LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "LD_AUDIT": true, "DYLD_INSERT_LIBRARIES": true,
		"DYLD_LIBRARY_PATH": true, "BASH_ENV": true, "ENV": true, "PATH": true, "NODE_OPTIONS": true,
		"NODE_PATH": true, "PYTHONSTARTUP": true, "PYTHONPATH": true, "PYTHONHOME": true, "PERL5OPT": true,
		"PERL5LIB": true, "PERLLIB": true, "RUBYOPT": true, "RUBYLIB": true, "GIT_EXEC_PATH": true,
		"GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true, "GIT_DIR": true,
		"GIT_WORK_TREE": true, "GIT_TEMPLATE_DIR": true, "SHELLOPTS": true, "BASHOPTS": true, "IFS": true,
		"CDPATH": true, "JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true, "GCONV_PATH": true, "MALLOC_CONF": false,
		"ZDOTDIR": true, "HOME": true, "XDG_CONFIG_HOME": true, "npm_config_script_shell": true,
		"NPM_CONFIG_SCRIPT_SHELL": true, "GOFLAGS": false, "RUSTC_WRAPPER": true, "CC": true, "CXX": true,
	}
}}

func isRunEnv(name string) bool {
	return runEnv.Get()[name] || strings.HasPrefix(name, "GIT_CONFIG_") || strings.HasPrefix(name, "BASH_FUNC_")
}

// assignments records the variables set before a command: their names
// (an allow pattern covers the command only when every one is on the safe
// list), the commands held by variables some program runs
// (GIT_EXTERNAL_DIFF='rm -rf x;' git diff) and the variables that change
// what runs (LD_PRELOAD, PATH, BASH_ENV ...).
func (s *scriptWalk) assignments(cmd *Command, assigns []*syntax.Assign) {
	for _, a := range assigns {
		if a == nil || a.Name == nil {
			continue
		}
		name := a.Name.Value
		cmd.setMore().Assigns = append(cmd.More().Assigns, name)
		switch {
		case codeEnv.Get()[name]:
			// checked as a script once the command is added (opaque)
			v := namedScript{name: name}
			if a.Value != nil {
				wi := s.wordInfo(a.Value)
				v.text, v.dyn = wi.text, wi.dyn
			}
			cmd.setMore().codeVars = append(cmd.More().codeVars, v)
		case isRunEnv(name):
			cmd.see(fmt.Sprintf("%s=… changes what %s runs", name, cmdName(cmd)))
		}
	}
}

func cmdName(cmd *Command) string {
	if len(cmd.Words) == 0 {
		return "the command"
	}
	return cmd.Words[0]
}

// namedScript is a command held by a variable set before a command.
type namedScript struct {
	name, text string
	dyn        bool
}

// see records the first reason a command cannot be seen through.
func (cmd *Command) see(why string) {
	if cmd.unseen == "" {
		cmd.unseen = why
	}
}

// wordEffects records what the command's words hide: a name only known at
// run time or given as a pattern, words computed on the line (file rules
// fire on them), and the names a word takes through variables with known
// values (tried as alternatives).
func (s *scriptWalk) wordEffects(c *Command, infos []wordInfo) {
	for i, wi := range infos {
		if i == 0 {
			switch {
			case wi.values != nil:
				// every name it may be is tried by deny and ask rules
			case wi.dyn:
				c.see(fmt.Sprintf("the command name is only known at run time (%s)", Short(wi.text)))
			case wi.glob:
				c.see(fmt.Sprintf("the command name is a file pattern (%s)", Short(wi.text)))
			}
		}
		if wi.values != nil {
			for _, v := range wi.values {
				alt := append([]string(nil), c.Words...)
				alt[i] = v
				r := c.setMore()
				r.Alts = append(r.Alts, alt)
				if args, met, more := stripWrappers(alt); len(met) > 0 {
					r.Alts = append(r.Alts, args)
					r.Alts = append(r.Alts, more...)
				}
				if i > 0 && wi.glob {
					s.globWord(v)
				} else if i > 0 {
					s.argWord(v)
				}
			}
			continue
		}
		if wi.computed && i > 0 && !dataOnly(c, i) {
			r := c.setMore()
			r.computed = append(r.computed, Short(wi.why))
			if progs.Get()[programName(c.Words[0])]&progWritesModeled != 0 || (len(c.Args) > 0 && progs.Get()[programName(c.Args[0])]&progWritesModeled != 0) {
				// cp x "$(...)": the file it changes may be vibing's
				// permissions or a file that runs code
				c.see(fmt.Sprintf("a file %s changes is only known at run time (%s)", cmdName(c), Short(wi.why)))
			}
		}
		if wi.glob && !wi.dyn && i > 0 {
			s.globWord(wi.text)
		}
	}
}

// dataOnly reports whether word i of a command is text the command does not
// open as a file: arguments of echo, printf, cd (whose folder the walk
// tracks), test, and git's commit or tag message.
func dataOnly(c *Command, i int) bool {
	args := c.Words
	switch programName(args[0]) {
	case "echo", "printf", "cd", "pushd", "test", "[", "[[", "true", ":", "sleep", "expr", "exit", "return",
		"kill", "date", "export", "local", "declare", "readonly", "set", "shift", "let", "wait":
		return true
	case "git":
		prev := args[i-1]
		return prev == "-m" || prev == "--message" || strings.HasPrefix(args[i], "--message=")
	}
	return false
}

func Short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// opaque looks for what command me runs that its words do not spell out.
func (s *scriptWalk) opaque(me int, redirs []*syntax.Redirect) {
	c := &s.w.c.Commands[me]
	for _, v := range c.More().codeVars {
		if v.dyn {
			s.w.c.Commands[me].see(fmt.Sprintf("%s holds a command only known at run time", v.name))
			continue
		}
		s.subScript(me, v.name, v.text, false)
	}
	c = &s.w.c.Commands[me]
	if c.DynamicName || c.unseen != "" {
		return
	}
	// NAME=VALUE words given to env (or sudo) before the command
	var before []string
	if n := len(c.Words) - len(c.Args); n > 1 {
		before = c.Words[1:n]
	}
	for _, w := range before {
		name, val, ok := strings.Cut(w, "=")
		if !ok || !isAssignment(w) {
			continue
		}
		switch {
		case codeEnv.Get()[name]:
			s.runScript(me, name, val, false)
		case isRunEnv(name):
			s.w.c.Commands[me].see(fmt.Sprintf("%s=… changes what %s runs", name, cmdName(c)))
		}
		c = &s.w.c.Commands[me]
	}
	for i, w := range c.Words {
		if !hasXargs(c) {
			break
		}
		if programName(w) != "xargs" {
			continue
		}
		if n := programName(c.Args[0]); len(c.More().computed) == 0 && n != "echo" && n != "printf" {
			if roots, ok := s.findFeeds(c); ok {
				// find … | xargs CMD: CMD gets the files find finds,
				// whatever lies below its roots, as -exec CMD {} does
				saved := s.w.mode
				s.w.mode = argMode{tree: true, mayWrite: argModeOf(c.Args).mayWrite}
				for _, root := range roots {
					s.argWord(root)
				}
				s.w.mode = saved
			} else {
				r := c.setMore()
				r.computed = append(r.computed, "the arguments xargs reads from its input")
			}
		}
		if repl := xargsReplace(c.Words[i+1:]); repl != "" {
			rest, _ := skipWrapper("xargs", wrappers.Get()["xargs"], c.Words[i+1:])
			for k, w := range rest {
				if strings.Contains(w, repl) && (k == 0 || IsShell(programName(rest[0])) || programName(rest[0]) == "eval") {
					c.see(fmt.Sprintf("xargs puts its input into the command it runs (%s)", Short(strings.Join(rest, " "))))
					return
				}
			}
		}
	}
	if len(c.Args) > 0 {
		name := c.Args[0]
		if strings.HasPrefix(name, "~") && s.varOf("HOME") != nil {
			c.see(fmt.Sprintf("the command name depends on $HOME, which the line sets (%s)", Short(name)))
			return
		}
		if strings.Contains(name, "/") && s.writtenByLine(name) {
			c.see(fmt.Sprintf("%s is a file the line itself writes", Short(name)))
			return
		}
	}
	if len(c.Args) > 0 && c.IsDyn(c.Args[0]) {
		c.see(fmt.Sprintf("the command name is only known at run time (%s)", Short(c.Args[0])))
		return
	}
	if len(c.Args) > 0 && len(c.Words) > len(c.Args) && bytesGlob.In(c.Args[0]) {
		c.see(fmt.Sprintf("the command name is a file pattern (%s)", Short(c.Args[0])))
		return
	}
	for _, words := range [][]string{c.Args, c.More().expandedArgs} {
		if len(words) == 0 {
			continue
		}
		s.opaqueWords(me, words, redirs)
	}
}

// opaqueWords examines one spelling of the command behind its wrappers.
func (s *scriptWalk) opaqueWords(me int, args []string, redirs []*syntax.Redirect) {
	c := &s.w.c.Commands[me]
	name := programName(args[0])
	dynAt := func(word string) bool { return c.IsDyn(word) }
	if spellsOut(name) {
		if alts := subcommandAlts(args); len(alts) > 0 {
			// npm pub is npm publish, kubectl po is pod: rules for the full name meet it
			r := c.setMore()
			r.Alts = append(r.Alts, alts...)
		}
	}
	switch {
	case IsShell(name):
		script, ok, _ := s.shellScript(args[1:], redirs)
		switch {
		case ok && dynAt(script):
			c.see(fmt.Sprintf("the script %s runs is only known at run time (%s)", name, Short(script)))
		case ok:
		case s.readsInput(c, args[1:], redirs):
			c.see(fmt.Sprintf("%s reads its script from its input", name))
		default:
			if f := firstOperand(args[1:], "oO"); f != "" && s.writtenByLine(f) {
				c.see(fmt.Sprintf("%s runs %s, a script the line itself writes", name, Short(f)))
			}
		}
	case name == "hash" || name == "enable":
		for _, a := range args[1:] {
			if a == "-p" || a == "-f" || (strings.HasPrefix(a, "-") && strings.ContainsAny(a, "pf")) {
				c.see(fmt.Sprintf("%s %s changes which program a command name runs", name, a))
				break
			}
		}
	case name == "eval":
		for _, a := range args[1:] {
			if dynAt(a) {
				c.see(fmt.Sprintf("eval runs text only known at run time (%s)", Short(a)))
			}
		}
	case name == "source" || name == ".":
		if len(args) < 2 || dynAt(args[1]) || isStdinPath(args[1]) || strings.HasPrefix(args[1], "/dev/fd/") || strings.HasPrefix(args[1], "/proc/") {
			c.see(fmt.Sprintf("%s reads a script the engine cannot see", name))
		} else if s.writtenByLine(args[1]) {
			c.see(fmt.Sprintf("%s runs %s, a script the line itself writes", name, Short(args[1])))
		}
	case name == "trap":
		if len(args) > 1 {
			s.runScript(me, name, args[1], false)
		}
	case name == "mapfile" || name == "readarray" || name == "complete" || name == "compgen" || name == "bind":
		// mapfile -C CALLBACK, complete/compgen -C COMMAND, bind -x
		// 'KEYS: COMMAND': code the builtin runs
		for i := 1; i < len(args); i++ {
			a := args[i]
			switch {
			case (a == "-C" || (name == "bind" && a == "-x")) && i+1 < len(args):
				v := args[i+1]
				if name == "bind" {
					if _, cmd, ok := strings.Cut(v, ":"); ok {
						v = cmd
					}
				}
				s.runScript(me, name+" "+a, v, false)
				c = &s.w.c.Commands[me]
				i++
			case len(a) > 2 && strings.HasPrefix(a, "-C"):
				s.runScript(me, name+" -C", a[2:], false)
				c = &s.w.c.Commands[me]
			}
		}
	case name == "alias":
		for _, a := range args[1:] {
			if _, v, ok := strings.Cut(a, "="); ok {
				if _, err := parse(v); err != nil && !c.IsDyn(v) {
					// what the alias runs where it is used: unread, it
					// may be anything
					c.see(fmt.Sprintf("the alias runs text that does not parse as shell (%s)", Short(v)))
					continue
				}
				s.runScript(me, name, v, true)
			}
		}
	case name == "watch":
		s.watch(me, args[1:])
	case name == "script" || name == "flock" || name == "sg" || name == "expect" || name == "nix-shell":
		for i, a := range args[1:] {
			if (a == "-c" || a == "--command" || a == "--run") && i+2 < len(args) {
				s.runScript(me, name, args[i+2], false)
			}
			if v, ok := strings.CutPrefix(a, "--command="); ok {
				s.runScript(me, name, v, false)
			}
		}
		s.suppose(me, args)
	case name == "git":
		s.git(me, args[1:])
	case name == "go":
		s.goTool(me, args[1:])
	case name == "make" || name == "gmake":
		s.makeRecipes(me, args[1:])
	case name == "sed":
		if sedRuns(args[1:]) {
			c.see("sed's e command runs its text as a command")
		}
		s.codeWords(me, sedFiles(args[1:]))
	case s.w.progBits(name)&progInlineOperand != 0: // (inlineOperand, as the program table holds it)
		s.awk(me, name, args[1:])
	default:
		if b := s.w.progBits(name); b&progKnown != 0 && b&(progInline|progRunnerSub|progRunner) == 0 {
			return // a known program that runs nothing named in its arguments
		}
		if in, ok := interpOf(name); ok {
			if prog := firstOperand(args[1:], ""); prog != "" && !strings.ContainsAny(prog, " ()'\"$;=") && s.writtenByLine(prog) {
				c.see(fmt.Sprintf("%s runs %s, a file the line itself writes", name, Short(prog)))
				return
			}
			s.interpreter(me, name, in, args[1:], redirs)
			if _, runs := RunnerSubcommands.Get()[name]; !runs {
				return
			}
			// bun run, bun x: also a runner
		}
		if subs, ok := RunnerSubcommands.Get()[name]; ok {
			if sub, _ := firstOperandAt(args[1:]); subs[sub] || len(subs) == 0 {
				s.suppose(me, args)
				s.supposedCode(me, args, redirs)
			}
			return
		}
		if runners.Get()[name] && !isWrapperName(name) {
			s.suppose(me, args)
			s.supposedCode(me, args, redirs)
			return
		}
		if !isKnownProgram(name) {
			s.suppose(me, args)
			s.supposedCode(me, args, redirs)
		}
	}
}

// findFeeds returns the roots of a find command whose output is piped
// straight into this one (find ROOTS … | xargs CMD).
func (s *scriptWalk) findFeeds(c *Command) ([]string, bool) {
	if c.Index == 0 {
		return nil, false
	}
	for i := range s.w.c.Commands {
		p := &s.w.c.Commands[i]
		if p.Pipeline != c.Pipeline || p.Index != c.Index-1 || p.denyOnly || len(p.Args) == 0 {
			continue
		}
		if programName(p.Args[0]) == "find" && p.unseen == "" && !p.Dynamic {
			return findRoots(p.Args[1:]), true
		}
	}
	return nil, false
}

// hasXargs reports whether xargs is among the wrappers the command runs through.
func hasXargs(c *Command) bool {
	for _, w := range c.More().Wrappers {
		if w == "xargs" {
			return true
		}
	}
	return false
}

func isWrapperName(name string) bool {
	_, ok := wrappers.Get()[name]
	return ok
}

// isDyn reports whether a word of the command is only known at run time.
func (c *Command) IsDyn(word string) bool {
	dyn := c.More().Dyn
	if dyn == nil {
		return false
	}
	for i, w := range c.Words {
		if dyn[i] && w == word {
			return true
		}
	}
	return false
}

// readsInput reports whether a shell with these arguments reads its script
// from its input (no script file, -s, /dev/stdin) and that input is not a
// here-document the walk reads: a pipe, `< file`, or whatever it inherits.
func (s *scriptWalk) readsInput(c *Command, args []string, redirs []*syntax.Redirect) bool {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "-s" || (len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 's')) {
			return true
		}
		if a == "-o" || a == "+o" || a == "-O" || a == "+O" || a == "--rcfile" || a == "--init-file" {
			i++
			continue
		}
		if a == "--" || len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			break
		}
	}
	if i < len(args) && args[i] != "--" {
		if c.IsDyn(args[i]) {
			return true // bash <(curl ..): a script only known at run time
		}
		return isStdinPath(args[i])
	}
	for _, r := range redirs {
		if r.Op == syntax.RdrIn || r.Op == syntax.RdrInOut {
			return true
		}
	}
	return c.Index > 0 || s.inputPiped()
}

// writtenByLine reports whether a path a command runs is one an earlier
// command of the line writes (echo … > t.sh && sh t.sh, cp /bin/rm ./del):
// what it runs is not what its name says.
func (s *scriptWalk) writtenByLine(p string) bool {
	clean := strings.TrimPrefix(p, "./")
	mods := s.w.c.Modifies
	if s.w.modsBefore <= len(mods) {
		mods = mods[:s.w.modsBefore] // what earlier commands write, not this one
	}
	for _, lists := range [][]Path{s.w.c.Writes, mods} {
		for i := range lists {
			raw := strings.TrimPrefix(lists[i].Raw, "./")
			if raw == clean || (lists[i].inside && strings.HasPrefix(clean, strings.TrimSuffix(raw, "/")+"/")) {
				return true
			}
			if strings.Contains(clean, "/") && raw != "" && path.Base(raw) == path.Base(clean) {
				return true // the same name written from another folder: the walk cannot tell them apart
			}
		}
	}
	return false
}

// runScript checks a script a command runs (trap, alias, watch, flock -c):
// as commands of their own, or as unseen when only known at run time.
func (s *scriptWalk) runScript(me int, name, script string, denyOnly bool) {
	c := &s.w.c.Commands[me]
	if c.IsDyn(script) {
		c.see(fmt.Sprintf("the command %s runs is only known at run time (%s)", name, Short(script)))
		return
	}
	s.subScript(me, name, script, denyOnly)
}

// subScript walks a script some command runs as commands below it. A
// script that does not parse is tried as plain words by deny rules.
func (s *scriptWalk) subScript(me int, name, script string, denyOnly bool) {
	s.subScriptFed(me, name, script, denyOnly, false)
}

// subScriptFed is subScript for a script whose input may be a pipe from
// the command running it (fed): a shell or interpreter at its head reads
// what that command writes.
func (s *scriptWalk) subScriptFed(me int, name, script string, denyOnly, fed bool) {
	if s.depth+1 > maxScriptDepth {
		s.w.fail(errTooDeep)
		return
	}
	f, err := parse(script)
	if err != nil {
		if denyOnly {
			if fields := strings.Fields(script); len(fields) > 0 {
				r := s.w.c.Commands[me].setMore()
				r.Alts = append(r.Alts, fields)
			}
			return
		}
		s.w.fail(fmt.Errorf("the command %s runs does not parse as shell: %v", name, err))
		return
	}
	first := len(s.w.c.Commands)
	sub := &scriptWalk{w: s.w, src: script, depth: s.depth + 1, parent: me, outer: s, vars: newVarTable(script), fed: fed}
	sub.scanSrc()
	sub.collectVars(f, sub.vars)
	s.w.scoped(func() {
		for _, st := range f.Stmts {
			sub.stmt(st, -1, 0)
		}
		sub.evalText(f)
	})
	if denyOnly {
		for i := first; i < len(s.w.c.Commands); i++ {
			s.w.c.Commands[i].denyOnly = true
		}
	}
}

// suppose adds what a runner or an unknown program may run: every suffix
// of its words, and every argument that reads as a script, are tried by
// deny and ask rules (`flock f rm x`, `mytool --run "rm x"`).
func (s *scriptWalk) suppose(me int, args []string) {
	c := &s.w.c.Commands[me]
	for i := 1; i < len(args); i++ {
		if strings.HasPrefix(args[i], "-") {
			continue
		}
		if strings.Contains(args[i], "/") && hasGlobChar(args[i]) {
			// flock f /usr/bin/wg?t: a program named by a pattern
			c.see(fmt.Sprintf("%s may run a program named by a file pattern (%s)", cmdName(c), Short(args[i])))
		}
		r := c.setMore()
		r.Alts = append(r.Alts, args[i:])
	}
	for _, a := range args[1:] {
		if c.IsDyn(a) && a == args[0] {
			continue
		}
		if !bytesScript.In(a) {
			continue
		}
		if v, ok := strings.CutPrefix(a, "--"); ok && strings.Contains(v, "=") {
			_, a, _ = strings.Cut(v, "=")
		}
		s.subScript(me, programName(args[0]), a, true)
	}
}

// watch runs its arguments joined as one sh -c script, or (with -x) as a
// command.
func (s *scriptWalk) watch(me int, args []string) {
	i := 0
	execMode := false
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		a := args[i]
		i++
		if a == "--" {
			break
		}
		if a == "-x" || a == "--exec" {
			execMode = true
		}
		if a == "-n" || a == "--interval" || a == "-q" || a == "--equexit" {
			i++
		}
	}
	if i >= len(args) {
		return
	}
	if execMode {
		s.suppose(me, append([]string{"watch"}, args[i:]...))
		return
	}
	s.runScript(me, "watch", strings.Join(args[i:], " "), false)
}

// xargsReplace returns the replace string of xargs -I/-i/--replace.
func xargsReplace(args []string) string {
	for i, a := range args {
		switch {
		case a == "-I" && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, "-I") && len(a) > 2:
			return a[2:]
		case a == "-i" || a == "--replace":
			return "{}"
		case strings.HasPrefix(a, "--replace="):
			return strings.TrimPrefix(a, "--replace=")
		case strings.HasPrefix(a, "-i") && len(a) > 2:
			return a[2:]
		case !strings.HasPrefix(a, "-"):
			return ""
		}
	}
	return ""
}

// firstOperand returns a program's first operand, skipping options (and
// the values of the short options in valued).
func firstOperand(args []string, valued string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		}
		if len(a) > 1 && a[0] == '-' {
			if len(a) == 2 && strings.IndexByte(valued, a[1]) >= 0 {
				i++
			}
			continue
		}
		return a
	}
	return ""
}

func firstOperandAt(args []string) (string, int) {
	for i, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a, i
		}
	}
	return "", -1
}

// git looks at what git runs besides itself: `-c KEY=VALUE` with a key
// that can run a command (alias.x=!cmd, core.pager, core.sshCommand ...),
// and the subcommands that run one (submodule foreach, rebase --exec,
// bisect run, difftool -x).
func (s *scriptWalk) git(me int, args []string) {
	c := &s.w.c.Commands[me]
	for i := 0; i+1 < len(args) && strings.HasPrefix(args[i], "-"); i++ {
		if v, ok := strings.CutPrefix(args[i], "--config-env="); ok {
			key, _, _ := strings.Cut(v, "=")
			c.see(fmt.Sprintf("git --config-env %s takes a setting from the environment", key))
			continue
		}
		if args[i] != "-c" && args[i] != "--config-env" {
			if args[i] == "-C" || args[i] == "--git-dir" || args[i] == "--work-tree" || args[i] == "--namespace" {
				i++
			}
			continue
		}
		kv := args[i+1]
		i++
		key, val, _ := strings.Cut(kv, "=")
		lk := strings.ToLower(key)
		switch {
		case args[i-1] == "--config-env":
			c.see(fmt.Sprintf("git --config-env %s takes a setting from the environment", key))
		case strings.HasPrefix(lk, "alias.") && strings.HasPrefix(val, "!"):
			s.runScript(me, "git alias "+key[len("alias."):], val[1:], false)
		case strings.HasPrefix(lk, "alias."):
			// expands to a git subcommand: tried as `git VALUE ...` by deny rules
			alias := key[len("alias."):]
			if sub, rest := gitSubcommand(args[i+1:]); sub == alias {
				alt := append([]string{"git"}, strings.Fields(val)...)
				r := c.setMore()
				r.Alts = append(r.Alts, append(alt, rest...))
			}
		case !safeGitKey(lk):
			c.see(fmt.Sprintf("git -c %s can make git run a command or read a file", key))
		}
	}
	sub, rest := gitSubcommand(args)
	switch sub {
	case "submodule":
		for i, a := range rest {
			if a == "foreach" && i+1 < len(rest) {
				s.runScript(me, "git submodule foreach", strings.Join(rest[i+1:], " "), false)
				break
			}
		}
	case "rebase", "difftool", "mergetool":
		for i, a := range rest {
			if (a == "-x" || a == "--exec" || a == "--extcmd" || a == "-t" || a == "--tool") && i+1 < len(rest) && a != "-t" && a != "--tool" {
				s.runScript(me, "git "+sub, rest[i+1], false)
			}
			for _, p := range []string{"--exec=", "--extcmd="} {
				if v, ok := strings.CutPrefix(a, p); ok {
					s.runScript(me, "git "+sub, v, false)
				}
			}
		}
	case "bisect":
		if len(rest) > 1 && rest[0] == "run" {
			s.suppose(me, append([]string{"git bisect"}, rest[1:]...))
			c = &s.w.c.Commands[me]
			r := c.setMore()
			r.Alts = append(r.Alts, rest[1:])
		}
	case "grep":
		for i, a := range rest {
			if a == "-O" || a == "--open-files-in-pager" {
				if i+1 < len(rest) && !strings.HasPrefix(rest[i+1], "-") {
					s.runScript(me, "git grep -O", rest[i+1], false)
				}
			} else if v, ok := cutOpt(a, "--open-files-in-pager"); ok {
				s.runScript(me, "git grep -O", v, false)
			} else if strings.HasPrefix(a, "-O") && len(a) > 2 {
				s.runScript(me, "git grep -O", a[2:], false)
			}
		}
	}
}

// goTool follows the command go test/run/build runs besides the build:
// -exec CMD runs the test binary through CMD, -toolexec CMD runs every
// tool of the build through it.
func (s *scriptWalk) goTool(me int, args []string) {
	for i, a := range args {
		for _, opt := range []string{"-exec", "-toolexec", "--exec", "--toolexec"} {
			if a == opt && i+1 < len(args) {
				s.runScript(me, "go "+strings.TrimLeft(opt, "-"), args[i+1], false)
			} else if v, ok := cutOpt(a, opt); ok {
				s.runScript(me, "go "+strings.TrimLeft(opt, "-"), v, false)
			}
		}
	}
}

// makeCommandVars are make variables whose value is a program recipes run.
var makeCommandVars = Table[map[string]bool]{Make: func() map[string]bool {
	return map[string]bool{
		"SHELL": true, "MAKESHELL": true, ".SHELLFLAGS": true, "RM": true, "CC": true, "CXX": true, "CPP": true,
		"LD": true, "AR": true, "AS": true, "INSTALL": true, "MAKE": true, "CP": true, "MV": true, "MKDIR": true,
		"GO": true, "PYTHON": true, "NPM": true, "DOCKER": true, "CARGO": true, "SED": true, "AWK": true,
	}
}}

// makeRecipes marks make unseen when its recipes come from somewhere the
// engine cannot read or are changed on the line: a makefile read from the
// input, --eval text, or a variable that changes the shell or a command
// the recipes run (SHELL=, RM=, CC= ...).
func (s *scriptWalk) makeRecipes(me int, args []string) {
	c := &s.w.c.Commands[me]
	for i, a := range args {
		switch {
		case (a == "-f" || a == "--file" || a == "--makefile") && i+1 < len(args) && (isStdinPath(args[i+1]) || c.IsDyn(args[i+1])):
			c.see("make reads its makefile from its input")
			return
		case strings.HasPrefix(a, "--eval"):
			c.see("make --eval adds rules the engine does not read")
			return
		case !strings.HasPrefix(a, "-") && isAssignment(a):
			name, val, _ := strings.Cut(a, "=")
			if makeCommandVars.Get()[strings.TrimSuffix(name, "+")] || strings.ContainsAny(val, " \t;|&`$") {
				c.see(fmt.Sprintf("make %s changes what its recipes run", Short(a)))
				return
			}
		}
	}
}

// globWord records an argument that is a file pattern: the shell expands it
// to the names that exist when it runs, so file rules see those names.
func (s *scriptWalk) globWord(w string) {
	if dir, ok := s.w.dir.sure(); ok || !isRelative(w) {
		if !ok {
			dir = s.w.c.Env.Cwd
		}
		s.argRef(argRef{word: w, cwd: dir, glob: true})
		return
	}
	for _, dir := range s.w.bases(s.w.dir) {
		s.argRef(argRef{word: w, cwd: dir, glob: true})
	}
}
