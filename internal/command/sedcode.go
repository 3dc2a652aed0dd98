package command

import "strings"

// What a sed script does besides editing its input: the e command and the
// e flag of s run text as a shell command (GNU sed); r FILE and R FILE
// read a file, w FILE, W FILE and the w flag of s write one. The files are
// checked as the files the command names.

// sedRuns reports whether a sed command line's script runs a command.
func sedRuns(args []string) bool {
	for _, sc := range sedScripts(args) {
		if runs, _ := sedParse(sc); runs {
			return true
		}
	}
	return false
}

// sedFiles returns the files a sed command line's script reads or writes.
func sedFiles(args []string) []string {
	var out []string
	for _, sc := range sedScripts(args) {
		_, files := sedParse(sc)
		out = append(out, files...)
	}
	return out
}

// sedScripts returns the scripts of a sed command line: the values of -e
// and --expression, else the first operand.
func sedScripts(args []string) []string {
	var scripts []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "-e" || a == "--expression") && i+1 < len(args):
			scripts = append(scripts, args[i+1])
			i++
		case strings.HasPrefix(a, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(a, "--expression="))
		case (a == "-f" || a == "--file" || a == "-l" || a == "--line-length") && i+1 < len(args):
			i++
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			if len(scripts) == 0 {
				scripts = append(scripts, a)
			}
			i = len(args)
		}
	}
	return scripts
}

// sedParse reads one script: whether it runs a command, and the files its
// r, R, w, W commands and s///w name (each runs to the end of its line).
func sedParse(script string) (runs bool, files []string) {
	toEnd := func(line string, i int) {
		if name := strings.TrimSpace(line[i:]); name != "" {
			files = append(files, name)
		}
	}
	for _, line := range strings.Split(script, "\n") {
		for i := 0; i < len(line); {
			for i < len(line) && strings.IndexByte(" \t;{}", line[i]) >= 0 {
				i++
			}
			i = sedSkipAddr(line, i)
			if i >= len(line) {
				break
			}
			cmd := line[i]
			i++
			switch cmd {
			case 'e':
				runs = true
				i = len(line)
			case 'r', 'R', 'w', 'W':
				toEnd(line, i)
				i = len(line)
			case 's', 'y':
				if i >= len(line) {
					break
				}
				d := line[i]
				i = sedSkipTo(line, i+1, d) + 1
				i = sedSkipTo(line, i, d) + 1
				if cmd == 'y' {
					continue
				}
				for i < len(line) && strings.IndexByte("gpiImMe0123456789", line[i]) >= 0 {
					runs = runs || line[i] == 'e'
					i++
				}
				if i < len(line) && line[i] == 'w' {
					toEnd(line, i+1)
					i = len(line)
				}
			case 'a', 'i', 'c':
				i = len(line) // text to the end of the line
			default:
				for i < len(line) && line[i] != ';' && line[i] != '}' {
					i++
				}
			}
		}
	}
	return runs, files
}

// sedSkipAddr skips the address before a command (3, $, /re/I, \cREc,
// first~step, a range, !).
func sedSkipAddr(line string, i int) int {
	for i < len(line) {
		c := line[i]
		switch {
		case c == '/':
			i = sedSkipTo(line, i+1, '/') + 1
			for i < len(line) && (line[i] == 'I' || line[i] == 'M') {
				i++
			}
		case c == '\\' && i+1 < len(line):
			i = sedSkipTo(line, i+2, line[i+1]) + 1
		case strings.IndexByte("0123456789$,~!+ \t", c) >= 0:
			i++
		default:
			return i
		}
	}
	return i
}

// sedSkipTo returns the index of the next d not escaped by a backslash (or
// len(line)).
func sedSkipTo(line string, i int, d byte) int {
	for i < len(line) {
		if line[i] == '\\' {
			i += 2
			continue
		}
		if line[i] == d {
			return i
		}
		i++
	}
	return len(line)
}
