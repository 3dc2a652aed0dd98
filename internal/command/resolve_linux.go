//go:build linux

package command

import (
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// procFD is this process's /proc/self/fd folder, opened once: the real
// path of an open file is the target of its entry there. ok is false where
// /proc is not mounted (or is not procfs), and sysRealPath then declines.
var procFD struct {
	once sync.Once
	fd   int
	ok   bool
}

func procFDDir() (int, bool) {
	procFD.once.Do(func() {
		fd, err := unix.Open("/proc/self/fd", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return
		}
		var st unix.Statfs_t
		if unix.Fstatfs(fd, &st) != nil || st.Type != unix.PROC_SUPER_MAGIC {
			unix.Close(fd)
			return
		}
		procFD.fd, procFD.ok = fd, true
	})
	return procFD.fd, procFD.ok
}

// sysRealPath resolves abs (absolute, ".." allowed) by asking the system:
// open(O_PATH) follows every symlink at any depth, and the /proc/self/fd
// entry of the descriptor names where it landed - three system calls for a
// path that exists. For one that does not, the folders above it are opened
// until one exists, and the first missing name is read as a symlink: when
// it is one (dangling: a write through it creates its target), its target
// is resolved instead (at most maxLinks deep). ok is false when the system
// cannot answer (no /proc, a loop, a folder that cannot be searched, a path
// longer than maxPathLen, a ".." below a missing folder): the caller then
// takes the portable walk.
func sysRealPath(abs string) (string, bool) {
	return sysRealPathDepth(abs, 0)
}

func sysRealPathDepth(abs string, depth int) (string, bool) {
	if _, ok := procFDDir(); !ok || len(abs) > maxPathLen || !strings.HasPrefix(abs, "/") {
		return "", false
	}
	fd, err := unix.Open(abs, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err == nil {
		r, ok := fdPath(fd)
		unix.Close(fd)
		return r, ok
	}
	if err != unix.ENOENT && err != unix.ENOTDIR {
		return "", false
	}
	rest := "" // the missing names below p, each with its leading "/"
	p := abs
	for {
		p = strings.TrimRight(p, "/")
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return "", false
		}
		dir, name := p[:i], p[i+1:]
		if dir == "" {
			dir = "/"
		}
		if name == "" || name == "." || name == ".." {
			return "", false // what ".." below a missing folder means is the caller's to say
		}
		dfd, err := unix.Open(dir, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			if err != unix.ENOENT && err != unix.ENOTDIR {
				return "", false
			}
			rest = "/" + name + rest
			p = dir
			continue
		}
		dirReal, ok := fdPath(dfd)
		target, lerr := readlinkAt(dfd, name)
		unix.Close(dfd)
		if !ok {
			return "", false
		}
		switch {
		case lerr == nil:
			// a dangling symlink (or one that leads through a missing
			// folder): what a write through it creates is its target
			if depth >= maxLinks || target == "" {
				return "", false
			}
			if !strings.HasPrefix(target, "/") {
				target = joinDir(dirReal, target)
			}
			r, ok := sysRealPathDepth(target, depth+1)
			if !ok {
				return "", false
			}
			return r + rest, true
		case lerr == unix.EINVAL || lerr == unix.ENOENT || lerr == unix.ENOTDIR:
			return joinDir(dirReal, name) + rest, true // not a symlink, or not there
		}
		return "", false
	}
}

// fdPath is the path the open descriptor fd stands for, as /proc says.
func fdPath(fd int) (string, bool) {
	dir, _ := procFDDir()
	var num [20]byte
	r, err := readlinkAt(dir, string(strconv.AppendInt(num[:0], int64(fd), 10)))
	// "/x (deleted)": removed while we looked; anything not absolute
	// (anon_inode:, pipe:[...]) names no file a rule could speak of
	if err != nil || !strings.HasPrefix(r, "/") || strings.HasSuffix(r, " (deleted)") {
		return "", false
	}
	return r, true
}

// readlinkAt reads the symlink name in the folder dirfd; a target of
// maxPathLen bytes or more is an error, as for the system.
func readlinkAt(dirfd int, name string) (string, error) {
	var small [256]byte
	n, err := unix.Readlinkat(dirfd, name, small[:])
	if err != nil {
		return "", err
	}
	if n < len(small) {
		return string(small[:n]), nil
	}
	big := make([]byte, maxPathLen+1)
	n, err = unix.Readlinkat(dirfd, name, big)
	if err != nil {
		return "", err
	}
	if n > maxPathLen {
		return "", unix.ENAMETOOLONG
	}
	return string(big[:n]), nil
}
