package command

import (
	"strings"
)

// awk: a command given as a string literal to system(), to print | "cmd"
// or to "cmd" | getline is walked as a script of its own (its commands meet
// the deny rules as sh -c's do); one given any other way is unseen, and so
// are @include and @load. Output to a file (print > FILE) and getline <
// FILE, with FILE not a string literal, and a program that sets ARGV,
// touch files under names computed at run time: file rules fire. Strings,
// regular expressions (/a|b/) and comments are not looked into.
var awkLoad = newLazyRE(`@\s*(?:include|load)\b`)

var awkLiteral = newLazyRE(`^\s*"[^"\\\n]*"\s*$`)

// awkRisk returns why the program cannot be seen through, what it does to
// files under computed names, and the commands it runs as literals.
func awkRisk(code string) (why, files string, cmds []awkCommand) {
	m := awkMask(code)
	if awkLoad.MatchString(m) {
		return "can load code (@include, @load)", "", nil
	}
	for i := 0; i < len(m); i++ {
		if m[i] != '|' {
			continue
		}
		if i+1 < len(m) && m[i+1] == '|' {
			i++
			continue
		}
		cmd, fed, ok := awkPipeCommand(m, code, i)
		if !ok {
			return "can run commands (|)", "", nil
		}
		cmds = append(cmds, awkCommand{cmd, fed})
	}
	for _, t := range idents(m, false) {
		switch t.s {
		case "system":
			lit := awkCallLiteral.FindStringSubmatch(code[t.end:])
			if lit == nil {
				return "can run commands (system)", "", nil
			}
			cmds = append(cmds, awkCommand{text: lit[1]})
		case "ARGV", "ARGC":
			files = "the files awk's program puts in ARGV"
		case "print", "printf":
			if target, ok := awkRedirect(m, code, t.end, '>'); ok && !awkLiteral.MatchString(target) {
				files = "the file awk's print > writes: " + Short(target)
			}
		case "getline":
			if target, ok := awkRedirect(m, code, t.end, '<'); ok && !awkLiteral.MatchString(target) {
				files = "the file awk's getline < reads: " + Short(target)
			}
		}
	}
	return "", files, cmds
}

// awkCommand is a command line an awk program runs; fed when the program
// writes to it (print | "cmd").
type awkCommand struct {
	text string
	fed  bool
}

var awkCallLiteral = newLazyRE(`^\s*\(\s*"([^"\\\n]*)"\s*\)`)

// awkPipeCommand reads the command of the pipe at m[i]: a string literal
// standing alone after it (print | "sort -n", |& for gawk's coprocess), or
// before it when getline follows ("date" | getline d). fed says awk writes
// to the command.
func awkPipeCommand(m, code string, i int) (cmd string, fed, ok bool) {
	j := i + 1
	if j < len(m) && m[j] == '&' {
		j++
	}
	for j < len(m) && (m[j] == ' ' || m[j] == '\t') {
		j++
	}
	if j < len(m) && m[j] == '"' {
		end := strings.IndexByte(m[j+1:], '"')
		if end < 0 {
			return "", false, false
		}
		end += j + 1
		k := end + 1
		for k < len(m) && (m[k] == ' ' || m[k] == '\t') {
			k++
		}
		lit := code[j+1 : end]
		if (k == len(m) || strings.IndexByte(";}\n)", m[k]) >= 0) && !strings.ContainsAny(lit, "\\\n") {
			return lit, true, true
		}
		return "", false, false
	}
	if !strings.HasPrefix(m[j:], "getline") {
		return "", false, false
	}
	k := i - 1
	for k >= 0 && (m[k] == ' ' || m[k] == '\t') {
		k--
	}
	if k < 0 || m[k] != '"' {
		return "", false, false
	}
	open := strings.LastIndexByte(m[:k], '"')
	if open < 0 {
		return "", false, false
	}
	b := open - 1
	for b >= 0 && (m[b] == ' ' || m[b] == '\t') {
		b--
	}
	lit := code[open+1 : k]
	if (b < 0 || strings.IndexByte("(;{}\n", m[b]) >= 0) && !strings.ContainsAny(lit, "\\\n") {
		return lit, false, true
	}
	return "", false, false
}

// awkRedirect finds the redirection op of the statement starting at from,
// outside parentheses, and returns its target (from the original code) up
// to the end of the statement or an unmatched ")".
func awkRedirect(m, code string, from int, op byte) (string, bool) {
	depth := 0
	for i := from; i < len(m); i++ {
		switch m[i] {
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return "", false
			}
			depth--
		case ';', '\n', '}', '{':
			return "", false
		case op:
			if depth > 0 {
				continue
			}
			j := i + 1
			if j < len(m) && m[j] == op {
				j++ // >>
			}
			end, d := j, 0
			for ; end < len(m) && strings.IndexByte(";\n}", m[end]) < 0; end++ {
				if m[end] == '(' {
					d++
				} else if m[end] == ')' {
					if d == 0 {
						break
					}
					d--
				}
			}
			return code[j:end], true
		}
	}
	return "", false
}

// awkMask blanks awk's strings, regular expressions and comments.
func awkMask(code string) string {
	b := []byte(code)
	prev := byte(0) // the last character outside blanks
	for i := 0; i < len(b); i++ {
		ch := b[i]
		switch {
		case ch == '#':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
			prev = '\n'
			continue
		case ch == '"' || ch == '/' && (prev == 0 || strings.IndexByte("(,~!{};&|\n?:[=", prev) >= 0):
			j := i + 1
			for j < len(b) && b[j] != ch && b[j] != '\n' {
				if b[j] == '\\' && j+1 < len(b) {
					b[j] = ' '
					j++
				}
				b[j] = ' '
				j++
			}
			i = j
			prev = ch
			continue
		}
		if ch != ' ' && ch != '\t' {
			prev = ch
		}
	}
	return string(b)
}
