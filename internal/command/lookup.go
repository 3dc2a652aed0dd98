package command

import (
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// One look per name per decision: the guard asks whether a word of a Bash
// line names something in a folder (Call.Exists), and the deny and ask
// file rules resolve the same word in the working directory (fastResolve).
// Both read one Lstat of the same path, kept on the Call: never across
// calls (each decision looks at the file system as it is then).

// lookup is what one Lstat of path said.
type lookup struct {
	path  string
	errno syscall.Errno // 0: the name exists
	link  bool          // a symlink (followed by the full resolution)
	st    fileStat      // as far as hard links go (a regular file)
}

// maxLookups bounds the look-ups kept on a call: a line of more words looks
// at the rest without keeping them (a linear search of a few is cheaper
// than a map).
const maxLookups = 8

// lookups are the look-ups made for one call.
type lookups struct {
	mu  sync.Mutex
	n   int
	buf [maxLookups]lookup
	// room for the paths lstatIn builds (and their NULs), so that most
	// cost no allocation: a path in it is read by the look-ups alone,
	// which go with it (Release)
	room [256]byte
	used int
}

// looks returns the call's look-ups, made on the first.
func (c *Call) lookupsOf() *lookups {
	l := c.looks.Load()
	if l == nil {
		// made on the first look-up: a call that looks nothing up (most
		// read-only lines) carries no room for them
		if c.bash != nil {
			l = &c.bash.looks // kept with a Bash call Prepare made
		} else {
			l = new(lookups)
		}
		if !c.looks.CompareAndSwap(nil, l) {
			l = c.looks.Load()
		}
	}
	return l
}

// lstat looks p up once per call (it is not followed if a symlink).
func (c *Call) lstat(p string) lookup {
	l := c.lookupsOf()
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := 0; i < l.n; i++ {
		if l.buf[i].path == p {
			return l.buf[i]
		}
	}
	return l.look(p, nil)
}

// lstatIn is lstat(dir + "/" + name) for a clean absolute folder other
// than "/" and a name without a "/" (joinName's plain case): the path is
// built only when the call has not looked at it yet, together with the
// NUL the system call reads, in the look-ups' room (or one allocation
// once it is full, where Lstat copies it again).
func (c *Call) lstatIn(dir, name string) lookup {
	l := c.lookupsOf()
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(dir) + 1 + len(name)
	for i := 0; i < l.n; i++ {
		if q := l.buf[i].path; len(q) == n && q[len(dir)] == '/' && q[:len(dir)] == dir && q[len(dir)+1:] == name {
			return l.buf[i]
		}
	}
	var b []byte // (b[n] is the NUL)
	if l.used+n+1 <= len(l.room) {
		b = l.room[l.used : l.used+n+1]
		l.used += n + 1
	} else {
		b = make([]byte, n+1)
	}
	copy(b, dir)
	b[len(dir)] = '/'
	copy(b[len(dir)+1:], name)
	b[n] = 0
	p := unsafe.String(&b[0], n)
	if strings.IndexByte(name, 0) >= 0 || strings.IndexByte(dir, 0) >= 0 {
		return l.look(p, nil) // (the system call would read the path to its first NUL: Lstat refuses it)
	}
	return l.look(p, &b[0])
}

// look makes the look-up of p, a path not looked at yet (l is locked);
// cp, when not nil, is p followed by a NUL.
func (l *lookups) look(p string, cp *byte) lookup {
	out := lookup{path: p}
	var st syscall.Stat_t
	for {
		err := lstatPath(p, cp, &st)
		if err == syscall.EINTR {
			continue
		}
		if e, ok := err.(syscall.Errno); ok {
			out.errno = e
		} else if err != nil {
			out.errno = syscall.EIO // (the system call gives an Errno)
		}
		break
	}
	if out.errno == 0 {
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFLNK:
			out.link = true
		case syscall.S_IFREG:
			out.st = fileStat{Regular: true, Nlink: uint64(st.Nlink), Dev: uint64(st.Dev), Inode: uint64(st.Ino)}
		}
	}
	if l.n < maxLookups {
		l.buf[l.n] = out
		l.n++
	}
	return out
}

// Exists reports whether p names something (a symlink counts, whether or
// not its target exists). The look-up is shared with the file rules that
// resolve the same path for this call.
func (c *Call) Exists(p string) bool { return c.lstat(p).errno == 0 }

// ResolveWord is ResolvePath(w, env) for a word of c's line: a plain name in
// the call's working directory that is no symlink resolves through the
// look-up the call already made of it (Exists), anything else in full.
func (c *Call) ResolveWord(w string, env Env) Path {
	if env.Home == c.Env.Home {
		// (the fast reading joins the folder and the name as they are: only
		// for a clean folder is that the cleaned path ResolvePath gives)
		if p, ok := c.fastResolve(argRef{word: w, cwd: env.Cwd}); ok && p.Abs == filepath.Clean(p.Abs) {
			return p
		}
	}
	return ResolvePath(w, env)
}
