package command

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Variables a line sets. Before a script is walked, every assignment in it
// is collected: a variable given only plain literal values (`X=rm`,
// `export F=.env`, `for f in a b c`) resolves to those values, so `X=rm;
// $X x` is checked as `rm x` and `F=.env; cat $F` as `cat .env`. A variable
// the line sets in any other way (read, mapfile, printf -v, arithmetic,
// ${X:=..}, a value computed at run time, declare -n ...) is computed: the
// engine cannot know its value, and a word using it is only known at run
// time. A variable the line never sets comes from the environment the
// person started the agent with. The values are not flow-sensitive: every
// value a variable is given anywhere on the line is a candidate everywhere.

// maxVarValues bounds the values one variable may hold before it counts as computed.
const maxVarValues = 16

// varInfo is what the line sets a variable to.
type varInfo struct {
	values   []string // the literal values it is given
	computed bool     // set in a way whose value cannot be known
	glob     bool     // a loop variable over file patterns: each value is a pattern (for f in *.go)
}

// varTable maps a variable name to what the line sets it to.
type varTable map[string]*varInfo

// newVarTable is the table for the variables script src sets: nil when it
// sets none (collectVars then has nothing to do, and reads find nothing).
func newVarTable(src string) varTable {
	if !setsVars(src) {
		return nil
	}
	return varTable{}
}

func (t varTable) get(name string) *varInfo {
	v := t[name]
	if v == nil {
		v = &varInfo{}
		t[name] = v
	}
	return v
}

func (t varTable) setComputed(name string) {
	if name != "" {
		t.get(name).computed = true
	}
}

func (t varTable) addValue(name, val string) {
	v := t.get(name)
	for _, x := range v.values {
		if x == val {
			return
		}
	}
	if len(v.values) >= maxVarValues {
		v.computed = true
		return
	}
	v.values = append(v.values, val)
}

// varSetters are builtins that set the variables named by their operands.
var varSetters = map[string]bool{"read": true, "mapfile": true, "readarray": true, "getopts": true, "let": true, "unset": true, "wait": true}

// isVarWord reports whether w is a word that may set a variable without
// an "=" (a switch: setsVars asks it of every word of every line).
func isVarWord(w string) bool {
	switch w {
	case "for", "select", "read", "mapfile", "readarray", "getopts", "let",
		"unset", "wait", "printf", "source", "eval", "declare", "typeset",
		"local", "export", "readonly":
		return true
	}
	return false
}

// setsVars reports whether a script text may set a variable at all: an
// assignment, a loop, a builtin that sets one, arithmetic, source or eval
// (one pass over the text). A script with none of these needs no walk for
// them.
func setsVars(src string) bool {
	start := -1
	for i := 0; i < len(src); i++ {
		c := src[i]
		k := varBytes[c]
		if k == varLetter {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			if isVarWord(src[start:i]) {
				return true
			}
			start = -1
		}
		if k == 0 {
			continue // (most bytes: none of the cases below)
		}
		switch c {
		case '=', '[':
			return true // VAR=, ${X:=}, a[i++] ...
		case '(', '+':
			if i+1 < len(src) && src[i+1] == c {
				return true // ((i--)), i++
			}
		case '.':
			// the "." builtin: a lone dot at a word's start
			if (i == 0 || strings.IndexByte(" \t\n;&|({`", src[i-1]) >= 0) && (i+1 == len(src) || strings.IndexByte(" \t\n", src[i+1]) >= 0) {
				return true
			}
		}
	}
	return start >= 0 && isVarWord(src[start:])
}

// varBytes sorts the bytes setsVars reads: the letters of a word (and
// "_"), and the bytes its cases start with.
const (
	varLetter = 1
	varMark   = 2
)

var varBytes = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = varLetter, varLetter
	}
	t['_'] = varLetter
	for _, c := range "=[(+." {
		t[c] = varMark
	}
	return t
}()

