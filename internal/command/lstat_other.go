//go:build !linux || !(amd64 || arm64)

package command

import "syscall"

// lstatPath is syscall.Lstat(p, st) (cp, p followed by a NUL, is for the
// system call made directly on Linux).
func lstatPath(p string, _ *byte, st *syscall.Stat_t) error { return syscall.Lstat(p, st) }
