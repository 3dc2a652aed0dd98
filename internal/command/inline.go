package command

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Code an interpreter runs that the line spells out: python3 -c CODE,
// perl -ne CODE, node -pe CODE, ruby -e CODE, php -r CODE, awk 'PROG',
// sqlite3 DB SQL, and a here-document fed to `python3 -`. The code is read
// for what the engine cannot follow (codeRisk, coderisk.go): a command it
// starts, a file it opens under a name computed at run time, code it
// loads. Such code makes the command unseen (every deny and ask rule
// fires); code that only writes or reads files under computed names
// (awk's print > $2) is a computed word for file rules. The string
// literals in the code are checked as file names either way (Read(.env)
// fires on python3 -c "print(open('.env').read())").
//
// An interpreter given no code and no script file reads its program from
// its input: a here-document is read as inline code, while a pipe or a
// `< file` makes the command unseen (as for a shell).

// interp says how an interpreter takes code on its command line.
type interp struct {
	lang     string   // language of codeRisk ("" = the generic word list)
	code     string   // short options whose value is code (-c, -e); the value is the rest of the word or the next word
	long     []string // long options whose value is code (--eval)
	valued   string   // short options that take a value (the rest of the word or the next word)
	attached string   // short options whose value is the rest of the word only (perl -i.bak)
	digits   string   // short options followed by digits only (perl -l0, -0777)
	load     string   // short options that load code or change where it runs (loadOption)
	loadLong []string // long options that load code (node --require)
	stops    string   // short options after which no program is read (python -m MOD, php -f FILE)
	info     string   // short options that print a version or help and exit
	anywhere bool     // code options may follow the operands (vim FILE -c CMD): all words are looked at
	codeEnds bool     // the first code option ends the interpreter's options (python -c)
	separate bool     // a short code option takes the next word, never the rest of its own (node -pe CODE)
	stdin    bool     // with no code and no script file, the program is read from the input
}

var interps = Table[map[string]*interp]{Make: func() map[string]*interp {
	return map[string]*interp{
		"python": {lang: "python", code: "c", valued: "WXQ", stops: "m", info: "Vh", codeEnds: true, stdin: true},
		"perl":   {lang: "perl", code: "eE", valued: "IMm", attached: "CDFixd", digits: "0l", load: "IMmd", info: "vh", stdin: true},
		"ruby":   {lang: "ruby", code: "e", valued: "IrCE", attached: "FiKxTW", digits: "0", load: "IrCx", info: "h", stdin: true},
		"node": {lang: "js", code: "ep", long: []string{"--eval", "--print"}, valued: "rC", load: "r", info: "vh", separate: true,
			loadLong: []string{"--require", "--import", "--loader", "--experimental-loader"}, stdin: true},
		"bun":    {lang: "js", code: "ep", long: []string{"--eval", "--print"}, valued: "r", load: "r", loadLong: []string{"--preload"}, separate: true},
		"php":    {lang: "php", code: "rRBE", valued: "dcfFzt", load: "dc", stops: "fF", info: "vhim", stdin: true},
		"lua":    {lang: "", code: "e", valued: "l", load: "l", info: "v", stdin: true},
		"sqlite": {lang: "sql"},
	}
}}

// interpOf returns how the interpreter name takes code: by language for
// the ones read closely (python3.12, pypy3, perl5.36, nodejs ...), else
// from inlineCode.
// trimVersion is strings.TrimRight(name, "0123456789.-") (python3.12 is
// python), without building the set of those bytes for each name.
func trimVersion(name string) string {
	for len(name) > 0 {
		if c := name[len(name)-1]; c >= '0' && c <= '9' || c == '.' || c == '-' {
			name = name[:len(name)-1]
			continue
		}
		break
	}
	return name
}

func interpOf(name string) (*interp, bool) {
	base := trimVersion(name)
	switch base {
	case "python", "pypy":
		return interps.Get()["python"], true
	case "nodejs":
		return interps.Get()["node"], true
	case "luajit":
		return interps.Get()["lua"], true
	case "perl", "ruby", "node", "bun", "php", "lua", "sqlite":
		return interps.Get()[base], true
	}
	flags, ok := inlineCode.Get()[name]
	if !ok {
		return nil, false
	}
	in := &interp{anywhere: true}
	for _, f := range flags {
		if len(f) == 2 && f[0] == '-' && f[1] != '-' {
			in.code += f[1:]
		} else {
			in.long = append(in.long, f)
		}
	}
	return in, true
}

