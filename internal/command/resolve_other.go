//go:build !linux

package command

// sysRealPath declines where there is no /proc: the portable walk resolves.
func sysRealPath(abs string) (string, bool) { return "", false }
