//go:build !linux

package matcher

// sysRealPath declines where there is no /proc: the portable walk resolves.
func sysRealPath(abs string) (string, bool) { return "", false }
