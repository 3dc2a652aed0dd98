package matcher

import (
	"path"
	"strings"
)

// modifies records the path arguments of file-changing commands, as
// written and after brace expansion.
func (s *scriptWalk) modifies(c *Command) {
	s.modifiesArgs(c.Args, c.Dynamic)
	if c.expandedArgs != nil {
		s.modifiesArgs(c.expandedArgs, false)
	}
}

func (s *scriptWalk) modifiesArgs(args []string, dynamic bool) {
	if len(args) == 0 {
		return
	}
	name := path.Base(args[0])
	var paths []string
	operands := func(from int) {
		end := false
		for _, a := range args[from:] {
			if !end && a == "--" {
				end = true
				continue
			}
			if !end && strings.HasPrefix(a, "-") && a != "-" {
				continue
			}
			paths = append(paths, a)
		}
	}
	switch name {
	case "rm", "rmdir", "mv", "cp", "install", "tee", "truncate", "touch", "mkdir", "unlink", "shred", "ln", "rsync":
		operands(1)
	case "chmod", "chown", "chgrp":
		// the first operand is the mode or owner
		operands(1)
		if len(paths) > 0 {
			paths = paths[1:]
		}
	case "sed", "perl":
		inPlace := false
		for _, a := range args[1:] {
			if a == "-i" || strings.HasPrefix(a, "-i") || a == "--in-place" || strings.HasPrefix(a, "--in-place=") ||
				(strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(a, 'i')) {
				inPlace = true
			}
		}
		if inPlace {
			operands(1)
			if len(paths) > 0 && name == "sed" && !hasFlag(args, "-e", "-f", "--expression", "--file") {
				paths = paths[1:] // the script
			}
		}
	case "dd":
		for _, a := range args[1:] {
			if v, ok := strings.CutPrefix(a, "of="); ok {
				paths = append(paths, v)
			}
		}
	}
	for _, p := range paths {
		dyn := dynamic && strings.ContainsAny(p, "$`")
		s.w.c.Modifies = s.appendPaths(s.w.c.Modifies, p, dyn)
		if name == "tee" {
			s.w.c.Writes = s.appendPaths(s.w.c.Writes, p, dyn)
		}
	}
}

func hasFlag(args []string, flags ...string) bool {
	for _, a := range args {
		for _, f := range flags {
			if a == f || strings.HasPrefix(a, f+"=") {
				return true
			}
		}
	}
	return false
}
