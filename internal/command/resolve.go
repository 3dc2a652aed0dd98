package command

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"vibing/internal/cowmap"
)

// Path resolution. A tool path is made absolute and cleaned (Abs), and its
// symlinks are resolved (Real) the way the system resolves them when the
// tool opens the path, so rules can be checked on both.
//
// Where /proc is mounted (Linux), the system does the resolving: one
// open(O_PATH) of the path and one readlink of its /proc/self/fd entry
// give the real path at any depth (resolve_linux.go). A path that does not
// exist yet costs one more open per missing folder and one readlink to see
// whether its last existing name is a dangling symlink (a write through
// such a link creates the link's target, so the target is what is judged).
// Elsewhere, and whenever the system's answer cannot be had, the portable
// walk below (filepath.EvalSymlinks, then the longest existing prefix)
// gives the same answer at the cost of one look-up per component.

// ResolvePath resolves p against env as a tool path is resolved.
func ResolvePath(p string, env Env) Path {
	return resolvePath(p, env, true)
}

// resolvePath is ResolvePath; without links, Real is Abs (PrepareUnresolved).
func resolvePath(p string, env Env, links bool) Path {
	abs, _ := joinPath("", p, env)
	return resolveJoined(p, abs, env, links)
}

// joinPath is p (a tool's path) made absolute against env, as written;
// with pre, it also returns pre followed by it, built in one allocation
// (withPre; "" when p needs none: then abs is p or a folder of env).
func joinPath(pre, p string, env Env) (abs, withPre string) {
	dir := env.Cwd
	switch {
	case p == "~":
		return env.Home, ""
	case strings.HasPrefix(p, "~/"):
		dir, p = env.Home, p[2:] // not Join: it would clean "link/.." away
	case filepath.IsAbs(p):
		return p, ""
	}
	if pre == "" {
		withPre = dir + "/" + p
	} else {
		withPre = pre + dir + "/" + p
	}
	return withPre[len(pre):], withPre
}

// resolveJoined is resolvePath of p, which joinPath made abs.
func resolveJoined(p, abs string, env Env, links bool) Path {
	out := Path{Raw: p}
	if abs == "" {
		abs = "/"
	}
	if !filepath.IsAbs(abs) {
		abs = "/" + abs
	}
	out.Abs = filepath.Clean(abs)
	if !links {
		out.Real = out.Abs
		return out
	}
	if out.Abs == "/dev/null" { // the one target every shell line uses; never a link
		out.Real = out.Abs
		return out
	}
	if target, ok := selfRelative(abs, out.Abs, env); ok {
		// /proc/self names the process that looks, not the tool's: the
		// tool's folder and root are known (and resolved as such), its
		// file descriptors are not (kept as written, never followed here)
		out.Real = target
		if target != out.Abs {
			out.Real = resolveReal(target, filepath.Clean(target), env.Cwd)
		}
		return out
	}
	dotted := hasDotDot(abs)
	if !dotted {
		abs = out.Abs
	}
	out.Real, out.looked = resolveRealStat(sysRealPath, abs, out.Abs, env.Cwd)
	return out
}

// resolveReal resolves abs (absolute, possibly with ".." components; clean
// is its cleaned form). The system resolves "link/.." through the link (to
// the link target's parent), while Clean drops both: when the folder part
// resolves as written, that is where the call really lands; when it does
// not, the system would fail the call, and the clean reading stands.
func resolveReal(abs, clean, cwd string) string {
	return resolveRealBy(sysRealPath, abs, clean, cwd)
}

// resolveRealBy is resolveReal with sys standing for the system's
// resolution (sysRealPath; the tests compare it with none).
//
// A path at most maxShallow names below the working directory, with no
// ".." and no symlink on the way, is looked at name by name from the
// working directory's cached resolution: at most three Lstat, cheaper than
// the system's open and readlink (and than one more open per missing
// folder for a file not yet created).
func resolveRealBy(sys func(string) (string, bool), abs, clean, cwd string) string {
	r, _ := resolveRealStat(sys, abs, clean, cwd)
	return r
}

// resolveRealStat is resolveRealBy that also gives what a look-up of the
// result found, when the resolution looked it up.
func resolveRealStat(sys func(string) (string, bool), abs, clean, cwd string) (string, *fileStat) {
	if abs == clean {
		if r, st, ok := lstatUnderStat(clean, cwd, maxShallow); ok {
			return r, st
		}
	}
	return resolveRealSlow(sys, abs, clean, cwd), nil
}

func resolveRealSlow(sys func(string) (string, bool), abs, clean, cwd string) string {
	if r, ok := sys(abs); ok {
		return r
	}
	if abs == clean {
		if r, ok := lstatUnder(clean, cwd, -1); ok {
			return r
		}
	}
	return walkRealPath(abs)
}