// interpreter examines the code an interpreter runs (see above).
func (s *scriptWalk) interpreter(me int, name string, in *interp, args []string, redirs []*syntax.Redirect) {
	if in.lang == "sql" {
		s.sqlite(me, name, args)
		return
	}
	if name == "deno" {
		if sub, i := firstOperandAt(args); sub == "eval" {
			if code, _ := firstOperandAt(args[i+1:]); code != "" {
				s.inline(me, name, "js", code)
			}
		}
		return
	}
	codes, program := 0, false
	var loads []string // what load options bring in: unseen when the code is inline or read from the input
scan:
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		if a == "--" || len(a) < 2 || a[0] != '-' {
			if in.anywhere {
				continue // options may follow the files (vim FILE -c CMD)
			}
			if a == "--" {
				a = next()
			}
			program = codes == 0 && a != "" && !isStdinPath(a)
			break
		}
		for _, l := range in.long {
			if a == l || strings.HasPrefix(a, l+"=") {
				code, ok := strings.CutPrefix(a, l+"=")
				if !ok {
					code = next()
				}
				s.inline(me, name, in.lang, code)
				codes++
				if in.codeEnds {
					break scan
				}
				continue scan
			}
		}
		if strings.HasPrefix(a, "--") {
			opt, _, _ := strings.Cut(a, "=")
			for _, l := range in.loadLong {
				if opt == l {
					loads = append(loads, fmt.Sprintf("%s %s loads code the engine cannot see", name, l))
				}
			}
			program = program || opt == "--version" || opt == "--help"
			continue
		}
		for j := 1; j < len(a); j++ {
			ch := a[j]
			switch {
			case strings.IndexByte(in.code, ch) >= 0:
				code := a[j+1:]
				if code == "" || in.separate {
					code = next()
				}
				s.inline(me, name, in.lang, code)
				codes++
				if in.codeEnds {
					break scan
				}
				continue scan
			case strings.IndexByte(in.digits, ch) >= 0:
				for j+1 < len(a) && (a[j+1] >= '0' && a[j+1] <= '9' || a[j+1] == 'x' && ch == '0') {
					j++
				}
			case strings.IndexByte(in.attached, ch) >= 0, strings.IndexByte(in.valued, ch) >= 0:
				val := a[j+1:]
				if val == "" && strings.IndexByte(in.valued, ch) >= 0 {
					val = next()
				}
				if strings.IndexByte(in.load, ch) >= 0 {
					if why := s.loadOption(me, name, in.lang, ch, val); why != "" {
						loads = append(loads, why)
					}
				}
				if strings.IndexByte(in.stops, ch) >= 0 {
					program = true
					break scan
				}
				continue scan
			case strings.IndexByte(in.info, ch) >= 0:
				program = true // prints its version or help and exits
			}
		}
	}
	if len(loads) > 0 && (codes > 0 || !program && in.stdin) {
		s.w.c.Commands[me].see(loads[0]) // the code may call what the module defines
	}
	if codes > 0 || program || !in.stdin {
		return
	}
	s.stdinProgram(me, name, in.lang, redirs)
}

// supposedCode examines the code of the first interpreter among the words
// a runner may run (uv run python -c CODE, docker exec box node -e CODE).
func (s *scriptWalk) supposedCode(me int, args []string, redirs []*syntax.Redirect) {
	for i := 1; i < len(args); i++ {
		name := programName(args[i])
		if inlineOperand[name] {
			s.awk(me, name, args[i+1:])
			return
		}
		if in, ok := interpOf(name); ok && in.lang != "" {
			s.interpreter(me, name, in, args[i+1:], redirs)
			return
		}
	}
}

// loadOption reads an option that loads code or changes where it runs, and
// returns why inline code run with it cannot be seen through ("" when it
// can): perl -MModule and ruby -rlib are fine for the libraries codeRisk
// trusts; -I, perl -d, node -r, php -c and most of php -d are not (the
// code may call what they define). With a script file they are part of
// running that script. ruby -C and -xDIR move the program to another
// folder: unseen whatever runs.
func (s *scriptWalk) loadOption(me int, name, lang string, opt byte, val string) string {
	switch {
	case lang == "perl" && (opt == 'M' || opt == 'm'):
		mod, _, _ := strings.Cut(strings.TrimPrefix(val, "-"), "=")
		if !perlModules.has(mod) {
			return fmt.Sprintf("%s -%c%s loads a module the engine does not know", name, opt, Short(val))
		}
	case lang == "ruby" && opt == 'r':
		if !rubyLibs.has(val) {
			return fmt.Sprintf("%s -r%s loads a library the engine does not know", name, Short(val))
		}
	case lang == "ruby" && (opt == 'C' || opt == 'x'):
		if val != "" || opt == 'C' {
			s.w.c.Commands[me].see(fmt.Sprintf("%s -%c runs in another folder", name, opt))
		}
	case lang == "php" && opt == 'd':
		key, _, _ := strings.Cut(val, "=")
		if !phpSafeIni.has(strings.TrimSpace(key)) {
			return fmt.Sprintf("%s -d %s can load code", name, Short(key))
		}
	default:
		return fmt.Sprintf("%s -%c loads code the engine cannot see", name, opt)
	}
	return ""
}

