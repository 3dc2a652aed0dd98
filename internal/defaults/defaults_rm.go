package defaults

import (
	"path"
	"strings"

	"vibing/internal/command"
)

// The boundary of the rm rules. A recursive rm (-r, -R, --recursive or an
// abbreviation such as --rec; -f is not needed, as without a terminal rm
// asks nothing) is refused when a target, after ~, ~user, $HOME, ${HOME:?},
// $PWD, .. and the folder the command runs in are resolved, is or may be:
//
//   - / itself, or every top-level folder at once (/*) — DenyRmRoot;
//   - the home folder, a folder above it, another user's home (~bob), or
//     anything inside the home folder — DenyRmHome;
//   - a top-level folder (/etc, /work, /tmp itself), or anything inside a
//     system folder (/usr/lib, /etc/nginx, /var/lib/x, /home/bob/x) —
//     DenyRmSystem;
//   - the working folder or a folder above it (`rm -rf *` or `.` in the
//     project's top folder, `rm -rf ..`) — DenyRmCwd.
//
// Two places are exempt: what is inside the working folder the session
// started in, even where that lies inside the home folder or a system
// folder (rm -rf build, node_modules, ~/src/proj/dist, sub/out after cd
// sub), and what is inside a temporary folder outside the home folder
// (/tmp/x, /var/tmp/x, /dev/shm/x, macOS /var/folders/..). The working
// folder gives no such room when it is / or a top-level folder, or the home
// folder or a folder above it: from ~, `rm -rf Documents` is refused.
// Anything else (/work/other, /data/x) is left to the lists and the mode.
//
// A glob target stands for what it may match: `*` or `.*` alone is the
// folder itself (`cd / && rm -rf *` is rm -rf /), a narrower pattern is
// something inside it (`/e*c` may be /etc). A variable the engine does not
// know is tried both empty (`rm -rf "$DIR"/*` may be rm -rf /*) and as any
// name (`rm -rf /$X` may be /usr); ${X:?} is never empty. A relative target
// is tried from every folder the command may run in; when the line cd'd to
// more folders than are tracked, from / as well.

// systemDirs are the top-level folders whose content belongs to the system
// or to every user.
var systemDirs = []string{
	"/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32",
	"/media", "/mnt", "/opt", "/proc", "/root", "/run", "/sbin", "/snap", "/srv",
	"/sys", "/usr", "/var", "/nix", "/private", "/Applications", "/Library", "/System", "/Users", "/Volumes",
}

// tempDirs are the folders whose content may be removed.
var tempDirs = []string{"/tmp", "/var/tmp", "/dev/shm", "/private/tmp", "/private/var/tmp", "/var/folders", "/private/var/folders"}

// unknownPart stands, in a resolved target, for a part only known at run time.
const unknownPart = "\x00"

// rmClass is how dangerous removing a path recursively is, the worst last.
type rmClass int

const (
	rmOK       rmClass = iota
	rmCwd              // the working folder or a folder above it
	rmInSystem         // inside a system folder
	rmInHome           // inside the home folder
	rmTop              // a top-level folder that is not a system folder
	rmSystem           // a top-level system folder
	rmHome             // the home folder or a folder above it, or another user's home
	rmRoot             // / itself
)

var rmNames = [...]string{rmRoot: DenyRmRoot, rmHome: DenyRmHome, rmInHome: DenyRmHome, rmTop: DenyRmSystem,
	rmSystem: DenyRmSystem, rmInSystem: DenyRmSystem, rmCwd: DenyRmCwd}

// bounds are the folders the classification is made against: the home
// and working folders as given and with their symlinks resolved.
type bounds struct {
	home, cwd string
	homes     []string
	cwds      []string
	project   bool // what is inside cwd may be removed
}

func newBounds(env command.Env) bounds {
	b := bounds{home: cleanAbs(env.Home), cwd: cleanAbs(env.Cwd)}
	for _, d := range []struct {
		p   string
		all *[]string
	}{{b.home, &b.homes}, {b.cwd, &b.cwds}} {
		if d.p != "" {
			*d.all = append(*d.all, d.p)
			if r := command.RealDir(d.p); r != d.p && r != "" {
				*d.all = append(*d.all, r)
			}
		}
	}
	b.project = b.cwd != "" && depth(b.cwd) >= 2 && !atOrAbove(b.cwd, b.homes)
	return b
}