// selfRelative reports whether abs (clean: the path as written is raw)
// goes through /proc/self, /proc/thread-self, /dev/fd or
// /dev/std{in,out,err}, which name the process that resolves the path
// rather than the tool's process, and what it names for the tool: below
// its working directory (env.Cwd) for cwd, below "/" for root (the rest
// as written when raw spells the prefix plainly, so a ".." after a link
// stays the system's), and for anything else (its file descriptors) abs.
func selfRelative(raw, abs string, env Env) (string, bool) {
	for _, pre := range []string{"/proc/self", "/proc/thread-self"} {
		if abs != pre && !strings.HasPrefix(abs, pre+"/") {
			continue
		}
		name, tail := strings.TrimPrefix(abs[len(pre):], "/"), ""
		if i := strings.IndexByte(name, '/'); i >= 0 {
			name, tail = name[:i], name[i:]
		}
		if p := pre + "/" + name; strings.HasPrefix(raw, p+"/") {
			tail = raw[len(p):]
		}
		switch {
		case name == "cwd" && env.Cwd != "":
			return env.Cwd + tail, true
		case name == "root":
			return "/" + strings.TrimLeft(tail, "/"), true
		}
		return abs, true
	}
	for _, pre := range []string{"/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr"} {
		if abs == pre || strings.HasPrefix(abs, pre+"/") {
			return abs, true
		}
	}
	return "", false
}

// hasDotDot reports whether p has a ".." component.
func hasDotDot(p string) bool {
	for i := strings.Index(p, ".."); i >= 0; {
		end := i + 2
		if (i == 0 || p[i-1] == '/') && (end == len(p) || p[end] == '/') {
			return true
		}
		j := strings.Index(p[end:], "..")
		if j < 0 {
			return false
		}
		i = end + j
	}
	return false
}

// realPathUnder is realPath for a clean path, with the shortcut of
// resolveRealBy for one a few names below the working directory.
func RealPathUnder(abs, cwd string) string {
	if abs == "/dev/null" { // the one target every shell line uses; never a link
		return abs
	}
	return resolveRealBy(sysRealPath, abs, abs, cwd)
}

// maxShallow is how many names below the working directory lstatUnder
// looks at before the system's resolution (three system calls) is the
// cheaper: a path such as src/pkg/a.go costs at most three Lstat.
const maxShallow = 3

// lstatUnder resolves abs (clean, below cwd) from the working directory's
// cached resolution (realDir), one Lstat per name, until a name does not
// exist (the rest is appended as written). ok is false when a name is a
// symlink or cannot be looked at, or when abs lies more than maxNames
// names below cwd (maxNames < 0: any depth): the caller resolves it fully.
func lstatUnder(abs, cwd string, maxNames int) (string, bool) {
	r, _, ok := lstatUnderStat(abs, cwd, maxNames)
	return r, ok
}

// lstatUnderStat is lstatUnder that also says what the look-up of the
// result found (a regular file's links, device and inode; nothing there).
// The result is the working directory's resolution followed by the names
// below it, so the look-ups are of its prefixes: no string is built per
// name.
func lstatUnderStat(abs, cwd string, maxNames int) (string, *fileStat, bool) {
	if cwd == "" || cwd == "/" || len(abs) > maxPathLen || !strings.HasPrefix(abs, cwd+"/") {
		return "", nil, false
	}
	rest := abs[len(cwd)+1:]
	if maxNames >= 0 && strings.Count(rest, "/") >= maxNames {
		return "", nil, false
	}
	real := abs // the working folder is no link: abs itself (Real == Abs costs no compare)
	if rc := RealDir(cwd); rc != cwd {
		real = rc + abs[len(cwd):]
	}
	from := len(real) - len(rest) // where the names below the working directory start
	var st syscall.Stat_t
	for i := from; i <= len(real); i++ {
		if i < len(real) && real[i] != '/' {
			continue
		}
		err := syscall.Lstat(real[:i], &st)
		switch {
		case err == nil && st.Mode&syscall.S_IFMT == syscall.S_IFLNK:
			return "", nil, false
		case err == nil:
			continue
		case err == syscall.ENOENT:
			return real, &fileStat{}, true // the rest does not exist yet
		default:
			return "", nil, false
		}
	}
	out := fileStat{}
	if st.Mode&syscall.S_IFMT == syscall.S_IFREG {
		out = fileStat{Regular: true, Nlink: uint64(st.Nlink), Dev: uint64(st.Dev), Inode: uint64(st.Ino)}
	}
	return real, &out, true
}