// stdinProgram handles an interpreter that reads its program from its
// input: a here-document or here-string is read as inline code; a pipe or
// an input redirection is a program the engine cannot see.
func (s *scriptWalk) stdinProgram(me int, name, lang string, redirs []*syntax.Redirect) {
	for _, r := range redirs {
		var w *syntax.Word
		switch {
		case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil:
			w = r.Hdoc
		case r.Op == syntax.WordHdoc && r.Word != nil:
			w = r.Word
		case r.Op == syntax.RdrIn || r.Op == syntax.RdrInOut:
			s.w.c.Commands[me].see(fmt.Sprintf("%s reads its program from its input", name))
			return
		default:
			continue
		}
		text, dyn := s.word(w)
		if dyn {
			s.w.c.Commands[me].see(fmt.Sprintf("the code %s reads is only known at run time", name))
			return
		}
		s.inline(me, name, lang, text)
		return
	}
	if s.w.c.Commands[me].Index > 0 || s.inputPiped() {
		s.w.c.Commands[me].see(fmt.Sprintf("%s reads its program from its input", name))
	}
}

// inline examines code given inline to an interpreter of language lang.
func (s *scriptWalk) inline(me int, name, lang, code string) {
	c := &s.w.c.Commands[me]
	if c.IsDyn(code) {
		c.see(fmt.Sprintf("the code %s runs is only known at run time", name))
		return
	}
	if lang == "awk" {
		_, _, cmds := awkRisk(code)
		for _, cmd := range cmds {
			// print | "sort", system("date"): commands of their own
			s.subScriptFed(me, name, cmd.text, false, cmd.fed)
		}
		c = &s.w.c.Commands[me]
	}
	switch why, files := codeRisk(lang, code); {
	case why != "":
		c.see(fmt.Sprintf("the code given to %s %s", name, why))
	case files != "":
		r := c.setMore()
		r.computed = append(r.computed, files)
	}
	s.codeWords(me, quotedStrings(code))
}

// codeWords records words found in a command's code (string literals, sed's
// r FILE) as paths the command may read or write.
func (s *scriptWalk) codeWords(me int, words []string) {
	saved := s.w.mode
	s.w.mode = argModeOf(s.w.c.Commands[me].Words)
	for _, w := range words {
		s.argWord(w)
	}
	s.w.mode = saved
}

// awk examines an awk program: the first operand, or the values of gawk's
// -e/--source. A program from a file (-f) is a script file; one from the
// input (-f -) cannot be seen; --include and --load load code.
func (s *scriptWalk) awk(me int, name string, args []string) {
	var progs []string
	fromFile := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		val := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case a == "--":
			if len(progs) == 0 && !fromFile && i+1 < len(args) {
				progs = append(progs, args[i+1])
			}
			i = len(args)
		case a == "-e" || a == "--source":
			progs = append(progs, val())
		case strings.HasPrefix(a, "--source="):
			progs = append(progs, a[len("--source="):])
		case a == "-f" || a == "--file" || a == "-E" || a == "--exec":
			if f := val(); isStdinPath(f) {
				s.w.c.Commands[me].see(fmt.Sprintf("%s reads its program from its input", name))
				return
			}
			fromFile = true
		case a == "-i" || a == "--include" || a == "-l" || a == "--load" || strings.HasPrefix(a, "--include=") || strings.HasPrefix(a, "--load="):
			s.w.c.Commands[me].see(fmt.Sprintf("%s %s loads code the engine cannot see", name, a))
			return
		case a == "-F" || a == "-v" || a == "--field-separator" || a == "--assign":
			val()
		case len(a) > 1 && a[0] == '-':
		default:
			if len(progs) == 0 && !fromFile {
				progs = append(progs, a)
			}
			i = len(args)
		}
	}
	for _, p := range progs {
		s.inline(me, name, "awk", p)
	}
}

// quotedStrings returns the texts between matching quotes in code.
func quotedStrings(code string) []string {
	var out []string
	for i := 0; i < len(code) && len(out) < 64; i++ {
		q := code[i]
		if q != '\'' && q != '"' && q != '`' {
			continue
		}
		j := strings.IndexByte(code[i+1:], q)
		if j < 0 {
			break
		}
		if lit := code[i+1 : i+1+j]; lit != "" && !strings.ContainsAny(lit, "\n") {
			out = append(out, lit)
		}
		i += j + 1
	}
	return out
}

// sqlite examines the SQL and dot commands given to sqlite3 on its command
// line (the operands after the database, and -cmd). SQL it reads from its
// input is not looked at (a dump piped in is everyday work).
func (s *scriptWalk) sqlite(me int, name string, args []string) {
	var ops []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "-cmd" || a == "--cmd") && i+1 < len(args):
			s.inline(me, name, "sql", args[i+1])
			i++
		case (a == "-init" || a == "--init" || a == "-separator" || a == "-newline" || a == "-nullvalue" ||
			a == "-vfs" || a == "-maxsize" || a == "-mmap" || a == "-heap" || a == "-escape") && i+1 < len(args):
			i++
		case len(a) > 1 && a[0] == '-':
		default:
			ops = append(ops, a)
		}
	}
	for i := 1; i < len(ops); i++ {
		s.inline(me, name, "sql", ops[i])
	}
}