// atOrAbove reports whether p is one of dirs or a folder above one.
func atOrAbove(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || below(p, d) {
			return true
		}
	}
	return false
}

func cleanAbs(p string) string {
	if p == "" || p[0] != '/' {
		return ""
	}
	return path.Clean(p)
}

// below reports whether p lies strictly inside dir.
func below(dir, p string) bool {
	if dir == "/" {
		return p != "/" && strings.HasPrefix(p, "/")
	}
	return len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir)
}

func depth(p string) int {
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}

func belowAny(dirs []string, p string) bool {
	for _, d := range dirs {
		if below(d, p) {
			return true
		}
	}
	return false
}

func isSystemDir(p string) bool {
	for _, d := range systemDirs {
		if p == d {
			return true
		}
	}
	return false
}

// classify places a clean absolute path.
func (b bounds) classify(p string) rmClass {
	switch {
	case p == "/":
		return rmRoot
	case atOrAbove(p, b.homes):
		return rmHome
	case depth(p) == 1:
		if isSystemDir(p) {
			return rmSystem
		}
		return rmTop
	case atOrAbove(p, b.cwds):
		return rmCwd
	case b.project && belowAny(b.cwds, p):
		return rmOK
	case belowAny(b.homes, p):
		return rmInHome
	case belowAny(tempDirs, p):
		return rmOK
	case belowAny(systemDirs, p):
		return rmInSystem
	}
	return rmOK
}

// classifyInside places the entries of dir whose name matches pat.
func (b bounds) classifyInside(dir, pat string) rmClass {
	if dir == "/" {
		for _, d := range systemDirs {
			if globMatch(pat, d[1:]) {
				return rmSystem
			}
		}
		return rmTop
	}
	for _, above := range []struct {
		dirs []string
		c    rmClass
	}{{b.homes, rmHome}, {b.cwds, rmCwd}} {
		for _, d := range above.dirs {
			if below(dir, d) && globMatch(pat, nextName(dir, d)) {
				return above.c
			}
		}
	}
	return b.classify(dir + "/" + unknownPart)
}

// nextName is the name of the entry of dir that p lies in.
func nextName(dir, p string) string {
	rest := strings.TrimPrefix(p[len(dir):], "/")
	name, _, _ := strings.Cut(rest, "/")
	return name
}

// globMatch matches one path component against a pattern in which
// unknownPart stands for any text; a pattern it cannot read matches.
func globMatch(pat, name string) bool {
	ok, err := path.Match(strings.ReplaceAll(pat, unknownPart, "*"), name)
	return ok || err != nil
}

// place is where a command runs, for its relative paths.
type place struct {
	dirs   []string // the folders the command may run in
	loose  bool     // raw words of a line that did not parse: "--" ends no options
	unsure bool     // a cd went somewhere unknown: dirs are the folders the line named
}