// maxPathLen is the longest path the system resolves in one call
// (PATH_MAX): a longer prefix cannot be looked up, so none is tried.
const maxPathLen = 4096

// realPath resolves the symlinks of the longest existing prefix of abs (a
// clean absolute path) and appends the rest, so a file not yet created
// below a symlinked folder resolves too. On a loop or another error it
// returns abs. It looks at no more than the first maxPathLen bytes, once
// per folder, so a path of a million folders costs what one of 4 KiB does.
func realPath(abs string) string {
	if r, ok := sysRealPath(abs); ok {
		return r
	}
	return walkRealPath(abs)
}

// maxLinks bounds the symlinks followed for one path, as the system does
// (ELOOP after 40).
const maxLinks = 40

// walkRealPath is realPath without the system's help: the path's
// components are looked at one by one (one Lstat each), a symlink's target
// taking the place of the link as the system does it (so a ".." after a
// link goes to the parent of the link's target). A name that does not
// exist is kept as a folder a write would create (a dangling symlink leads
// to the file a write through it would create), and a ".." after it
// returns to where it was. More than maxLinks links (a loop) gives abs;
// past the first maxPathLen bytes the rest is appended as written, cleaned.
func walkRealPath(abs string) string {
	resolved := "" // clean and absolute; "" stands for "/"
	missing := 0   // how many of resolved's last names do not exist
	rest, tail := abs, ""
	if len(abs) > maxPathLen {
		i := strings.LastIndexByte(abs[:maxPathLen], '/')
		rest, tail = abs[:i], abs[i:]
	}
	links := 0
	for rest != "" {
		comp := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			comp, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		switch comp {
		case "", ".":
			continue
		case "..":
			resolved = strings.TrimSuffix(resolved[:strings.LastIndexByte(resolved, '/')+1], "/")
			if missing > 0 {
				missing--
			}
			continue
		}
		next := resolved + "/" + comp
		if missing > 0 {
			resolved, missing = next, missing+1
			continue
		}
		var fi os.FileInfo
		err := errTooLong
		if len(next) <= maxPathLen {
			fi, err = os.Lstat(next)
		}
		if err != nil {
			// missing, below a file, not searchable or too long: the
			// system looks no further, and neither does this walk
			resolved, missing = next, 1
			continue
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if links++; links > maxLinks {
			return abs
		}
		target, err := os.Readlink(next)
		if err != nil || target == "" {
			resolved, missing = next, 1
			continue
		}
		if strings.HasPrefix(target, "/") {
			resolved = ""
		}
		if rest != "" {
			target += "/" + rest
		}
		rest = target
	}
	if tail != "" {
		return filepath.Clean(resolved + tail)
	}
	if resolved == "" {
		return "/"
	}
	return resolved
}

var errTooLong = errors.New("path too long")

// NewEnv is the Env of a working and a home folder that keeps their
// resolved forms once worked out, for its copies too: a call prepared in
// it then finds them without a look-up by name (realDir).
func NewEnv(cwd, home string) Env {
	return Env{Cwd: cwd, Home: home, dirs: &envDirs{cwd: cwd, home: home}}
}

type envDirs struct {
	cwd, home         string // the folders they were made for
	once              sync.Once
	realCwd, realHome string
}

// realDirs returns the working and home folders resolved (realDir).
func (e *Env) realDirs() (cwd, home string) {
	if d := e.dirs; d != nil && d.cwd == e.Cwd && d.home == e.Home { // (a copy whose folders changed looks them up)
		d.once.Do(func() { d.realCwd, d.realHome = RealDir(d.cwd), RealDir(d.home) })
		return d.realCwd, d.realHome
	}
	return RealDir(e.Cwd), RealDir(e.Home)
}

// realDirs caches the resolved working and home folders: they are resolved
// for every call and change (if ever) far less often than calls come. The
// first maxFastDirs folders are kept in a map read without a lock (a look-up
// costs a plain map access, as it is made several times per call); any
// further ones in moreRealDirs.
var (
	realDirs     cowmap.Map[string]
	moreRealDirs sync.Map
)

const maxFastDirs = 32

func RealDir(dir string) string {
	if dir == "" {
		return ""
	}
	if r, ok := realDirs.Load(dir); ok {
		return r
	}
	if v, ok := moreRealDirs.Load(dir); ok {
		return v.(string)
	}
	r := realPath(filepath.Clean(dir))
	if r == dir {
		r = dir // the same string: a compare with dir is then one of pointers
	}
	kept, ok := realDirs.LoadOrStore(dir, r, maxFastDirs)
	if !ok {
		moreRealDirs.Store(dir, r)
	}
	return kept
}
