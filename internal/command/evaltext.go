package command

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Text bash evaluates as code although the line quotes it. An array
// subscript is expanded when bash evaluates it, and bash evaluates names
// and expressions given as text in many places: printf -v 'a[$(cmd)]', read,
// mapfile, unset, declare and its kin, let, test -v and [[ -v ]], (( )),
// $(( )) and [[ -eq ]] on a variable that holds such a name, ${!ref}. So
// where a script has such a place and a quoted text shaped like a subscript
// with an expansion in it (a[$(cmd)], a[`cmd`], a[${x}]), the expansions in
// that text are walked as if the script ran them: what they read, write or
// run meets the rules like the rest of the line.

// evalBuiltins evaluate a name, subscript or expression given as text.
var evalBuiltins = map[string]bool{
	"printf": true, "read": true, "mapfile": true, "readarray": true, "unset": true, "declare": true,
	"typeset": true, "local": true, "export": true, "readonly": true, "let": true, "wait": true,
	"getopts": true, "test": true, "[": true, "eval": true, "shift": true, "return": true, "exit": true,
	"ulimit": true, "kill": true, "trap": true,
}

// codeShaped reports whether a text, once bash evaluates it as a name or
// an expression, runs or expands something: a subscript holding $(, ` or
// ${.
func codeShaped(v string) bool {
	i := strings.IndexByte(v, '[')
	if i < 0 {
		return false
	}
	rest := v[i:]
	return strings.Contains(rest, "$(") || strings.Contains(rest, "`") || strings.Contains(rest, "${") || strings.Contains(rest, "$[")
}

// evalText looks at one parsed script for such text and walks what it runs.
func (s *scriptWalk) evalText(f *syntax.File) {
	if !mayHoldCodeText(s.src) {
		return // (most lines: no subscript-shaped text, no walk)
	}
	var texts []string
	evaluates := false
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.SglQuoted:
			if codeShaped(n.Value) {
				texts = append(texts, n.Value)
			}
		case *syntax.Lit:
			if strings.IndexByte(n.Value, '\\') >= 0 {
				if v := strings.ReplaceAll(n.Value, `\`, ""); codeShaped(v) {
					texts = append(texts, v)
				}
			}
		case *syntax.ArithmCmd, *syntax.ArithmExp, *syntax.LetClause, *syntax.TestClause, *syntax.DeclClause:
			evaluates = true
		case *syntax.ParamExp:
			if n.Excl || n.Index != nil || n.Slice != nil {
				evaluates = true
			}
		case *syntax.CallExpr:
			for _, w := range n.Args {
				if evalBuiltins[w.Lit()] {
					evaluates = true
					break
				}
			}
		}
		return true
	})
	if !evaluates {
		return
	}
	for _, t := range texts {
		s.evalSubscript(t)
	}
}

// evalSubscript walks the expansions in text as bash would run them when it
// evaluates the text (in the shell itself, as eval does).
func (s *scriptWalk) evalSubscript(text string) {
	if s.depth+1 > maxScriptDepth {
		s.w.fail(errTooDeep)
		return
	}
	src := ": " + text
	f, err := parse(src)
	if err != nil {
		s.w.fail(fmt.Errorf("bash evaluates %s as code on this line, and it does not parse as shell: %v", Short(text), err))
		return
	}
	sub := &scriptWalk{w: s.w, src: src, depth: s.depth + 1, parent: s.parent, outer: s, vars: newVarTable(src)}
	sub.scanSrc()
	sub.collectVars(f, sub.vars)
	for _, st := range f.Stmts {
		sub.stmt(st, -1, 0)
	}
}

// mayHoldCodeText reports whether src could hold a quoted text codeShaped
// finds: a [ followed somewhere by $( ` ${ or $[.
func mayHoldCodeText(src string) bool {
	i := strings.IndexByte(src, '[')
	return i >= 0 && strings.ContainsAny(src[i:], "$`")
}