func (k *checker) placeOf(cmd *command.Command) place {
	dirs := make([]string, 0, len(cmd.Dirs)+1)
	for _, d := range cmd.Dirs {
		if d = cleanAbs(d); d != "" {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) == 0 && k.b.cwd != "" {
		dirs = append(dirs, k.b.cwd)
	}
	if cmd.DirsFrom == command.DirsFull {
		dirs = append(dirs, "/")
	}
	return place{dirs: dirs, unsure: cmd.DirsFrom != command.DirsKnown}
}

// rmArgs reads rm's options (clusters such as -rf, long options and their
// abbreviations, anywhere among the operands as GNU rm permutes them).
func rmArgs(args []string, loose bool) (recursive bool, targets []string) {
	end := false
	for _, a := range args {
		switch {
		case end || a == "-" || !strings.HasPrefix(a, "-"):
			targets = append(targets, a)
		case a == "--":
			end = !loose
		case strings.HasPrefix(a, "--"):
			recursive = recursive || longPrefix(a, "recursive", 1)
		default:
			recursive = recursive || strings.ContainsAny(a[1:], "rR")
		}
	}
	return recursive, targets
}

func (k *checker) denyRm(at place, args []string) (string, bool) {
	recursive, targets := rmArgs(args, at.loose)
	if !recursive {
		return "", false
	}
	for _, t := range targets {
		if c := k.target(at, t); c != rmOK {
			return rmNames[c], true
		}
	}
	return "", false
}

// target classifies one operand of a recursive rm, chmod or chown: the
// worst of what it may resolve to.
func (k *checker) target(at place, t string) rmClass {
	worst := rmOK
	forms := k.forms(t)
	t0 := forms[0]
	for i, form := range forms {
		var abs []string
		switch {
		case form == "":
			continue
		case strings.HasPrefix(form, otherHome):
			return rmHome
		case form[0] == '/':
			abs = []string{form}
		case strings.HasPrefix(form, unknownPart):
			continue // nothing known of where it lies
		default:
			for _, d := range at.dirs {
				abs = append(abs, d+"/"+form)
			}
		}
		for _, p := range abs {
			if k.checks--; k.checks < 0 {
				k.over = true
				return worst
			}
			c := k.classifyPattern(p)
			if i > 0 && c == rmTop && strings.HasPrefix(t0, unknownPart) {
				continue // an unknown start left empty: /build stands for $X/build
			}
			if at.unsure && c == rmCwd && form[0] != '/' {
				continue // cd "$D" && rm -rf *: the working folder is only one guess
			}
			if c > worst {
				worst = c
			}
		}
	}
	return worst
}

// classifyPattern places an absolute path that may hold glob characters
// and unknown parts, as written and through the symlinks it goes through:
// the folder part is followed, the last name only when a slash ends it
// (`rm -rf homelink/` empties the folder the link points to).
func (k *checker) classifyPattern(p string) rmClass {
	trailing := strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/.")
	var comps []string
	for _, c := range strings.Split(p, "/") {
		switch c {
		case "", ".":
		case "..":
			if len(comps) > 0 {
				comps = comps[:len(comps)-1]
			}
		default:
			comps = append(comps, c)
		}
	}
	for i, c := range comps {
		if !strings.ContainsAny(c, "*?["+unknownPart) {
			continue
		}
		dir := "/" + strings.Join(comps[:i], "/")
		whole := i == len(comps)-1 && strings.Trim(c, "*?.") == "" && strings.Contains(c, "*")
		worst := rmOK
		for _, d := range []string{dir, k.real(dir)} {
			if whole {
				worst = max(worst, k.b.classify(d)) // * or .* alone: the folder itself
			} else {
				worst = max(worst, k.b.classifyInside(d, c))
			}
		}
		return worst
	}
	abs := "/" + strings.Join(comps, "/")
	res := k.real(abs)
	if !trailing && len(comps) > 0 {
		res = path.Join(k.real(path.Dir(abs)), comps[len(comps)-1])
	}
	return max(k.b.classify(abs), k.b.classify(res))
}

// real resolves the symlinks of a clean absolute path (counted against
// the call's checks, as it asks the file system).
func (k *checker) real(p string) string {
	if p == "/" {
		return p
	}
	if k.checks -= 64; k.checks < 0 {
		k.over = true
		return p
	}
	return command.RealPathUnder(p, k.b.cwd)
}

// forms are the texts a target may stand for, ~ expanded: first with every
// part only known at run time as unknownPart, then (when one may be empty)
// with those parts empty. Another user's home (~bob) becomes otherHome.
func (k *checker) forms(t string) []string {
	full, empty, maybeEmpty := k.expandVars(t)
	out := []string{k.tilde(full)}
	if maybeEmpty {
		out = append(out, k.tilde(empty))
	}
	return out
}

// otherHome stands for the home folder of another user.
const otherHome = "/" + unknownPart + "home" + unknownPart

func (k *checker) tilde(t string) string {
	if !strings.HasPrefix(t, "~") {
		return t
	}
	user, rest, _ := strings.Cut(t[1:], "/")
	if rest != "" || strings.HasSuffix(t, "/") {
		rest = "/" + rest
	}
	switch {
	case user == "" && k.b.home != "":
		return k.b.home + rest
	case user == "":
		return otherHome
	case user == "+":
		return "." + rest
	case user == "-":
		return unknownPart + rest
	case k.b.home != "" && user == path.Base(k.b.home):
		return k.b.home + rest
	}
	return otherHome
}

// expandVars resolves the shell expansions left in a word (the engine gives
// the source text of a word it could not resolve): quotes and backslashes
// go, $HOME and ${HOME<op>..} become the home folder, $PWD at the start
// the folder the command runs in, and anything else unknownPart in full and
// nothing in empty (unless it cannot be empty: ${X:?}).
func (k *checker) expandVars(t string) (full, empty string, maybeEmpty bool) {
	if !strings.ContainsAny(t, "$`\"'\\") {
		return t, t, false
	}
	var f, e strings.Builder
	both := func(s string) { f.WriteString(s); e.WriteString(s) }
	unknown := func(canBeEmpty bool) {
		f.WriteString(unknownPart)
		if canBeEmpty {
			maybeEmpty = true
		} else {
			e.WriteString(unknownPart)
		}
	}
	for i := 0; i < len(t); i++ {
		ch := t[i]
		switch {
		case ch == '"' || ch == '\'':
		case ch == '\\' && i+1 < len(t):
			i++
			both(t[i : i+1])
		case ch == '`':
			j := strings.IndexByte(t[i+1:], '`')
			if j < 0 {
				j = len(t) - i - 1
			}
			i += j + 1
			unknown(true)
		case ch == '$' && i+1 < len(t):
			name, n := paramAt(t[i+1:])
			if n == 0 {
				both("$")
				continue
			}
			i += n
			switch {
			case (name == "HOME" || name == "HOME?") && k.b.home != "":
				both(k.b.home)
			case (name == "PWD" || name == "PWD?") && f.Len() == 0:
				both(".")
			case strings.HasSuffix(name, "?"):
				unknown(false)
			default:
				unknown(true)
			}
		default:
			both(t[i : i+1])
		}
	}
	return f.String(), e.String(), maybeEmpty
}

// paramAt reads the expansion after a "$": the variable's name ("X?" when
// ${X:?..} or ${X?..} promise a value, "X" when ${X}, ${X:-..} and the like
// give its value when set, "" for anything else) and its length.
func paramAt(s string) (string, int) {
	switch {
	case s[0] == '{':
		d, j := 0, 0
		for j = 0; j < len(s); j++ {
			if s[j] == '{' {
				d++
			} else if s[j] == '}' {
				if d--; d == 0 {
					break
				}
			}
		}
		if j == len(s) {
			j--
		}
		inner := s[1:max(j, 1)]
		n := 0
		for n < len(inner) && isNameByte(inner[n], n) {
			n++
		}
		name, op := inner[:n], inner[n:]
		switch {
		case name == "":
			return "", j + 1
		case op == "":
			return name, j + 1
		case strings.HasPrefix(op, ":?"), strings.HasPrefix(op, "?"):
			return name + "?", j + 1
		case strings.HasPrefix(op, ":-"), strings.HasPrefix(op, "-"), strings.HasPrefix(op, ":="), strings.HasPrefix(op, "="):
			return name, j + 1
		}
		return "", j + 1
	case s[0] == '(':
		d, j := 0, 0
		for j = 0; j < len(s); j++ {
			if s[j] == '(' {
				d++
			} else if s[j] == ')' {
				if d--; d == 0 {
					break
				}
			}
		}
		if j == len(s) {
			j--
		}
		return "", j + 1
	case strings.IndexByte("@*#?$!-0123456789", s[0]) >= 0:
		return "", 1
	}
	n := 0
	for n < len(s) && isNameByte(s[n], n) {
		n++
	}
	return s[:n], n
}

func isNameByte(c byte, i int) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')
}
