package defaults

import "strings"

// denyChmod refuses a recursive chmod, chown or chgrp (-R, --recursive,
// --rec...) of /, the home folder (or a folder above it, or another
// user's), or a top-level folder — DenyChmodR; and a recursive chmod whose
// mode makes files writable by everyone (777, 0777, 1777, 666, o+w, a+rwx,
// o=u) wherever it points — DenyChmodWorld. A mode without who letters
// (+w, =rwx) is left to the umask, which keeps others out, and is not
// refused.
func (k *checker) denyChmod(at place, name string, args []string) (string, bool) {
	recursive, mode, targets, modes := chmodArgs(name, args, at.loose)
	if !recursive {
		return "", false
	}
	for _, t := range targets {
		switch k.target(at, t) {
		case rmRoot, rmHome, rmTop, rmSystem:
			return DenyChmodR, true
		}
	}
	if name == "chmod" {
		for _, m := range append(modes, mode) {
			if worldWritable(m) {
				return DenyChmodWorld, true
			}
		}
	}
	return "", false
}

// chmodArgs reads the options of chmod, chown or chgrp: whether -R is
// given, the mode (chmod's first operand, which may look like an option:
// -w, -rwx), and the targets. In loose mode every operand is also a
// possible mode (modes) and a possible target.
func chmodArgs(name string, args []string, loose bool) (recursive bool, mode string, targets, modes []string) {
	opts := "cfvR"
	if name != "chmod" {
		opts = "cfvRhHLP"
	}
	end, ref := false, false
	var ops []string
	for _, a := range args {
		switch {
		case end || a == "-" || !strings.HasPrefix(a, "-"):
			ops = append(ops, a)
		case a == "--":
			end = !loose
		case strings.HasPrefix(a, "--"):
			recursive = recursive || longPrefix(a, "recursive", 3)
			ref = ref || longPrefix(a, "reference", 3)
		case strings.Trim(a[1:], opts) == "":
			recursive = recursive || strings.ContainsRune(a, 'R')
		case name == "chmod":
			ops = append(ops, a) // a mode such as -w
		}
	}
	if loose {
		return recursive, "", ops, ops
	}
	if len(ops) > 0 && !(ref && name == "chmod") {
		mode, ops = ops[0], ops[1:]
	}
	return recursive, mode, ops, nil
}

// worldWritable reports whether a chmod mode gives others write access.
func worldWritable(mode string) bool {
	if mode == "" {
		return false
	}
	if strings.Trim(mode, "01234567") == "" {
		return (mode[len(mode)-1]-'0')&2 != 0
	}
	for _, clause := range strings.Split(mode, ",") {
		i := 0
		for i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0 {
			i++
		}
		others := strings.ContainsAny(clause[:i], "oa")
		for i < len(clause) {
			op := clause[i]
			if strings.IndexByte("+-=", op) < 0 {
				break
			}
			j := i + 1
			for j < len(clause) && strings.IndexByte("+-=", clause[j]) < 0 {
				j++
			}
			perm := clause[i+1 : j]
			if others && op != '-' && strings.ContainsAny(perm, "wugo") {
				return true
			}
			i = j
		}
	}
	return false
}