// collectVars records the assignments of a parsed script into t. The
// values of literal assignments are read with s (which already knows the
// variables of enclosing scripts, for `Y=$X`-free literals only).
func (s *scriptWalk) collectVars(f *syntax.File, t varTable) {
	if t == nil {
		return // the script sets no variable (newVarTable)
	}
	assign := func(a *syntax.Assign, declFlags bool) {
		if a == nil || a.Name == nil {
			return
		}
		name := a.Name.Value
		switch {
		case declFlags, a.Append, a.Index != nil, a.Array != nil:
			t.setComputed(name)
		case a.Naked:
			// `export X`: no new value
		case a.Value == nil:
			t.addValue(name, "")
		default:
			v, dyn := s.plainLit(a.Value)
			if dyn {
				t.setComputed(name)
				return
			}
			t.addValue(name, v)
			s.seeNamedDir(v)
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				for _, a := range n.Assigns {
					assign(a, false)
				}
				return true
			}
			// prefix assignments only reach that command's environment
			name := n.Args[0].Lit()
			switch {
			case varSetters[name]:
				for _, w := range n.Args[1:] {
					if l := w.Lit(); isName(l) {
						t.setComputed(l)
					}
				}
			case name == "printf":
				for i, w := range n.Args[1:] {
					if w.Lit() == "-v" && i+2 < len(n.Args) {
						t.setComputed(n.Args[i+2].Lit())
					}
				}
			case name == "source" || name == ".":
				t.setComputed("*") // a sourced file may set anything
			case name == "eval":
				t.setComputed("*")
			}
		case *syntax.DeclClause:
			flags := false
			for _, a := range n.Args {
				if a.Name == nil && a.Value != nil {
					// an option word such as -n, -a, -i
					if lit := a.Value.Lit(); strings.HasPrefix(lit, "-") && strings.Trim(lit, "-xrgp") != "" {
						flags = true
					}
					continue
				}
				assign(a, flags)
			}
		case *syntax.ForClause:
			if wi, ok := n.Loop.(*syntax.WordIter); ok && wi.Name != nil {
				if !wi.InPos.IsValid() || n.Select {
					t.setComputed(wi.Name.Value)
					break
				}
				for _, w := range wi.Items {
					v, dyn := s.plainLit(w)
					if dyn {
						t.setComputed(wi.Name.Value)
						break
					}
					if hasGlob(w) {
						t.get(wi.Name.Value).glob = true
					}
					t.addValue(wi.Name.Value, v)
				}
			}
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause:
			syntax.Walk(n, func(x syntax.Node) bool {
				if b, ok := x.(*syntax.BinaryArithm); ok && b.Op >= syntax.Assgn {
					if w, ok := b.X.(*syntax.Word); ok {
						t.setComputed(w.Lit())
					}
				}
				if u, ok := x.(*syntax.UnaryArithm); ok && (u.Op == syntax.Inc || u.Op == syntax.Dec) {
					if w, ok := u.X.(*syntax.Word); ok {
						t.setComputed(w.Lit())
					}
				}
				return true
			})
		case *syntax.ParamExp:
			if n.Exp != nil && n.Param != nil {
				switch n.Exp.Op {
				case syntax.AssignUnset, syntax.AssignUnsetOrNull:
					t.setComputed(n.Param.Value)
				}
			}
		}
		return true
	})
}

// plainLit returns the literal value of a word made only of literal parts
// and quotes (no expansion at all), and whether it is not one.
func (s *scriptWalk) plainLit(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, false))
		case *syntax.SglQuoted:
			if p.Dollar {
				v, ok := ansiC(p.Value)
				if !ok {
					return "", true
				}
				b.WriteString(v)
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", true
				}
				b.WriteString(unescape(l.Value, true))
			}
		default:
			return "", true
		}
	}
	return b.String(), false
}

// hasGlob reports whether a word has an unquoted glob character or an
// extended glob.
func hasGlob(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if hasGlobChar(p.Value) {
				return true
			}
		case *syntax.ExtGlob:
			return true
		}
	}
	return false
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && !(i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// varOf returns what the line sets a variable to, from this script or
// one that runs it (nil when it does not set it).
func (s *scriptWalk) varOf(name string) *varInfo {
	for sc := s; sc != nil; sc = sc.outer {
		if v := sc.vars[name]; v != nil {
			return v
		}
	}
	return nil
}

// lookupVar says what a variable expands to at one point of the line: its
// only literal value (ok), several possible values, or that it is computed
// (or, from the environment, env).
func (s *scriptWalk) lookupVar(name string) (values []string, computed, env bool) {
	for sc := s; sc != nil; sc = sc.outer {
		if sc.vars == nil {
			continue
		}
		if all := sc.vars["*"]; all != nil && all.computed {
			return nil, true, false
		}
		if v := sc.vars[name]; v != nil {
			if v.computed {
				return nil, true, false
			}
			return v.values, false, false
		}
	}
	if !isName(name) {
		return nil, true, false // $1, $@, $*, $#, $?, $$, $!, $-, $0, $_
	}
	return nil, false, true
}

// seeNamedDir remembers a variable's value: after a cd only known at run
// time (cd "$d" once the line may have changed d), the folder it names is
// tried for relative paths too. Nothing is looked up here: most lines never
// lose their folder (namedDirs does it then).
func (s *scriptWalk) seeNamedDir(v string) {
	if v == "" || strings.ContainsAny(v, "\n*?[") || len(v) > 4096 || len(s.w.named) >= MaxSeen {
		return
	}
	s.w.named = append(s.w.named, v)
}
