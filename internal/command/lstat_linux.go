//go:build linux && (amd64 || arm64)

package command

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// lstatPath is syscall.Lstat(p, st); cp, when not nil, is p followed by a
// NUL, handed to the system call as it is (Lstat copies p to add one).
// fstatat with AT_SYMLINK_NOFOLLOW is the system call Lstat makes here.
func lstatPath(p string, cp *byte, st *syscall.Stat_t) error {
	if cp == nil {
		return syscall.Lstat(p, st)
	}
	fd := unix.AT_FDCWD
	_, _, e := syscall.Syscall6(unix.SYS_NEWFSTATAT, uintptr(fd), uintptr(unsafe.Pointer(cp)), uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
